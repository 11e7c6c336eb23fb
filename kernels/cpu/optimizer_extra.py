"""numpy kernels of the adamax, adadelta and lamb update ops: in place, as the
kernels of ``optimizer.py`` (whose helpers they share); scalars in the
update's dtype, step for step as Paddle 2.6's CPU kernels."""
import numpy as np

from ..registry import kernel
from .optimizer import _w, _target, _finish


@kernel("adamax")
def adamax(ins, attrs, need):
    """m = b1*m + (1-b1)*g; u = max(|g|, b2*u + eps); p -= lr/(1-b1^t) * m/u.
    Beta1Pow is read, not advanced (the optimizer scales it afterwards)."""
    p, g, lr, mom, inf, b1p, master = ins
    t, g = _target(p, master, g)
    mom, inf = _w(mom), _w(inf)
    dt = t.dtype.type
    one = dt(1)
    beta1, beta2, eps = dt(attrs["beta1"]), dt(attrs["beta2"]), dt(attrs["epsilon"])
    mom *= beta1
    mom += (one - beta1) * g
    inf *= beta2
    inf += eps
    np.maximum(np.abs(g), inf, out=inf)
    lr_t = dt(lr.item()) / (one - dt(b1p.item()))
    t -= lr_t * (mom / inf)
    p, master = _finish(p, master, t)
    return p, mom, inf, master


@kernel("adadelta")
def adadelta(ins, attrs, need):
    """E[g^2] = rho*E[g^2] + (1-rho)*g^2; d = -sqrt((E[dx^2]+eps)/(E[g^2]+eps))*g;
    E[dx^2] = rho*E[dx^2] + (1-rho)*d^2; p += lr*d."""
    p, g, asg, asu, lr, master = ins
    t, g = _target(p, master, g)
    asg, asu = _w(asg), _w(asu)
    dt = t.dtype.type
    one = dt(1)
    rho, eps = dt(attrs["rho"]), dt(attrs["epsilon"])
    asg *= rho
    asg += (one - rho) * g * g
    upd = -np.sqrt((asu + eps) / (asg + eps)) * g
    asu *= rho
    asu += (one - rho) * upd * upd
    t += dt(lr.item()) * upd
    p, master = _finish(p, master, t)
    return p, asg, asu, master


@kernel("lamb")
def lamb(ins, attrs, need):
    """Adam moments, bias-corrected; r = m^/(sqrt(v^)+eps) + wd*p; the step
    lr * ||p||/||r|| * r (trust ratio 1 where a norm is 0, and when
    weight_decay is 0 unless always_adapt); the beta powers advance after the
    update."""
    p, g, lr, m1, m2, b1p, b2p, master, skip = ins
    if skip is not None and bool(skip.reshape(-1)[0]):
        return p, m1, m2, b1p, b2p, master
    t, g = _target(p, master, g)
    m1, m2 = _w(m1), _w(m2)
    dt = t.dtype.type
    one = dt(1)
    beta1, beta2, eps = dt(attrs["beta1"]), dt(attrs["beta2"]), dt(attrs["epsilon"])
    wd = dt(attrs["weight_decay"])
    pow1, pow2 = dt(b1p.item()), dt(b2p.item())
    m1 *= beta1
    m1 += (one - beta1) * g
    m2 *= beta2
    m2 += (one - beta2) * g * g
    r = (m1 / (one - pow1)) / (np.sqrt(m2 / (one - pow2)) + eps) + wd * t
    lr_v = dt(lr.item())
    pn = np.sqrt(np.sum(t * t, dtype=t.dtype))
    rn = np.sqrt(np.sum(r * r, dtype=t.dtype))
    adapt = wd != 0 or attrs["always_adapt"]     # else the plain (Adam-like) step
    ratio = pn / rn if adapt and pn > 0 and rn > 0 else one
    t -= (lr_v * ratio) * r
    b1p, b2p = _w(b1p), _w(b2p)
    b1p *= beta1
    b2p *= beta2
    p, master = _finish(p, master, t)
    return p, m1, m2, b1p, b2p, master
