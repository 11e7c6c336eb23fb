"""Other neural-network ops: dropout, lookup_table_v2 (embedding), and the
resize ops nearest_interp_v2 (4-D, 5-D) / linear_interp_v2 (3-D) /
bilinear_interp_v2 / bicubic_interp_v2 (4-D) / trilinear_interp_v2 (5-D), with
their grads.

The resize geometry (output size and source ratio, computed in float32 as
Paddle's kernels do) lives here once; the kernels import it.
"""
import numpy as np

from ..declare import defop, defgrad, grad_op
from ..registry import GradOp, Meta, OpError

UINT8 = np.dtype("uint8")


# ------------------------------------------------------------------ dropout
_DROPOUT_ATTRS = (("dropout_prob", "FLOAT", 0.5), ("is_test", "BOOLEAN", False),
                  ("dropout_implementation", "STRING", "downgrade_in_infer"),
                  ("fix_seed", "BOOLEAN", False), ("seed", "INT", 0))


def _dropout_infer(metas, attrs):
    x = metas[0]
    p = attrs["dropout_prob"]
    if not 0 <= p <= 1:
        raise OpError(f"dropout: dropout_prob must be in [0, 1], got {p}")
    if attrs["dropout_implementation"] not in ("downgrade_in_infer", "upscale_in_train"):
        raise OpError(f"dropout: dropout_implementation must be 'downgrade_in_infer' or "
                      f"'upscale_in_train', got '{attrs['dropout_implementation']}'")
    return Meta(x.shape, x.dtype), Meta(x.shape, UINT8)


# dropout_grad scales Out@GRAD by the mask: linear, so its gradient is itself
# applied to DDX (higher-order gradients through dropout; Paddle has none)
defgrad("dropout_grad", "Mask Out@GRAD", "X@GRAD", _DROPOUT_ATTRS,
        infer=lambda m, a: (m[1],),
        grad=GradOp("dropout_grad", {"Mask": "Mask", "Out@GRAD": "X@GRAD@GRAD"},
                    {"X@GRAD": "Out@GRAD@GRAD"}))
defop("dropout", "X Seed?", "Out Mask~", _DROPOUT_ATTRS, infer=_dropout_infer,
      grad=grad_op("dropout_grad", uses=("Mask",)), random=True,
      no_grad_inputs=("Seed",))


# ------------------------------------------------------------------ lookup_table_v2
_LOOKUP_ATTRS = (("padding_idx", "LONG", -1), ("is_sparse", "BOOLEAN", False))


def _lookup_infer(metas, attrs):
    ids, w = metas
    if len(w.shape) != 2:
        raise OpError(f"lookup_table_v2: W must be a 2-D table [vocab, dim], got shape "
                      f"{list(w.shape)}")
    if ids.dtype.kind not in "iu":
        raise OpError(f"lookup_table_v2: Ids must be an integer tensor, got {ids.dtype}")
    return (Meta(tuple(ids.shape) + (w.shape[1],), w.dtype),)


defgrad("lookup_table_v2_grad", "W Ids Out@GRAD", "W@GRAD", _LOOKUP_ATTRS, no_need_buffer=("W",))
defop("lookup_table_v2", "Ids W", "Out", _LOOKUP_ATTRS, infer=_lookup_infer,
      grad=grad_op("lookup_table_v2_grad", uses=("W", "Ids"), wrt=("W",)),
      dtype_from="W", no_grad_inputs=("Ids",))


# ------------------------------------------------------------------ interpolation
_INTERP_ATTRS = (("data_layout", "STRING", "NCHW"), ("out_d", "INT", -1),
                 ("out_h", "INT", -1), ("out_w", "INT", -1), ("scale", "FLOATS", []),
                 ("interp_method", "STRING", "bilinear"), ("align_corners", "BOOLEAN", True),
                 ("align_mode", "INT", 1))

F32 = np.float32


def interp_size(in_hw, attrs, out_size=None, size_list=None, scale_arr=None):
    """((oh, ow), (scale_h, scale_w)) as Paddle's interp kernels decide them:
    SizeTensor, else Scale tensor / scale attr, then OutSize overriding the size.
    A scale of -1 means "use in/out as the ratio"."""
    sh = sw = -1.0
    if size_list:
        return (int(size_list[0]), int(size_list[1])), (sh, sw)
    oh, ow = attrs["out_h"], attrs["out_w"]
    sc = list(np.asarray(scale_arr).reshape(-1)) if scale_arr is not None else attrs["scale"]
    if len(sc) >= 1:
        sh, sw = (float(sc[0]), float(sc[1])) if len(sc) > 1 else (float(sc[0]),) * 2
        if sh <= 0 or sw <= 0:
            raise OpError(f"interpolation scale must be positive, got {sc}")
    if sh > 0 and sw > 0:
        oh = int(F32(in_hw[0]) * F32(sh)) if in_hw[0] >= 0 else -1
        ow = int(F32(in_hw[1]) * F32(sw)) if in_hw[1] >= 0 else -1
    if out_size is not None:
        oh, ow = (int(v) for v in np.asarray(out_size).reshape(-1)[:2])
    return (oh, ow), (sh, sw)


