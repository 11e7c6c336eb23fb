"""numpy kernels of the ``paddle.linalg`` grad ops (ops/defs/linalg_ext.py),
the standard matrix-calculus rules written with the forward's own solvers.

Where an input is read through one triangle (cholesky, eigh: a symmetric
matrix; cholesky_solve's factor; triangular_solve's matrix) the gradient is
Paddle's: symmetric for the symmetric inputs, the read triangle for the
triangular ones.  A gradient of an output that received none arrives as None
and counts as zero.  Gradients of inputs whose batch dims were broadcast are
summed back to their shapes.
"""
import numpy as np

from ...ops import OpError
from ..registry import kernel
from .elementwise import reduce_to
from .linalg_ext import (T, F, inv, tri_solve, solve_triangular, cholesky_solve_arrays,
                         solve_arrays, unpack_lu, perm_matrix, norm_axes)

C = ("complex64", "complex128")


def _z(g, like):
    return np.zeros(like.shape, like.dtype) if g is None else g


def _need(need, i):
    return need is None or need[i]


def _sym(a):
    return 0.5 * (a + T(a))


def _right_solve(b, a, upper, unit=False):
    """``a b^{-1}`` for triangular ``b`` (``upper`` or lower)."""
    return T(tri_solve(T(b), T(a), lower=upper, unit=unit))


# ------------------------------------------------------------------ cholesky
@kernel("cholesky_grad", dtypes=F)
def cholesky_grad(ins, attrs, need):
    """A = L L^T: gA = sym(L^{-T} Phi(L^T gL) L^{-1}), Phi = the lower triangle
    with the diagonal halved."""
    out, g = ins
    low, gl = (T(out), T(g)) if attrs["upper"] else (out, g)
    phi = np.tril(T(low) @ gl)
    phi -= 0.5 * np.tril(np.triu(phi))
    s = tri_solve(T(low), phi, lower=False)            # L^{-T} Phi
    s = _right_solve(low, s, upper=False)              # ... L^{-1}
    return (_sym(s).astype(out.dtype),)


@kernel("cholesky_solve_grad", dtypes=F)
def cholesky_solve_grad(ins, attrs, need):
    """Out = A^{-1} B with A = L L^T (or U^T U): gB = A^{-1} gOut, gA = -gB Out^T,
    and the factor's gradient (gA + gA^T) L (or U (gA + gA^T)) in its triangle."""
    b, f, out, g = ins
    upper = attrs["upper"]
    gb = cholesky_solve_arrays(g, f, upper)
    gx = reduce_to(gb, b.shape) if _need(need, 0) else None
    gy = None
    if _need(need, 1):
        ga = -gb @ T(out)
        ga = ga + T(ga)
        gy = np.triu(f @ ga) if upper else np.tril(ga @ f)
        gy = reduce_to(gy, f.shape)
    return (gx, gy)


# ------------------------------------------------------------------ inverse, determinants
@kernel("inverse_grad", dtypes=F)
def inverse_grad(ins, attrs, need):
    out, g = ins
    return (-(T(out) @ g @ T(out)),)


@kernel("determinant_grad", dtypes=F)
def determinant_grad(ins, attrs, need):
    """d det(X) = det(X) X^{-T}; zeros when a matrix of the batch is singular
    (Paddle's rule)."""
    x, det, g = ins
    if np.any(det == 0):
        return (np.zeros_like(x),)
    return (((g * det)[..., None, None] * T(inv(x))).astype(x.dtype),)


@kernel("slogdeterminant_grad", dtypes=F)
def slogdeterminant_grad(ins, attrs, need):
    """Only log|det| carries a gradient: X^{-T} times its incoming gradient."""
    x, out, g = ins
    if np.any(out[0] == 0):
        return (np.zeros_like(x),)
    return ((g[1][..., None, None] * T(inv(x))).astype(x.dtype),)


