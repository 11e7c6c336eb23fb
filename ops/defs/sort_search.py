"""Sorting, searching and statistics: argsort, kthvalue, mode, nanmedian,
unique, unique_consecutive, searchsorted, histogram, bincount, the scans
cummax / cummin / cumprod / logcumsumexp and logsumexp.

median, quantile, nanquantile, nansum, nanmean, count_nonzero and bucketize
are Paddle Python composites over these and other ops (tensor/sort_search.py).

Paddle's error kinds: an axis out of range is InvalidArgument (ValueError)
except for cummax / cummin / logcumsumexp (OutOfRange: IndexError); a
searchsorted shape mismatch is Unavailable (RuntimeError); a non-integer
unique dtype is Unimplemented (NotImplementedError).
"""
import numpy as np

from ..declare import defop, defgrad, grad_op, REQUIRED
from ..dtypes import ENUM_TO_NP
from ..errors import NOT_FOUND, UNAVAILABLE, UNIMPLEMENTED
from ..meta_rules import norm_axis, reduce_shape, INT64, INT32, OUT_OF_RANGE
from ..registry import Meta, OpError

FLOAT64 = np.dtype("float64")


def _numel(shape):
    return -1 if any(d == -1 for d in shape) else int(np.prod(shape, dtype=np.int64))


def index_dtype(enum, op, kind=UNIMPLEMENTED):
    """The numpy dtype of an index output's ``dtype`` attribute (int32 or int64);
    another is an error of ``kind`` (unique's: Unimplemented, the scans':
    InvalidArgument)."""
    if enum not in (2, 3):
        raise OpError(f"op '{op}': attribute dtype must be int32 (2) or int64 (3), got "
                      f"{ENUM_TO_NP.get(enum, enum)}", kind=kind)
    return ENUM_TO_NP[enum]


# ------------------------------------------------------------------ argsort
def _argsort_infer(metas, attrs):
    x = metas[0]
    nd, axis = len(x.shape), attrs["axis"]
    if nd == 0 and axis not in (0, -1):
        raise OpError(f"argsort: axis ({axis}) must be 0 or -1 for a 0-D input")
    if nd:
        norm_axis(axis, nd, "argsort: axis")
    return (x, Meta(x.shape, INT64))


_ARGSORT_ATTRS = (("axis", "INT", -1), ("descending", "BOOLEAN", False))
defgrad("argsort_grad", "Indices X Out@GRAD", "X@GRAD", _ARGSORT_ATTRS,
        infer=lambda m, a: (m[1],))
defop("argsort", "X", "Out Indices", _ARGSORT_ATTRS, infer=_argsort_infer,
      grad=grad_op("argsort_grad", uses=("Indices", "X")), no_need_buffer=("X",))


# ------------------------------------------------------------------ kthvalue / mode
def _select_shape(x, axis, keepdim, op):
    """The shape of a reduction along one axis (kthvalue, mode)."""
    nd = len(x.shape)
    if nd == 0:
        if axis not in (0, -1):
            raise OpError(f"{op}: axis must be 0 or -1 for a 0-D input, got {axis}")
        return (), 0
    ax = norm_axis(axis, nd, f"{op}: axis")
    if keepdim:
        return tuple(1 if i == ax else d for i, d in enumerate(x.shape)), ax
    return tuple(d for i, d in enumerate(x.shape) if i != ax), ax


def _kthvalue_infer(metas, attrs):
    x, k = metas[0], attrs["k"]
    if k < 1:
        raise OpError(f"kthvalue: k must be >= 1, got {k}")
    shape, ax = _select_shape(x, attrs["axis"], attrs["keepdim"], "kthvalue")
    size = x.shape[ax] if x.shape else 1
    if size != -1 and k > size:
        raise OpError(f"kthvalue: k ({k}) is larger than the size {size} of axis "
                      f"{attrs['axis']} (X shape {list(x.shape)})")
    return (Meta(shape, x.dtype), Meta(shape, INT64))