def interp_sizes(in_sizes, attrs, out_size=None, size_list=None, scale_arr=None):
    """(output sizes, scales) over 1, 2 or 3 spatial dims (W; H, W; D, H, W), by
    interp_size's rule: SizeTensor, else the Scale tensor / scale attr (one value
    for every dim, or one per dim), then OutSize overriding the size."""
    n = len(in_sizes)
    if n == 2:
        outs, scales = interp_size(in_sizes, attrs, out_size, size_list, scale_arr)
        return list(outs), list(scales)
    scales = [-1.0] * n
    if size_list:
        return [int(v) for v in size_list[:n]], scales
    outs = [attrs[k] for k in ("out_d", "out_h", "out_w")[3 - n:]]
    sc = list(np.asarray(scale_arr).reshape(-1)) if scale_arr is not None else attrs["scale"]
    if len(sc) >= 1:
        scales = [float(v) for v in sc[:n]] if len(sc) >= n else [float(sc[0])] * n
        if any(v <= 0 for v in scales):
            raise OpError(f"interpolation scale must be positive, got {sc}")
        outs = [int(F32(i) * F32(v)) if i >= 0 else -1 for i, v in zip(in_sizes, scales)]
    if out_size is not None:
        outs = [int(v) for v in np.asarray(out_size).reshape(-1)[:n]]
    return outs, scales


def interp_ratio(in_size, out_size, scale, align_corners):
    """Source step per output index (float32, as in Paddle)."""
    if out_size <= 1:
        return F32(0)
    if align_corners:
        return F32(in_size - 1) / F32(out_size - 1)
    return F32(1.0 / scale) if scale > 0 else F32(in_size) / F32(out_size)


def _interp_infer(op, ranks):
    def infer(metas, attrs):
        x, out_size, size_tensor, scale = metas
        if len(x.shape) not in ranks:
            raise OpError(f"{op}: input X must be {' or '.join(f'{r}-D' for r in ranks)} "
                          f"(channels first or last), got shape {list(x.shape)}")
        last = attrs["data_layout"] == "NHWC"
        spatial = tuple(x.shape[1:-1]) if last else tuple(x.shape[2:])
        if out_size is not None or size_tensor or scale is not None:
            outs = [-1] * len(spatial)
        else:
            outs, _ = interp_sizes(spatial, attrs)
            if all(v == -1 for v in outs):
                raise OpError(f"{op}: neither an output size (out_d/out_h/out_w) nor a "
                              f"scale was given")
        n, c = x.shape[0], x.shape[-1 if last else 1]
        shape = (n, *outs, c) if last else (n, c, *outs)
        return (Meta(shape, x.dtype),)
    return infer


def _declare_interp(name, ranks=(4,)):
    defgrad(f"{name}_grad", "X OutSize? SizeTensor*? Scale? Out@GRAD", "X@GRAD",
            _INTERP_ATTRS, no_need_buffer=("X",))
    defop(name, "X OutSize? SizeTensor*? Scale?", "Out", _INTERP_ATTRS,
          infer=_interp_infer(name, ranks),
          grad=grad_op(f"{name}_grad", uses=("X", "OutSize", "SizeTensor", "Scale")),
          no_grad_inputs=("OutSize", "SizeTensor", "Scale"))


_declare_interp("nearest_interp_v2", (4, 5))
_declare_interp("bilinear_interp_v2")
_declare_interp("linear_interp_v2", (3,))
_declare_interp("bicubic_interp_v2")
_declare_interp("trilinear_interp_v2", (5,))


# ------------------------------------------------------------------ pixel_shuffle
_PS_ATTRS = (("upscale_factor", "INT", 1), ("data_format", "STRING", "NCHW"))


def _ps_infer(metas, attrs):
    x = metas[0]
    r = attrs["upscale_factor"]
    if len(x.shape) != 4:
        raise OpError(f"pixel_shuffle: input X must be 4-D, got shape {list(x.shape)}")
    last = attrs["data_format"] == "NHWC"
    n, c, h, w = (x.shape[0], x.shape[3], x.shape[1], x.shape[2]) if last else x.shape
    if r <= 0 or (c >= 0 and c % (r * r)):
        raise OpError(f"pixel_shuffle: the {c} channels must be divisible by "
                      f"upscale_factor**2 = {r * r}")
    c2 = -1 if c < 0 else c // (r * r)
    h2, w2 = (-1 if h < 0 else h * r), (-1 if w < 0 else w * r)
    return (Meta((n, h2, w2, c2) if last else (n, c2, h2, w2), x.dtype),)


def _ps_grad_infer(metas, attrs):
    g = metas[0]
    r = attrs["upscale_factor"]
    last = attrs["data_format"] == "NHWC"
    n, c, h, w = (g.shape[0], g.shape[3], g.shape[1], g.shape[2]) if last else g.shape
    c2 = -1 if c < 0 else c * r * r
    h2, w2 = (-1 if h < 0 else h // r), (-1 if w < 0 else w // r)
    return (Meta((n, h2, w2, c2) if last else (n, c2, h2, w2), g.dtype),)


defgrad("pixel_shuffle_grad", "Out@GRAD", "X@GRAD", _PS_ATTRS, infer=_ps_grad_infer)
defop("pixel_shuffle", "X", "Out", _PS_ATTRS, infer=_ps_infer,
      grad=grad_op("pixel_shuffle_grad"))
