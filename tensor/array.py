"""Tensor arrays: ``create_array``, ``array_write``, ``array_read``,
``array_length``, ``tensor_array_to_tensor``; and ``increment``, the in-place
loop counter of Paddle's control flow.

In dygraph mode an array is a Python list of Tensors (as in Paddle).  In a
static program it is a variable of kind LOD_TENSOR_ARRAY, updated by the
``write_to_array`` op and read by ``read_from_array`` / ``lod_array_length``
(``static/nn/control_flow.py`` builds the ops whose output is an existing
array or, for ``increment``, its input).  ``create_array`` has no input to go by, so it alone asks the mode.
"""
import numpy as np

from ..ops import bind, get_op, in_static_mode
from ..ops.dtypes import to_np_dtype

__all__ = ["create_array", "array_write", "array_read", "array_length",
           "tensor_array_to_tensor", "increment"]
METHODS = ["increment"]

_READ = get_op("read_from_array")
_LENGTH = get_op("lod_array_length")
_TO_TENSOR = get_op("tensor_array_to_tensor")
_INCREMENT = get_op("increment")


def _static():
    from ..static.nn import control_flow
    return control_flow


def _is_static(x):
    return getattr(x, "is_static_variable", False)


def _index(i, api):
    """A Python int from an eager index (Tensor of one element, or an int)."""
    if hasattr(i, "_data"):
        a = np.asarray(i._data)
        if a.size != 1:
            raise ValueError(f"{api}: the index i must hold one element, got shape "
                             f"{list(a.shape)}")
        return int(a.reshape(-1)[0])
    if isinstance(i, (int, np.integer)) and not isinstance(i, bool):
        return int(i)
    raise TypeError(f"{api}: the index i must be an integer Tensor, got {type(i).__name__}")


def create_array(dtype="float32", initialized_list=None):
    """An empty tensor array (or one holding ``initialized_list``)."""
    items = []
    if initialized_list is not None:
        if not isinstance(initialized_list, (list, tuple)):
            raise TypeError(f"create_array: initialized_list must be a list or tuple, got "
                            f"{type(initialized_list).__name__}")
        items = list(initialized_list)
    if not in_static_mode() and not any(_is_static(v) for v in items):
        return items
    cf = _static()
    array = cf.create_array_var(to_np_dtype(dtype))
    for v in items:
        if not (_is_static(v) or hasattr(v, "_data")):
            raise TypeError(f"create_array: every value of initialized_list must be a "
                            f"Tensor, got {type(v).__name__}")
        cf.array_write_static(v, array_length(array), array)
    return array


def array_write(x, i, array=None):
    """``array[i] = x`` (appends when ``i == len(array)``); returns the array."""
    if isinstance(array, list) or (array is None and not _is_static(x) and
                                   not _is_static(i) and not in_static_mode()):
        if not hasattr(x, "_data"):
            raise TypeError(f"array_write: x must be a Tensor, got {type(x).__name__}")
        k = _index(i, "array_write")
        array = [] if array is None else array
        if not 0 <= k <= len(array):
            raise IndexError(f"array_write: index {k} is out of range for an array of "
                             f"length {len(array)} (it may be at most the length)")
        if k < len(array):
            array[k] = x
        else:
            array.append(x)
        return array
    return _static().array_write_static(x, i, array)


def array_read(array, i):
    """``array[i]``."""
    if isinstance(array, list):
        k = _index(i, "array_read")
        if not 0 <= k < len(array):
            raise IndexError(f"array_read: index {k} is out of range for an array of "
                             f"length {len(array)}")
        return array[k]
    _static().check_array(array, "array_read")
    if not (_is_static(i) or hasattr(i, "_data")):
        from .creation import full
        i = full([1], _index(i, "array_read"), "int64")
    from ..static import name_key
    with name_key("array_read"):
        return bind(_READ, (array, i, None))[0]


def array_length(array):
    """The number of tensors in ``array`` (a Python int in dygraph mode, an int64
    [1] tensor in a static program)."""
    if isinstance(array, list):
        return len(array)
    _static().check_array(array, "array_length")
    from ..static import name_key
    with name_key("array_length"):
        out = bind(_LENGTH, (array,))[0]
    out.stop_gradient = True
    return out


def tensor_array_to_tensor(input, axis=1, use_stack=False, name=None):
    """(the tensors of ``input`` concatenated (or stacked) along ``axis``, the
    sizes they contributed along it: int64 for a dygraph list, int32 from the
    static op, as in Paddle)."""
    if isinstance(input, list):
        from .manipulation import concat, stack
        from .creation_base import to_tensor
        if not input:
            raise ValueError("tensor_array_to_tensor: the array is empty")
        out = stack(input, axis) if use_stack else concat(input, axis)
        sizes = [t.shape[axis] for t in input]       # also when stacking, as Paddle
        return out, to_tensor(np.asarray(sizes, np.int64))
    _static().check_array(input, "tensor_array_to_tensor")
    return bind(_TO_TENSOR, (input,), {"axis": int(axis), "use_stack": bool(use_stack)})


def increment(x, value=1.0, name=None):
    """``x += value`` in place (``x`` holds one element); returns ``x``."""
    if _is_static(x):
        return _static().increment_static(x, float(value))
    from .indexing import inplace
    return inplace(x, lambda t: bind(_INCREMENT, (t,), {"step": float(value)})[0])
