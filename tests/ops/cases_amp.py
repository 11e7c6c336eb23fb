"""Op-spec cases of ops/defs/amp.py: check_finite_and_unscale and
update_loss_scaling (not differentiable).  References follow Paddle 2.6's CPU
kernels as run in real Paddle: once a tensor with inf/nan is met, it and every
later X are multiplied by 0 (earlier ones by 1/scale); a found step zeroes
every X and counts a bad step; the scale moves after n good or bad steps."""
import numpy as np

from .spec import Case, rand

A = rand(3, 4, seed=801).astype("float32")
B = rand(5, seed=802).astype("float32")
BAD = np.array([1.0, np.inf, -2.0], "float32")
NAN = np.array([np.nan, 1.0], "float32")
S4 = np.array([4.0], "float32")


def ref_check(X, Scale):
    found = False
    outs = []
    for x in X:
        found = found or not np.isfinite(x).all()
        with np.errstate(invalid="ignore"):
            outs.append(x * (0 if found else 1 / Scale[0]))
    return outs, np.array([found])


def ref_update(X, FoundInfinite, PrevLossScaling, InGoodSteps, InBadSteps, attrs):
    found = bool(FoundInfinite[0])
    s, g, b = float(PrevLossScaling[0]), int(InGoodSteps[0]), int(InBadSteps[0])
    if found:
        g, b = 0, b + 1
        if b == attrs["decr_every_n_nan_or_inf"]:
            s, b = max(s * attrs["decr_ratio"], 1.0), 0
    else:
        g, b = g + 1, 0
        if g == attrs["incr_every_n_steps"]:
            s, g = s * attrs["incr_ratio"], 0
    outs = [np.zeros_like(x) for x in X] if found else list(X)
    return (outs, np.array([s], PrevLossScaling.dtype), np.array([g], "int32"),
            np.array([b], "int32"))


def _upd(x, found, scale, good, bad, **attrs):
    full = {"incr_every_n_steps": 2, "decr_every_n_nan_or_inf": 1, "incr_ratio": 2.0,
            "decr_ratio": 0.5}
    full.update(attrs)
    return {"X": x, "FoundInfinite": np.array([found]),
            "PrevLossScaling": np.array([scale], "float32"),
            "InGoodSteps": np.array([good], "int32"), "InBadSteps": np.array([bad], "int32")}, full


CASES = [
    Case("check_finite_and_unscale", {"X": [A, B], "Scale": S4}, ref=ref_check, grad=False,
         id="check_finite_and_unscale_finite"),
    Case("check_finite_and_unscale", {"X": [A, BAD, B], "Scale": S4}, ref=ref_check,
         grad=False, rtol=0, atol=0, id="check_finite_and_unscale_inf_middle"),
    Case("check_finite_and_unscale", {"X": [NAN], "Scale": S4}, ref=ref_check, grad=False,
         id="check_finite_and_unscale_nan"),
    Case("check_finite_and_unscale", {"X": [A.astype("float64")], "Scale": S4.astype("float64")},
         ref=ref_check, grad=False, id="check_finite_and_unscale_f64"),
]
for _id, _args in (("incr", ([A, B], False, 8.0, 1, 0)),       # 2nd good step: x2
                   ("good", ([A], False, 8.0, 0, 0)),           # 1st good step: kept
                   ("decr", ([A, B], True, 8.0, 3, 0)),         # bad step: /2, zeroed
                   ("floor", ([A], True, 1.5, 0, 0)),           # never below 1
                   ("bad_count", ([B], True, 8.0, 0, 0))):
    _ins, _attrs = _upd(*_args, **({"decr_every_n_nan_or_inf": 2} if _id == "bad_count" else {}))
    CASES.append(Case("update_loss_scaling", _ins, _attrs, ref=ref_update, grad=False,
                      id=f"update_loss_scaling_{_id}"))

_ins, _attrs = _upd([A], True, 8.0, 0, 0)
CASES.append(Case("update_loss_scaling", dict(_ins, StopUpdate=np.array([True])), _attrs,
                  ref=lambda X, PrevLossScaling, InGoodSteps, InBadSteps: (
                      [np.zeros_like(x) for x in X], PrevLossScaling, InGoodSteps, InBadSteps),
                  grad=False, id="update_loss_scaling_stop_update"))