# ------------------------------------------------------------------ solvers
@kernel("solve_grad", dtypes=F)
def solve_grad(ins, attrs, need):
    """Out = A^{-1} B: gB = A^{-T} gOut, gA = -gB Out^T."""
    a, b, out, g = ins
    if b.ndim == 1:                   # a vector y: Out is x's batch of vectors
        g, out = g[..., None], out[..., None]
    gb = solve_arrays(T(a), g)
    ga = reduce_to(-(gb @ T(out)), a.shape) if _need(need, 0) else None
    if not _need(need, 1):
        return (ga, None)
    return (ga, reduce_to(gb[..., 0] if b.ndim == 1 else gb, b.shape))


@kernel("triangular_solve_grad", dtypes=F)
def triangular_solve_grad(ins, attrs, need):
    """Out = op(A)^{-1} B: gB = op(A)^{-T} gOut, gA = -gB Out^T (transposed when
    op is the transpose), in the triangle the forward reads (its diagonal
    excluded when unitriangular)."""
    a, b, out, g = ins
    upper, trans, unit = attrs["upper"], attrs["transpose"], attrs["unitriangular"]
    gb = solve_triangular(a, g, upper, not trans, unit)
    ga = None
    if _need(need, 0):
        ga = -(out @ T(gb)) if trans else -(gb @ T(out))
        ga = np.triu(ga, 1 if unit else 0) if upper else np.tril(ga, -1 if unit else 0)
        ga = reduce_to(ga, a.shape)
    return (ga, reduce_to(gb, b.shape) if _need(need, 1) else None)


# ------------------------------------------------------------------ matrix_power, multi_dot
def _power_grad(x, g, n):
    """gX of X^n (n >= 1): the sum over k of (X^T)^k gOut (X^T)^(n-1-k)."""
    pw = [np.broadcast_to(np.eye(x.shape[-1], dtype=x.dtype), x.shape)]
    for _ in range(n - 1):
        pw.append(pw[-1] @ x)
    return sum(T(pw[k]) @ g @ T(pw[n - 1 - k]) for k in range(n))


@kernel("matrix_power_grad", dtypes=F)
def matrix_power_grad(ins, attrs, need):
    x, out, g = ins
    n = attrs["n"]
    if n == 0:
        return (np.zeros_like(x),)
    if n > 0:
        return (_power_grad(x, g, n).astype(x.dtype),)
    y = inv(x)                                       # X^n = (X^{-1})^{|n|}
    gy = _power_grad(y, g, -n)
    return ((-(T(y) @ gy @ T(y))).astype(x.dtype),)


@kernel("multi_dot_grad", dtypes=F)
def multi_dot_grad(ins, attrs, need):
    """gX_i = (X_1 .. X_{i-1})^T gOut (X_{i+1} .. X_n)^T, a 1-D first (last)
    operand taken as a row (column)."""
    xs, g = ins
    mats = list(xs)
    first_vec, last_vec = mats[0].ndim == 1, mats[-1].ndim == 1
    if first_vec:
        mats[0] = mats[0][None, :]
    if last_vec:
        mats[-1] = mats[-1][:, None]
    g = g.reshape(mats[0].shape[0], mats[-1].shape[1])
    n = len(mats)
    left = [None] * n                     # left[i] = X_1 .. X_{i-1}
    acc = None
    for i in range(n):
        left[i] = acc
        acc = mats[i] if acc is None else acc @ mats[i]
    grads, acc = [None] * n, None         # acc = X_{i+1} .. X_n
    for i in range(n - 1, -1, -1):
        gi = g if acc is None else g @ T(acc)
        if left[i] is not None:
            gi = T(left[i]) @ gi
        if need is None or need[0]:
            grads[i] = gi.reshape(xs[i].shape)
        acc = mats[i] if acc is None else mats[i] @ acc
    return (grads,)


