"""``paddle.base.dygraph`` (Paddle 2.6's name for what ``paddle.fluid.dygraph``
was): ``guard``, ``to_variable``, ``enabled``, ``enable_dygraph`` and
``disable_dygraph``, and the expected place ``paddle.framework`` reports.

``guard(place)`` runs its block eagerly whatever the mode outside, as Paddle's
does: under fresh main/startup Programs, a fresh unique-name generator (layers
made inside are named ``linear_0`` ... again) and, when given, ``place`` as
the device of new tensors; everything is restored on exit.

``to_variable`` keeps a numpy array's dtype (``float64`` stays ``float64``,
unlike ``to_tensor`` of a Python float list).  It is for dynamic-graph mode
(an AssertionError in static mode, as Paddle's); in code ``to_static``
converts, where Paddle's converter rewrites it to ``assign``, the conversion
runtime calls ``variable_or_assign``, which adds an ``assign_value`` op while
a Program is built (``jit/dy2static/basic_api.py``).
"""
import contextlib
import functools

import numpy as np

from ..ops import in_dynamic_mode, in_static_mode, is_graph_value, static_guard
from ..ops.dtypes import to_np_dtype
from ..dygraph.tensor import Tensor
from ..kernels.place import CPUPlace, CUDAPlace, Place, backend_of_place
from ..program import Program, program_guard, enable_static, disable_static
from ..utils import unique_name
from . import creation_base as _cb

# ``base.dygraph`` and ``paddle.framework`` re-export these; they are not names of the
# package top level, where ``tensor/__init__`` puts every module's ``__all__``
__all__ = []

_SUPPORTED = (list, tuple, np.ndarray, Tensor)


def current_expected_place():
    """The place new tensors go to (``paddle.framework._current_expected_place``)."""
    return CPUPlace() if _cb._DEFAULT["backend"] == "CPU" else CUDAPlace(0)


def get_paddle_place(place):
    """``place`` (a Place or a string such as ``'cpu'``, ``'gpu:0'``) as a Place
    (``paddle.framework._get_paddle_place``); None stays None."""
    if place is None or isinstance(place, Place):
        if isinstance(place, Place):
            backend_of_place(place)          # an unusable place is refused here
        return place
    if not isinstance(place, str):
        raise ValueError(f"place must be a str or a Place (CPUPlace, CUDAPlace), got "
                         f"{type(place).__name__}")
    backend = backend_of_place(place)
    if backend == "CPU":
        return CPUPlace()
    _, _, idx = place.partition(":")
    return CUDAPlace(int(idx) if idx else 0)


@contextlib.contextmanager
def _place_guard(place):
    if place is None:
        yield
        return
    old = _cb._DEFAULT["backend"]
    _cb.set_device(place)
    try:
        yield
    finally:
        _cb._DEFAULT["backend"] = old


@contextlib.contextmanager
def guard(place=None):
    """Run the block in dynamic-graph (eager) mode (``base.dygraph.guard``)."""
    place = get_paddle_place(place)
    with program_guard(Program(), Program()), unique_name.guard(), static_guard(False), \
            _place_guard(place):
        yield


def enabled():
    """Whether code runs eagerly (``base.dygraph.enabled``)."""
    return in_dynamic_mode()


def enable_dygraph(place=None):
    """``base.enable_dygraph`` (= ``paddle.disable_static``)."""
    disable_static(place)
    if place is not None:
        _cb.set_device(get_paddle_place(place))


def disable_dygraph():
    """``base.disable_dygraph`` (= ``paddle.enable_static``)."""
    enable_static()


def to_variable(value, name=None, zero_copy=None, dtype=None):
    """A Tensor from a numpy array, list or tuple (its dtype kept, or cast to
    ``dtype``); a Tensor or static Variable is returned as it is.  Dynamic-graph
    mode only (an AssertionError in static mode, as in Paddle); code that
    ``to_static`` converts gets ``variable_or_assign`` instead."""
    assert in_dynamic_mode(), ("We only support 'to_variable()' in dynamic graph mode, "
                               "please call 'paddle.disable_static()' to enter dynamic "
                               "graph mode.")
    return variable_or_assign(value, name, zero_copy, dtype)


def variable_or_assign(value, name=None, zero_copy=None, dtype=None):
    """``to_variable`` in either mode: while a Program is built, the value
    becomes an ``assign_value`` op (what Paddle's converter turns
    ``to_variable`` into)."""
    if isinstance(value, Tensor) or is_graph_value(value):
        return value
    if not isinstance(value, _SUPPORTED):
        raise TypeError(f"The type of 'value' in base.dygraph.to_variable must be list, "
                        f"tuple, numpy.ndarray, Tensor or Variable, but received "
                        f"{type(value).__name__}.")
    arr = np.array(value) if not isinstance(value, np.ndarray) else value
    if dtype is not None:
        want = to_np_dtype(dtype)
        if arr.dtype != want:
            arr = arr.astype(want)
    out = _cb.to_tensor(arr, dtype=arr.dtype if in_static_mode() else None)
    if name and not in_static_mode():
        out.name = name
    return out


# ----------------------------------------------------------------- mode guards and checks
@contextlib.contextmanager
def dygraph_mode_guard(tracer):
    """``base.framework._dygraph_guard(tracer)``: None runs the block in static
    mode, a tracer (any other value: sampan's eager mode has no tracer object)
    runs it eagerly."""
    with static_guard(tracer is None):
        yield


place_guard = _place_guard       # ``base.framework._dygraph_place_guard``


def switch_to_static_graph(func):
    """Decorator: ``func`` runs in static-graph mode
    (``base.dygraph.base.switch_to_static_graph``)."""
    @functools.wraps(func)
    def impl(*args, **kwargs):
        with static_guard(True):
            return func(*args, **kwargs)
    return impl


def _mode_check(func, want_dynamic, message):
    @functools.wraps(func)
    def impl(*args, **kwargs):
        assert in_dynamic_mode() == want_dynamic, message % func.__name__
        return func(*args, **kwargs)
    return impl


def dygraph_only(func):
    """Decorator: ``func`` may be called only in dynamic-graph mode
    (``base.framework.dygraph_only``; an AssertionError otherwise)."""
    return _mode_check(func, True, "We only support '%s()' in dynamic graph mode, please call "
                                   "'paddle.disable_static()' to enter dynamic graph mode.")


def static_only(func):
    """Decorator: ``func`` may be called only in static-graph mode."""
    return _mode_check(func, False, "In PaddlePaddle 2.x, we turn on dynamic graph mode by "
                                    "default, and '%s()' is only supported in static graph "
                                    "mode. So if you want to use this api, please call "
                                    "'paddle.enable_static()' before this api to enter "
                                    "static graph mode.")


def dygraph_not_support(func):
    """Decorator: ``func`` may not be called in dynamic-graph mode."""
    return _mode_check(func, False, "We don't support %s in dynamic graph mode")
