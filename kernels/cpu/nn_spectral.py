"""numpy kernels of ops/defs/nn_spectral.py: spectral_norm and its grad
(Paddle's kernel formulas, float32 / float64)."""
import numpy as np

from ..registry import kernel


def _as_matrix(w, dim):
    """W with ``dim`` moved first, as an [h, w] matrix, and the permutation."""
    perm = [dim] + [d for d in range(w.ndim) if d != dim]
    return w.transpose(perm).reshape(w.shape[dim], -1), perm


def _from_matrix(m, shape, perm):
    moved = [shape[p] for p in perm]
    return np.ascontiguousarray(m.reshape(moved).transpose(np.argsort(perm)))


def _sigma(m, u, v, iters, eps):
    """(u, v, sigma) after ``iters`` power iterations on copies of u, v."""
    u, v = u.copy(), v.copy()
    for _ in range(iters):
        v = m.T @ u
        v = v / (np.sqrt(np.sum(v * v)) + eps)
        u = m @ v
        u = u / (np.sqrt(np.sum(u * u)) + eps)
    return u, v, u @ m @ v


@kernel("spectral_norm", dtypes=("float32", "float64"))
def spectral_norm(ins, attrs, need):
    w, u, v = ins
    m, _ = _as_matrix(w, attrs["dim"])
    eps = w.dtype.type(attrs["eps"])
    sigma = _sigma(m, u, v, attrs["power_iters"], eps)[2]
    return ((w / sigma).astype(w.dtype, copy=False),)


@kernel("spectral_norm_grad", dtypes=("float32", "float64"))
def spectral_norm_grad(ins, attrs, need):
    w, u, v, g = ins
    dim = attrs["dim"]
    m, perm = _as_matrix(w, dim)
    gm = _as_matrix(g, dim)[0]
    eps = w.dtype.type(attrs["eps"])
    u, v, sigma = _sigma(m, u, v, attrs["power_iters"], eps)
    total = np.sum(m / sigma)
    dm = gm * (1 - np.outer(u, v) * total) / sigma
    return (_from_matrix(dm.astype(w.dtype, copy=False), w.shape, perm),)
