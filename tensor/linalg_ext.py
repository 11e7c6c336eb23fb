"""``paddle.linalg``: the 26 functions of Paddle 2.6's namespace (gathered as
``sampan.linalg`` by linalg_api.py), each over the ops of ops/defs/linalg_ext.py
or, where Paddle writes the function in Python (norm, cond, cov, corrcoef,
pinv, householder_product, pca_lowrank), over the same ops in the same order,
so a static Program holds Paddle's op sequence.

Paddle also has ``paddle.cholesky``, ``paddle.eigvalsh``, ``paddle.inverse`` and
``paddle.norm`` at the top level (``__all__`` here); ``METHODS`` are Paddle's
Tensor methods.  Where Paddle's static path disagrees with its eager one (the
``if tensor`` of cov, the ignored ``pivot`` of lu, pinv's UPLO), sampan follows
eager Paddle in every mode.
"""
import numbers

import numpy as np

from ..ops import bind, get_op, is_graph_value
from ..ops.dtypes import to_np_dtype
from . import creation as CR
from . import indexing as IX
from . import manipulation as MP
from . import math as M
from . import stat as S
from .creation_base import to_tensor
from .random import randn

__all__ = ["cholesky", "eigvalsh", "inverse", "norm"]
METHODS = ["cholesky", "cholesky_solve", "cond", "corrcoef", "cov", "eig", "eigvals",
           "eigvalsh", "householder_product", "inverse", "lstsq", "lu", "lu_unpack",
           "matrix_power", "multi_dot", "norm", "pca_lowrank", "pinv", "qr", "solve"]

_OPS = {t: get_op(t) for t in (
    "cholesky", "cholesky_solve", "inverse", "determinant", "slogdeterminant", "solve",
    "triangular_solve", "lstsq", "matrix_power", "multi_dot", "svd", "qr", "eig", "eigvals",
    "eigh", "eigvalsh", "lu", "lu_unpack", "matrix_rank", "frobenius_norm", "p_norm",
    "reduce_max", "reduce_min", "reduce_sum")}
_INF = float("inf")


# conj and diag_v2 are declared by other families (spectral, reshape_index): looked up
# when used, as Paddle's linalg calls paddle.conj and paddle.diag
def _conj(x):
    return bind(get_op("conj"), (x,))[0]


def _is_complex(x):
    return to_np_dtype(x.dtype).kind == "c"


def _swap_last(x):
    perm = list(range(len(x.shape)))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return MP.transpose(x, perm)


# ------------------------------------------------------------------ factorizations
def cholesky(x, upper=False, name=None):
    return bind(_OPS["cholesky"], (x,), {"upper": bool(upper)})[0]


def lu(x, pivot=True, get_infos=False, name=None):
    out, piv, info = bind(_OPS["lu"], (x,), {"pivots": bool(pivot)})
    return (out, piv, info) if get_infos else (out, piv)


def lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True, name=None):
    if len(x.shape) < 2:
        raise ValueError(f"The shape of x should be (*, M, N), but received ndim is "
                         f"[{len(x.shape)} < 2]")
    if len(y.shape) < 1:
        raise ValueError(f"The shape of Pivots should be (*, K), but received ndim is "
                         f"[{len(y.shape)} < 1]")
    attrs = {"unpack_ludata": bool(unpack_ludata), "unpack_pivots": bool(unpack_pivots)}
    return tuple(bind(_OPS["lu_unpack"], (x, y), attrs))


def qr(x, mode="reduced", name=None):
    q, r = bind(_OPS["qr"], (x,), {"mode": mode})
    return r if mode == "r" else (q, r)


def svd(x, full_matrices=False, name=None):
    return tuple(bind(_OPS["svd"], (x,), {"full_matrices": bool(full_matrices)}))


def eig(x, name=None):
    return tuple(bind(_OPS["eig"], (x,)))


