"""Loss-scaling ops of auto mixed precision (Paddle 2.6's slots and
attributes): ``check_finite_and_unscale`` divides gradients by the loss
scale and reports a non-finite value; ``update_loss_scaling`` zeroes the
gradients of a step that found one and moves the scale and its step
counters.  Each ``Out[i]`` updates ``X[i]`` in place, the new scale and
counters their inputs in the programs that feed them back.  Not
differentiable."""
import math

from ..declare import defop, REQUIRED
from ..registry import Meta, OpError


def _one_value(m, slot):
    if m is not None and all(d >= 0 for d in m.shape) and \
            math.prod(m.shape) != 1:
        raise OpError(f"input {slot} must hold one value, got shape {list(m.shape)}")


def _same_dtype(xs):
    for i, m in enumerate(xs[1:], 1):
        if m.dtype != xs[0].dtype:
            raise OpError(f"inputs X[0] ({xs[0].dtype}) and X[{i}] ({m.dtype}) must have "
                          f"the same dtype")


def _check_infer(metas, attrs):
    xs, scale = metas
    _same_dtype(xs)
    _one_value(scale, "Scale")
    return list(xs), Meta((1,), "bool")


defop("check_finite_and_unscale", "X* Scale", "Out* FoundInfinite", (),
      infer=_check_infer, inplace={"Out": "X"}, no_grad_inputs=("X", "Scale"))


def _update_infer(metas, attrs):
    xs, found, prev, good, bad, _stop = metas
    _same_dtype(xs)
    for m, slot in ((found, "FoundInfinite"), (prev, "PrevLossScaling"),
                    (good, "InGoodSteps"), (bad, "InBadSteps")):
        _one_value(m, slot)
    return list(xs), prev, good, bad


defop("update_loss_scaling", "X* FoundInfinite PrevLossScaling InGoodSteps InBadSteps StopUpdate?",
      "Out* LossScaling OutGoodSteps OutBadSteps",
      (("incr_every_n_steps", "INT", REQUIRED), ("decr_every_n_nan_or_inf", "INT", REQUIRED),
       ("incr_ratio", "FLOAT", REQUIRED), ("decr_ratio", "FLOAT", REQUIRED),
       ("stop_update", "BOOLEAN", False)),
      infer=_update_infer,
      inplace={"Out": "X", "LossScaling": "PrevLossScaling", "OutGoodSteps": "InGoodSteps",
               "OutBadSteps": "InBadSteps"},
      no_grad_inputs=("X", "FoundInfinite", "PrevLossScaling", "InGoodSteps", "InBadSteps",
                      "StopUpdate"),
      dtype_from="PrevLossScaling")
