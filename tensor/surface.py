"""The Tensor's own surface beyond its ops: memory facts (``element_size``,
``data_ptr``, ``strides``, ``offset``, ``is_contiguous``, ``contiguous``),
conversion (``to``, ``value``, ``data``, ``get_tensor``, ``pin_memory``),
autograd views (``grad_``, ``grad_fn``), what kind of tensor it is
(``type``, ``layout``, ``is_dense``, the sparse and distributed predicates),
``paddle.rank``/``is_empty``/``tolist``, and the ``Tensor`` methods of
sparse, distributed and SelectedRows tensors, which sampan does not have.

Memory facts describe the numpy array that holds the values: ``strides``
are in elements, ``offset`` in bytes from the start of its buffer (a view
of another tensor's memory has a non-zero one, as Paddle's strided views).

A sparse (COO/CSR), distributed or SelectedRows tensor cannot be made in
sampan, so on a dense tensor their accessors raise as Paddle's do there
(``x.indices()``: "only effective for SparseCooTensor"), and the
conversions to them (``to_sparse_coo``, ``to_sparse_csr``) raise
NotImplementedError saying that sparse tensors are not supported.
"""
import numpy as np

from ..dygraph.aliases import write_data
from ..dygraph.tensor import Tensor
from ..dygraph.tensor import wrap
from ..kernels.place import CPUPlace, CUDAPlace, CUDAPinnedPlace, Place, place_of_array
from ..kernels.transform import backend_of, to_backend, gpu_available
from ..ops import bind, get_op, is_graph_value
from ..ops.dtypes import DType, to_np_dtype
from ..program.program_guard import default_main_program
from ..program.variable import LOD_TENSOR
from ..program.value_request import request_value, ListValueRequest
from .creation import assign
from . import math as M

__all__ = ["rank", "is_empty", "tolist"]
METHODS = ["rank", "is_empty"]

_IS_EMPTY = get_op("is_empty")


# ------------------------------------------------------------------ functions
def rank(input):
    """The number of dimensions of ``input`` as an int32 0-D tensor."""
    return assign(np.array(len(input.shape), "int32"))


def is_empty(x, name=None):
    """Whether x has no elements (a bool 0-D tensor)."""
    return bind(_IS_EMPTY, (x,))[0]


def tolist(x):
    """x's values as nested Python lists (eager tensors only)."""
    if is_graph_value(x):
        # (also an AssertionError, as Paddle's; to_static's graph break)
        request_value(x, "paddle.tolist()", ListValueRequest)
    return x.numpy().tolist()


def element_size(x):
    """Bytes per element."""
    return int(to_np_dtype(x.dtype).itemsize)


def ndimension(x):
    return len(x.shape)


# ------------------------------------------------------------------ memory
def data_ptr(x):
    """The address of x's first element."""
    a = x._data
    return int(a.data.ptr) if backend_of(a) != "CPU" else int(a.__array_interface__["data"][0])


