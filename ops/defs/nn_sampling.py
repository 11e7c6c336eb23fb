"""Sampling ops (Paddle 2.6's slots and attributes): grid_sampler (with
grid_sampler_grad: the gradients of X and Grid) over 4-D and 5-D inputs, and
class_center_sample (random, no gradient).

grid_sampler: Output[n, c, (d,) h, w] samples X[n, c] at the point
Grid[n, (d,) h, w] = (x, y, (z)) in [-1, 1] (x indexes the last axis of X),
by bilinear (trilinear on 5-D) interpolation or the nearest pixel; points
outside X read zeros, the border, or the reflection of X (padding_mode).

class_center_sample: the unique labels (ascending) are kept as the positive
class centers, negatives are drawn at random from [0, num_classes) until there
are num_samples centers; RemappedLabel is each label's position among them.
"""
from ..declare import defop, defgrad, grad_op
from ..registry import Meta, OpError

# ------------------------------------------------------------------ grid_sampler
GRID_MODES = ("bilinear", "nearest")
GRID_PADDINGS = ("zeros", "border", "reflection")
_GS_ATTRS = (("mode", "STRING", "bilinear"), ("padding_mode", "STRING", "zeros"),
             ("align_corners", "BOOLEAN", True))


def check_grid_attrs(attrs):
    if attrs["mode"] not in GRID_MODES:
        raise OpError(f"grid_sampler: mode must be one of {list(GRID_MODES)}, got "
                      f"'{attrs['mode']}'")
    if attrs["padding_mode"] not in GRID_PADDINGS:
        raise OpError(f"grid_sampler: padding_mode must be one of {list(GRID_PADDINGS)}, "
                      f"got '{attrs['padding_mode']}'")


def check_grid_shapes(xs, gs):
    """The output shape of sampling an X of shape ``xs`` at a Grid of shape ``gs``."""
    if len(xs) not in (4, 5):
        raise OpError(f"grid_sampler: input X must be a 4-D [N, C, H, W] or 5-D "
                      f"[N, C, D, H, W] tensor, got shape {list(xs)}")
    nd = len(xs) - 2
    if len(gs) != len(xs):
        raise OpError(f"grid_sampler: Grid must be {len(xs)}-D for a {len(xs)}-D X "
                      f"(shape [N, {'D, ' if nd == 3 else ''}H, W, {nd}]), got shape {list(gs)}")
    if gs[-1] >= 0 and gs[-1] != nd:
        raise OpError(f"grid_sampler: Grid's last dimension must be {nd} (the point's "
                      f"coordinates) for a {len(xs)}-D X, got shape {list(gs)}")
    if xs[0] >= 0 and gs[0] >= 0 and xs[0] != gs[0]:
        raise OpError(f"grid_sampler: X and Grid must have the same batch size, got "
                      f"{xs[0]} (X {list(xs)}) and {gs[0]} (Grid {list(gs)})")
    return (xs[0] if xs[0] >= 0 else gs[0], xs[1]) + tuple(gs[1:-1])


def check_grid_dtypes(x_dtype, g_dtype):
    """X decides the kernel (an integer X has none); Grid must match a float X."""
    if x_dtype.kind == "f" and g_dtype != x_dtype:
        raise OpError(f"grid_sampler: Grid has dtype {g_dtype} but X has dtype {x_dtype}; "
                      f"they must match (cast one with .astype())")


def _gs_infer(metas, attrs):
    x, g = metas
    check_grid_attrs(attrs)
    check_grid_dtypes(x.dtype, g.dtype)
    return (Meta(check_grid_shapes(tuple(x.shape), tuple(g.shape)), x.dtype),)


defgrad("grid_sampler_grad", "X Grid Output@GRAD", "X@GRAD? Grid@GRAD?", _GS_ATTRS)
defop("grid_sampler", "X Grid", "Output", _GS_ATTRS, infer=_gs_infer,
      grad=grad_op("grid_sampler_grad", uses=("X", "Grid"), gouts=("Output",),
                   wrt=("X", "Grid")))


# ------------------------------------------------------------------ class_center_sample
_CCS_ATTRS = (("num_classes", "INT", 0), ("num_samples", "INT", 0), ("ring_id", "INT", 0),
              ("rank", "INT", 0), ("nranks", "INT", 1), ("fix_seed", "BOOLEAN", False),
              ("seed", "INT", 0))


def check_ccs_attrs(attrs):
    for name in ("num_classes", "num_samples"):
        if attrs[name] <= 0:
            raise OpError(f"class_center_sample: {name} must be greater than 0, got "
                          f"{attrs[name]}")
    if attrs["num_samples"] > attrs["num_classes"]:
        raise OpError(f"class_center_sample: num_samples ({attrs['num_samples']}) must be "
                      f"less than or equal to num_classes ({attrs['num_classes']})")
    if attrs["nranks"] != 1:
        raise OpError(f"class_center_sample: sampling across {attrs['nranks']} ranks needs "
                      f"the distributed communicator; this op samples on one rank "
                      f"(nranks=1)", kind=NotImplementedError)


def _ccs_infer(metas, attrs):
    label = metas[0]
    check_ccs_attrs(attrs)
    if len(label.shape) != 1:
        raise OpError(f"class_center_sample: Label must be 1-D [batch_size], got shape "
                      f"{list(label.shape)}")
    # at least num_samples centers: more when the positives outnumber it
    return Meta(tuple(label.shape), label.dtype), Meta((-1,), label.dtype)


defop("class_center_sample", "Label", "RemappedLabel SampledLocalClassCenter", _CCS_ATTRS,
      infer=_ccs_infer, random=True)