def _mode_infer(metas, attrs):
    x = metas[0]
    shape, _ = _select_shape(x, attrs["axis"], attrs["keepdim"], "mode")
    return (Meta(shape, x.dtype), Meta(shape, INT64))


_KTH_ATTRS = (("k", "INT", 1), ("axis", "INT", -1), ("keepdim", "BOOLEAN", False))
defgrad("kthvalue_grad", "X Indices Out@GRAD", "X@GRAD", _KTH_ATTRS,
        infer=lambda m, a: (m[0],))
defop("kthvalue", "X", "Out Indices", _KTH_ATTRS, infer=_kthvalue_infer,
      grad=grad_op("kthvalue_grad", uses=("X", "Indices")), no_need_buffer=("X",))

_MODE_ATTRS = (("axis", "INT", -1), ("keepdim", "BOOLEAN", False))
defgrad("mode_grad", "X Indices Out@GRAD", "X@GRAD", _MODE_ATTRS, infer=lambda m, a: (m[0],))
defop("mode", "X", "Out Indices", _MODE_ATTRS, infer=_mode_infer,
      grad=grad_op("mode_grad", uses=("X", "Indices")), no_need_buffer=("X",))


# ------------------------------------------------------------------ nanmedian
def nanmedian_axes(axis, nd):
    """The reduced axes of nanmedian, normalized and checked (every axis when empty)."""
    if not axis:
        return list(range(nd))
    out = []
    for a in axis:
        if nd == 0 and a in (0, -1):
            continue
        a = norm_axis(a, nd, "nanmedian: each element of axis")
        if a in out:
            raise OpError(f"nanmedian: axis has duplicated elements: {a}")
        out.append(a)
    return out


def _nanmedian_infer(metas, attrs):
    x = metas[0]
    axes = nanmedian_axes(attrs["axis"], len(x.shape))
    shape = reduce_shape(x.shape, axes, attrs["keepdim"], False) if axes else \
        (tuple(x.shape) if attrs["keepdim"] else ())
    # MedianIndex: the two middle positions (in the reduced row) of each output
    return (Meta(shape, x.dtype), Meta(shape + (2,), INT64))


_NANMEDIAN_ATTRS = (("axis", "INTS", []), ("keepdim", "BOOLEAN", True))
defgrad("nanmedian_grad", "X MedianIndex Out@GRAD", "X@GRAD", _NANMEDIAN_ATTRS,
        infer=lambda m, a: (m[0],))
defop("nanmedian", "X", "Out MedianIndex~", _NANMEDIAN_ATTRS, infer=_nanmedian_infer,
      grad=grad_op("nanmedian_grad", uses=("X", "MedianIndex")), no_need_buffer=("X",))


# ------------------------------------------------------------------ unique
def unique_axis(axis, nd, op):
    """None (flatten) or the axis of unique / unique_consecutive, checked."""
    if not axis:
        return None
    a = axis[0]
    if a >= nd:
        raise OpError(f"{op}: the axis ({a}) should be less than the rank ({nd}) of x")
    if a + nd < 0:
        raise OpError(f"{op}: the axis ({a}) + rank(x) ({nd}) should be >= 0")
    return a % nd


def _unique_infer(metas, attrs):
    x = metas[0]
    it = index_dtype(attrs["dtype"], "unique")
    ax = unique_axis(attrs["axis"], len(x.shape), "unique")
    if ax is None:
        out, inverse = (-1,), (_numel(x.shape),)
    else:
        out = tuple(-1 if i == ax else d for i, d in enumerate(x.shape))
        inverse = (x.shape[ax],)
    return (Meta(out, x.dtype), Meta((-1,), it), Meta(inverse, it), Meta((-1,), it))


defop("unique", "X", "Out Indices? Index Counts?",
      (("return_index", "BOOLEAN", False), ("return_inverse", "BOOLEAN", False),
       ("return_counts", "BOOLEAN", False), ("axis", "INTS", []), ("dtype", "INT", 3),
       ("is_sorted", "BOOLEAN", False)), infer=_unique_infer)


