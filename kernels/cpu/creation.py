"""numpy kernels of the creation and random ops (ops/defs/creation.py).

The output dtype always comes from the op's ``dtype`` attribute (or its input
for assign/range), whatever key the kernel was selected under.  Random
kernels draw from ``kernels/random.py`` (``rng_for``: the op's own seed, or
the global generator).
"""
import numpy as np

from ..registry import kernel, ALL, FLOATS, INTS, NUMERIC
from ..random import rng_for
from ...ops import OpError
from ...ops.defs.creation import attr_dtype
from .manipulation import ints_of

_FLOAT32, _FLOAT64 = np.dtype("float32"), np.dtype("float64")


def _copy(x):
    # (None: a tensor array no op has written yet, e.g. a pop() that emptied one)
    return x.copy() if x is not None else None


# ------------------------------------------------------------ copies and constants
@kernel("assign", dtypes=ALL + ("complex64", "complex128"))
def assign(ins, attrs, need):
    return (_copy(ins[0]),)


def _same(x):
    return x


def _assign_reuse(attrs, pairs):
    """A copy of a value nothing else can see (executor/reuse.py) is the value."""
    def k(ins, a, need):
        return (ins[0],)
    k.fast = lambda a: _same
    return k


assign.fast = lambda attrs: _copy
assign.fresh = True
assign.inplace = ((0, 0, "any"),)
assign.reuse = _assign_reuse


@kernel("share_data", dtypes=ALL)
def share_data(ins, attrs, need):
    # a copy: the executor may reuse X's buffer once X is dead
    return (ins[0].copy(),)


share_data.fast = lambda attrs: _copy
share_data.fresh = True


_VALUE_KEYS = ("fp32_values", "fp64_values", "int32_values", "int64_values", "bool_values")


@kernel("assign_value", dtypes=ALL)
def assign_value(ins, attrs, need):
    dt = attr_dtype(attrs)
    for k in _VALUE_KEYS:
        vals = attrs.get(k)
        if vals:
            return (np.asarray(vals).astype(dt).reshape(attrs["shape"]),)
    return (np.zeros(attrs["shape"], dt),)


def _str_value(s, dt):
    if dt.kind in "iu":
        try:
            return int(s)
        except ValueError:
            return int(float(s))
    if dt.kind == "b":
        return s.lower() == "true" or (s.lower() != "false" and float(s) != 0)
    return float(s)


@kernel("fill_constant", dtypes=ALL)
def fill_constant(ins, attrs, need):
    vt, st, sl = ins
    dt = attr_dtype(attrs)
    shape = attrs["shape"] if st is None and not sl else ints_of(st, sl, None)
    if vt is not None:
        value = vt.reshape(-1)[0]
    elif attrs["str_value"]:
        value = _str_value(attrs["str_value"], dt)
    else:
        value = attrs["value"]
    return (np.full(shape, value, dtype=dt),)


def _fill_constant_fast(attrs):
    """Shape and value from attributes alone: the array is made once, here,
    and each run returns a copy (np.full costs several times more)."""
    try:
        tmpl = fill_constant([None, None, None], attrs, None)[0]
    except Exception:          # attributes only a real call can complain about
        return None

    def f(vt, st, sl):
        if vt is None and st is None and sl is None:
            return tmpl.copy()
        return fill_constant([vt, st, sl], attrs, None)[0]
    return f


fill_constant.fast = _fill_constant_fast
fill_constant.fresh = True


@kernel("empty", dtypes=ALL)
def empty(ins, attrs, need):
    st, sl = ins
    shape = attrs["shape"] if st is None and not sl else ints_of(st, sl, None)
    return (np.zeros(shape, dtype=attr_dtype(attrs)),)


@kernel("fill_any_like", dtypes=ALL + ("complex64", "complex128"))
def fill_any_like(ins, attrs, need):
    x = ins[0]
    d = attrs["dtype"]
    dt = x.dtype if d is None or d == -1 else attr_dtype(attrs)
    if dt.kind == "b" and attrs["value"] not in (0.0, 1.0):
        raise OpError(f"op 'fill_any_like': value {attrs['value']} is out of range for a bool "
                      f"tensor (expected 0 or 1)")
    return (np.full(x.shape, attrs["value"], dtype=dt),)


@kernel("fill_constant_batch_size_like", dtypes=ALL)
def fill_constant_batch_size_like(ins, attrs, need):
    shape = list(attrs["shape"])
    shape[attrs["output_dim_idx"]] = ins[0].shape[attrs["input_dim_idx"]]
    dt = attr_dtype(attrs)
    value = _str_value(attrs["str_value"], dt) if attrs["str_value"] else attrs["value"]
    return (np.full(shape, value, dtype=dt),)


