"""``sampan.static.nn``: static-graph builders (control flow: cond, while_loop,
switch_case, case; fc and the other layer builders)."""
from .control_flow import cond, while_loop, switch_case, case
from .common import fc, batch_norm, embedding, conv2d, layer_norm, instance_norm, \
    group_norm, prelu, conv2d_transpose

__all__ = ["cond", "while_loop", "switch_case", "case", "fc", "batch_norm", "embedding",
           "conv2d", "layer_norm", "instance_norm", "group_norm", "prelu", "conv2d_transpose"]
