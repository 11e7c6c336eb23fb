"""numpy kernels of comparisons, logical and bitwise ops, isnan/isinf/isfinite,
equal_all, allclose and isclose."""
import numpy as np

from ..registry import kernel, ALL, NUMERIC, FLOATS
from .elementwise import align_y

_INT_BOOL = ("bool", "int8", "int16", "int32", "int64", "uint8")


def _binary(op_type, fn, dtypes=ALL, use_axis=True):
    def fast(x, y):
        return np.asarray(fn(x, y))

    if use_axis:
        @kernel(op_type, dtypes=dtypes)
        def k(ins, attrs, need):
            x, y = ins
            axis = attrs["axis"]
            if axis != -1:
                y = align_y(x, y, axis)
            return (np.asarray(fn(x, y)),)
        k.fast = lambda attrs: fast if attrs["axis"] == -1 else None
    else:
        @kernel(op_type, dtypes=dtypes)
        def k(ins, attrs, need):
            return (np.asarray(fn(ins[0], ins[1])),)
        k.fast = lambda attrs: fast
    k.fresh = True
    return k


for _t, _f in (("less_than", np.less), ("less_equal", np.less_equal),
               ("greater_than", np.greater), ("greater_equal", np.greater_equal),
               ("equal", np.equal), ("not_equal", np.not_equal)):
    _binary(_t, _f)

for _t, _f in (("logical_and", np.logical_and), ("logical_or", np.logical_or),
               ("logical_xor", np.logical_xor)):
    _binary(_t, _f, use_axis=False)

for _t, _f in (("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
               ("bitwise_xor", np.bitwise_xor)):
    _binary(_t, _f, _INT_BOOL, use_axis=False)


def _unary(op_type, fn, dtypes=ALL):
    def fast(x):
        return np.asarray(fn(x))

    @kernel(op_type, dtypes=dtypes)
    def k(ins, attrs, need):
        return (np.asarray(fn(ins[0])),)
    k.fast = lambda attrs: fast
    k.fresh = True
    return k


_unary("logical_not", np.logical_not)
_unary("bitwise_not", np.invert, _INT_BOOL)
_unary("isnan_v2", np.isnan, NUMERIC)
_unary("isinf_v2", np.isinf, NUMERIC)
_unary("isfinite_v2", np.isfinite, NUMERIC)


@kernel("equal_all", dtypes=ALL)
def equal_all(ins, attrs, need):
    x, y = ins
    return (np.asarray(x.shape == y.shape and bool(np.array_equal(x, y))),)


def _tolerances(ins, attrs):
    rt, at = ins[2], ins[3]
    rtol = float(attrs["rtol"]) if rt is None else float(rt.reshape(-1)[0])
    atol = float(attrs["atol"]) if at is None else float(at.reshape(-1)[0])
    return rtol, atol


@kernel("isclose", dtypes=FLOATS)
def isclose(ins, attrs, need):
    rtol, atol = _tolerances(ins, attrs)
    return (np.isclose(ins[0], ins[1], rtol=rtol, atol=atol, equal_nan=attrs["equal_nan"]),)


@kernel("allclose", dtypes=FLOATS)
def allclose(ins, attrs, need):
    rtol, atol = _tolerances(ins, attrs)
    return (np.asarray(np.allclose(ins[0], ins[1], rtol=rtol, atol=atol,
                                   equal_nan=attrs["equal_nan"])),)
