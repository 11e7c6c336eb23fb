"""Op-spec cases: cross, mv, addmm, trace, dist, renorm and einsum (matrix
products, traces with offsets and axes, ellipsis broadcasting, diagonals,
labels summed in one operand only)."""
import numpy as np

from .spec import Case, rand


def _norm(d, p):
    a = np.abs(d)
    if p == 0:
        return np.asarray(float(np.count_nonzero(d)))
    if p == np.inf:
        return np.asarray(a.max())
    if p == -np.inf:
        return np.asarray(a.min())
    return np.asarray(np.sum(a ** p) ** (1 / p))


def _renorm(x, p, axis, max_norm):
    others = tuple(i for i in range(x.ndim) if i != axis)
    n = np.sum(np.abs(x) ** p, axis=others, keepdims=True) ** (1 / p)
    return x * np.where(n > max_norm, max_norm / (n + 1e-7), 1.0)


def _einsum(eq, *shapes, seed=80, **kw):
    ops = [rand(*s, seed=seed + k) for k, s in enumerate(shapes)]
    return Case("einsum", {"Operands": ops}, {"equation": eq},
                ref=lambda Operands: np.einsum(eq, *Operands),
                id="einsum_" + eq.replace(",", "_").replace("->", "_to_").replace(".", "e"),
                **kw)


def _trace(shape, offset=0, a1=0, a2=1, **kw):
    lo, hi = sorted((a1 % len(shape), a2 % len(shape)))
    return Case("trace", {"Input": rand(*shape, seed=90)},
                {"offset": offset, "axis1": a1, "axis2": a2},
                ref=lambda Input: np.asarray(np.trace(Input, offset, lo, hi)),
                id=f"trace_{'x'.join(map(str, shape))}_{offset}_{a1}_{a2}", **kw)


CASES = [
    Case("cross", {"X": rand(3, 4, seed=81), "Y": rand(3, 4, seed=82)},
         ref=lambda X, Y: np.cross(X, Y, axis=0)),
    Case("cross", {"X": rand(2, 3, seed=83), "Y": rand(2, 3, seed=84)}, {"dim": -1},
         ref=lambda X, Y: np.cross(X, Y), id="cross_last"),
    Case("cross", {"X": np.array([[1, 2, 3]], "int64"), "Y": np.array([[4, 5, 6]], "int64")},
         ref=lambda X, Y: np.cross(X, Y), grad=False, id="cross_int"),
    Case("mv", {"X": rand(2, 3, seed=85), "Vec": rand(3, seed=86)}, ref=lambda X, Vec: X @ Vec),
    Case("addmm", {"Input": rand(2, 4, seed=87), "X": rand(2, 3, seed=88),
                   "Y": rand(3, 4, seed=89)}, {"Beta": 0.5, "Alpha": 2.0},
         ref=lambda Input, X, Y: 0.5 * Input + 2.0 * (X @ Y)),
    Case("addmm", {"Input": rand(4, seed=91), "X": rand(2, 3, seed=92),
                   "Y": rand(3, 4, seed=93)}, ref=lambda Input, X, Y: Input + X @ Y,
         id="addmm_bcast_row"),
    Case("addmm", {"Input": rand(2, 1, seed=94), "X": rand(2, 3, seed=95),
                   "Y": rand(3, 4, seed=96)}, ref=lambda Input, X, Y: Input + X @ Y,
         id="addmm_bcast_col"),
    _trace((3, 4)),
    _trace((3, 4), offset=1),
    _trace((3, 4), offset=-2),
    _trace((3, 4), offset=-1, a1=1, a2=0),
    _trace((2, 3, 4), offset=1, a1=-1, a2=0),
    _trace((3, 3), offset=7),
    Case("trace", {"Input": np.arange(12, dtype="int32").reshape(3, 4)},
         ref=lambda Input: np.asarray(np.trace(Input)), grad=False, id="trace_int"),
    Case("dist", {"X": rand(2, 3, seed=97), "Y": rand(3, seed=98)}, {"p": 2.0},
         ref=lambda X, Y: _norm(X - Y, 2.0)),
    Case("dist", {"X": rand(2, 3, seed=99), "Y": rand(2, 3, seed=100)}, {"p": 3.5},
         ref=lambda X, Y: _norm(X - Y, 3.5), id="dist_p3_5"),
    Case("dist", {"X": rand(2, 3, seed=101), "Y": rand(2, 3, seed=102)}, {"p": 1.0},
         ref=lambda X, Y: _norm(X - Y, 1.0), id="dist_p1"),
    Case("dist", {"X": rand(2, 3, seed=103), "Y": rand(2, 3, seed=104)}, {"p": np.inf},
         ref=lambda X, Y: _norm(X - Y, np.inf), id="dist_inf"),
    Case("dist", {"X": rand(2, 3, seed=105), "Y": rand(2, 3, seed=106)}, {"p": -np.inf},
         ref=lambda X, Y: _norm(X - Y, -np.inf), id="dist_neg_inf"),
    Case("dist", {"X": rand(2, 3, seed=107), "Y": rand(2, 3, seed=108)}, {"p": 0.0},
         ref=lambda X, Y: _norm(X - Y, 0), grad=False, id="dist_p0"),
    Case("renorm", {"X": rand(3, 4, low=-2, high=2, seed=109)},
         {"p": 2.0, "axis": 0, "max_norm": 1.0},
         ref=lambda X: _renorm(X, 2.0, 0, 1.0)),
    Case("renorm", {"X": rand(3, 4, 2, low=-2, high=2, seed=110)},
         {"p": 1.5, "axis": 1, "max_norm": 1.5},
         ref=lambda X: _renorm(X, 1.5, 1, 1.5), id="renorm_axis1"),
    # ---------------------------------------------------------------- einsum
    _einsum("ij,jk->ik", (2, 3), (3, 4)),
    _einsum("ij->ji", (2, 3)),
    _einsum("ij->", (2, 3)),
    _einsum("ii->i", (3, 3)),
    _einsum("iij->j", (3, 3, 2)),
    _einsum("i,j->ij", (3,), (4,)),
    _einsum("bij,bkj->bik", (2, 3, 4), (2, 5, 4)),
    _einsum("...ij,...jk->...ik", (2, 2, 3), (3, 4)),
    _einsum("...j,...j->...", (2, 1, 3), (4, 3)),
    _einsum("i...->...", (2, 3, 4)),
    _einsum("ij,kl->ik", (2, 3), (4, 5)),
    _einsum("ii,ij->j", (3, 3), (3, 2)),
    Case("einsum", {"Operands": [rand(2, 3, seed=120)]}, {"equation": "ij->ii"},
         ref=lambda Operands: np.diag(Operands[0].sum(1)), id="einsum_ij_to_ii"),
]