def _unique_consecutive_infer(metas, attrs):
    x = metas[0]
    it = index_dtype(attrs["dtype"], "unique_consecutive")
    ax = unique_axis(attrs["axis"], len(x.shape), "unique_consecutive")
    if ax is None:
        out, inverse = (-1,), (_numel(x.shape),)
    else:
        out = tuple(-1 if i == ax else d for i, d in enumerate(x.shape))
        inverse = (x.shape[ax],)
    return (Meta(out, x.dtype), Meta(inverse, it), Meta((-1,), it))


defop("unique_consecutive", "X", "Out Index? Counts?",
      (("return_inverse", "BOOLEAN", False), ("return_counts", "BOOLEAN", False),
       ("axis", "INTS", []), ("dtype", "INT", 5)), infer=_unique_consecutive_infer)


# ------------------------------------------------------------------ searchsorted
_SEARCH_DTYPES = (np.dtype("float32"), np.dtype("float64"), INT32, INT64)


def _searchsorted_infer(metas, attrs):
    seq, values = metas
    if not seq.shape:
        raise OpError("searchsorted: sorted_sequence must have rank >= 1, got a 0-D tensor")
    if np.dtype(values.dtype) not in _SEARCH_DTYPES:
        raise OpError(f"searchsorted: values must be float32, float64, int32 or int64, "
                      f"got {np.dtype(values.dtype)}")
    if len(seq.shape) > 1:
        lead_s, lead_v = seq.shape[:-1], values.shape[:-1]
        if len(lead_s) != len(lead_v) or any(
                a != b and a != -1 and b != -1 for a, b in zip(lead_s, lead_v)):
            raise OpError(f"searchsorted: the dimensions of sorted_sequence {list(seq.shape)} "
                          f"and values {list(values.shape)} do not match: sorted_sequence "
                          f"must be 1-D or share all but the last dimension with values",
                          kind=UNAVAILABLE)
    return (Meta(values.shape, INT32 if attrs["out_int32"] else INT64),)


defop("searchsorted", "SortedSequence Values", "Out",
      (("out_int32", "BOOLEAN", False), ("right", "BOOLEAN", False)),
      infer=_searchsorted_infer)


# ------------------------------------------------------------------ histogram / bincount
def _histogram_infer(metas, attrs):
    bins, lo, hi = attrs["bins"], attrs["min"], attrs["max"]
    if bins < 1:
        raise OpError(f"histogram: bins must be >= 1, got {bins}")
    if hi < lo:
        raise OpError(f"histogram: max must be larger than or equal to min, got max {hi}, "
                      f"min {lo}")
    return (Meta((bins,), INT64),)


defop("histogram", "X", "Out", (("bins", "INT", 100), ("min", "INT", 0), ("max", "INT", 0)),
      infer=_histogram_infer)


def bincount_dtype(weights_dtype):
    """Paddle's output dtype: int64 counts, or the float weights' dtype (float64 for
    integer weights)."""
    if weights_dtype is None:
        return INT64
    wd = np.dtype(weights_dtype)
    return wd if wd.kind == "f" else FLOAT64


def _bincount_infer(metas, attrs):
    x, w = metas
    if len(x.shape) != 1:
        raise OpError(f"bincount: x must be a 1-D tensor, got shape {list(x.shape)}")
    if w is not None and tuple(w.shape) != tuple(x.shape) and -1 not in w.shape + x.shape:
        raise OpError(f"bincount: weights must have the shape of x {list(x.shape)}, got "
                      f"{list(w.shape)}")
    # Paddle picks bincount's kernel by Weights when given: it has none for bool,
    # float16 or the small integers
    if w is not None and np.dtype(w.dtype) not in _SEARCH_DTYPES:
        raise OpError(f"bincount: no kernel for weights of dtype {np.dtype(w.dtype)} "
                      f"(float32, float64, int32, int64)", kind=NOT_FOUND)
    if attrs["minlength"] < 0:
        raise OpError(f"bincount: minlength must be >= 0, got {attrs['minlength']}")
    return (Meta((-1,), bincount_dtype(None if w is None else w.dtype)),)