# ------------------------------------------------------------------ svd, qr
@kernel("svd_grad", dtypes=F)
def svd_grad(ins, attrs, need):
    """gA = U [skew(U^T gU)/E S + S skew(V^T gV)/E + diag(gS)] V^T
    + (I - U U^T) gU S^{-1} V^T + U S^{-1} gV^T (I - V V^T), E_ij = s_j^2 - s_i^2.
    With full_matrices only the first min(M, N) singular vectors count (the
    rest are not unique), as in Paddle."""
    x, u, vh, s, gu, gvh, gs = ins
    m, n = x.shape[-2:]
    k = min(m, n)
    u, vh = u[..., :, :k], vh[..., :k, :]
    gu = None if gu is None else gu[..., :, :k]
    gvh = None if gvh is None else gvh[..., :k, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        inner = np.zeros(s.shape + (k,), x.dtype)
        if gu is not None or gvh is not None:
            s2 = s * s
            e = s2[..., None, :] - s2[..., :, None]
            np.einsum("...ii->...i", e)[...] = 1
            if gu is not None:
                uhgu = T(u) @ gu
                inner += (uhgu - T(uhgu)) * s[..., None, :]
            if gvh is not None:
                vhgv = vh @ T(gvh)
                inner += s[..., :, None] * (vhgv - T(vhgv))
            inner = inner / e
        if gs is not None:
            inner += gs[..., :, None] * np.eye(k, dtype=x.dtype)
        ga = u @ inner @ vh
        if m > k and gu is not None:
            gus = gu / s[..., None, :]
            ga += (gus - u @ (T(u) @ gus)) @ vh
        if n > k and gvh is not None:
            sgv = gvh / s[..., :, None]
            ga += u @ (sgv - (sgv @ T(vh)) @ vh)
    return (ga.astype(x.dtype),)


def _qr_deep(q, r, dq, dr):
    """gA of A = Q R for M >= N (Q: M x N, R: N x N upper)."""
    qdq = T(q) @ dq
    rdr = r @ T(dr)
    low = np.tril(qdq - T(qdq) + rdr - T(rdr))
    return q @ (dr + _right_solve(T(r), low, upper=False)) + \
        _right_solve(T(r), dq - q @ qdq, upper=False)


@kernel("qr_grad", dtypes=F)
def qr_grad(ins, attrs, need):
    x, q, r, gq, gr = ins
    mode = attrs["mode"]
    m, n = x.shape[-2:]
    if mode == "r":
        raise OpError("The derivative of qr is not implemented when mode='r'; use "
                      "mode='reduced'")
    if mode == "complete" and m > n:
        raise OpError(f"The derivative of qr is not implemented when mode='complete' "
                      f"and {m} > {n}")
    gq, gr = _z(gq, q), _z(gr, r)
    if m >= n:
        return (_qr_deep(q, r, gq, gr).astype(x.dtype),)
    # wide: A = Q [U | V] with U square; reduce to the square case on its first M columns
    y, dv = x[..., :, m:], gr[..., :, m:]
    dx = _qr_deep(q, r[..., :, :m], gq + y @ T(dv), gr[..., :, :m])
    return (np.concatenate([dx, q @ dv], axis=-1).astype(x.dtype),)


# ------------------------------------------------------------------ eigen decompositions
def _gap(w):
    """E_ij = w_j - w_i with ones on the diagonal (the divisions skip it)."""
    e = w[..., None, :] - w[..., :, None]
    np.einsum("...ii->...i", e)[...] = 1
    return e


def _h(a):
    return np.conj(T(a)) if np.iscomplexobj(a) else T(a)


@kernel("eigh_grad", dtypes=F + C)
def eigh_grad(ins, attrs, need):
    """A = V diag(w) V^H: gA = V [diag(gw) + (V^H gV - (V^H gV)^H) / (2E)] V^H
    (Hermitian)."""
    w, v, gw, gv = ins
    inner = np.zeros(v.shape, v.dtype)
    if gv is not None:
        vgv = _h(v) @ gv
        with np.errstate(divide="ignore", invalid="ignore"):
            inner = 0.5 * (vgv - _h(vgv)) / _gap(w)
        np.einsum("...ii->...i", inner)[...] = 0
    if gw is not None:
        inner = inner + gw[..., :, None] * np.eye(v.shape[-1], dtype=v.dtype)
    return ((v @ inner @ _h(v)).astype(v.dtype),)


@kernel("eigvalsh_grad", dtypes=F + C)
def eigvalsh_grad(ins, attrs, need):
    v, gw = ins
    return (((v * gw[..., None, :]) @ _h(v)).astype(v.dtype),)


@kernel("eig_grad", dtypes=F + C)
def eig_grad(ins, attrs, need):
    """A = V diag(w) V^{-1}, V's columns of unit norm: gA = V^{-H} [diag(gw) +
    (V^H gV - V^H V Re(diag(V^H gV))) / conj(E)] V^H (Paddle's complex
    convention, dL/dRe + i dL/dIm); its real part for a real input X."""
    x, w, v, gw, gv = ins
    vh = np.conj(T(v))
    inner = np.zeros(v.shape, v.dtype)
    if gv is not None:
        vhgv = vh @ gv
        d = np.real(np.einsum("...ii->...i", vhgv))
        vhgv = vhgv - vh @ (v * d[..., None, :])
        with np.errstate(divide="ignore", invalid="ignore"):
            inner = vhgv / np.conj(_gap(w))
        np.einsum("...ii->...i", inner)[...] = 0
    if gw is not None:
        inner = inner + gw[..., :, None] * np.eye(v.shape[-1], dtype=v.dtype)
    try:
        ga = np.linalg.solve(vh, inner @ vh)
    except np.linalg.LinAlgError:
        raise OpError("eig_grad: the eigenvectors are linearly dependent (the input "
                      "is not diagonalizable)") from None
    return (ga.astype(x.dtype) if x.dtype.kind == "c" else np.real(ga).astype(x.dtype),)


# ------------------------------------------------------------------ lu
@kernel("lu_grad", dtypes=F)
def lu_grad(ins, attrs, need):
    """A = P L U with LU packed in Out: the gradient of the packed factors (L's
    strictly lower part, U's upper part) carried back through the
    factorization, for square, tall and wide matrices."""
    x, out, piv, g = ins
    m, n = x.shape[-2:]
    k = min(m, n)
    low, up = unpack_lu(out)
    gl = np.tril(g[..., :, :k], -1)
    gu = np.triu(g[..., :k, :])
    if m == n:
        ga = np.tril(T(low) @ gl, -1) + np.triu(gu @ T(up))
        ga = _right_solve(T(up), ga, upper=False)
        ga = tri_solve(T(low), ga, lower=False, unit=True)
    elif m < n:
        u1 = up[..., :, :k]
        ga = T(low) @ gl - np.triu(gu) @ T(up)
        ga = _right_solve(T(u1), np.tril(ga, -1), upper=False)
        ga = np.concatenate([ga + np.triu(gu[..., :, :k]), gu[..., :, k:]], axis=-1)
        ga = tri_solve(T(low), ga, lower=False, unit=True)
    else:
        l1 = low[..., :k, :]
        ga = gu @ T(up) - T(low) @ gl
        ga = tri_solve(T(l1), np.triu(ga), lower=False, unit=True)
        ga = np.concatenate([ga + np.tril(gl[..., :k, :], -1), gl[..., k:, :]], axis=-2)
        ga = _right_solve(T(up), ga, upper=False)
    return ((perm_matrix(piv, m, x.dtype) @ ga).astype(x.dtype),)


@kernel("lu_unpack_grad", dtypes=F)
def lu_unpack_grad(ins, attrs, need):
    """L and U are read from the packed X's strictly lower and upper parts."""
    x, piv, low, up, pm, gl, gu = ins
    k = min(x.shape[-2:])
    gx = np.zeros(x.shape, x.dtype)
    if attrs["unpack_ludata"]:
        if gl is not None:
            gx[..., :, :k] += np.tril(gl, -1)
        if gu is not None:
            gx[..., :k, :] += np.triu(gu)
    return (gx,)


# ------------------------------------------------------------------ frobenius_norm
@kernel("frobenius_norm_grad", dtypes=F)
def frobenius_norm_grad(ins, attrs, need):
    x, out, g = ins
    axes = norm_axes(attrs, x.ndim)
    if not attrs["keep_dim"]:
        out, g = np.expand_dims(out, axes), np.expand_dims(g, axes)
    with np.errstate(divide="ignore", invalid="ignore"):
        return ((g * x / out).astype(x.dtype),)
