"""``paddle.nn.functional`` sampling: grid_sample (the ``grid_sampler`` op,
4-D and 5-D) and class_center_sample (the ``class_center_sample`` op, on one
rank), with Paddle 2.6's argument checks (ops/defs/nn_sampling.py)."""
import numbers

from ...ops import bind, get_op
from ...program import default_main_program

__all__ = ["grid_sample", "class_center_sample"]

_GRID_SAMPLER = get_op("grid_sampler")
_CLASS_CENTER_SAMPLE = get_op("class_center_sample")
_MODES = ["bilinear", "nearest"]
_PADDINGS = ["zeros", "reflection", "border"]


def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True, name=None):
    if mode not in _MODES:
        raise ValueError(f"The mode of grid sample function should be in {_MODES}, but got: "
                         f"{mode}")
    if padding_mode not in _PADDINGS:
        raise ValueError(f"The padding mode of grid sample function should be in {_PADDINGS}, "
                         f"but got: {padding_mode}")
    if not isinstance(align_corners, bool):
        raise ValueError(f"The align corners should be bool, but got: {align_corners}")
    return bind(_GRID_SAMPLER, (x, grid), {"mode": mode, "padding_mode": padding_mode,
                                          "align_corners": align_corners})[0]


def _int_arg(v, name):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise ValueError(f"class_center_sample: {name} must be an int, got "
                         f"{type(v).__name__} {v!r}")
    return int(v)


def class_center_sample(label, num_classes, num_samples, group=None):
    if not (group is False or group is None or hasattr(group, "is_member")):
        raise ValueError(f"Expected group is False, None or instance of "
                         f"paddle.distributed.collective.Group (got group: {group})")
    if hasattr(group, "is_member") and not group.is_member():
        return None
    num_classes = _int_arg(num_classes, "num_classes")
    num_samples = _int_arg(num_samples, "num_samples")
    if num_samples > num_classes:
        raise ValueError(f"Expected num_samples less than or equal to {num_classes}, got "
                         f"num_samples {num_samples}")
    size = 1
    for d in label.shape:
        size *= d
    if size != -1 and size < 1:
        raise ValueError(f"Expected label_size > 0 (got label_size: {size})")
    if len(label.shape) != 1:
        raise ValueError(f"Expected label_dims == 1 (got label_dims: {len(label.shape)})")
    # one process: rank 0 of 1 (a multi-rank group needs sampan.distributed)
    seed = default_main_program().random_seed
    attrs = {"num_classes": num_classes, "num_samples": num_samples, "ring_id": 0,
             "rank": 0, "nranks": 1, "fix_seed": seed != 0, "seed": int(seed)}
    return tuple(bind(_CLASS_CENTER_SAMPLE, (label,), attrs))
