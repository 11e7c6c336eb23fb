"""``paddle.base.dygraph.base``: the eager mode's switches and helpers."""
from ...tensor.legacy_dygraph import (guard, to_variable, enabled, enable_dygraph,  # noqa: F401
                                      disable_dygraph, switch_to_static_graph)
from ...dygraph import no_grad, grad, enable_grad, set_grad_enabled, is_grad_enabled  # noqa: F401

no_grad_ = no_grad