def eigvals(x, name=None):
    shape = list(x.shape)
    if len(shape) < 2:
        raise ValueError(f"The dimension of Input(x) should be at least 2, but received x's "
                         f"dimention = {len(shape)}, x's shape = {shape}")
    if shape[-1] != shape[-2]:
        raise ValueError(f"The last two dimensions of Input(x) should be equal, but received "
                         f"x's shape = {shape}")
    return bind(_OPS["eigvals"], (x,))[0]


def eigh(x, UPLO="L", name=None):
    return tuple(bind(_OPS["eigh"], (x,), {"UPLO": UPLO}))


def eigvalsh(x, UPLO="L", name=None):
    # is_test: no gradient wanted, so Paddle skips the eigenvectors
    attrs = {"UPLO": UPLO, "is_test": bool(x.stop_gradient)}
    return bind(_OPS["eigvalsh"], (x,), attrs)[0]


def householder_product(x, tau, name=None):
    """The first N columns of H_1 .. H_k, H_i = I - tau_i v_i v_i^T with v_i
    column i of x below the diagonal (1 on it): Paddle's Python loop over the
    reflectors (and over the batch), in the same indexing ops."""
    if to_np_dtype(x.dtype) != to_np_dtype(tau.dtype):
        raise AssertionError("The input x must have the same dtype with input tau.")
    xs, ts = list(x.shape), list(tau.shape)
    if not (len(xs) >= 2 and len(ts) >= 1 and len(xs) == len(ts) + 1):
        raise AssertionError("The input x must have more than 2 dimensions, and input tau "
                             "must have more than 1 dimension, and the dimension of x is 1 "
                             "larger than the dimension of tau")
    if xs[-2] < xs[-1]:
        raise AssertionError("The rows of input x must be greater than or equal to the "
                             "columns of input x.")
    if xs[-1] < ts[-1]:
        raise AssertionError("The last dim of x must be greater than tau.")
    if xs[:-2] != ts[:-1]:
        raise AssertionError("The input x must have the same batch dimensions with input tau.")
    if len(xs) == 2:
        return _householder(x, tau)
    m, n = xs[-2:]
    x3 = MP.reshape(x, (-1, m, n))
    t2 = MP.reshape(tau, (-1, ts[-1]))
    n_batch = x3.shape[0]
    out = CR.zeros([n_batch, m, n], dtype=x.dtype)
    for i in range(n_batch):
        out = _set(out, i, _householder(x3[i], t2[i]))
    return MP.reshape(out, xs)


def _set(x, index, value):
    """``x[index] = value`` as Paddle's static ``setitem`` writes it (a tensor
    value cast to x's dtype first), giving a new tensor: x itself is left as
    it is, so the loops below differentiate like any chain of ops."""
    if hasattr(value, "shape"):
        value = M.cast(value, x.dtype)
    return IX.set_value_of(x, index, value)


def _householder(x, tau):
    m, n = x.shape[-2:]
    k = tau.shape[-1]
    q = M.cast(CR.eye(m), x.dtype)
    for i in range(min(k, n)):
        w = _set(x[i:, i], 0, 1)
        w = MP.reshape(w, [-1, 1])
        cols = (slice(None), slice(i, None))
        if _is_complex(x):
            q = _set(q, cols, q[cols] - (q[cols] @ w @ _conj(w).T * tau[i]))
        else:
            q = _set(q, cols, q[cols] - (q[cols] @ w @ w.T * tau[i]))
    return q[:, :n]


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """Randomized PCA (Halko et al.): Paddle's algorithm, its random draws
    from sampan's generator."""
    if not hasattr(x, "shape") or not hasattr(x, "dtype"):
        raise ValueError(f"Input must be tensor, but got {type(x)}")
    m, n = x.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        x = x - S.mean(x, axis=-2, keepdim=True)
    return _svd_lowrank(x, q, niter)


def _conjugate(x):
    return _conj(x) if _is_complex(x) else x


