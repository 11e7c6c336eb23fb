"""``sampan.static.nn``: static-graph builders (control flow: cond, while_loop,
switch_case, case; fc and the other layer builders)."""
from .control_flow import cond, while_loop, switch_case, case
from .static_pylayer import static_pylayer
from .common import fc, batch_norm, embedding, conv2d, layer_norm, instance_norm, \
    group_norm, prelu, conv2d_transpose
from .conv import conv3d, conv3d_transpose
from . import extra as _extra
from .spectral import spectral_norm
from .extra import py_func, sequence_concat, sequence_conv, sequence_enumerate, \
    sequence_expand, sequence_expand_as, sequence_first_step, sequence_last_step, \
    sequence_pad, sequence_pool, sequence_reshape, sequence_reverse, sequence_scatter, \
    sequence_slice, sequence_softmax, sequence_unpad, bilinear_tensor_product
from . import builders_extra as _builders_extra
from .builders_extra import row_conv, data_norm, nce, sparse_embedding, deform_conv2d

__all__ = ["cond", "while_loop", "switch_case", "case", "static_pylayer", "fc", "batch_norm", "embedding",
           "conv2d", "layer_norm", "instance_norm", "group_norm", "prelu", "conv2d_transpose", "spectral_norm",
           "conv3d", "conv3d_transpose"] + _extra.__all__ + _builders_extra.__all__
