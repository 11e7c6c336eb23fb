"""``paddle.base.dygraph``: Paddle 2.6's name for what ``paddle.fluid.dygraph``
was (``guard``, ``to_variable`` ...), over sampan's eager mode."""
from . import base  # noqa: F401
from .base import (guard, to_variable, enabled, enable_dygraph, disable_dygraph,  # noqa: F401
                   no_grad, no_grad_, grad)
