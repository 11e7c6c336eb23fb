"""A seam for the inference passes: ``inference/`` (below ``jit/`` in the layer
map) registers its load-time optimizer here when it is imported, so
``jit.load(..., ir_optim=True)`` can run the same passes on a loaded model's
eval program without importing it.  The optimizer is
``fn(program, params, feeds, fetches, skip=(), report=None) -> (program,
fetch names)`` (inference/passes.py ``optimize``)."""

__all__ = ["register_inference_optimizer", "inference_optimizer"]

_optimizer = []


def register_inference_optimizer(fn):
    _optimizer[:] = [fn]


def inference_optimizer():
    """The registered optimizer, or None (sampan.inference not imported)."""
    return _optimizer[0] if _optimizer else None
