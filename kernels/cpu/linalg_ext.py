"""numpy kernels of the ``paddle.linalg`` ops (ops/defs/linalg_ext.py):
factorizations, solvers, inverse, determinants, matrix_power, matrix_rank,
multi_dot and frobenius_norm.  Their gradients are in linalg_ext_grad.py.

Every kernel first checks its inputs with the op's infer_meta (``checked``),
so an eager call fails with the same error as a static program, before numpy
could accept an input Paddle refuses (a broadcast lstsq, a 1-D factor).
The triangular solves are substitutions, as BLAS ``trsm`` (a zero on the
diagonal gives inf/nan, as in Paddle, not an error); LU is LAPACK's ``getrf``
with partial pivoting (1-based pivots, ``info`` the first zero pivot).
"""
import functools

import numpy as np

from ...ops import OpError, Meta, get_op
from ..registry import kernel

F = ("float32", "float64")


def checked(op_type):
    """Decorator: run ``op_type``'s infer_meta on the input shapes first."""
    op = get_op(op_type)

    def meta(a):
        if a is None:
            return None
        if isinstance(a, list):
            return [Meta(x.shape, x.dtype) for x in a]
        return Meta(a.shape, a.dtype)

    def deco(fn):
        @functools.wraps(fn)
        def run(ins, attrs, need):
            op.infer_meta(tuple(meta(a) for a in ins), attrs)
            return fn(ins, attrs, need)
        return run
    return deco


def T(a):
    return np.swapaxes(a, -1, -2)


def batch_of(*arrays):
    """The arrays broadcast over their batch dims (all but the last two)."""
    batch = np.broadcast_shapes(*(a.shape[:-2] for a in arrays))
    return [np.broadcast_to(a, batch + a.shape[-2:]) for a in arrays]


def tri_solve(a, b, lower, unit=False):
    """``a x = b`` for triangular ``a`` (only its ``lower`` or upper triangle
    read; its diagonal taken as ones when ``unit``) by substitution, batch dims
    broadcast."""
    a, b = batch_of(a, b)
    n = a.shape[-1]
    x = np.zeros(b.shape, np.result_type(a, b))
    order = range(n) if lower else range(n - 1, -1, -1)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in order:
            done = slice(0, i) if lower else slice(i + 1, n)
            s = b[..., i, :] - (a[..., i:i + 1, done] @ x[..., done, :])[..., 0, :]
            x[..., i, :] = s if unit else s / a[..., i, i][..., None]
    return x


def solve_triangular(a, b, upper, transpose=False, unit=False):
    """``op(a) x = b`` with ``op(a) = a^T`` when ``transpose`` (Paddle's
    triangular_solve)."""
    if transpose:
        return tri_solve(T(a), b, lower=upper, unit=unit)
    return tri_solve(a, b, lower=not upper, unit=unit)


def _not_invertible(what="Input"):
    return OpError(f"{what} is not invertible: a matrix of the batch is singular "
                   f"(a zero pivot in its LU factorization)")


def inv(a):
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        raise _not_invertible() from None


# ------------------------------------------------------------------ cholesky
def cholesky_lower(x):
    try:
        return np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        flat = x.reshape((-1,) + x.shape[-2:])
        bad = next((i for i, m in enumerate(flat) if not _chol_ok(m)), 0)
        raise OpError(f"Cholesky decomposition was not successful: the {bad}-th input "
                      f"matrix might not be positive definite") from None


def _chol_ok(m):
    try:
        np.linalg.cholesky(m)
        return True
    except np.linalg.LinAlgError:
        return False


@kernel("cholesky", dtypes=F)
@checked("cholesky")
def cholesky(ins, attrs, need):
    low = cholesky_lower(ins[0])
    return (np.ascontiguousarray(T(low)) if attrs["upper"] else low,)


def cholesky_solve_arrays(b, f, upper):
    """``(f f^T)^{-1} b`` (lower factor) or ``(f^T f)^{-1} b`` (upper)."""
    if upper:
        return tri_solve(f, tri_solve(T(f), b, lower=True), lower=False)
    return tri_solve(T(f), tri_solve(f, b, lower=True), lower=False)


@kernel("cholesky_solve", dtypes=F)
@checked("cholesky_solve")
def cholesky_solve(ins, attrs, need):
    b, f = ins
    return (cholesky_solve_arrays(b, f, attrs["upper"]),)


# ------------------------------------------------------------------ inverse, determinants
@kernel("inverse", dtypes=F)
@checked("inverse")
def inverse(ins, attrs, need):
    return (inv(ins[0]),)


@kernel("determinant", dtypes=F)
@checked("determinant")
def determinant(ins, attrs, need):
    x = ins[0]
    return (np.asarray(np.linalg.det(x), dtype=x.dtype),)


@kernel("slogdeterminant", dtypes=F)
@checked("slogdeterminant")
def slogdeterminant(ins, attrs, need):
    x = ins[0]
    sign, logabs = np.linalg.slogdet(x)
    return (np.stack([np.asarray(sign), np.asarray(logabs)]).astype(x.dtype),)


