"""numpy kernels of the optimizer update ops (sgd, momentum, adam, adamw,
rmsprop, adagrad).

Each kernel updates Param and its accumulators in place (the outputs are the
input arrays themselves), so an eager optimizer and a static program see the
new values in the variables they already hold.  A read-only input (an array
loaded from a file buffer) is copied first; the caller then finds the new array
in the output.  With a MasterParam (multi_precision) the update runs on the
float32 master copy and Param receives it rounded to its own dtype.

The math is Paddle 2.6's, step for step (e.g. Adam's epsilon is scaled by
sqrt(1 - beta2_pow) and the beta powers advance after the update).  AdamW's
lr_ratio scales both the decay and the Adam step, as Paddle's GPU kernel does
(Paddle's CPU build refuses lr_ratio).

sgd, momentum and adam/adamw on float32/float64 C-contiguous arrays of at
least ``COMPILED_MIN`` elements run as one compiled loop where numba is
present: the same operations in the same order on the same dtype (each
rounded as numpy rounds it, no fused multiply-adds), so the results are the
numpy path's bits, in one pass without temporaries (W2's SGD step over eight
256 x 256 parameters: 14 -> 7 us per parameter).
"""
import numpy as np

from ..registry import kernel
from .fused_elementwise import compiled_kernel

# below this many elements the numpy expressions cost no more than the call
COMPILED_MIN = 1024
_U = np.uint64


def _sgd_loop(p, g, lr):
    for i in range(_U(p.size)):
        p[i] = p[i] - g[i] * lr


def _momentum_loop(p, g, v, mu, lr):
    for i in range(_U(p.size)):
        vi = v[i] * mu + g[i]
        v[i] = vi
        p[i] = p[i] - vi * lr


def _adam_loop(p, g, m1, m2, beta1, beta2, c1, c2, eps, lr_t):
    # (eps: epsilon * sqrt(1 - beta2_pow), as in _adam_step)
    for i in range(_U(p.size)):
        gi = g[i]
        a = m1[i] * beta1 + c1 * gi
        b = m2[i] * beta2 + c2 * gi * gi
        m1[i] = a
        m2[i] = b
        p[i] = p[i] - a / (np.sqrt(b) + eps) * lr_t


def _compiled(loop, *arrays):
    """(compiled loop, the arrays flat) when every array is a C-contiguous
    float32/float64 ndarray of the first one's shape and dtype (the caller has
    made the ones the loop writes writable), large enough, and numba compiles
    ``loop``; else None."""
    a = arrays[0]
    if type(a) is not np.ndarray or a.size < COMPILED_MIN or \
            a.dtype.type not in (np.float32, np.float64):
        return None
    for b in arrays:
        if type(b) is not np.ndarray or not b.flags.c_contiguous or b.dtype != a.dtype \
                or b.shape != a.shape:
            return None
    fn = compiled_kernel(loop)
    return None if fn is None else (fn, [b.reshape(-1) for b in arrays])


def _w(a):
    """``a`` itself when it can be written in place, else a private copy."""
    return a if getattr(a.flags, "writeable", True) else a.copy()


def _target(p, master, g):
    """(array the update runs on, gradient in its dtype)."""
    if master is None:
        return _w(p), g
    return _w(master), g.astype(master.dtype, copy=False)


def _finish(p, master, t):
    """Outputs (ParamOut, MasterParamOut) after updating ``t``."""
    if master is None:
        return t, None
    p = _w(p)
    np.copyto(p, t, casting="unsafe")
    return p, t


@kernel("sgd")
def sgd(ins, attrs, need):
    p, lr, g, master = ins
    if master is None and p.flags.writeable:      # the usual case, without the helpers
        run = _compiled(_sgd_loop, p, g)
        if run is not None:
            run[0](*run[1], p.dtype.type(lr.item()))
        else:
            p -= g * lr.item()
        return p, None
    t, g = _target(p, master, g)
    t -= g * lr.item()
    return _finish(p, master, t)


