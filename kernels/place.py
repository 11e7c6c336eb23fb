"""Places: where a tensor's memory lives (Paddle's CPUPlace / CUDAPlace)."""
from .transform import backend_of


class Place:
    backend = "CPU"

    def __eq__(self, other):
        return type(self) is type(other) and self.__dict__ == other.__dict__

    def __hash__(self):
        return hash((type(self).__name__, tuple(sorted(self.__dict__.items()))))

    def is_cpu_place(self):
        return self.backend == "CPU"

    def is_gpu_place(self):
        return self.backend == "GPU"


class CPUPlace(Place):
    backend = "CPU"

    def __repr__(self):
        return "Place(cpu)"


class CUDAPlace(Place):
    backend = "GPU"

    def __init__(self, device_id=0):
        self.device_id = device_id

    def get_device_id(self):
        return self.device_id

    def __repr__(self):
        return f"Place(gpu:{self.device_id})"


class CUDAPinnedPlace(Place):
    """Page-locked host memory for fast copies to a GPU: host memory here."""
    backend = "CPU"

    def __repr__(self):
        return "Place(gpu_pinned)"


class _UnavailablePlace(Place):
    """A place of hardware sampan has no backend for: it can be named (Paddle's
    classes exist in every build) but not used to hold a tensor."""
    kind = ""

    def __init__(self, device_id=0):
        self.device_id = device_id

    def get_device_id(self):
        return self.device_id

    def __repr__(self):
        return f"Place({self.kind}:{self.device_id})"


class XPUPlace(_UnavailablePlace):
    kind = "xpu"


class IPUPlace(_UnavailablePlace):
    kind = "ipu"


_CPU = CPUPlace()
_GPU0 = CUDAPlace(0)


def place_of_array(a):
    return _CPU if backend_of(a) == "CPU" else _GPU0


def backend_of_place(place):
    if place is None:
        return None
    if isinstance(place, _UnavailablePlace):
        raise ValueError(f"{place!r}: sampan has no {place.kind.upper()} backend; use "
                         f"'cpu' (or 'gpu' with cupy)")
    if isinstance(place, Place):
        return place.backend
    if isinstance(place, str):
        p = place.lower()
        if p == "cpu":
            return "CPU"
        if p.startswith("gpu") or p.startswith("cuda"):
            return "GPU"
    raise ValueError(f"unknown place {place!r}; expected 'cpu', 'gpu', CPUPlace or CUDAPlace")
