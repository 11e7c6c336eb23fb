"""``paddle.base.initializer``: the global parameter initializer."""
from ..nn.initializer import set_global_initializer  # noqa: F401
from ..program.legacy import check_type  # noqa: F401
