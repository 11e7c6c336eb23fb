"""Turning Python and numpy values into Tensors (``to_tensor``) and the default dtype."""
import numpy as np

from ..ops import constant, is_graph_value, in_static_mode, bind_in_graph, get_op
from ..ops.dtypes import (to_np_dtype, set_default_dtype, get_default_dtype, default_float,
                          complex_of)
from ..dygraph.tensor import Tensor
from ..kernels.place import backend_of_place
from ..kernels.transform import to_backend, backend_of

__all__ = ["to_tensor", "set_default_dtype", "get_default_dtype", "is_tensor", "set_device",
           "get_device", "is_compiled_with_cuda"]

_DEFAULT = {"backend": "CPU"}


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


def _infer_array(data, exact=False):
    """Paddle's dtype rules: Python floats -> default float dtype, ints -> int64,
    bools -> bool; numpy arrays keep their dtype.  ``exact``: Python floats stay
    float64 (the caller casts them to the dtype it was asked for, from the full
    value, as Paddle's eager to_tensor does).

    Paddle's errors for what is not numbers: data that is not a scalar, list,
    tuple, ndarray or Tensor (a str, dict, set, None, any other object) is a
    TypeError; numbers it cannot hold (strings inside a list or an array,
    bytes, objects, a ragged list) are a ValueError."""
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, np.ndarray):
        return _numeric(data, data)
    if isinstance(data, (list, tuple)):
        flat = []
        _flatten(data, flat)
        if flat and any(isinstance(v, Tensor) for v in flat):
            data = _tensors_to_nested(data)
        arr = np.asarray(data)      # a ragged list raises numpy's ValueError, as in Paddle
    elif np.isscalar(data) and not isinstance(data, str):
        arr = np.asarray(data)
    else:
        raise TypeError(f"to_tensor: cannot make a Tensor from data of type "
                        f"{type(data).__name__} ({_short_repr(data)}); data must be a scalar, "
                        f"list, tuple, numpy.ndarray or Tensor")
    _numeric(arr, data)
    if arr.dtype == np.float64 and not _has_numpy_float64(data):
        if not exact:
            arr = arr.astype(default_float())
    elif arr.dtype == np.complex128 and not _has_numpy_float64(data, np.complex128):
        if not exact:
            arr = arr.astype(complex_of(default_float()))    # Python complex numbers
    elif arr.dtype.kind in "iu" and arr.dtype != np.int64 and not isinstance(data, np.generic):
        arr = arr.astype(np.int64)
    return arr


def _numeric(arr, data):
    """``arr`` if a tensor can hold its dtype (bool, integers, floats, complex)."""
    if arr.dtype.kind not in "biufc":
        what = {"U": "strings", "S": "bytes", "O": "Python objects (or a ragged list)"}.get(
            arr.dtype.kind, f"numpy dtype {arr.dtype}")
        raise ValueError(f"to_tensor: data holds {what} ({_short_repr(data)}), dtype "
                         f"{arr.dtype}; a Tensor holds bool, integer, float or complex "
                         f"numbers")
    return arr


def _short_repr(data):
    r = repr(data)
    return r if len(r) <= 40 else r[:37] + "..."


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


def _has_numpy_float64(data, dtype=np.float64):
    """Whether ``data`` holds numpy values of ``dtype`` (float64, or complex128),
    which keep that dtype where Python numbers take the default one."""
    if isinstance(data, np.ndarray):
        return data.dtype == dtype
    if isinstance(data, np.generic):
        return data.dtype == dtype
    if isinstance(data, (list, tuple)):
        return any(_has_numpy_float64(v, dtype) for v in data)
    return False


def _to_tensor_static(data, want, stop_gradient):
    cast_to = want is not None and want != to_np_dtype(data.dtype)
    if not cast_to and stop_gradient and data.stop_gradient:
        return data._view()             # no gradient to cut: no op (Paddle's program)
    out = data
    if not (cast_to and stop_gradient):        # (a stopped cast output needs no copy)
        out = bind_in_graph(get_op("share_data"), (data,))[0]
    if cast_to:
        from .math import cast
        out = cast(out, want)
    out.stop_gradient = stop_gradient
    return out


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """A new tensor holding ``data``; in a static Program an ``assign_value`` op
    (and a ``cast`` when ``dtype`` is given).  A static Variable (user code
    inside to_static) gets what eager gives for a Tensor: a copy that takes no
    part in ``data``'s gradient (a ``share_data`` op, Variable.detach's; Paddle
    2.6 returns the Variable itself, gradient attached), cast to ``dtype``."""
    want = to_np_dtype(dtype) if dtype is not None else None
    if is_graph_value(data):
        return _to_tensor_static(data, want, stop_gradient)
    # eagerly a dtype asked for is cast to from the full value (to_tensor([0.3],
    # 'float64') holds 0.3); Paddle's static to_tensor rounds to the default
    # float dtype first (assign_value, cast) and sampan's Programs do the same
    arr = _infer_array(data, exact=want is not None and not in_static_mode())
    if want is not None and arr.dtype.kind == "c" and want.kind != "c":
        arr = arr.real                   # complex numbers to a real dtype keep the real part
    if isinstance(data, (np.ndarray, Tensor)) and arr is (data._data if isinstance(data, Tensor) else data):
        arr = arr.copy()
    backend = backend_of_place(place) or _DEFAULT["backend"]
    if backend_of(arr) != backend:
        arr = to_backend(arr, backend)
    return constant(arr, stop_gradient, want)



