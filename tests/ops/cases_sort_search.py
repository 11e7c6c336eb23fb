"""Op-spec cases: argsort, kthvalue, mode, nanmedian, unique, unique_consecutive,
searchsorted, histogram, bincount, cummax, cummin, cumprod, logcumsumexp,
logsumexp.  References are numpy; ties and NaN follow Paddle's CPU order (a
stable sort, NaN last ascending and first descending)."""
import numpy as np

from .spec import Case, rand

M = rand(3, 5, seed=41)                       # distinct values: no ties
A = rand(2, 3, 4, seed=42)
NAN = np.array([[3.0, np.nan, 1.0, np.nan, 2.0], [0.5, 0.25, 0.75, 1.5, -1.0]])
TIES = np.array([[3, 1, 3, 2, 1, 3], [5, 5, 1, 1, 2, 2]], "int64")
POS = rand(2, 4, low=0.5, high=1.5, seed=43)
ZEROS = np.array([[2.0, 0.0, 3.0, 0.0, 4.0], [0.5, 1.5, 0.0, 2.0, 1.25]])


def _desc(x, axis):
    """Stable descending order with NaN first (Paddle's descending argsort)."""
    xm = np.moveaxis(x, axis, -1)
    key = np.where(np.isnan(xm), -np.inf, -xm) if xm.dtype.kind == "f" else -xm
    nan_first = ~np.isnan(xm) if xm.dtype.kind == "f" else np.zeros(xm.shape, bool)
    order = np.lexsort((key, nan_first), axis=-1)
    return np.moveaxis(order, -1, axis)


def _sorted(x, axis, descending=False):
    idx = _desc(x, axis) if descending else np.argsort(x, axis=axis, kind="stable")
    return np.take_along_axis(x, idx, axis=axis), idx


def _kth(x, k, axis, keepdim=False):
    s, i = _sorted(x, axis)
    v, j = np.take(s, [k - 1], axis=axis), np.take(i, [k - 1], axis=axis)
    return (v, j) if keepdim else (np.squeeze(v, axis), np.squeeze(j, axis))


def _mode_1d(row):
    vals, counts = np.unique(row, return_counts=True)
    v = vals[np.argmax(counts)]
    return v, np.flatnonzero(row == v)[-1]


def _mode(x, axis, keepdim=False):
    xm = np.moveaxis(x, axis, -1)
    pairs = [_mode_1d(r) for r in xm.reshape(-1, xm.shape[-1])]
    v = np.array([p[0] for p in pairs], x.dtype).reshape(xm.shape[:-1])
    i = np.array([p[1] for p in pairs], np.int64).reshape(xm.shape[:-1])
    return (np.expand_dims(v, axis), np.expand_dims(i, axis)) if keepdim else (v, i)


