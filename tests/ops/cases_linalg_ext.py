"""Op-spec cases of the ``paddle.linalg`` ops (ops/defs/linalg_ext.py):
factorizations, solvers, inverse, determinants, matrix_power, multi_dot,
matrix_rank, lstsq and frobenius_norm, over matrices, batches and broadcast
batches.  Inputs are well conditioned where a gradient is checked: SPD matrices
for cholesky, symmetric ones with distinct eigenvalues for eigh, distinct
singular values for svd, pivots away from ties for lu.  ``symmetric`` marks
inputs read through one triangle (spec.py)."""
import numpy as np

from .spec import Case, rand


def _spd(n, seed, batch=()):
    a = rand(*batch, n, n, seed=seed)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _sym(n, seed):
    a = rand(n, n, seed=seed)
    return a + a.T + np.diag(np.arange(n) * 2.0)    # eigenvalues well apart


def _well(n, seed, batch=()):
    return rand(*batch, n, n, seed=seed) + 3 * np.eye(n)


def _lower(n, seed, batch=()):
    return np.tril(rand(*batch, n, n, seed=seed)) + 2 * np.eye(n)


def _t(a):
    return np.swapaxes(a, -1, -2)


SPD3, SPD23 = _spd(3, 1), _spd(3, 2, (2,))
A3, A23 = _well(3, 3), _well(3, 4, (2,))
B32, B232 = rand(3, 2, seed=5), rand(2, 3, 2, seed=6)
L3 = _lower(3, 7)


def _bsolve(a, b):
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return np.linalg.solve(np.broadcast_to(a, batch + a.shape[-2:]),
                           np.broadcast_to(b, batch + b.shape[-2:]))


def _chol_solve(upper):
    return lambda X, Y: _bsolve(_t(Y) @ Y if upper else Y @ _t(Y), X)


def _tri(upper=True, transpose=False, unit=False):
    def ref(X, Y):
        a = np.triu(X) if upper else np.tril(X)
        if unit:
            n = a.shape[-1]
            a = a * (1 - np.eye(n)) + np.eye(n)
        return _bsolve(_t(a) if transpose else a, Y)
    return ref


def _getrf(a):
    """One matrix, row by row as LAPACK's unblocked getf2: (packed LU, 1-based
    pivots, info)."""
    a = a.astype(float).copy()
    m, n = a.shape
    piv, info = [], 0
    for j in range(min(m, n)):
        p = j + int(np.argmax(np.abs(a[j:, j])))
        piv.append(p + 1)
        if a[p, j] == 0:
            info = info or j + 1
            continue
        a[[j, p]] = a[[p, j]]
        a[j + 1:, j] /= a[j, j]
        a[j + 1:, j + 1:] -= np.outer(a[j + 1:, j], a[j, j + 1:])
    return a, np.array(piv, np.int32), info


def _lu_ref(X):
    flat = [_getrf(m) for m in X.reshape((-1,) + X.shape[-2:])]
    batch = X.shape[:-2]
    lu = np.stack([f[0] for f in flat]).reshape(X.shape)
    piv = np.stack([f[1] for f in flat]).reshape(batch + (-1,))
    info = np.array([f[2] for f in flat], np.int32).reshape(batch or (1,))
    return lu, piv, info


def _unpack(X, Pivots):
    m, n = X.shape[-2:]
    k = min(m, n)
    low = np.tril(X[..., :, :k], -1) + np.eye(m, k)
    up = np.triu(X[..., :k, :])
    perm = np.arange(m)
    for i, p in enumerate(Pivots - 1):
        perm[i], perm[p] = perm[p], perm[i]
    pm = np.zeros((m, m))
    pm[perm, np.arange(m)] = 1
    return pm, low, up


def _rank(X, tol=None, hermitian=False):
    s = np.abs(np.linalg.eigvalsh(X)) if hermitian else np.linalg.svd(X, compute_uv=False)
    if tol is None:
        tol = s.max(-1) * max(X.shape[-2:]) * np.finfo(X.dtype).eps
    return np.sum(s > np.asarray(tol)[..., None], -1).astype(np.int32)


def _lstsq(X, Y):
    x = np.linalg.pinv(X) @ Y
    m, n = X.shape[-2:]
    res = np.sum((X @ x - Y) ** 2, -2) if m > n else np.zeros(X.shape[:-2] + (0,))
    s = np.linalg.svd(X, compute_uv=False)
    return x, res, np.asarray(np.linalg.matrix_rank(X)).astype(np.int32), s


def _eig(X):
    w, v = np.linalg.eig(X)
    return w.astype(complex), v.astype(complex)


def _svd(full=False):
    return lambda X: np.linalg.svd(X, full_matrices=full)


def _qr(mode):
    if mode == "r":
        return lambda X: (np.zeros(0), np.linalg.qr(X, mode="r"))
    return lambda X: np.linalg.qr(X, mode=mode)


NONSYM = np.array([[2.0, 1.0, 0.5], [0.3, 1.0, 0.2], [0.1, 0.4, 3.0]])
ROT = np.array([[1.0, -2.0, 0.3], [1.5, 0.5, 0.1], [0.2, 0.1, 3.0]])   # a complex pair
RANK2 = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
PACKED = _lu_ref(rand(4, 3, seed=30))