@kernel("momentum")
def momentum(ins, attrs, need):
    p, g, v, lr, master = ins
    t, g = _target(p, master, g)
    v = _w(v)
    lr = lr.item()
    mu = attrs["mu"]
    rescale = attrs["rescale_grad"]
    if rescale != 1.0:
        g = g * rescale
    if attrs["regularization_method"] == "l2_decay":
        g = g + t * attrs["regularization_coeff"]
    run = None if attrs["use_nesterov"] else _compiled(_momentum_loop, t, g, v)
    if run is not None:
        dt = t.dtype.type
        run[0](*run[1], dt(mu), dt(lr))
        p, master = _finish(p, master, t)
        return p, v, master
    v *= mu
    v += g
    if attrs["use_nesterov"]:
        t -= (g + v * mu) * lr
    else:
        t -= v * lr
    p, master = _finish(p, master, t)
    return p, v, master


def _scalar(tensor, default):
    return default if tensor is None else float(tensor.reshape(-1)[0])


def _adam_step(ins, attrs, decay):
    """Shared by adam and adamw; ``decay``: (coeff, lr_ratio) or None.  Scalars
    are computed in the update's dtype, as Paddle's kernel does."""
    p, g, lr, m1, m2, b1p, b2p, master, skip, b1t, b2t, epst = ins
    if skip is not None and bool(skip.reshape(-1)[0]):
        return p, m1, m2, b1p, b2p, master
    t, g = _target(p, master, g)
    m1, m2 = _w(m1), _w(m2)
    dt = t.dtype.type
    one = dt(1)
    beta1 = dt(_scalar(b1t, attrs["beta1"]))
    beta2 = dt(_scalar(b2t, attrs["beta2"]))
    eps = dt(_scalar(epst, attrs["epsilon"]))
    lr = dt(lr.item())
    pow1, pow2 = dt(b1p.item()), dt(b2p.item())
    if decay is not None:
        coeff, ratio = dt(decay[0]), dt(decay[1])
        lr = lr * ratio
        t *= one - lr * coeff           # decoupled weight decay, before the Adam step
    lr_t = lr * (np.sqrt(one - pow2) / (one - pow1))
    run = _compiled(_adam_loop, t, g, m1, m2)
    if run is not None:
        run[0](*run[1], beta1, beta2, one - beta1, one - beta2,
               eps * np.sqrt(one - pow2), lr_t)
    else:
        _adam_numpy(t, g, m1, m2, beta1, beta2, one, eps * np.sqrt(one - pow2), lr_t)
    if not attrs["use_global_beta_pow"]:
        b1p, b2p = _w(b1p), _w(b2p)
        b1p *= beta1
        b2p *= beta2
    p, master = _finish(p, master, t)
    return p, m1, m2, b1p, b2p, master


def _adam_numpy(t, g, m1, m2, beta1, beta2, one, eps, lr_t):
    m1 *= beta1
    m1 += (one - beta1) * g
    m2 *= beta2
    m2 += (one - beta2) * g * g
    denom = np.sqrt(m2)
    denom += eps
    step = m1 / denom
    step *= lr_t
    t -= step


@kernel("adam")
def adam(ins, attrs, need):
    return _adam_step(ins, attrs, None)


@kernel("adamw")
def adamw(ins, attrs, need):
    coeff = attrs["coeff"] if attrs["with_decay"] else 0.0
    return _adam_step(ins, attrs, (coeff, attrs["lr_ratio"]))


@kernel("rmsprop")
def rmsprop(ins, attrs, need):
    p, ms, g, mom, lr, mg, master = ins
    t, g = _target(p, master, g)
    ms, mom = _w(ms), _w(mom)
    rho, eps = attrs["decay"], attrs["epsilon"]
    lr = lr.item()
    ms *= rho
    ms += (1.0 - rho) * (g * g)
    if attrs["centered"]:
        if mg is None:
            raise ValueError("rmsprop with centered=True needs the MeanGrad input")
        mg = _w(mg)
        mg *= rho
        mg += (1.0 - rho) * g
        denom = ms - mg * mg
    else:
        denom = ms.copy()
    denom += eps
    np.sqrt(denom, out=denom)
    mom *= attrs["momentum"]
    mom += lr * g / denom
    t -= mom
    p, master = _finish(p, master, t)
    return p, mom, ms, mg, master


@kernel("adagrad")
def adagrad(ins, attrs, need):
    p, g, mom, lr, master = ins
    t, g = _target(p, master, g)
    mom = _w(mom)
    mom += g * g
    denom = np.sqrt(mom)
    denom += attrs["epsilon"]
    t -= lr.item() * g / denom
    p, master = _finish(p, master, t)
    return p, mom, master

