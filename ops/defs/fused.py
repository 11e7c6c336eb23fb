"""Fused ops that sampan's own graph passes write (inference/passes.py); never
saved, so they need no Paddle counterpart, but they are declared like every
other op, so the registry alone answers "is this op known".

- ``sampan_fc``: ``Out = act(Input @ W + Bias)`` for a 2-D ``W`` [K, N] and a 1-D
  ``Bias`` [N], ``act`` none or relu: a ``matmul_v2`` (no transposes), an
  ``elementwise_add`` on the last axis and an optional ``relu`` fused (Paddle's
  IR passes fuse the same pattern into its ``fc`` op, whose ``in_num_col_dims``
  flattening this op does not have)."""
from ..declare import defop
from ..registry import Meta, OpError

FC_ACTIVATIONS = ("", "relu")


def _fc_infer(metas, attrs):
    x, w, b = metas
    if attrs["activation_type"] not in FC_ACTIVATIONS:
        raise OpError(f"sampan_fc: activation_type must be one of {list(FC_ACTIVATIONS)}, "
                      f"got '{attrs['activation_type']}'")
    if len(w.shape) != 2 or len(b.shape) != 1 or len(x.shape) < 1:
        raise OpError(f"sampan_fc: needs Input of rank >= 1, a 2-D W and a 1-D Bias, got "
                      f"shapes {list(x.shape)}, {list(w.shape)}, {list(b.shape)}")
    k, n = w.shape
    if -1 not in (x.shape[-1], k) and x.shape[-1] != k:
        raise OpError(f"sampan_fc: Input's last dim {x.shape[-1]} (shape {list(x.shape)}) "
                      f"does not match W's first dim {k}")
    if -1 not in (b.shape[0], n) and b.shape[0] != n:
        raise OpError(f"sampan_fc: Bias has {b.shape[0]} elements, W has {n} columns")
    return (Meta(tuple(x.shape[:-1]) + (n,), x.dtype),)


defop("sampan_fc", "Input W Bias", "Out", (("activation_type", "STRING", ""),),
      infer=_fc_infer, same_dtype=("Input", "W", "Bias"))


# ------------------------------------------------------------------ conv + bias + act
# ``sampan_conv2d_fusion``: ``Output = act(conv2d(Input, Filter) + Bias)`` for a
# channel-first conv2d / depthwise_conv2d and a 1-D Bias over its output channels
# (Paddle Inference's conv_elementwise_add_act_fuse_pass makes its conv2d_fusion
# op the same way).  The bias is added in the copy the convolution makes anyway,
# then the activation op's own kernel function runs (kernels/cpu/fused.py).
CONV_ACTIVATIONS = ("", "relu", "relu6", "sigmoid", "hard_swish", "swish", "leaky_relu")


def _conv_fusion_infer(metas, attrs):
    from .nn_conv import _conv_infer
    x, w, b = metas
    if attrs["activation"] not in CONV_ACTIVATIONS:
        raise OpError(f"sampan_conv2d_fusion: activation must be one of "
                      f"{list(CONV_ACTIVATIONS)}, got '{attrs['activation']}'")
    if attrs["data_format"] not in ("NCHW", "AnyLayout"):
        raise OpError(f"sampan_conv2d_fusion: needs NCHW, got {attrs['data_format']}")
    if len(b.shape) != 1 or -1 not in (b.shape[0], w.shape[0]) and b.shape[0] != w.shape[0]:
        raise OpError(f"sampan_conv2d_fusion: Bias must be 1-D with one value per output "
                      f"channel ({w.shape[0]}), got shape {list(b.shape)}")
    return _conv_infer("sampan_conv2d_fusion", 4)([x, w], attrs)


def _declare_conv_fusion():
    from .nn_conv import _CONV_ATTRS
    defop("sampan_conv2d_fusion", "Input Filter Bias", "Output",
          _CONV_ATTRS + (("activation", "STRING", ""), ("alpha", "FLOAT", 0.0)),
          infer=_conv_fusion_infer, same_dtype=("Input", "Filter", "Bias"))


_declare_conv_fusion()
