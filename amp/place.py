"""Where AMP runs: as in Paddle 2.6, on a GPU place only (on the CPU,
``auto_cast``, ``decorate(level='O2')`` and ``GradScaler`` warn or pass
through).  ``enabled_here()`` is read at each ``auto_cast``/``GradScaler``
construction, through this module, so one place decides."""
from ..tensor.creation_base import get_device


def enabled_here():
    """Whether the expected place runs AMP (a GPU place)."""
    return get_device() != "cpu"


def place_text():
    dev = get_device()
    return "Place(cpu)" if dev == "cpu" else f"Place({dev})"