# ------------------------------------------------------------------ solvers
def solve_arrays(a, b):
    vec = b.ndim == 1
    bm = b[:, None] if vec else b
    a, bm = batch_of(a, bm)
    try:
        out = np.linalg.solve(a, bm)
    except np.linalg.LinAlgError:
        raise _not_invertible() from None
    return out[..., 0] if vec else out


@kernel("solve", dtypes=F)
@checked("solve")
def solve(ins, attrs, need):
    return (solve_arrays(*ins),)


@kernel("triangular_solve", dtypes=F)
@checked("triangular_solve")
def triangular_solve(ins, attrs, need):
    a, b = ins
    return (solve_triangular(a, b, attrs["upper"], attrs["transpose"],
                             attrs["unitriangular"]),)


@kernel("lstsq", dtypes=F)
@checked("lstsq")
def lstsq(ins, attrs, need):
    """Minimum-norm least squares through the SVD (the solution of every
    driver on a full-rank problem; gelsy/gelsd/gelss's on a deficient one).
    Rank: singular values above ``rcond`` times the largest; residuals (the
    squared column norms of ``b - a x``) only when M > N."""
    a, b = ins
    if a.ndim != b.ndim or a.shape[:-2] != b.shape[:-2]:
        raise OpError(f"lstsq: x and y must have the same batch dims, got x shape "
                      f"{list(a.shape)} and y shape {list(b.shape)}")
    m, n = a.shape[-2:]
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    smax = s.max(axis=-1, keepdims=True) if s.shape[-1] else np.zeros(s.shape[:-1] + (1,))
    keep = s > attrs["rcond"] * smax
    with np.errstate(divide="ignore"):
        sinv = np.where(keep, 1.0 / np.where(keep, s, 1), 0).astype(a.dtype)
    x = T(vh) @ (sinv[..., None] * (T(u) @ b))
    rank = keep.sum(axis=-1).astype(np.int32)
    if m > n:
        res = np.sum((a @ x - b) ** 2, axis=-2).astype(a.dtype)
    else:
        res = np.zeros(a.shape[:-2] + (0,), a.dtype)
    return (x.astype(a.dtype), res, np.asarray(rank), s.astype(a.dtype))


# ------------------------------------------------------------------ matrix_power, multi_dot
@kernel("matrix_power", dtypes=F)
@checked("matrix_power")
def matrix_power(ins, attrs, need):
    x, n = ins[0], attrs["n"]
    if n < 0:
        x, n = inv(x), -n
    out = np.asarray(np.linalg.matrix_power(x, n), dtype=ins[0].dtype)
    return (out.copy() if n == 1 and np.may_share_memory(out, ins[0]) else out,)


@kernel("multi_dot", dtypes=F)
@checked("multi_dot")
def multi_dot(ins, attrs, need):
    xs = ins[0]
    return (np.asarray(np.linalg.multi_dot(xs), dtype=xs[0].dtype),)


# ------------------------------------------------------------------ svd, qr
@kernel("svd", dtypes=F)
@checked("svd")
def svd(ins, attrs, need):
    u, s, vh = np.linalg.svd(ins[0], full_matrices=attrs["full_matrices"])
    return (u, s, vh)


@kernel("qr", dtypes=F)
@checked("qr")
def qr(ins, attrs, need):
    x, mode = ins[0], attrs["mode"]
    if mode == "r":
        return (np.zeros((0,), x.dtype), np.linalg.qr(x, mode="r"))
    q, r = np.linalg.qr(x, mode=mode)
    return (q, r)


# ------------------------------------------------------------------ eigen decompositions
# the complex dtype of a decomposition's results (complex inputs keep theirs)
_CPLX = {np.dtype("float32"): np.complex64, np.dtype("float64"): np.complex128,
         np.dtype("complex64"): np.complex64, np.dtype("complex128"): np.complex128}


@kernel("eig", dtypes=F + ("complex64", "complex128"))
@checked("eig")
def eig(ins, attrs, need):
    x = ins[0]
    w, v = np.linalg.eig(x)
    c = _CPLX[x.dtype]
    return (w.astype(c), v.astype(c))


@kernel("eigvals", dtypes=F)
@checked("eigvals")
def eigvals(ins, attrs, need):
    """The eigenvalues of x in the order Paddle's kernel gives them: it hands
    the row-major matrix to LAPACK as it is, so LAPACK orders those of x^T."""
    x = ins[0]
    return (np.linalg.eigvals(T(x)).astype(_CPLX[x.dtype]),)


def _uplo(attrs):
    return "L" if attrs["UPLO"] == "L" else "U"     # Paddle: anything but 'L' is upper


@kernel("eigh", "eigvalsh", dtypes=F + ("complex64", "complex128"))
def eigh(ins, attrs, need):
    x = ins[0]
    get_op("eigh").infer_meta((Meta(x.shape, x.dtype),), attrs)
    w, v = np.linalg.eigh(x, UPLO=_uplo(attrs))
    return (w, v)


