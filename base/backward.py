"""``paddle.base.backward``: building the backward of a Program."""
from ..program import append_backward, gradients  # noqa: F401