def _approximate_basis(x, q, niter):
    n = x.shape[-1]
    r = randn((n, q), dtype=x.dtype)
    a_h = _conjugate(_swap_last(x))
    basis = qr(M.matmul(x, r))[0]
    for _ in range(niter):
        basis = qr(M.matmul(a_h, basis))[0]
        basis = qr(M.matmul(x, basis))[0]
    return basis


def _svd_lowrank(x, q, niter):
    m, n = x.shape[-2:]
    a_t = _swap_last(x)
    if m < n or n > q:
        basis = _approximate_basis(a_t, q, niter)
        b_t = M.matmul(x, _conjugate(basis))
        u, s, vh = svd(b_t, full_matrices=False)
        v = M.matmul(basis, _conjugate(_swap_last(vh)))
    else:
        basis = _approximate_basis(x, q, niter)
        b = M.matmul(a_t, _conjugate(basis))
        u, s, vh = svd(_swap_last(b), full_matrices=False)
        v = _conjugate(_swap_last(vh))
        u = M.matmul(basis, u)
    return u, s, v


# ------------------------------------------------------------------ inverse, determinants, powers
def inverse(x, name=None):
    return bind(_OPS["inverse"], (x,))[0]


inv = inverse


def det(x, name=None):
    return bind(_OPS["determinant"], (x,))[0]


def slogdet(x, name=None):
    return bind(_OPS["slogdeterminant"], (x,))[0]


def matrix_power(x, n, name=None):
    if isinstance(n, bool) or not isinstance(n, (numbers.Integral, np.integer)):
        raise ValueError(f"matrix_power(): argument 'n' (position 2) must be int, but got "
                         f"{type(n).__name__}")
    return bind(_OPS["matrix_power"], (x,), {"n": int(n)})[0]


def multi_dot(x, name=None):
    if not isinstance(x, (list, tuple)):
        raise TypeError(f"multi_dot: x must be a list or tuple of tensors, got "
                        f"{type(x).__name__}")
    return bind(_OPS["multi_dot"], (list(x),))[0]


def matrix_rank(x, tol=None, hermitian=False, name=None):
    attrs = {"hermitian": bool(hermitian)}
    tol_t = None
    if tol is None:
        attrs["use_default_tol"] = True
    elif hasattr(tol, "shape") and hasattr(tol, "dtype"):
        attrs["use_default_tol"] = False
        tol_t = tol if to_np_dtype(tol.dtype) == to_np_dtype(x.dtype) else M.cast(tol, x.dtype)
    else:
        attrs["use_default_tol"] = False
        attrs["tol"] = float(tol)
    return bind(_OPS["matrix_rank"], (x, tol_t), attrs)[0]


# ------------------------------------------------------------------ solvers
def solve(x, y, name=None):
    return bind(_OPS["solve"], (x, y))[0]


def triangular_solve(x, y, upper=True, transpose=False, unitriangular=False, name=None):
    attrs = {"upper": bool(upper), "transpose": bool(transpose),
             "unitriangular": bool(unitriangular)}
    return bind(_OPS["triangular_solve"], (x, y), attrs)[0]


def cholesky_solve(x, y, upper=False, name=None):
    return bind(_OPS["cholesky_solve"], (x, y), {"upper": bool(upper)})[0]


_DRIVERS = ("gels", "gelss", "gelsd", "gelsy")


