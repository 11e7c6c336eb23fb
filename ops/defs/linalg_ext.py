"""The ops of ``paddle.linalg``: factorizations (cholesky, lu, qr, svd, eig,
eigh), solvers (solve, triangular_solve, cholesky_solve, lstsq), inverse,
determinants, matrix_power, matrix_rank, multi_dot and frobenius_norm, each with
Paddle's slots and attributes and, where Paddle differentiates it, its grad op
(Paddle's type and slots; the formulas are in kernels/cpu/linalg_ext_grad.py).

A "matrix" input is ``[*, M, N]``: the leading dims are a batch.  Where two
matrices meet (solve, triangular_solve, cholesky_solve) their batch dims
broadcast, as Paddle's kernels do.
"""
import numpy as np

from ..declare import defop, defgrad, grad_op, REQUIRED
from ..meta_rules import broadcast_shapes, INT32
from ..registry import Meta, OpError
from .reduce import reduce_infer

_COMPLEX = {np.dtype("float32"): np.dtype("complex64"),
            np.dtype("float64"): np.dtype("complex128"),
            np.dtype("complex64"): np.dtype("complex64"),
            np.dtype("complex128"): np.dtype("complex128")}
_REAL = {np.dtype("complex64"): np.dtype("float32"),
         np.dtype("complex128"): np.dtype("float64")}


def _same(a, b):
    return a == b or a == -1 or b == -1


def matrix(m, what, square=False):
    """The shape of a ``[*, M, N]`` input, checked (rank >= 2; M == N when
    ``square``)."""
    s = tuple(m.shape)
    if len(s) < 2:
        raise OpError(f"{what} must be a matrix or a batch of matrices (rank >= 2), "
                      f"got shape {list(s)}")
    if square and not _same(s[-1], s[-2]):
        raise OpError(f"{what} must be square matrices (its last two dims equal), "
                      f"got shape {list(s)}")
    return s


def _batch(a, b, names):
    return broadcast_shapes(a[:-2], b[:-2], names=names)


def _real_of(dtype):
    return _REAL.get(np.dtype(dtype), np.dtype(dtype))


def _k(m, n):
    return -1 if -1 in (m, n) else min(m, n)


# ------------------------------------------------------------------ cholesky
_UPPER = (("upper", "BOOLEAN", False),)


def _square_same(what):
    def infer(metas, attrs):
        matrix(metas[0], what, square=True)
        return (metas[0],)
    return infer


defgrad("cholesky_grad", "Out Out@GRAD", "X@GRAD", _UPPER)
defop("cholesky", "X", "Out", _UPPER, infer=_square_same("cholesky: input X"),
      grad=grad_op("cholesky_grad", uses=("Out",)))


def _cholesky_solve_infer(metas, attrs):
    b = matrix(metas[0], "cholesky_solve: input X (the right-hand side)")
    f = matrix(metas[1], "cholesky_solve: input Y (the Cholesky factor)", square=True)
    if not _same(b[-2], f[-2]):
        raise OpError(f"cholesky_solve: X has {b[-2]} rows but the factor Y is "
                      f"{f[-2]}x{f[-1]} (X shape {list(b)}, Y shape {list(f)})")
    return (Meta(_batch(b, f, ("X batch", "Y batch")) + (f[-2], b[-1]), metas[0].dtype),)


defgrad("cholesky_solve_grad", "X Y Out Out@GRAD", "X@GRAD? Y@GRAD?", _UPPER)
defop("cholesky_solve", "X Y", "Out", _UPPER, infer=_cholesky_solve_infer,
      grad=grad_op("cholesky_solve_grad", uses=("X", "Y", "Out"), wrt=("X", "Y")),
      same_dtype=("X", "Y"))


# ------------------------------------------------------------------ inverse, determinants
defgrad("inverse_grad", "Output Output@GRAD", "Input@GRAD",
        infer=lambda m, a: (m[0],))
defop("inverse", "Input", "Output", infer=_square_same("inverse: input x"),
      grad=grad_op("inverse_grad", uses=("Output",), gouts=("Output",), wrt=("Input",)))


def _det_infer(metas, attrs):
    s = matrix(metas[0], "determinant: input x", square=True)
    return (Meta(s[:-2], metas[0].dtype),)


def _slogdet_infer(metas, attrs):
    s = matrix(metas[0], "slogdeterminant: input x", square=True)
    return (Meta((2,) + s[:-2], metas[0].dtype),)


defgrad("determinant_grad", "Input Out Out@GRAD", "Input@GRAD")
defop("determinant", "Input", "Out", infer=_det_infer,
      grad=grad_op("determinant_grad", uses=("Input", "Out"), wrt=("Input",)))
