"""Tensor arrays: ``create_array``, ``array_write``, ``array_read``,
``array_length``, ``tensor_array_to_tensor``; and ``increment``, the in-place
loop counter of Paddle's control flow.

In dygraph mode an array is a Python list of Tensors (as in Paddle).  In a
static program it is a variable of kind LOD_TENSOR_ARRAY, updated by the
``write_to_array`` op and read by ``read_from_array`` / ``lod_array_length``
(the ops whose output is an existing array or, for ``increment``, its input
are appended at the end of this module).  A new array comes from the mode's
``ops.new_array``: a list eagerly, a variable in a Program.
"""
import numpy as np

from ..ops import Meta, bind, get_op, is_graph_value, name_key, new_array
from ..ops.dtypes import to_np_dtype
from ..program.actions import new_array as new_array_in_program
from ..program.program_guard import default_main_program
from ..program.static_mode import append_op
from ..program.variable import VarType
from ..utils import unique_name

__all__ = ["create_array", "array_write", "array_read", "array_length",
           "tensor_array_to_tensor", "increment"]
METHODS = ["increment"]

_READ = get_op("read_from_array")
_LENGTH = get_op("lod_array_length")
_TO_TENSOR = get_op("tensor_array_to_tensor")
_INCREMENT = get_op("increment")


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
    array = new_array(to_np_dtype(dtype))
    if isinstance(array, list) and not any(is_graph_value(v) for v in items):
        return items
    if isinstance(array, list):          # eager mode, static items: a static array
        array = new_array_in_program(to_np_dtype(dtype))
    for v in items:
        if not (is_graph_value(v) or hasattr(v, "_data")):
            raise TypeError(f"create_array: every value of initialized_list must be a "
                            f"Tensor, got {type(v).__name__}")
        _array_write_static(v, array_length(array), array)
    return array


def array_write(x, i, array=None):
    """``array[i] = x`` (appends when ``i == len(array)``); returns the array."""
    if array is None and not is_graph_value(x) and not is_graph_value(i):
        array = new_array(x.dtype if hasattr(x, "dtype") else None)
    if isinstance(array, list):
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
    return _array_write_static(x, i, array)


def array_read(array, i):
    """``array[i]``."""
    if isinstance(array, list):
        k = _index(i, "array_read")
        if not 0 <= k < len(array):
            raise IndexError(f"array_read: index {k} is out of range for an array of "
                             f"length {len(array)}")
        return array[k]
    _check_array(array, "array_read")
    if not (is_graph_value(i) or hasattr(i, "_data")):
        from .creation import full
        i = full([1], _index(i, "array_read"), "int64")
    with name_key("array_read"):
        return bind(_READ, (array, i, None))[0]


def array_length(array):
    """The number of tensors in ``array`` (a Python int in dygraph mode, an int64
    [1] tensor in a static program)."""
    if isinstance(array, list):
        return len(array)
    _check_array(array, "array_length")
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
    _check_array(input, "tensor_array_to_tensor")
    return bind(_TO_TENSOR, (input,), {"axis": int(axis), "use_stack": bool(use_stack)})


def increment(x, value=1.0, name=None):
    """``x += value`` in place (``x`` holds one element); returns ``x``."""
    if is_graph_value(x):
        return _increment_static(x, float(value))
    from .indexing import inplace
    return inplace(x, lambda t: bind(_INCREMENT, (t,), {"step": float(value)})[0])


# ----------------------------------------------------------------- in a Program
def _as_var(x):
    program = default_main_program()
    return program.bind_tensor(x) if hasattr(x, "_data") and not is_graph_value(x) else x


def _describe(x):
    return f"Variable '{x.name}'" if is_graph_value(x) else type(x).__name__


def _array_write_static(x, i, array):
    """Append ``write_to_array`` (X=x, I=i) -> Out=array; the array variable's
    shape follows the last tensor written (Paddle's compile-time rule)."""
    block = default_main_program().current_block()
    x = _as_var(x)
    if not is_graph_value(x):
        raise TypeError(f"array_write: x must be a Variable, got {type(x).__name__}")
    if not is_graph_value(i) and not hasattr(i, "_data"):
        from .creation import full
        i = full([1], int(i), "int64")
    i = _as_var(i)
    if i.np_dtype is None or i.np_dtype.kind not in "iu":
        raise TypeError(f"array_write: the index i must be an integer Variable, got "
                        f"'{i.name}' of dtype {i.dtype}")
    if array is None:
        array = block.create_var(name=f"{unique_name.generate('array_write')}.out",
                                 type=VarType.LOD_TENSOR_ARRAY, dtype=x.np_dtype)
    elif not is_graph_value(array) or array.type != VarType.LOD_TENSOR_ARRAY:
        raise TypeError(f"array_write: array must be a tensor array Variable (create_array), "
                        f"got {_describe(array)}")
    append_op(block, "write_to_array", {"X": [x], "I": [i]}, {"Out": [array]})
    if not array.shape:
        array._set_shape(x.shape)
    elif len(array.shape) == len(x.shape) and array.shape != x.shape:
        array._set_shape([a if a == b else -1 for a, b in zip(array.shape, x.shape)])
    return array


def _check_array(array, api):
    if not is_graph_value(array) or array.type != VarType.LOD_TENSOR_ARRAY:
        raise TypeError(f"{api}: array must be a tensor array (a Variable made by "
                        f"create_array, or a Python list in dygraph mode), got "
                        f"{_describe(array)}")


def _increment_static(x, value):
    """Append ``increment`` (X=x, Out=x, step=value): ``x`` is updated in place."""
    _INCREMENT.infer_meta((Meta(tuple(x.shape), x.np_dtype),), {"step": value})   # checks x
    append_op(x.block.program.current_block(), "increment", {"X": [x]}, {"Out": [x]},
              {"step": value})
    return x
