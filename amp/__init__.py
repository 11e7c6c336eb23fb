"""``paddle.amp``: auto mixed precision (``auto_cast``, ``decorate``,
``GradScaler``).  The casts themselves happen in op dispatch (``ops.amp``);
this package holds the public API, Paddle's op lists and loss scaling."""
from .auto_cast import auto_cast, decorate, amp_guard, amp_decorate
from .amp_lists import white_list, black_list
from .grad_scaler import GradScaler, AmpScaler, OptimizerState
from . import amp_lists, grad_scaler, place  # noqa: F401

__all__ = ["auto_cast", "GradScaler", "decorate", "is_float16_supported",
           "is_bfloat16_supported"]


def _is_gpu(device):
    if device is None:
        from ..tensor.creation_base import get_device
        device = get_device()
    if isinstance(device, str):
        return device.split(":")[0].lower() in ("gpu", "cuda")
    return getattr(device, "is_gpu_place", lambda: False)()


def is_float16_supported(device=None):
    """Whether ``device`` (default: the current one) runs float16 AMP: a GPU
    place; not the CPU (as Paddle's CPU build answers)."""
    return _is_gpu(device)


def is_bfloat16_supported(device=None):
    """Whether ``device`` runs bfloat16 AMP: never in sampan, whose tensors
    cannot hold bfloat16 (numpy has none; Paddle's CPU build answers True where
    the CPU has AVX512-BF16-capable oneDNN kernels)."""
    return False