# ------------------------------------------------------------ sequences
def _scalar(a):
    return a.reshape(-1)[0].item()


@kernel("range", dtypes=NUMERIC)
def range_(ins, attrs, need):
    s, e, st = (_scalar(a) for a in ins)
    dt = ins[0].dtype
    if st == 0:
        raise OpError("op 'range': step must not be 0")
    if dt.kind in "iu":
        return (np.arange(s, e, st, dtype=dt),)
    n = max(int(np.ceil((e - s) / st)), 0)
    return ((s + np.arange(n, dtype=np.float64) * st).astype(dt),)


@kernel("linspace", dtypes=NUMERIC)
def linspace(ins, attrs, need):
    s, e, n = (_scalar(a) for a in ins)
    if n < 1:
        raise OpError(f"op 'linspace': num must be >= 1, got {n}")
    return (np.linspace(s, e, int(n), dtype=np.float64).astype(attr_dtype(attrs)),)


@kernel("eye", dtypes=NUMERIC)
def eye(ins, attrs, need):
    r, c = int(attrs["num_rows"]), int(attrs["num_columns"])
    return (np.eye(r, r if c == -1 else c, dtype=attr_dtype(attrs)),)


@kernel("one_hot_v2", dtypes=INTS)
def one_hot_v2(ins, attrs, need):
    x, dt_ = ins
    depth = attrs["depth"] if dt_ is None else int(dt_.reshape(-1)[0])
    if not attrs["allow_out_of_range"] and x.size:
        lo, hi = int(x.min()), int(x.max())
        if lo < 0 or hi >= depth:
            bad = lo if lo < 0 else hi
            raise OpError(f"op 'one_hot_v2': label value {bad} is out of range [0, {depth}) "
                          f"(num_classes={depth})")
    return ((x[..., None] == np.arange(depth)).astype(attr_dtype(attrs)),)


# ------------------------------------------------------------ random
def _float_draw(dt):
    """numpy draws float32 or float64 directly; other float dtypes are cast."""
    return dt if dt in (_FLOAT32, _FLOAT64) else _FLOAT32


def _shape(ins, attrs):
    st, sl = ins[0], ins[1]
    return tuple(attrs["shape"] if st is None and not sl else ints_of(st, sl, None))


def _diag(out, attrs):
    n, step, val = attrs["diag_num"], attrs["diag_step"], attrs["diag_val"]
    if n > 0:
        flat = out.reshape(-1)
        for i in range(n):
            flat[i * step + i] = val
    return out


@kernel("uniform_random", dtypes=FLOATS)
def uniform_random(ins, attrs, need):
    dt = attr_dtype(attrs)
    lo, hi = attrs["min"], attrs["max"]
    r = rng_for(attrs).random(_shape(ins, attrs), dtype=_float_draw(dt))
    out = (r * (hi - lo) + lo).astype(dt, copy=False)
    return (_diag(out, attrs),)


@kernel("gaussian_random", dtypes=FLOATS)
def gaussian_random(ins, attrs, need):
    dt = attr_dtype(attrs)
    r = rng_for(attrs).standard_normal(_shape(ins, attrs), dtype=_float_draw(dt))
    return ((r * attrs["std"] + attrs["mean"]).astype(dt, copy=False),)


@kernel("truncated_gaussian_random", dtypes=FLOATS)
def truncated_gaussian_random(ins, attrs, need):
    dt = attr_dtype(attrs)
    rng = rng_for(attrs)
    z = rng.standard_normal(tuple(attrs["shape"]))
    bad = np.abs(z) > 2.0
    while bad.any():           # redraw outside 2 std (expected < 5% per pass)
        z[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(z) > 2.0
    return ((z * attrs["std"] + attrs["mean"]).astype(dt),)


@kernel("randint", dtypes=("int32", "int64"))
def randint(ins, attrs, need):
    lo, hi = attrs["low"], attrs["high"]
    if lo >= hi:
        raise OpError(f"op 'randint': low ({lo}) must be less than high ({hi})")
    dt = attr_dtype(attrs, 3)
    return (rng_for(attrs).integers(lo, hi, _shape(ins, attrs)).astype(dt, copy=False),)


@kernel("randperm", dtypes=NUMERIC)
def randperm(ins, attrs, need):
    return (rng_for(attrs).permutation(int(attrs["n"])).astype(attr_dtype(attrs, 3)),)