defgrad("slogdeterminant_grad", "Input Out Out@GRAD", "Input@GRAD")
defop("slogdeterminant", "Input", "Out", infer=_slogdet_infer,
      grad=grad_op("slogdeterminant_grad", uses=("Input", "Out"), wrt=("Input",)))


# ------------------------------------------------------------------ solvers
def _solve_infer(metas, attrs):
    a = matrix(metas[0], "solve: input x", square=True)
    b = tuple(metas[1].shape)
    if not b:
        raise OpError("solve: input y must have rank >= 1, got a 0-D tensor")
    vec = len(b) == 1
    bm = b + (1,) if vec else b
    if not _same(a[-1], bm[-2]):
        raise OpError(f"solve: x's width {a[-1]} must equal y's height {bm[-2]} "
                      f"(x shape {list(a)}, y shape {list(b)})")
    batch = _batch(a, bm, ("x batch", "y batch"))
    return (Meta(batch + ((a[-2],) if vec else (a[-2], b[-1])), metas[0].dtype),)


defgrad("solve_grad", "X Y Out Out@GRAD", "X@GRAD? Y@GRAD?")
defop("solve", "X Y", "Out", infer=_solve_infer,
      grad=grad_op("solve_grad", uses=("X", "Y", "Out"), wrt=("X", "Y")),
      same_dtype=("X", "Y"))

_TRI_ATTRS = (("upper", "BOOLEAN", True), ("transpose", "BOOLEAN", False),
              ("unitriangular", "BOOLEAN", False))


def _triangular_solve_infer(metas, attrs):
    a = matrix(metas[0], "triangular_solve: input x", square=True)
    b = matrix(metas[1], "triangular_solve: input y")
    if not _same(a[-1], b[-2]):
        raise OpError(f"triangular_solve: x's width {a[-1]} must equal y's height {b[-2]} "
                      f"(x shape {list(a)}, y shape {list(b)})")
    return (Meta(_batch(a, b, ("x batch", "y batch")) + (a[-2], b[-1]), metas[0].dtype),)


defgrad("triangular_solve_grad", "X Y Out Out@GRAD", "X@GRAD? Y@GRAD?", _TRI_ATTRS)
defop("triangular_solve", "X Y", "Out", _TRI_ATTRS, infer=_triangular_solve_infer,
      grad=grad_op("triangular_solve_grad", uses=("X", "Y", "Out"), wrt=("X", "Y")),
      same_dtype=("X", "Y"))


def _lstsq_infer(metas, attrs):
    a = matrix(metas[0], "lstsq: input x")
    b = matrix(metas[1], "lstsq: input y")
    if not _same(a[-2], b[-2]):
        raise OpError(f"lstsq: x (shape {list(a)}) and y (shape {list(b)}) must have "
                      f"the same number of rows")
    if attrs["driver"] not in ("gels", "gelsy", "gelsd", "gelss"):
        raise OpError(f"lstsq: driver must be one of 'gels', 'gelsy', 'gelsd', 'gelss', "
                      f"got '{attrs['driver']}'")
    batch = _batch(a, b, ("x batch", "y batch"))
    m, n, k = a[-2], a[-1], b[-1]
    dt = metas[0].dtype
    res = -1 if -1 in (m, n) else (k if m > n else 0)
    return (Meta(batch + (n, k), dt), Meta(batch + (res,), _real_of(dt)),
            Meta(batch, INT32), Meta(batch + (_k(m, n),), _real_of(dt)))


defop("lstsq", "X Y", "Solution Residuals? Rank SingularValues",
      (("rcond", "FLOAT", 0.0), ("driver", "STRING", "gels")), infer=_lstsq_infer,
      same_dtype=("X", "Y"))


# ------------------------------------------------------------------ matrix_power, multi_dot
defgrad("matrix_power_grad", "X Out Out@GRAD", "X@GRAD", (("n", "INT", REQUIRED),))
defop("matrix_power", "X", "Out", (("n", "INT", REQUIRED),),
      infer=_square_same("matrix_power: input x"),
      grad=grad_op("matrix_power_grad", uses=("X", "Out")))