CASES = [
    # cholesky and its solver
    Case("cholesky", {"X": SPD3}, ref=lambda X: np.linalg.cholesky(X), symmetric=("X",)),
    Case("cholesky", {"X": SPD23}, {"upper": True}, ref=lambda X: _t(np.linalg.cholesky(X)),
         symmetric=("X",), id="cholesky_upper_batch"),
    Case("cholesky_solve", {"X": B32, "Y": L3}, ref=_chol_solve(False)),
    Case("cholesky_solve", {"X": B232, "Y": _t(L3).copy()}, {"upper": True},
         ref=_chol_solve(True), id="cholesky_solve_upper_bcast"),
    # inverse, determinants
    Case("inverse", {"Input": A3}, ref=lambda Input: np.linalg.inv(Input)),
    Case("inverse", {"Input": A23}, ref=lambda Input: np.linalg.inv(Input), id="inverse_batch"),
    Case("determinant", {"Input": A3}, ref=lambda Input: np.asarray(np.linalg.det(Input))),
    Case("determinant", {"Input": A23}, ref=lambda Input: np.linalg.det(Input),
         id="determinant_batch"),
    Case("determinant", {"Input": RANK2}, ref=lambda Input: np.asarray(0.0),
         atol=1e-12, grad=False, id="determinant_singular"),
    Case("slogdeterminant", {"Input": -A3},
         ref=lambda Input: np.stack(np.linalg.slogdet(Input))),
    Case("slogdeterminant", {"Input": A23}, ref=lambda Input: np.stack(np.linalg.slogdet(Input)),
         id="slogdeterminant_batch"),
    # solvers
    Case("solve", {"X": A3, "Y": B32}, ref=lambda X, Y: np.linalg.solve(X, Y)),
    Case("solve", {"X": A3, "Y": rand(3, seed=8)}, ref=lambda X, Y: np.linalg.solve(X, Y),
         id="solve_vector"),
    Case("solve", {"X": A23, "Y": B32}, ref=lambda X, Y: np.linalg.solve(X, Y),
         id="solve_bcast"),
    Case("triangular_solve", {"X": A3, "Y": B32}, ref=_tri()),
    Case("triangular_solve", {"X": A3, "Y": B32}, {"upper": False}, ref=_tri(False),
         id="triangular_solve_lower"),
    Case("triangular_solve", {"X": A3, "Y": B32}, {"transpose": True},
         ref=_tri(True, True), id="triangular_solve_transpose"),
    Case("triangular_solve", {"X": A3, "Y": B32}, {"upper": False, "transpose": True},
         ref=_tri(False, True), id="triangular_solve_lower_transpose"),
    Case("triangular_solve", {"X": A3, "Y": B32}, {"upper": False, "unitriangular": True},
         ref=_tri(False, False, True), id="triangular_solve_lower_unit"),
    Case("triangular_solve", {"X": A23, "Y": B32}, {"unitriangular": True},
         ref=_tri(True, False, True), id="triangular_solve_unit_bcast"),
    Case("lstsq", {"X": rand(4, 3, seed=9), "Y": rand(4, 2, seed=10)}, {"rcond": 1e-12},
         ref=_lstsq, grad=False),
    Case("lstsq", {"X": rand(2, 4, seed=9), "Y": rand(2, 2, seed=10)}, {"rcond": 1e-12},
         ref=_lstsq, grad=False, id="lstsq_wide"),
    Case("lstsq", {"X": RANK2, "Y": rand(3, 2, seed=11)}, {"rcond": 1e-12},
         ref=lambda X, Y: (np.linalg.pinv(X) @ Y, np.zeros(0), np.asarray(2, np.int32),
                           np.linalg.svd(X, compute_uv=False)),
         grad=False, id="lstsq_deficient"),
    # matrix_power, multi_dot
    Case("matrix_power", {"X": A3 / 3}, {"n": 3}, ref=lambda X: np.linalg.matrix_power(X, 3)),
    Case("matrix_power", {"X": A23 / 3}, {"n": -2},
         ref=lambda X: np.linalg.matrix_power(np.linalg.inv(X), 2), id="matrix_power_neg"),
    Case("matrix_power", {"X": A3}, {"n": 0}, ref=lambda X: np.eye(3), id="matrix_power_0"),
    Case("matrix_power", {"X": A3}, {"n": 1}, ref=lambda X: X, id="matrix_power_1"),
    Case("multi_dot", {"X": [rand(3, 2, seed=12), rand(2, 4, seed=13), rand(4, 2, seed=14)]},
         ref=lambda X: np.linalg.multi_dot(X)),
    Case("multi_dot", {"X": [rand(3, seed=12), rand(3, 4, seed=13), rand(4, seed=14)]},
         ref=lambda X: np.asarray(np.linalg.multi_dot(X)), id="multi_dot_vectors"),
    Case("multi_dot", {"X": [rand(2, 3, seed=15), rand(3, seed=16)]},
         ref=lambda X: X[0] @ X[1], id="multi_dot_matrix_vector"),
    # svd, qr
    Case("svd", {"X": rand(4, 3, seed=17)}, ref=_svd()),
    Case("svd", {"X": rand(2, 3, 4, seed=18)}, ref=_svd(), id="svd_wide_batch"),
    Case("svd", {"X": rand(3, 3, seed=19)}, {"full_matrices": True}, ref=_svd(True),
         id="svd_full_square"),
    Case("svd", {"X": rand(4, 2, seed=20)}, {"full_matrices": True}, ref=_svd(True),
         grad_outputs=("S", "VH"), id="svd_full_tall"),
    Case("svd", {"X": rand(4, 3, seed=17)}, ref=_svd(), grad_outputs=("S",), id="svd_S_only"),
    Case("qr", {"X": rand(4, 3, seed=21)}, ref=_qr("reduced")),
    Case("qr", {"X": rand(2, 3, 4, seed=22)}, ref=_qr("reduced"), id="qr_wide_batch"),
    Case("qr", {"X": rand(3, 3, seed=23)}, {"mode": "complete"}, ref=_qr("complete"),
         id="qr_complete_square"),
    Case("qr", {"X": rand(4, 3, seed=21)}, {"mode": "complete"}, ref=_qr("complete"),
         grad=False, id="qr_complete_tall"),
    Case("qr", {"X": rand(4, 3, seed=21)}, {"mode": "r"}, ref=_qr("r"), grad=False,
         id="qr_r"),
    Case("qr", {"X": rand(4, 3, seed=21)}, ref=_qr("reduced"), grad_outputs=("R",),
         id="qr_R_only"),
    # eigen decompositions
    Case("eigh", {"X": _sym(3, 24)}, ref=lambda X: np.linalg.eigh(X), symmetric=("X",)),
    Case("eigh", {"X": _sym(3, 25)}, {"UPLO": "U"}, ref=lambda X: np.linalg.eigh(X, "U"),
         symmetric=("X",), id="eigh_upper"),
    Case("eigh", {"X": _sym(3, 24)}, ref=lambda X: np.linalg.eigh(X), symmetric=("X",),
         grad_outputs=("Eigenvalues",), id="eigh_values_only"),
    Case("eigvalsh", {"X": _sym(3, 26)}, ref=lambda X: (np.linalg.eigvalsh(X), None),
         symmetric=("X",)),
    Case("eig", {"X": NONSYM}, ref=_eig),
    # complex eigenvectors are unique up to a phase: only phase-invariant losses have
    # a gradient (LAPACK's phase, largest component real, is not one of them)
    Case("eig", {"X": ROT}, ref=_eig, grad_outputs=("Eigenvalues",), id="eig_complex_pair"),
    Case("eigvals", {"X": ROT}, ref=lambda X: np.linalg.eigvals(X).astype(complex),
         grad=False),
    # lu
    Case("lu", {"X": rand(3, 3, seed=27)}, ref=_lu_ref),
    Case("lu", {"X": rand(4, 3, seed=28)}, ref=_lu_ref, id="lu_tall"),
    Case("lu", {"X": rand(2, 3, 4, seed=29)}, ref=_lu_ref, id="lu_wide_batch"),
    Case("lu", {"X": RANK2}, ref=lambda X: (None, None, np.array([3], np.int32)),
         grad=False, id="lu_singular_info"),
    Case("lu_unpack", {"X": PACKED[0], "Pivots": PACKED[1]}, ref=_unpack),
    Case("lu_unpack", {"X": PACKED[0][:3], "Pivots": np.array([2, 3, 3], np.int32)},
         {"unpack_pivots": False}, ref=lambda X, Pivots: (None,) + _unpack(X, Pivots)[1:],
         id="lu_unpack_ludata_only"),
    # matrix_rank
    Case("matrix_rank", {"X": RANK2}, ref=_rank, grad=False),
    Case("matrix_rank", {"X": rand(2, 3, 4, seed=31)}, {"tol": 0.5, "use_default_tol": False},
         ref=lambda X: _rank(X, 0.5), grad=False, id="matrix_rank_tol"),
    Case("matrix_rank", {"X": rand(2, 3, 3, seed=32), "TolTensor": np.array([0.1, 0.9])},
         {"use_default_tol": False}, ref=lambda X, TolTensor: _rank(X, TolTensor), grad=False,
         id="matrix_rank_tol_tensor"),
    Case("matrix_rank", {"X": _sym(3, 33)}, {"hermitian": True},
         ref=lambda X: _rank(X, hermitian=True), grad=False, id="matrix_rank_hermitian"),
    # frobenius_norm
    Case("frobenius_norm", {"X": rand(3, 4, seed=34)}, {"reduce_all": True},
         ref=lambda X: np.asarray(np.sqrt((X * X).sum()))),
    Case("frobenius_norm", {"X": rand(2, 3, 4, seed=35)}, {"dim": [0, 2], "keep_dim": True},
         ref=lambda X: np.sqrt((X * X).sum((0, 2), keepdims=True)), id="frobenius_norm_dims"),
]
