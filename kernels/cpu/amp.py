"""numpy kernels of the loss-scaling ops, step for step as Paddle 2.6's CPU
kernels: ``check_finite_and_unscale`` multiplies each X by 1/scale until a
tensor holding inf or nan is met, and that one and every later one by 0;
``update_loss_scaling`` zeroes every X when FoundInfinite is set and moves
the scale: ``decr_every_n_nan_or_inf`` bad steps in a row multiply it by
``decr_ratio`` (not below 1), ``incr_every_n_steps`` good steps in a row by
``incr_ratio`` (kept when the product is not finite)."""
import numpy as np

from ..registry import kernel


@kernel("check_finite_and_unscale")
def check_finite_and_unscale(ins, attrs, need):
    xs, scale = ins
    inv = 1.0 / scale.reshape(-1)[0]
    found = False
    outs = []
    for x in xs:
        if not found:
            found = not bool(np.isfinite(x).all())
        with np.errstate(invalid="ignore"):          # inf * 0 is nan, as in Paddle
            outs.append(x * (x.dtype.type(0) if found else x.dtype.type(inv)))
    return outs, np.array([found])


@kernel("update_loss_scaling")
def update_loss_scaling(ins, attrs, need):
    xs, found, prev, good, bad, stop = ins
    found = bool(found.reshape(-1)[0])
    outs = [np.zeros_like(x) for x in xs] if found else list(xs)
    stop_update = attrs["stop_update"] or (stop is not None and bool(stop.reshape(-1)[0]))
    if stop_update:
        return outs, prev, good, bad
    p = prev.reshape(-1)[0]
    g, b = int(good.reshape(-1)[0]), int(bad.reshape(-1)[0])
    if found:
        g, b = 0, b + 1
        if b == attrs["decr_every_n_nan_or_inf"]:
            p = max(p * prev.dtype.type(attrs["decr_ratio"]), prev.dtype.type(1))
            b = 0
    else:
        g, b = g + 1, 0
        if g == attrs["incr_every_n_steps"]:
            new = p * prev.dtype.type(attrs["incr_ratio"])
            p = new if np.isfinite(new) else p
            g = 0
    return (outs, np.full(prev.shape, p, prev.dtype), np.full(good.shape, g, good.dtype),
            np.full(bad.shape, b, bad.dtype))