def _multi_dot_infer(metas, attrs):
    xs = metas[0]
    if len(xs) < 2:
        raise OpError(f"multi_dot needs at least 2 tensors, got {len(xs)}")
    shapes = [tuple(m.shape) for m in xs]
    for i, s in enumerate(shapes):
        end = i in (0, len(shapes) - 1)
        if len(s) != 2 and not (end and len(s) == 1):
            raise OpError(f"multi_dot: x[{i}] must be 2-D" + (" or 1-D" if end else "") +
                          f", got shape {list(s)}")
        if xs[i].dtype != xs[0].dtype:
            raise OpError(f"multi_dot: every tensor must have one dtype; x[0] is "
                          f"{xs[0].dtype}, x[{i}] is {xs[i].dtype}")
    mats = [(1,) + shapes[0] if len(shapes[0]) == 1 else shapes[0]] + shapes[1:-1] + \
        [shapes[-1] + (1,) if len(shapes[-1]) == 1 else shapes[-1]]
    for i in range(1, len(mats)):
        if not _same(mats[i - 1][1], mats[i][0]):
            raise OpError(f"multi_dot: x[{i - 1}] (shape {list(shapes[i - 1])}) and x[{i}] "
                          f"(shape {list(shapes[i])}) cannot be multiplied")
    out = ((mats[0][0],) if len(shapes[0]) == 2 else ()) + \
        ((mats[-1][1],) if len(shapes[-1]) == 2 else ())
    return (Meta(out, xs[0].dtype),)


defgrad("multi_dot_grad", "X* Out@GRAD", "X@GRAD*", infer=lambda m, a: (list(m[0]),))
defop("multi_dot", "X*", "Out", infer=_multi_dot_infer,
      grad=grad_op("multi_dot_grad", uses=("X",)))


# ------------------------------------------------------------------ svd, qr
def _svd_infer(metas, attrs):
    s = matrix(metas[0], "svd: input x")
    m, n = s[-2:]
    k = _k(m, n)
    full = attrs["full_matrices"]
    dt = metas[0].dtype
    return (Meta(s[:-2] + (m, m if full else k), dt), Meta(s[:-2] + (k,), _real_of(dt)),
            Meta(s[:-2] + (n if full else k, n), dt))


defgrad("svd_grad", "X U VH S U@GRAD? VH@GRAD? S@GRAD?", "X@GRAD",
        (("full_matrices", "BOOLEAN", False),), infer=lambda m, a: (m[0],))
defop("svd", "X", "U S VH", (("full_matrices", "BOOLEAN", False),), infer=_svd_infer,
      grad=grad_op("svd_grad", uses=("X", "U", "VH", "S"), gouts=("U", "VH", "S")))

QR_MODES = ("reduced", "complete", "r")


def _qr_infer(metas, attrs):
    s = matrix(metas[0], "qr: input x")
    mode = attrs["mode"]
    if mode not in QR_MODES:
        raise OpError(f"qr: mode must be 'reduced', 'complete' or 'r', got '{mode}'")
    m, n = s[-2:]
    k = m if mode == "complete" else _k(m, n)
    q = (0,) if mode == "r" else s[:-2] + (m, k)
    return (Meta(q, metas[0].dtype), Meta(s[:-2] + (k, n), metas[0].dtype))


defgrad("qr_grad", "X Q R Q@GRAD? R@GRAD?", "X@GRAD", (("mode", "STRING", "reduced"),),
        infer=lambda m, a: (m[0],))
defop("qr", "X", "Q R", (("mode", "STRING", "reduced"),), infer=_qr_infer,
      grad=grad_op("qr_grad", uses=("X", "Q", "R"), gouts=("Q", "R")))


# ------------------------------------------------------------------ eigen decompositions
def _eig_infer(metas, attrs):
    s = matrix(metas[0], "eig: input x", square=True)
    c = _COMPLEX[np.dtype(metas[0].dtype)] if np.dtype(metas[0].dtype) in _COMPLEX \
        else metas[0].dtype
    return (Meta(s[:-1], c), Meta(s, c))


# X (PHI's eig_grad reads only the results) tells the kernel whether the
# gradient is complex or, for a real input, its real part (Paddle's rule for
# a real variable's complex gradient)
defgrad("eig_grad", "X Eigenvalues Eigenvectors Eigenvalues@GRAD? Eigenvectors@GRAD?",
        "X@GRAD", dtype_from="Eigenvectors", infer=lambda m, a: (m[0],))
defop("eig", "X", "Eigenvalues Eigenvectors", infer=_eig_infer,
      grad=grad_op("eig_grad", uses=("X", "Eigenvalues", "Eigenvectors"),
                   gouts=("Eigenvalues", "Eigenvectors")))


def _eigvals_infer(metas, attrs):
    return (_eig_infer(metas, attrs)[0],)


defop("eigvals", "X", "Out", infer=_eigvals_infer)

_UPLO = ("UPLO", "STRING", "L")


def _eigh_infer(metas, attrs):
    s = matrix(metas[0], "eigh: input x", square=True)
    return (Meta(s[:-1], _real_of(metas[0].dtype)), Meta(s, metas[0].dtype))