def _int_median(a, axis):
    s = np.sort(a, axis=axis)
    n = a.shape[axis]
    lo, hi = np.take(s, (n - 1) // 2, axis=axis), np.take(s, n // 2, axis=axis)
    return np.trunc((lo + hi) / 2).astype(a.dtype)


def _cum_extreme(x, axis, take_max):
    out = (np.maximum if take_max else np.minimum).accumulate(x, axis=axis)
    xm, om = np.moveaxis(x, axis, -1), np.moveaxis(out, axis, -1)
    idx = np.zeros(xm.shape, np.int64)
    for pos in np.ndindex(xm.shape[:-1]):
        for j in range(xm.shape[-1]):
            hit = xm[pos + (j,)] == om[pos + (j,)] or np.isnan(xm[pos + (j,)])
            idx[pos + (j,)] = j if (hit or j == 0) else idx[pos + (j - 1,)]
    return out, np.moveaxis(idx, -1, axis)


def _lcse(x, axis, exclusive=False, reverse=False):
    if reverse:
        x = np.flip(x, axis)
    out = np.logaddexp.accumulate(x, axis=axis)
    if exclusive:
        low = np.full_like(np.take(x, [0], axis=axis), np.finfo(x.dtype).min)
        out = np.concatenate([low, np.take(out, np.arange(x.shape[axis] - 1), axis=axis)],
                             axis=axis)
    return np.flip(out, axis) if reverse else out


def _lse(x, axis, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis)


def _searchsorted(seq, v, right=False):
    side = "right" if right else "left"
    if seq.ndim == 1:
        out = np.searchsorted(seq, v, side=side)
    else:
        out = np.stack([np.searchsorted(s, w, side=side)
                        for s, w in zip(seq.reshape(-1, seq.shape[-1]),
                                        v.reshape(-1, v.shape[-1]))]).reshape(v.shape)
    if v.dtype.kind == "f":
        out = np.where(np.isnan(v), seq.shape[-1], out)
    return out.astype(np.int64)


def _first_order_unique(X):
    u, first, inv, cnt = np.unique(X, return_index=True, return_inverse=True,
                                   return_counts=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return u[order], first[order], rank[inv.reshape(-1)], cnt[order]


def _sorted_unique(X):
    u, first, inv, cnt = np.unique(X, return_index=True, return_inverse=True,
                                   return_counts=True)
    return u, first, inv.reshape(-1), cnt


def _consecutive(X):
    keep = np.concatenate([[True], X[1:] != X[:-1]])
    starts = np.flatnonzero(keep)
    return X[keep], np.cumsum(keep) - 1, np.diff(np.append(starts, X.size))


CASES = [
    # ---------------------------------------------------------------- argsort
    Case("argsort", {"X": M}, {"axis": 1}, ref=lambda X: _sorted(X, 1),
         grad_outputs=("Out",)),
    Case("argsort", {"X": A}, {"axis": 0, "descending": True}, ref=lambda X: _sorted(X, 0, True),
         grad_outputs=("Out",), id="argsort_desc_axis0"),
    Case("argsort", {"X": TIES}, {}, ref=lambda X: _sorted(X, -1), grad=False,
         id="argsort_ties_stable"),
    Case("argsort", {"X": TIES}, {"descending": True}, ref=lambda X: _sorted(X, -1, True),
         grad=False, id="argsort_ties_desc"),
    Case("argsort", {"X": NAN}, {}, ref=lambda X: _sorted(X, -1), grad=False,
         id="argsort_nan_last"),
    Case("argsort", {"X": NAN}, {"descending": True}, ref=lambda X: _sorted(X, -1, True),
         grad=False, id="argsort_nan_first_desc"),
    Case("argsort", {"X": np.array(2.5)}, {}, ref=lambda X: (X, np.array(0)), id="argsort_0d",
         grad_outputs=("Out",)),
    # ---------------------------------------------------------------- kthvalue / mode
    Case("kthvalue", {"X": M}, {"k": 2}, ref=lambda X: _kth(X, 2, -1), grad_outputs=("Out",)),
    Case("kthvalue", {"X": A}, {"k": 2, "axis": 1, "keepdim": True},
         ref=lambda X: _kth(X, 2, 1, True), grad_outputs=("Out",), id="kthvalue_keepdim"),
    Case("kthvalue", {"X": TIES}, {"k": 3}, ref=lambda X: _kth(X, 3, -1), grad=False,
         id="kthvalue_ties"),
    Case("kthvalue", {"X": NAN}, {"k": 5}, ref=lambda X: _kth(X, 5, -1), grad=False,
         id="kthvalue_nan"),
    Case("mode", {"X": M}, {}, ref=lambda X: _mode(X, -1), grad_outputs=("Out",)),
    Case("mode", {"X": TIES}, {"axis": 1, "keepdim": True}, ref=lambda X: _mode(X, 1, True),
         grad=False, id="mode_ties"),
    Case("mode", {"X": np.array([[1.0, 2.0, 2.0, 1.0, 3.0], [4, 4, 0, 0, 9]])}, {"axis": 0},
         ref=lambda X: _mode(X, 0), grad_outputs=("Out",), id="mode_axis0"),
    # ---------------------------------------------------------------- nanmedian
    Case("nanmedian", {"X": M}, {"axis": [1], "keepdim": False},
         ref=lambda X: np.median(X, axis=1)),
    Case("nanmedian", {"X": rand(4, 6, seed=44)}, {"axis": [1], "keepdim": True},
         ref=lambda X: np.median(X, axis=1, keepdims=True), id="nanmedian_even"),
    Case("nanmedian", {"X": A}, {"axis": [0, 2], "keepdim": False},
         ref=lambda X: np.median(X, axis=(0, 2)), id="nanmedian_axes"),
    Case("nanmedian", {"X": A}, {}, ref=lambda X: np.median(X, keepdims=True),
         id="nanmedian_all_keep"),
    Case("nanmedian", {"X": np.array([[1.0, 2.0, np.nan, 4.0], [4.0, np.nan, np.nan, np.nan],
                                      [np.nan, np.nan, 3.0, 2.0], [np.nan] * 4])},
         {"axis": [1], "keepdim": False}, ref=lambda X: np.array([2.0, 4.0, 2.5, np.nan]),
         grad=False, id="nanmedian_nan"),
    Case("nanmedian", {"X": np.array([[1, 2, 3, 4], [-1, -2, 5, -9], [3, -6, 0, 0]])},
         {"axis": [1], "keepdim": False}, ref=lambda X: _int_median(X, 1), grad=False,
         id="nanmedian_int_toward_zero"),
    # ---------------------------------------------------------------- unique
    Case("unique", {"X": TIES}, {"is_sorted": True}, ref=_sorted_unique, grad=False),
    Case("unique", {"X": np.array([[2, 1, 2], [3, 1, 3], [2, 1, 2]], "int32")},
         {"is_sorted": True, "axis": [0], "dtype": 2},
         ref=lambda X: (X[[0, 1]], np.array([0, 1], "int32"), np.array([0, 1, 0], "int32"),
                        np.array([2, 1], "int32")), grad=False, id="unique_axis0_int32"),
    Case("unique", {"X": np.array([[2.0, 1.0, 2.0], [3.0, 1.0, 3.0]])}, {"is_sorted": True,
                                                                        "axis": [-1]},
         ref=lambda X: (X[:, [1, 0]], np.array([1, 0]), np.array([1, 0, 1]), np.array([1, 2])),
         grad=False, id="unique_axis_last"),
    Case("unique", {"X": np.array([2.0, 3.0, 3.0, 1.0, 5.0, 3.0])}, {},
         ref=_first_order_unique, grad=False, id="unique_first_appearance"),
    # ---------------------------------------------------------------- unique_consecutive
    Case("unique_consecutive", {"X": np.array([1, 1, 2, 2, 3, 1, 1, 2], "int64")},
         {"dtype": 3}, ref=_consecutive, grad=False),
    Case("unique_consecutive", {"X": np.array([[2.0, 1.0], [2.0, 1.0], [3.0, 1.0]])},
         {"dtype": 2, "axis": [0]},
         ref=lambda X: (X[[0, 2]], np.array([0, 0, 1], "int32"), np.array([2, 1], "int32")),
         grad=False, id="unique_consecutive_axis0"),
    # ---------------------------------------------------------------- searchsorted
    Case("searchsorted", {"SortedSequence": np.array([1.0, 3.0, 5.0, 7.0]),
                          "Values": np.array([[0.0, 3.0, 6.0], [7.0, 8.0, np.nan]])}, {},
         ref=lambda SortedSequence, Values: _searchsorted(SortedSequence, Values),
         grad=False),
    Case("searchsorted", {"SortedSequence": np.array([[1, 3, 5], [2, 4, 6]], "int64"),
                          "Values": np.array([[3.0, 0.5], [6.0, 4.5]])},
         {"right": True, "out_int32": True},
         ref=lambda SortedSequence, Values: _searchsorted(
             SortedSequence, Values, True).astype("int32"), grad=False,
         id="searchsorted_rows_right_int32"),
    # ---------------------------------------------------------------- histogram / bincount
    Case("histogram", {"X": np.array([1.0, 2.0, 1.0, 4.0], "float32")}, {"bins": 4},
         ref=lambda X: np.array([2, 1, 0, 1]), grad=False),
    Case("histogram", {"X": np.array([[1, 2], [1, 7]], "int64")}, {"bins": 3},
         ref=lambda X: np.array([3, 0, 1]), grad=False, id="histogram_int"),
    Case("histogram", {"X": np.array([0.3, 0.7, 0.9, 1.5, -0.2])}, {"bins": 2, "min": 0, "max": 1},
         ref=lambda X: np.array([1, 2]), grad=False, id="histogram_range"),
    Case("histogram", {"X": np.array([2.0, 2.0])}, {"bins": 3},
         ref=lambda X: np.array([0, 2, 0]), grad=False, id="histogram_one_value"),
    Case("histogram", {"X": np.array([1.0, np.nan, 2.0])}, {"bins": 3},
         ref=lambda X: np.array([1, 0, 1]), grad=False, id="histogram_nan_ignored"),
    Case("bincount", {"X": np.array([1, 2, 1, 4], "int32")}, {"minlength": 7},
         ref=lambda X: np.bincount(X, minlength=7).astype("int64"), grad=False),
    Case("bincount", {"X": np.array([1, 2, 1, 4]), "Weights": np.array([0.5, 1, 1, 2], "float32")},
         {}, ref=lambda X, Weights: np.bincount(X, Weights).astype("float32"), grad=False,
         id="bincount_weights"),
    Case("bincount", {"X": np.array([1, 2, 1, 4]), "Weights": np.array([1, 2, 3, 4], "int32")},
         {}, ref=lambda X, Weights: np.bincount(X, Weights), grad=False,
         id="bincount_int_weights_float64"),
    # ---------------------------------------------------------------- cummax / cummin
    Case("cummax", {"x": M}, {"axis": 1}, ref=lambda x: _cum_extreme(x, 1, True),
         grad_outputs=("out",)),
    Case("cummin", {"x": A}, {"axis": 0, "dtype": 2},
         ref=lambda x: tuple(np.asarray(a, d) for a, d in
                             zip(_cum_extreme(x, 0, False), (x.dtype, "int32"))),
         grad_outputs=("out",)),
    Case("cummax", {"x": np.array([[3.0, 1.0, 3.0, 2.0], [1.0, 4.0, 4.0, 0.0]])}, {"axis": -1},
         ref=lambda x: (np.maximum.accumulate(x, 1), np.array([[0, 0, 2, 2], [0, 1, 2, 2]])),
         grad=False, id="cummax_ties_latest"),
    Case("cummin", {"x": np.array([1.0, np.nan, 2.0, np.nan, 0.0])}, {},
         ref=lambda x: (np.array([1.0] + [np.nan] * 4), np.array([0, 1, 1, 3, 3])), grad=False,
         id="cummin_nan"),
    # ---------------------------------------------------------------- cumprod
    Case("cumprod", {"X": POS}, {"dim": 1}, ref=lambda X: np.cumprod(X, 1)),
    Case("cumprod", {"X": ZEROS}, {"dim": -1}, ref=lambda X: np.cumprod(X, -1),
         id="cumprod_zeros"),
    Case("cumprod", {"X": np.array([[1, 2, 3], [4, 5, 6]], "int32")}, {"dim": 0},
         ref=lambda X: np.cumprod(X, 0).astype("int32"), grad=False, id="cumprod_int"),
    Case("cumprod", {"X": np.array(1.5)}, {"dim": 0}, ref=lambda X: X, id="cumprod_0d"),
    # ---------------------------------------------------------------- logcumsumexp
    Case("logcumsumexp", {"X": M}, {"axis": 1}, ref=lambda X: _lcse(X, 1)),
    Case("logcumsumexp", {"X": M}, {"flatten": True}, ref=lambda X: _lcse(X.reshape(-1), 0),
         id="logcumsumexp_flatten"),
    Case("logcumsumexp", {"X": A}, {"axis": 0, "reverse": True},
         ref=lambda X: _lcse(X, 0, reverse=True), id="logcumsumexp_reverse"),
    # the first exclusive output is the dtype's lowest number: a finite-difference
    # loss over it overflows, so the exclusive gradient is checked on the rest
    Case("logcumsumexp", {"X": M}, {"axis": 1, "exclusive": True},
         ref=lambda X: _lcse(X, 1, exclusive=True), grad=False, id="logcumsumexp_exclusive"),
    Case("logcumsumexp", {"X": np.array([-np.inf, 1.0, -np.inf, 2.0])}, {},
         ref=lambda X: np.array([np.finfo("float64").min, 1.0, 1.0, np.logaddexp(1.0, 2.0)]),
         grad=False, id="logcumsumexp_neg_inf"),
    # ---------------------------------------------------------------- logsumexp
    Case("logsumexp", {"X": A}, {"axis": [1]}, ref=lambda X: _lse(X, 1)),
    Case("logsumexp", {"X": A}, {"axis": [0, 2], "keepdim": True},
         ref=lambda X: _lse(X, (0, 2), True), id="logsumexp_keep"),
    Case("logsumexp", {"X": M}, {"axis": [], "reduce_all": True},
         ref=lambda X: np.asarray(_lse(X, (0, 1))), id="logsumexp_all"),
    Case("logsumexp", {"X": np.array([1e3, 1e3 + 1.0])}, {"axis": [0]},
         ref=lambda X: np.asarray(1e3 + np.log1p(np.e) ), grad=False, id="logsumexp_large"),
]