def lstsq(x, y, rcond=None, driver=None, name=None):
    """(solution, residuals, rank, singular_values); as Paddle on the CPU, the
    rank is empty for 'gels' and the singular values only come with 'gelsd'
    and 'gelss' (default driver 'gelsy')."""
    if driver not in (None,) + _DRIVERS:
        raise ValueError(f"Only support valid driver is 'gels', 'gelss', 'gelsd', 'gelsy' or "
                         f"None for CPU inputs. But got {driver}")
    driver = "gelsy" if driver is None else driver
    dt = to_np_dtype(x.dtype)
    if dt != to_np_dtype(y.dtype) or dt.name not in ("float32", "float64"):
        raise ValueError("Only support x and y have the same dtype such as 'float32' and "
                         "'float64'.")
    if len(x.shape) < 2:
        raise ValueError(f"The shape of x should be (*, M, N), but received ndim is "
                         f"[{len(x.shape)} < 2]")
    if len(y.shape) < 2:
        raise ValueError(f"The shape of y should be (*, M, K), but received ndim is "
                         f"[{len(y.shape)} < 2]")
    if x.shape[-2] != y.shape[-2]:
        raise ValueError(f"x with shape (*, M = {x.shape[-2]}, N) and y with shape (*, M = "
                         f"{y.shape[-2]}, K) should have same M.")
    if rcond is None:
        rcond = (1e-7 if dt.name == "float32" else 1e-15) * max(x.shape[-2], x.shape[-1])
    solution, residuals, rank, sv = bind(_OPS["lstsq"], (x, y),
                                         {"rcond": float(rcond), "driver": driver})
    if driver == "gels":
        rank = CR.empty([0], dtype="int32")
    if driver in ("gels", "gelsy"):
        sv = CR.empty([0], dtype=x.dtype)
    return solution, residuals, rank, sv


# ------------------------------------------------------------------ norm, cond
def _frobenius(x, dim, keepdim):
    attrs = {"keep_dim": bool(keepdim), "reduce_all": dim is None}
    if dim is not None:
        attrs["dim"] = list(dim)
    return bind(_OPS["frobenius_norm"], (x,), attrs)[0]


def _p_norm(x, porder, axis, keepdim, asvector):
    attrs = {"porder": float(porder), "axis": -1 if axis is None else int(axis),
             "epsilon": 1e-12, "keepdim": bool(keepdim), "asvector": bool(asvector)}
    return bind(_OPS["p_norm"], (x,), attrs)[0]


def norm(x, p="fro", axis=None, keepdim=False, name=None):
    """Paddle's choice of op: 'fro' over everything or two axes -> frobenius_norm;
    a number over everything or one axis -> p_norm (as a vector); inf/-inf over
    two axes -> abs + reduce_max/min; another number over two axes ->
    abs, pow, reduce_sum, pow (the flattened vector's norm)."""
    if axis is None and p is not None:
        if isinstance(p, str):
            if p == "fro":
                return _frobenius(x, None, keepdim)
            raise ValueError(f"only valid string values are 'fro', found {p}")
        if isinstance(p, (int, float)):
            return _p_norm(x, p, None, keepdim, True)
        raise ValueError(f"only valid p type is string or float, found {type(p)}")
    if isinstance(axis, tuple):
        axis = list(axis)
    if isinstance(axis, list) and len(axis) == 1:
        axis = axis[0]
    if isinstance(axis, int):
        if isinstance(p, str):
            if p == "fro":
                return _p_norm(x, 2, axis, keepdim, False)
            raise ValueError(f"only valid string values are 'fro', found {p}")
        if isinstance(p, (int, float)):
            return _p_norm(x, p, axis, keepdim, False)
        raise ValueError(f"unspport p for p-order vector norm. except float, found {p}")
    if isinstance(axis, list) and len(axis) == 2:
        if p == "fro":
            return _frobenius(x, axis, keepdim)
        if p in (_INF, -_INF):
            reduce = S.max if p == _INF else S.min
            return reduce(M.abs(x), axis, keepdim)
        if p == 0:
            raise ValueError(f"just support axis type int or list (length of list <=1) if "
                             f"p = 0, found {axis}")
        if isinstance(p, str) or not isinstance(p, (int, float)):
            raise ValueError(f"only valid string values are 'fro', found {p}")
        out = bind(_OPS["reduce_sum"], (M.pow(M.abs(x), p),),      # Paddle's attributes
                   {"dim": axis, "keep_dim": bool(keepdim),
                    "reduce_all": len(axis) == len(x.shape)})[0]
        return M.pow(out, float(1.0 / p))
    raise ValueError(f"except axis type int or list (length of list <=2), found {axis}")