defgrad("eigh_grad", "Eigenvalues Eigenvectors Eigenvalues@GRAD? Eigenvectors@GRAD?",
        "X@GRAD", (_UPLO,), dtype_from="Eigenvectors",
        infer=lambda m, a: (Meta(m[1].shape, m[1].dtype),))
defop("eigh", "X", "Eigenvalues Eigenvectors", (_UPLO,), infer=_eigh_infer,
      grad=grad_op("eigh_grad", uses=("Eigenvalues", "Eigenvectors"),
                   gouts=("Eigenvalues", "Eigenvectors")))

_EIGVALSH_ATTRS = (_UPLO, ("is_test", "BOOLEAN", False))
defgrad("eigvalsh_grad", "Eigenvectors Eigenvalues@GRAD", "X@GRAD", _EIGVALSH_ATTRS,
        dtype_from="Eigenvectors", infer=lambda m, a: (Meta(m[0].shape, m[0].dtype),))
defop("eigvalsh", "X", "Eigenvalues Eigenvectors", _EIGVALSH_ATTRS, infer=_eigh_infer,
      grad=grad_op("eigvalsh_grad", uses=("Eigenvectors",), gouts=("Eigenvalues",)))


# ------------------------------------------------------------------ lu
def _lu_infer(metas, attrs):
    s = matrix(metas[0], "lu: input x")
    k = _k(*s[-2:])
    return (metas[0], Meta(s[:-2] + (k,), INT32), Meta(s[:-2] or (1,), INT32))


defgrad("lu_grad", "X Out Pivots Out@GRAD", "X@GRAD", (("pivots", "BOOLEAN", True),),
        infer=lambda m, a: (m[0],))
defop("lu", "X", "Out Pivots Infos", (("pivots", "BOOLEAN", True),), infer=_lu_infer,
      grad=grad_op("lu_grad", uses=("X", "Out", "Pivots")))

_UNPACK_ATTRS = (("unpack_ludata", "BOOLEAN", True), ("unpack_pivots", "BOOLEAN", True))
# what Paddle returns for a part it was told not to unpack
_EMPTY = Meta((0,), np.dtype("float32"))


def _lu_unpack_infer(metas, attrs):
    s = matrix(metas[0], "lu_unpack: input x")
    p = tuple(metas[1].shape)
    if not p:
        raise OpError("lu_unpack: input Pivots must have rank >= 1, got a 0-D tensor")
    m, n = s[-2:]
    k = _k(m, n)
    dt = metas[0].dtype
    pm = Meta(s[:-2] + (m, m), dt) if attrs["unpack_pivots"] else _EMPTY
    if not attrs["unpack_ludata"]:
        return (pm, _EMPTY, _EMPTY)
    return (pm, Meta(s[:-2] + (m, k), dt), Meta(s[:-2] + (k, n), dt))


defgrad("lu_unpack_grad", "X Pivots L U Pmat L@GRAD? U@GRAD?", "X@GRAD", _UNPACK_ATTRS,
        infer=lambda m, a: (m[0],))
defop("lu_unpack", "X Pivots", "Pmat L U", _UNPACK_ATTRS, infer=_lu_unpack_infer,
      grad=grad_op("lu_unpack_grad", uses=("X", "Pivots", "L", "U", "Pmat"),
                   gouts=("L", "U")),
      no_grad_inputs=("Pivots",))


# ------------------------------------------------------------------ matrix_rank
def _matrix_rank_infer(metas, attrs):
    s = matrix(metas[0], "matrix_rank: input x")
    batch = s[:-2]
    if metas[1] is not None:
        batch = broadcast_shapes(batch, tuple(metas[1].shape), names=("x batch", "tol"))
    return (Meta(batch, INT32),)


defop("matrix_rank", "X TolTensor?", "Out",
      (("tol", "FLOAT", 0.0), ("hermitian", "BOOLEAN", False),
       ("use_default_tol", "BOOLEAN", True)), infer=_matrix_rank_infer)


# ------------------------------------------------------------------ frobenius_norm
# a reduction: the attributes of reduce_sum (Paddle declares them alike)
_NORM_ATTRS = (("dim", "INTS", [0]), ("keep_dim", "BOOLEAN", False),
               ("reduce_all", "BOOLEAN", False), ("in_dtype", "INT", -1),
               ("out_dtype", "INT", -1))
defgrad("frobenius_norm_grad", "X Out Out@GRAD", "X@GRAD", _NORM_ATTRS,
        infer=lambda m, a: (m[0],))
defop("frobenius_norm", "X", "Out", _NORM_ATTRS, infer=reduce_infer(),
      grad=grad_op("frobenius_norm_grad", uses=("X", "Out")))
