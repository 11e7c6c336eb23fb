"""``sampan.static.nn``: static-graph builders (control flow: cond, while_loop,
switch_case, case; fc and the other layer builders)."""
from .control_flow import cond, while_loop, switch_case, case
from .common import fc, batch_norm, embedding, conv2d, layer_norm, instance_norm, \
    group_norm, prelu, conv2d_transpose
from . import extra as _extra
from .extra import py_func, sequence_concat, sequence_conv, sequence_enumerate, \
    sequence_expand, sequence_expand_as, sequence_first_step, sequence_last_step, \
    sequence_pad, sequence_pool, sequence_reshape, sequence_reverse, sequence_scatter, \
    sequence_slice, sequence_softmax, sequence_unpad, bilinear_tensor_product

__all__ = ["cond", "while_loop", "switch_case", "case", "fc", "batch_norm", "embedding",
           "conv2d", "layer_norm", "instance_norm", "group_norm", "prelu", "conv2d_transpose"] + _extra.__all__