def cond(x, p=None, name=None):
    """The condition number: ||x|| ||x^-1|| for p in ('fro', 'nuc', 1, -1, inf,
    -inf) (square x), the ratio of extreme singular values for p in (2, -2)."""
    shape = list(x.shape)
    if len(shape) < 2:
        raise ValueError(f"input should be a matrix or batches of matrices, but the dimention "
                         f"of received input is {len(shape)}")
    if p is None:
        p = 2
    empty = 0 in shape
    if p in ("fro", "nuc", 1, -1, _INF, -_INF):
        if shape[-1] != shape[-2]:
            raise ValueError(f"only support p is {p} when input is a square matrix or batches "
                             f"of square matrices")
        if empty:
            return MP.reshape(x, shape[:-2])
        x_inv = inverse(x)
        if p == "fro":
            return _fro_norm(x) * _fro_norm(x_inv)
        if p == "nuc":
            return _svd_norm(x, p) * _svd_norm(x_inv, p)
        ax = [-2] if p in (1, -1) else [-1]
        return _mat_norm(x, p, ax) * _mat_norm(x_inv, p, ax)
    if p in (2, -2):
        if empty:
            return MP.reshape(x, shape[:-2])
        return _svd_norm(x, p)
    raise ValueError(f"unsupported {p} for p, only supporting ('fro', 'nuc', 1, -1, 2, -2, "
                     f"inf, -inf) or none")


def _last(op_type, s, keepdim=False):
    """reduce_max/min over the last axis, with Paddle's attributes (cond and
    pinv write reduce_all False, computed from their matrix input)."""
    return bind(_OPS[op_type], (s,), {"dim": [-1], "keep_dim": keepdim, "reduce_all": False})[0]


def _mat_norm(x, p, axis):
    s = S.sum(M.abs(x), axis)
    return _last("reduce_max" if p in (1, _INF) else "reduce_min", s)


def _fro_norm(x):
    s = S.sum(S.sum(M.pow(x, 2), [-1]), [-1])
    return M.pow(s, 0.5)


def _svd_norm(x, p):
    s = svd(x, full_matrices=False)[1]
    if p == "nuc":
        return S.sum(s, [-1])
    hi, lo = _last("reduce_max", s), _last("reduce_min", s)
    return M.divide(hi, lo) if p == 2 else M.divide(lo, hi)


# ------------------------------------------------------------------ pinv
def pinv(x, rcond=1e-15, hermitian=False, name=None):
    """Through the SVD (the eigendecomposition when hermitian): singular values
    above rcond times the largest are inverted, the others dropped."""
    if not hermitian:
        u, s, vt = svd(x, full_matrices=False)
        smax = _last("reduce_max", s, True)
        s_abs = s
    else:
        # eager Paddle passes the literal 'UPLO' (anything but 'L' reads the upper part)
        s, u = eigh(x, "U")
        s_abs = M.abs(s)
        smax = _last("reduce_max", s_abs, True)
    dt = s.dtype
    cutoff = CR.full([1], rcond, dtype=dt) * smax
    big = CR.full([1], _INF, dtype=dt)
    singular = IX.where(s_abs > cutoff, 1 / s, 1 / big)
    st = MP.unsqueeze(singular, [-2])
    if not hermitian:
        return M.matmul(_swap_last(vt) * st, u, False, True)
    return M.matmul(u * st, _conj(u), False, True)