# ------------------------------------------------------------------ lu
def lu_factor(x):
    """LAPACK getrf on a batch: (LU packed in one matrix, 1-based pivots int32,
    info int32: the 1-based index of the first zero pivot, 0 when none)."""
    m, n = x.shape[-2:]
    k = min(m, n)
    a = x.reshape((-1, m, n)).copy()
    rows = np.arange(a.shape[0])
    piv = np.zeros((a.shape[0], k), np.int32)
    info = np.zeros(a.shape[0], np.int32)
    for j in range(k):
        p = j + np.argmax(np.abs(a[:, j:, j]), axis=1)     # the first largest, as idamax
        piv[:, j] = p + 1
        zero = a[rows, p, j] == 0                          # then the whole column is 0
        info[(info == 0) & zero] = j + 1
        row_j, row_p = a[rows, j, :].copy(), a[rows, p, :].copy()
        a[rows, p, :] = row_j
        a[rows, j, :] = row_p
        if j + 1 < m:
            col = a[:, j + 1:, j] / np.where(zero, 1, a[:, j, j])[:, None]
            a[:, j + 1:, j] = col
            a[:, j + 1:, j + 1:] -= col[:, :, None] * a[:, j, None, j + 1:]
    batch = x.shape[:-2]
    return a.reshape(x.shape), piv.reshape(batch + (k,)), info.reshape(batch)


def permutation(piv, m):
    """The row order ``perm`` (``A[perm] = L U``) of 1-based sequential swaps."""
    batch = piv.shape[:-1]
    perm = np.broadcast_to(np.arange(m), batch + (m,)).copy()
    flat, fp = perm.reshape(-1, m), piv.reshape(-1, piv.shape[-1]) - 1
    for b in range(flat.shape[0]):
        for i, p in enumerate(fp[b]):
            if not 0 <= p < m:
                raise OpError(f"lu_unpack: pivot {p + 1} is out of range [1, {m}]")
            flat[b, i], flat[b, p] = flat[b, p], flat[b, i]
    return perm


@kernel("lu", dtypes=F)
@checked("lu")
def lu(ins, attrs, need):
    if not attrs["pivots"]:
        raise OpError("lu without pivoting is not implemented on the CPU, but got "
                      "pivots=False")
    x = ins[0]
    a, piv, info = lu_factor(x)
    return (a, piv, info if x.ndim > 2 else info.reshape(1))


def unpack_lu(a):
    m, n = a.shape[-2:]
    k = min(m, n)
    low = np.tril(a[..., :, :k], -1) + np.eye(m, k, dtype=a.dtype)
    up = np.triu(a[..., :k, :])
    return low, up


def perm_matrix(piv, m, dtype):
    perm = permutation(piv, m)
    p = np.zeros(perm.shape + (m,), dtype)
    np.put_along_axis(p, perm[..., None], 1, axis=-1)    # P^T[i, perm[i]] = 1
    return T(p)


@kernel("lu_unpack", dtypes=F)
@checked("lu_unpack")
def lu_unpack(ins, attrs, need):
    a, piv = ins
    empty = np.zeros((0,), np.float32)
    pm = perm_matrix(piv, a.shape[-2], a.dtype) if attrs["unpack_pivots"] else empty
    if not attrs["unpack_ludata"]:
        return (pm, empty, empty)
    low, up = unpack_lu(a)
    return (pm, low, up)


# ------------------------------------------------------------------ matrix_rank
@kernel("matrix_rank", dtypes=F)
@checked("matrix_rank")
def matrix_rank(ins, attrs, need):
    """Singular values (|eigenvalues| when hermitian) above max(tol, rtol * the
    largest), rtol = eps * max(M, N) with the default tolerance, else 0."""
    x, tol_t = ins
    if attrs["hermitian"]:
        s = np.abs(np.linalg.eigvalsh(x))
    else:
        s = np.linalg.svd(x, compute_uv=False)
    m, n = x.shape[-2:]
    rtol = np.finfo(x.dtype).eps * max(m, n) if attrs["use_default_tol"] else 0.0
    smax = s.max(axis=-1) if s.shape[-1] else np.zeros(s.shape[:-1], s.dtype)
    atol = tol_t.astype(x.dtype) if tol_t is not None else \
        (0.0 if attrs["use_default_tol"] else attrs["tol"])
    tol = np.maximum(np.asarray(atol, x.dtype), (rtol * smax).astype(x.dtype))
    return (np.asarray(np.sum(s > tol[..., None], axis=-1), dtype=np.int32),)


# ------------------------------------------------------------------ frobenius_norm
def norm_axes(attrs, ndim):
    if attrs["reduce_all"] or not ndim:
        return tuple(range(ndim))
    return tuple(sorted({d % ndim for d in attrs["dim"]}))


@kernel("frobenius_norm", dtypes=F)
@checked("frobenius_norm")
def frobenius_norm(ins, attrs, need):
    x = ins[0]
    out = np.sqrt(np.sum(x * x, axis=norm_axes(attrs, x.ndim), keepdims=attrs["keep_dim"]))
    return (np.asarray(out, dtype=x.dtype),)