def _strides(x):
    a = x._data
    return [int(s) // a.itemsize for s in a.strides] if a.ndim else []


def _offset(x):
    a = x._data
    root = a
    while isinstance(getattr(root, "base", None), np.ndarray):
        root = root.base
    if root is a or backend_of(a) != "CPU":
        return 0
    return int(a.__array_interface__["data"][0] - root.__array_interface__["data"][0])


def is_contiguous(x):
    return bool(x._data.flags.c_contiguous)


def contiguous(x):
    """x itself when its memory is contiguous, else a contiguous copy (``assign``)."""
    return x if is_contiguous(x) else assign(x)


# ------------------------------------------------------------------ conversion
_DTYPE_NAMES = ("bfloat16", "float16", "float32", "float64", "int8", "int16", "int32", "int64",
                "uint8", "complex64", "complex128", "bool")


def _device(device):
    """A place for ``to``'s ``device`` (a string or a place)."""
    if isinstance(device, Place):
        return device
    if not isinstance(device, str):
        raise ValueError("device value error, must be str, paddle.CPUPlace(), "
                         "paddle.CUDAPlace(), paddle.CUDAPinnedPlace(), paddle.XPUPlace() or "
                         f"paddle.CustomPlace(), but the type of device is {type(device).__name__}")
    d = device.lower()
    if d == "cpu":
        return CPUPlace()
    kind, _, idx = d.partition(":")
    if kind == "gpu" and (idx == "" or idx.isdigit()):
        if not gpu_available():
            raise ValueError(f"The device should not be '{device}', since sampan has no GPU "
                             "backend here (cupy with a CUDA device is needed)")
        return CUDAPlace(int(idx) if idx else 0)
    raise ValueError("The device must be a string which is like 'cpu', 'gpu', 'gpu:x', "
                     "'xpu', 'xpu:x', 'npu', 'npu:x'")


def to(x, *args, **kwargs):
    """Convert x to a device and/or dtype *in place* (x's memory is replaced, as
    Paddle's ``Tensor.to`` shares the converted tensor into x) and return x.
    ``to(dtype, blocking)``, ``to(device, dtype, blocking)``, ``to(other, blocking)``."""
    n = len(args) + len(kwargs)
    if n == 0 or n > 3:
        raise TypeError("to() received too many arguments - expected one of:\n"
                        "  * (device, dtype=None, blocking=None)\n  * (dtype, blocking=None)\n"
                        "  * (paddle.Tensor other, blocking=None)")
    bad = set(kwargs) - {"device", "dtype", "blocking", "other"}
    if bad:
        raise TypeError(f"to() got an unexpected keyword argument {sorted(bad)[0]}")
    device = dtype = None
    blocking = kwargs.get("blocking")
    if args:
        first = args[0]
        if isinstance(first, Tensor):
            device, dtype = first.place, first.dtype
            blocking = args[1] if len(args) == 2 else blocking
        elif isinstance(first, (DType, np.dtype)) or (
                isinstance(first, str) and first.lower() in _DTYPE_NAMES):
            dtype = first
            blocking = args[1] if len(args) == 2 else blocking
        else:
            device = first
            if len(args) >= 2:
                dtype = args[1]
            else:
                dtype = kwargs.get("dtype")
            if len(args) == 3:
                blocking = args[2]
    else:
        device, dtype = kwargs.get("device"), kwargs.get("dtype")
        other = kwargs.get("other")
        if device is None and dtype is None and other is not None:
            device, dtype = other.place, other.dtype
    if device is None and dtype is None and blocking is None:
        return x
    place = _device(device) if device is not None else None
    if blocking is not None and not isinstance(blocking, bool):
        raise AssertionError("blocking value error, must be the True, False or None")
    a = x._data
    if dtype is not None and to_np_dtype(dtype) != a.dtype:
        a = M.cast(wrap(a), dtype)._data
    if isinstance(place, CUDAPinnedPlace):
        place = CPUPlace()            # pinned memory is host memory
    if place is not None and place_of_array(a) != place:
        a = to_backend(a, place.backend)
    write_data(x, a)
    return x


def value(x):
    return x


def _data_get(x):
    return x


def _data_set(x, other):
    """``x.data = other``: x takes other's values (shape and dtype too)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"Tensor.data must be set to a Tensor, got {type(other).__name__}")
    write_data(x, other._data)


def pin_memory(x):
    """A copy of x in page-locked host memory (host memory here), for a fast
    copy to a GPU; without a GPU there is no pinned memory, as in Paddle's CPU
    build."""
    if not gpu_available():
        raise RuntimeError("(PermissionDenied) Cannot use CUDAPinnedPlace without a GPU: "
                           "sampan has no GPU backend here (cupy with a CUDA device is needed)")
    return wrap(np.array(to_backend(x._data, "CPU")), x.stop_gradient)


class DenseTensor:
    """``Tensor.get_tensor()``: the dense tensor holding x's values, as Paddle's
    ``core.Tensor`` (``shape()``, ``set(array, place)``, ``np.array(t)``)."""
    __slots__ = ("_t",)

    def __init__(self, t):
        self._t = t

    def shape(self):
        return list(self._t._data.shape)

    def _dtype(self):
        return self._t.dtype

    def _is_initialized(self):
        return self._t._is_initialized()

    def lod(self):
        return []

    def set(self, array, place=None):
        # a copy, as Paddle's set copies the array in (the caller's array and the
        # tensor never share memory)
        a = np.array(array)
        if place is not None and not isinstance(place, (CPUPlace, CUDAPinnedPlace)):
            a = to_backend(a, place.backend)
        write_data(self._t, a)

    def numpy(self):
        return np.asarray(to_backend(self._t._data, "CPU"))

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)


def get_tensor(x):
    return DenseTensor(x)


def _grad_get(x):
    return x.grad


def _grad_set(x, g):
    x.grad = g


def _block(x):
    """Paddle gives an eager tensor the global block of the default main program."""
    return default_main_program().global_block()


def reconstruct_from_(x, other):
    """x takes ``other``'s memory (shape and dtype too); returns None."""
    if not isinstance(other, Tensor):
        raise TypeError(f"reconstruct_from_ needs a Tensor, got {type(other).__name__}")
    write_data(x, other._data)


def create_tensor(x, *args, **kwargs):
    """Paddle binds ``paddle.tensor.create_tensor(dtype, ...)`` as a method, so
    the tensor is taken as the dtype, which fails."""
    raise TypeError(f"Cannot interpret the Tensor (shape={x.shape}, dtype={x.dtype.name}) as a "
                    "data type: Tensor.create_tensor passes the tensor as `dtype`; call "
                    "paddle.tensor.create_tensor(dtype) instead")


def create_parameter(x, *args, **kwargs):
    """Paddle binds ``paddle.create_parameter(shape, dtype, ...)`` as a method,
    so the tensor is taken as the shape, which fails."""
    raise TypeError("The type of 'shape' in create_parameter must be list, tuple or "
                    "np.ndarray, but received Tensor: Tensor.create_parameter passes the "
                    "tensor as `shape`; call paddle.create_parameter(shape, dtype) instead")


# ------------------------------------------------------------------ not dense
class DenseOnlyError(NotImplementedError, SystemError):
    """A sparse / SelectedRows / string tensor's accessor called on a dense
    tensor (the only kind sampan has): Paddle's "(Fatal) this method is only
    effective for ..." (a SystemError), and a NotImplementedError."""


def _only_for(kind, method):
    def fn(x, *args, **kwargs):
        raise DenseOnlyError(f"Tensor.{method}() is only effective for a {kind}, and x is a "
                             f"dense tensor: sampan has dense tensors only ({kind} is not "
                             "supported by sampan)")
    fn.__name__ = fn.__qualname__ = method
    return fn


def _sparse_kernel(method):
    def fn(x, *args, **kwargs):
        raise NotImplementedError(f"sparse tensors are not supported by sampan: "
                                  f"Tensor.{method}() needs a sparse tensor (x is dense)")
    fn.__name__ = fn.__qualname__ = method
    return fn


def _no(x):
    return False


def _none(x):
    return None


EXTRA_METHODS = {"element_size": element_size, "ndimension": ndimension,
                 "is_tensor": lambda x: True,
                 "add_n": M.add_n}      # Paddle binds add_n(inputs) as a method: [x] summed
EAGER_METHODS = {
    "data_ptr": data_ptr, "strides": property(_strides), "get_strides": _strides,
    "offset": property(_offset), "is_contiguous": is_contiguous, "contiguous": contiguous,
    "to": to, "value": value, "data": property(_data_get, _data_set), "pin_memory": pin_memory,
    "get_tensor": get_tensor, "grad_": property(_grad_get, _grad_set),
    "grad_fn": property(lambda x: x._node), "block": property(_block),
    "type": property(lambda x: LOD_TENSOR), "layout": property(lambda x: "NCHW"),
    "is_dense": lambda x: True, "reconstruct_from_": reconstruct_from_,
    "create_tensor": create_tensor, "create_parameter": create_parameter,
    # sparse, distributed and SelectedRows tensors: predicates and accessors
    "is_sparse": _no, "is_sparse_coo": _no, "is_sparse_csr": _no, "is_selected_rows": _no,
    "is_dist": _no, "dist_attr": property(_none), "process_mesh": property(_none),
    "placements": property(_none), "num_shard": property(_none),
    "get_selected_rows": _none,
    "rows": _only_for("SelectedRows", "rows"),
    "nnz": _only_for("SparseCooTensor or SparseCsrTensor", "nnz"),
    "indices": _only_for("SparseCooTensor", "indices"),
    "crows": _only_for("SparseCsrTensor", "crows"),
    "cols": _only_for("SparseCsrTensor", "cols"),
    "get_map_tensor": _only_for("VariableCompatTensor", "get_map_tensor"),
    "set_string_list": _only_for("string tensor", "set_string_list"),
    "set_vocab": _only_for("vocab tensor", "set_vocab"),
    "values": _sparse_kernel("values"), "coalesce": _sparse_kernel("coalesce"),
    "to_dense": _sparse_kernel("to_dense"), "to_sparse_coo": _sparse_kernel("to_sparse_coo"),
    "to_sparse_csr": _sparse_kernel("to_sparse_csr"),
}
