"""Turning Python and numpy values into Tensors (``to_tensor``) and the default dtype."""
import numbers

import numpy as np

from ..ops import constant
from ..ops.dtypes import to_np_dtype
from ..dygraph.tensor import Tensor
from ..kernels.place import backend_of_place
from ..kernels.transform import to_backend, backend_of

__all__ = ["to_tensor", "set_default_dtype", "get_default_dtype", "is_tensor", "set_device",
           "get_device", "is_compiled_with_cuda"]

_DEFAULT = {"dtype": np.dtype("float32"), "backend": "CPU"}


def set_default_dtype(d):
    d = to_np_dtype(d)
    if d.kind != "f":
        raise TypeError(f"set_default_dtype only supports float dtypes, got {d}")
    _DEFAULT["dtype"] = d


def get_default_dtype():
    return _DEFAULT["dtype"].name


def default_float():
    return _DEFAULT["dtype"]


def set_device(device):
    """``paddle.set_device('cpu' | 'gpu' | 'gpu:0')``: where new tensors live."""
    backend = backend_of_place(device)
    if backend == "GPU":
        from ..kernels.transform import gpu_available
        if not gpu_available():
            raise ValueError(f"set_device({device!r}): no GPU backend is available "
                             "(install cupy and a CUDA device: pip install sampan[gpu])")
    _DEFAULT["backend"] = backend
    return device


def get_device():
    return "cpu" if _DEFAULT["backend"] == "CPU" else "gpu:0"


def is_compiled_with_cuda():
    from ..kernels.transform import gpu_available
    return gpu_available()


def is_tensor(x):
    return isinstance(x, Tensor)


def _infer_array(data):
    """Paddle's dtype rules: Python floats -> default float dtype, ints -> int64,
    bools -> bool; numpy arrays keep their dtype."""
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, np.ndarray):
        return data
    if isinstance(data, np.generic):
        return np.asarray(data)
    if isinstance(data, (list, tuple)):
        flat = []
        _flatten(data, flat)
        if flat and any(isinstance(v, Tensor) for v in flat):
            data = _tensors_to_nested(data)
        arr = np.asarray(data)
    elif isinstance(data, (bool, numbers.Number)):
        arr = np.asarray(data)
    else:
        try:
            arr = np.asarray(data)
        except Exception:
            raise TypeError(f"to_tensor cannot convert {type(data).__name__}") from None
    if arr.dtype == np.float64 and not _has_numpy_float64(data):
        arr = arr.astype(_DEFAULT["dtype"])
    elif arr.dtype.kind in "iu" and arr.dtype != np.int64 and not isinstance(data, np.ndarray):
        arr = arr.astype(np.int64)
    if arr.dtype == object:
        raise TypeError("to_tensor: data is ragged or holds non-numeric values")
    return arr


def _flatten(x, out):
    for v in x:
        if isinstance(v, (list, tuple)):
            _flatten(v, out)
        else:
            out.append(v)


def _tensors_to_nested(x):
    if isinstance(x, Tensor):
        return x.numpy()
    if isinstance(x, (list, tuple)):
        return [_tensors_to_nested(v) for v in x]
    return x


def _has_numpy_float64(data):
    if isinstance(data, np.ndarray):
        return data.dtype == np.float64
    if isinstance(data, np.float64):
        return True
    if isinstance(data, (list, tuple)):
        return any(_has_numpy_float64(v) for v in data)
    return False


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """A new tensor holding ``data``; in a static Program an ``assign_value`` op
    (and a ``cast`` when ``dtype`` is given), and a static Variable is returned
    as it is (cast to ``dtype``), as Paddle does."""
    want = to_np_dtype(dtype) if dtype is not None else None
    if getattr(data, "is_static_variable", False):
        if want is None or want == to_np_dtype(data.dtype):
            return data
        from .math import cast
        return cast(data, want)
    arr = _infer_array(data)
    if isinstance(data, (np.ndarray, Tensor)) and arr is (data._data if isinstance(data, Tensor) else data):
        arr = arr.copy()
    backend = backend_of_place(place) or _DEFAULT["backend"]
    if backend_of(arr) != backend:
        arr = to_backend(arr, backend)
    return constant(arr, stop_gradient, want)