defop("bincount", "X Weights?", "Out", (("minlength", "INT", 0),), infer=_bincount_infer)


# ------------------------------------------------------------------ scans
def _cumext_infer(metas, attrs):
    x = metas[0]
    nd = len(x.shape)
    it = index_dtype(attrs["dtype"], "cummax/cummin", ValueError)
    if nd:
        norm_axis(attrs["axis"], nd, "axis", OUT_OF_RANGE)
    elif attrs["axis"] not in (0, -1):
        raise OpError(f"axis {attrs['axis']} is out of range for a 0-D tensor",
                      kind=OUT_OF_RANGE)
    return (x, Meta(x.shape, it))


_CUMEXT_ATTRS = (("axis", "INT", -1), ("dtype", "INT", 3))
for _t in ("cummax", "cummin"):
    defgrad(f"{_t}_grad", "x indices out@GRAD", "x@GRAD", _CUMEXT_ATTRS,
            infer=lambda m, a: (m[0],))
    defop(_t, "x", "out indices", _CUMEXT_ATTRS, infer=_cumext_infer,
          grad=grad_op(f"{_t}_grad", uses=("x", "indices"), gouts=("out",), wrt=("x",)),
          no_need_buffer=("x",))


def _cumprod_infer(metas, attrs):
    x, dim = metas[0], attrs["dim"]
    nd = len(x.shape)
    if nd == 0:
        if dim not in (0,):
            raise OpError(f"cumprod: dim should be 0 for a 0-D input, got {dim}")
    else:
        norm_axis(dim, nd, "cumprod: dim")
    return (x,)


defgrad("cumprod_grad", "X Out Out@GRAD", "X@GRAD", (("dim", "INT", REQUIRED),),
        infer=lambda m, a: (m[0],))
defop("cumprod", "X", "Out", (("dim", "INT", REQUIRED),), infer=_cumprod_infer,
      grad=grad_op("cumprod_grad", uses=("X", "Out")))


def _logcumsumexp_infer(metas, attrs):
    x = metas[0]
    if attrs["flatten"]:
        return (Meta((_numel(x.shape),), x.dtype),)
    if x.shape:
        norm_axis(attrs["axis"], len(x.shape), "axis", OUT_OF_RANGE)
    return (x,)


_LCSE_ATTRS = (("axis", "INT", -1), ("flatten", "BOOLEAN", False),
               ("exclusive", "BOOLEAN", False), ("reverse", "BOOLEAN", False))
defgrad("logcumsumexp_grad", "X Out Out@GRAD", "X@GRAD", _LCSE_ATTRS,
        infer=lambda m, a: (m[0],))
defop("logcumsumexp", "X", "Out", _LCSE_ATTRS, infer=_logcumsumexp_infer,
      grad=grad_op("logcumsumexp_grad", uses=("X", "Out")))


# ------------------------------------------------------------------ logsumexp
def _logsumexp_infer(metas, attrs):
    x = metas[0]
    nd = len(x.shape)
    for a in attrs["axis"]:
        if nd and not -nd <= a < nd:
            raise OpError(f"logsumexp: the reduce dim index {a} should be in the range "
                          f"[-{nd}, {nd})")
    shape = reduce_shape(x.shape, attrs["axis"], attrs["keepdim"], attrs["reduce_all"])
    return (Meta(shape, x.dtype),)


_LSE_ATTRS = (("axis", "INTS", [0]), ("keepdim", "BOOLEAN", False),
              ("reduce_all", "BOOLEAN", False))
defgrad("logsumexp_grad", "X Out Out@GRAD", "X@GRAD", _LSE_ATTRS, infer=lambda m, a: (m[0],))
defop("logsumexp", "X", "Out", _LSE_ATTRS, infer=_logsumexp_infer,
      grad=grad_op("logsumexp_grad", uses=("X", "Out")))
