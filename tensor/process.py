"""Process-level names of Paddle 2.6: global flags (``set_flags``/``get_flags``,
ops/flags.py), tensor printing options (dygraph/printing.py), the numeric
limits of dtypes (``finfo``/``iinfo``), ``bfloat16``, and the small top-level
utilities ``batch``, ``check_shape`` and ``disable_signal_handler``.
"""
import numpy as np

from ..dygraph.printing import set_printoptions
from ..ops import in_dynamic_mode, is_graph_value
from ..ops.dtypes import BFLOAT16, DType, to_np_dtype, real_of
from ..ops.flags import set_flags, get_flags

__all__ = ["set_flags", "get_flags", "set_printoptions", "finfo", "iinfo", "bfloat16",
           "batch", "check_shape", "disable_signal_handler"]

bfloat16 = BFLOAT16


# ------------------------------------------------------------------ numeric limits
def _dtype_name(dtype, what):
    """The name of a Paddle dtype given as a dtype object or a string (numpy
    types are refused, as by Paddle's binding)."""
    if dtype is BFLOAT16 or dtype == "bfloat16":
        return "bfloat16"
    if isinstance(dtype, DType) or isinstance(dtype, str):
        return to_np_dtype(dtype).name
    raise TypeError(f"paddle.{what}: the argument must be a paddle dtype (paddle.float32, "
                    f"'float32', ...), got {type(dtype).__name__} {dtype!r}")


# bfloat16: 8 exponent bits as float32, 7 stored fraction bits
_BF16 = {"bits": 16, "eps": 2.0 ** -7, "max": float(np.float32(3.3895313892515355e+38)),
         "tiny": float(np.finfo(np.float32).tiny), "resolution": 0.01}


class finfo:
    """Machine limits of a floating dtype (``paddle.finfo``): ``bits``, ``eps``,
    ``min``, ``max``, ``tiny`` (= ``smallest_normal``), ``resolution``, and
    ``dtype`` (its name); a complex dtype gives its real part's limits."""

    def __init__(self, dtype):
        name = _dtype_name(dtype, "finfo")
        if name == "bfloat16":
            f = _BF16
            self.bits, self.eps, self.max = f["bits"], f["eps"], f["max"]
            self.tiny, self.resolution = f["tiny"], f["resolution"]
        else:
            real = real_of(name)
            if real.kind != "f":
                raise ValueError("the argument of paddle.finfo can only be paddle.float32, "
                                 "paddle.float64, paddle.float16, paddle.bfloat16, "
                                 f"paddle.complex64, or paddle.complex128, got {name}")
            info = np.finfo(real)
            self.bits, self.eps, self.max = int(info.bits), float(info.eps), float(info.max)
            self.tiny, self.resolution = float(info.tiny), 10.0 ** -int(info.precision)
            name = real.name
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.dtype = name

    def __repr__(self):
        return (f"paddle.finfo(min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"resolution={self.resolution:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, bits={self.bits}, dtype={self.dtype})")

    __str__ = __repr__


class iinfo:
    """Machine limits of an integer dtype (``paddle.iinfo``): ``bits``, ``min``,
    ``max`` and ``dtype`` (its name)."""

    _KINDS = ("int8", "int16", "int32", "int64", "uint8")

    def __init__(self, dtype):
        name = _dtype_name(dtype, "iinfo")
        if name not in self._KINDS:
            raise ValueError("the argument of paddle.iinfo can only be paddle.int8, "
                             "paddle.int16, paddle.int32, paddle.int64, or paddle.uint8, "
                             f"got {name}")
        info = np.iinfo(name)
        self.bits, self.min, self.max, self.dtype = int(info.bits), int(info.min), \
            int(info.max), name

    def __repr__(self):
        return (f"paddle.iinfo(min={self.min}, max={self.max}, bits={self.bits}, "
                f"dtype={self.dtype})")

    __str__ = __repr__


# ------------------------------------------------------------------ utilities
def batch(reader, batch_size, drop_last=False):
    """A reader of lists of ``batch_size`` consecutive items of ``reader()``
    (the last, shorter one dropped when ``drop_last``)."""
    batch_size = int(batch_size)
    if batch_size <= 0:
        raise ValueError("batch_size should be a positive integer value, "
                         f"but got batch_size={batch_size}")

    def batch_reader():
        b = []
        for item in reader():
            b.append(item)
            if len(b) == batch_size:
                yield b
                b = []
        if not drop_last and b:
            yield b
    return batch_reader


def _check_type(value, what, expected, op_name):
    if not isinstance(value, expected):
        raise TypeError(f"The type of '{what}' in {op_name} must be {expected}, but received "
                        f"{type(value)}.")


def _check_dtype(var, what, expected, op_name):
    name = to_np_dtype(var.dtype).name
    if name not in expected:
        raise TypeError(f"The data type of '{what}' in {op_name} must be {expected}, but "
                        f"received {name}.")


def check_shape(shape, op_name, expected_shape_type=(list, tuple), expected_element_type=int,
                expected_tensor_dtype=("int32", "int64")):
    """Paddle's argument check of a ``shape`` while a Program is built (a list
    or tuple of ints or integer Variables, or an integer Variable); eagerly it
    checks nothing, as Paddle's."""
    if in_dynamic_mode():
        return
    graph = is_graph_value(shape)
    if not graph:
        _check_type(shape, "shape", expected_shape_type, op_name)
    if expected_element_type is not None and not graph:
        for item in shape:
            if is_graph_value(item):
                if expected_tensor_dtype is not None:
                    _check_dtype(item, "element of shape", expected_tensor_dtype, op_name)
                continue
            _check_type(item, "element of shape", expected_element_type, op_name)
    if expected_tensor_dtype is not None and graph:
        _check_dtype(shape, "shape", expected_tensor_dtype, op_name)


def disable_signal_handler():
    """Paddle removes the signal handlers its C++ core installs; sampan installs
    none, so there is nothing to remove."""
    return None
