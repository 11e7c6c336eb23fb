"""``paddle.device``: which device new tensors go to, what this build can use, and
CUDA-style streams and events.

sampan runs on the CPU (numpy), and on a GPU when cupy finds one (the GPU backend's
issue).  Streams and events are host-side no-ops here: work is synchronous, so a stream
is always idle and an event always complete.  (Paddle's CPU wheel raises TypeError
"device should be gpu, xpu, ..." for them; a script written for a GPU runs unchanged on
sampan's CPU instead.)
"""
import contextlib
import time

from ..kernels.place import CPUPlace, CUDAPlace, IPUPlace, XPUPlace  # noqa: F401
from ..kernels.transform import gpu_available
from ..tensor.creation_base import get_device, set_device, is_compiled_with_cuda

__all__ = ["Event", "IPUPlace", "Stream", "XPUPlace", "current_stream",
           "get_all_custom_device_type", "get_all_device_type", "get_available_custom_device",
           "get_available_device", "get_cudnn_version", "get_device", "is_compiled_with_cinn",
           "is_compiled_with_cuda", "is_compiled_with_custom_device",
           "is_compiled_with_distribute", "is_compiled_with_ipu", "is_compiled_with_rocm",
           "is_compiled_with_xpu", "set_device", "set_stream", "stream_guard", "synchronize"]


# ----------------------------------------------------------------- the build
def get_all_device_type():
    """Device types besides the CPU this process can use (Paddle's CPU build: [])."""
    return ["gpu"] if gpu_available() else []


def get_available_device():
    """Devices besides the CPU, as ``'gpu:<n>'``."""
    if not gpu_available():
        return []
    from ..kernels.transform import _cp
    return [f"gpu:{i}" for i in range(_cp.cuda.runtime.getDeviceCount())]


def get_all_custom_device_type():
    return []


def get_available_custom_device():
    return []


def get_cudnn_version():
    """None: sampan does not call cuDNN directly."""
    return None


def is_compiled_with_cinn():
    return False


def is_compiled_with_custom_device(device_type):
    if not isinstance(device_type, str):
        raise TypeError(f"device_type must be a str, got {type(device_type).__name__}")
    return False


def is_compiled_with_distribute():
    return False


def is_compiled_with_ipu():
    return False


def is_compiled_with_rocm():
    return False


def is_compiled_with_xpu():
    return False


# ----------------------------------------------------------------- streams and events
def _check_device(device):
    if device is None or isinstance(device, (CPUPlace, CUDAPlace)):
        return
    if isinstance(device, str) and device.split(":")[0].lower() in ("cpu", "gpu", "cuda"):
        return
    if isinstance(device, int) and not isinstance(device, bool):
        return
    raise ValueError(f"device must be None, 'cpu', 'gpu:<n>', an int or a place, got "
                     f"{device!r}")


class Event:
    """A point in a stream's work; sampan's work is synchronous, so every event is
    complete once recorded."""

    def __init__(self, device=None, enable_timing=False, blocking=False, interprocess=False):
        _check_device(device)
        self.device = device
        self.enable_timing = bool(enable_timing)
        self._time = None

    def record(self, stream=None):
        self._time = time.perf_counter()

    def query(self):
        return True

    def synchronize(self):
        return None

    def elapsed_time(self, end_event):
        """Milliseconds between this event's record and ``end_event``'s."""
        if not (self.enable_timing and end_event.enable_timing):
            raise ValueError("elapsed_time needs both events made with enable_timing=True")
        if self._time is None or end_event._time is None:
            raise ValueError("elapsed_time needs both events recorded first")
        return (end_event._time - self._time) * 1000.0


class Stream:
    """A queue of device work; sampan's runs synchronously, so it is always idle."""

    def __init__(self, device=None, priority=2, stream_base=None):
        _check_device(device)
        if priority not in (1, 2):
            raise ValueError(f"priority must be 1 (high) or 2 (normal), got {priority!r}")
        self.device, self.priority = device, priority

    def wait_event(self, event):
        return None

    def wait_stream(self, stream):
        return None

    def query(self):
        return True

    def synchronize(self):
        return None

    def record_event(self, event=None):
        event = event if event is not None else Event(self.device)
        event.record(self)
        return event


_current = [Stream()]


def current_stream(device=None):
    _check_device(device)
    return _current[0]


def set_stream(stream):
    """Make ``stream`` current; returns the previous one."""
    if not isinstance(stream, Stream):
        raise TypeError(f"set_stream expects a paddle.device.Stream, got "
                        f"{type(stream).__name__}")
    prev, _current[0] = _current[0], stream
    return prev


@contextlib.contextmanager
def stream_guard(stream=None):
    """Run the block with ``stream`` current (None: leave it as it is)."""
    if stream is None:
        yield
        return
    prev = set_stream(stream)
    try:
        yield
    finally:
        set_stream(prev)


def synchronize(device=None):
    """Wait for the device's work: nothing is pending in sampan."""
    _check_device(device)
    return None
