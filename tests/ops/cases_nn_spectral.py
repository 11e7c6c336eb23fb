"""Op-spec cases of ops/defs/nn_spectral.py: spectral_norm and its grad.
The reference runs the power iteration on the [h, w] matrix of Weight with
``dim`` moved first.  Paddle's gradient treats u, v as constants and is the
derivative only for a constant output gradient and when u, v do not move with
Weight: no power iteration, or a converged one (the envelope theorem: then
d sigma / dW = u v^T).  So the finite-difference checks start from ones
(``const_out_grad``) in those configurations; the grad op is also checked on
its own, for a random output gradient, against Paddle's kernel formula."""
import numpy as np

from .spec import Case, rand


def _parts(w, u, v, dim, iters, eps=1e-12):
    perm = [dim] + [d for d in range(w.ndim) if d != dim]
    m = w.transpose(perm).reshape(w.shape[dim], -1)
    for _ in range(iters):
        v = m.T @ u
        v = v / (np.linalg.norm(v) + eps)
        u = m @ v
        u = u / (np.linalg.norm(u) + eps)
    return perm, m, u, v, u @ m @ v


def ref_spectral_norm(w, u, v, dim, iters):
    return w / _parts(w, u, v, dim, iters)[4]


def ref_spectral_norm_grad(w, u, v, g, dim, iters):
    perm, m, u, v, s = _parts(w, u, v, dim, iters)
    gm = g.transpose(perm).reshape(m.shape)
    dm = gm * (1 - np.outer(u, v) * (m / s).sum()) / s
    return dm.reshape([w.shape[p] for p in perm]).transpose(np.argsort(perm))


W2 = rand(4, 6, seed=401)
W3 = rand(3, 4, 2, seed=402)
W4 = rand(2, 3, 2, 2, seed=403)
U4, V6 = rand(4, seed=404), rand(6, seed=405)
U3, V8 = rand(3, seed=406), rand(8, seed=407)
U3b, V8b = rand(3, seed=408), rand(8, seed=409)


def _case(w, u, v, dim, iters, grad=False, **kw):
    return Case("spectral_norm", {"Weight": w, "U": u, "V": v},
                {"dim": dim, "power_iters": iters},
                ref=lambda Weight, U, V: ref_spectral_norm(Weight, U, V, dim, iters),
                const_out_grad=True, grad=("Weight",) if grad else False, **kw)


CASES = [
    _case(W2, U4, V6, 0, 0, grad=True),
    _case(W3, rand(4, seed=410), rand(6, seed=411), 1, 0, grad=True,
          id="spectral_norm_dim1_no_iters"),
    _case(W4, U3b, rand(8, seed=412), 1, 60, grad=True, id="spectral_norm_4d_converged"),
    _case(W2, U4, V6, 0, 1, id="spectral_norm_iters1"),
    _case(W3, U3, V8, 0, 2, id="spectral_norm_3d_iters2"),
    Case("spectral_norm", {"Weight": W2.astype("float32"), "U": U4.astype("float32"),
                           "V": V6.astype("float32")}, {"dim": 0, "power_iters": 2},
         ref=lambda Weight, U, V: ref_spectral_norm(Weight.astype("float64"),
                                                    U.astype("float64"),
                                                    V.astype("float64"), 0, 2),
         rtol=1e-5, atol=1e-5, grad=False, id="spectral_norm_fp32"),
]

G3 = rand(3, 4, 2, seed=413)
CASES += [
    # the grad op alone, for a random output gradient: Paddle's formula
    Case("spectral_norm_grad", {"Weight": W3, "U": rand(4, seed=414), "V": rand(6, seed=415),
                                "Out@GRAD": G3}, {"dim": 1, "power_iters": 2},
         ref=lambda Weight, U, V, Out_GRAD: ref_spectral_norm_grad(Weight, U, V, Out_GRAD, 1, 2),
         grad=False),
    Case("spectral_norm_grad", {"Weight": W2, "U": U4, "V": V6, "Out@GRAD": rand(4, 6, seed=416)},
         {"dim": 0, "power_iters": 1},
         ref=lambda Weight, U, V, Out_GRAD: ref_spectral_norm_grad(Weight, U, V, Out_GRAD, 0, 1),
         grad=False, id="spectral_norm_grad_dim0"),
]