# ------------------------------------------------------------------ cov, corrcoef
def _check_weights(w, name, n_obs):
    if len(w.shape) > 1:
        raise ValueError(f"Input({name}) only support N-D (N<=1) tensor in cov, but received "
                         f"shape of Input(input) is {len(w.shape)}.")
    if w.shape[0] != n_obs:
        raise ValueError(f"The number of Input({name}) should equal to x's dim[1]: {n_obs}, "
                         f"but received size of Input({name}) is {w.shape[0]}.")
    if not is_graph_value(w):      # value checks need the values
        low = np.min(np.asarray(w.numpy())) if int(np.prod(w.shape)) else 0
        if low < 0:
            raise ValueError(f"The value of Input({name}) cannot be negtive, but received "
                             f"min of Input({name}) is {low}.")


def cov(x, rowvar=True, ddof=True, fweights=None, aweights=None, name=None):
    """The covariance of the variables in x's rows (columns when not rowvar),
    weighted by frequency and/or observation weights."""
    if not 1 <= len(x.shape) <= 2:
        raise ValueError(f"Input(x) only support N-D (1<=N<=2) tensor in cov, but received "
                         f"length of Input(input) is {len(x.shape)}.")
    nx = MP.reshape(x, (1, -1)) if len(x.shape) == 1 else x
    if not rowvar and nx.shape[0] != 1:
        nx = MP.transpose(nx, [1, 0])
    n_obs = nx.shape[1]
    w = None
    if fweights is not None:
        _check_weights(fweights, "fweights", n_obs)
        if not is_graph_value(fweights):
            f = np.asarray(fweights.numpy())
            if not np.all(f == np.round(f.astype("float64"))):
                raise ValueError("Input(fweights) must be integer ")
        w = M.cast(fweights, nx.dtype)
    aw = None
    if aweights is not None:
        _check_weights(aweights, "aweights", n_obs)
        aw = M.cast(aweights, nx.dtype)
        w = aw if w is None else w * aw
    if w is None:
        w_sum = to_tensor(n_obs, dtype=nx.dtype)
        avg = S.sum(nx, axis=1) / w_sum
        nx_w = nx
        norm_factor = w_sum - float(ddof)
        # Paddle tests ``norm_factor <= 0`` on the tensor; the observation count
        # is known here, so the test's answer is too
        _ = norm_factor <= 0
        if n_obs - ddof <= 0:
            norm_factor = to_tensor(0, dtype=nx.dtype)
    else:
        w_sum = S.sum(w)
        if not is_graph_value(w_sum) and float(w_sum.numpy()) == 0:
            raise ValueError("The sum of weights is zero, can't be normalized.")
        nx_w = nx * w
        avg = S.sum(nx_w, axis=1) / w_sum
        if aw is not None and ddof:
            norm_factor = w_sum - S.sum(w * aw) / w_sum
        else:
            norm_factor = w_sum - float(ddof)
        # Paddle's ``if norm_factor <= 0: norm_factor = 0``, as one op in every mode
        norm_factor = M.maximum(norm_factor, CR.zeros([], dtype=nx.dtype))
    nx = nx - MP.unsqueeze(avg, 1)
    xxt = M.matmul(nx, _conj(MP.transpose(nx_w, [1, 0])))
    return MP.squeeze(M.divide(xxt, norm_factor))


def corrcoef(x, rowvar=True, name=None):
    """Pearson correlation coefficients of x's rows (columns when not rowvar),
    clipped to [-1, 1]."""
    if not 1 <= len(x.shape) <= 2:
        raise ValueError(f"Input(x) only support N-D (1<=N<=2) tensor in corrcoef, but "
                         f"received length of Input(input) is {len(x.shape)}.")
    c = cov(x, rowvar)
    if len(c.shape) == 0:
        return c / c
    d = bind(get_op("diag_v2"), (c,), {"offset": 0, "padding_value": 0.0})[0]
    stddev = M.sqrt(d)
    c = c / MP.unsqueeze(stddev, 1)
    c = c / MP.unsqueeze(stddev, 0)
    return M.clip(c, -1, 1)
