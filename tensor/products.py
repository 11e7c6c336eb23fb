"""Products and distances (``paddle.cross``, ``paddle.einsum``, ``paddle.cdist``
...): cross, mv, addmm, trace, dist, renorm and einsum over their ops; inner,
outer, mm, tensordot and cdist over matmul_v2, reshape2, transpose2, p_norm...
as Paddle 2.6 writes them.

einsum checks the equation as Paddle's Python does (AssertionError), then
appends one ``einsum`` op for one or two operands and a chain of two-operand
``einsum`` ops for more (Paddle orders that chain with opt_einsum; sampan
contracts left to right: the same ops, the values equal up to rounding).
"""
import numpy as np

from ..ops import bind, get_op
from ..ops.defs.products import CROSS_DEFAULT_DIM
from .creation import is_var, empty, zeros
from .indexing import inplace
from .manipulation import reshape, transpose
from .stat import sum as _sum
from . import math as M

__all__ = ["cross", "inner", "outer", "mm", "mv", "addmm", "addmm_", "tensordot", "einsum",
           "trace", "dist", "cdist", "renorm", "renorm_"]
METHODS = [n for n in __all__ if n != "einsum"]

_OPS = {t: get_op(t) for t in ("cross", "mv", "addmm", "trace", "dist", "renorm", "einsum",
                                "p_norm")}


def _numel(x):
    """The element count of x, or -1 when a dim is unknown (a static -1)."""
    shape = list(x.shape)
    return -1 if any(d < 0 for d in shape) else int(np.prod(shape, dtype=np.int64))


# ------------------------------------------------------------------ cross, mv, trace, dist
def cross(x, y, axis=9, name=None):
    """The cross product along ``axis`` (default: the first axis of size 3)."""
    dim = CROSS_DEFAULT_DIM if axis is None else int(axis)
    return bind(_OPS["cross"], (x, y), {"dim": dim})[0]


def mv(x, vec, name=None):
    """Matrix (2-D) times vector (1-D)."""
    return bind(_OPS["mv"], (x, vec))[0]


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    """The sum of the ``offset`` diagonal of the (axis1, axis2) planes."""
    return bind(_OPS["trace"], (x,), {"offset": int(offset), "axis1": int(axis1),
                                     "axis2": int(axis2)})[0]


def dist(x, y, p=2, name=None):
    """The p-norm of x - y (broadcast), a 0-D tensor."""
    return bind(_OPS["dist"], (x, y), {"p": float(p)})[0]


# ------------------------------------------------------------------ matmul composites
def mm(input, mat2, name=None):
    """Matrix product (``matmul_v2``)."""
    return M.matmul(input, mat2)


def inner(x, y, name=None):
    """Sum of products over the last axes of x and y."""
    if _numel(x) == 1 or _numel(y) == 1:
        return M.multiply(x, y)
    xshape, yshape = list(x.shape), list(y.shape)
    dstshape = xshape[:-1] + yshape[:-1]
    nx = reshape(x, (-1, xshape[-1]))
    ny = reshape(y, (-1, yshape[-1]))
    return reshape(M.matmul(nx, transpose(ny, [1, 0])), dstshape)


def outer(x, y, name=None):
    """The outer product of x and y, flattened."""
    return M.matmul(reshape(x, (-1, 1)), reshape(y, (1, -1)))


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    """beta * input + alpha * (x @ y), input broadcast to [x.shape[0], y.shape[1]]."""
    _addmm_checks(input.shape, x.shape, y.shape)
    return bind(_OPS["addmm"], (input, x, y), {"Beta": float(beta), "Alpha": float(alpha)})[0]


def _addmm_checks(input_shape, x_shape, y_shape):
    input_shape, x_shape, y_shape = list(input_shape), list(x_shape), list(y_shape)
    if not len(x_shape) == len(y_shape) == 2:
        raise ValueError(f"The dimention of x, y should be 2 but receive x's shape: {x_shape}, "
                         f"y's shape: {y_shape}")
    if x_shape[1] != y_shape[0]:
        raise ValueError(f"The input Variable x's width must be equal with Variable y' height. "
                         f"But received x's shape = {x_shape}, y's shape = {y_shape}.")
    if len(input_shape) == 2:
        if input_shape[0] != x_shape[0]:
            if input_shape[0] != 1:
                raise ValueError(f"When x's dimension[0] is not equal with input's "
                                 f"dimension[0], input's dimension[0] must be 1 but got "
                                 f"{input_shape[0]}")
        if input_shape[1] != y_shape[1] and input_shape[1] != 1:
            raise ValueError(f"When y's dimension[1] is not equal with input's dimension[1], "
                             f"input's dimension[1] must be 1 but got {input_shape[1]}")
    elif len(input_shape) == 1:
        if input_shape[0] not in (y_shape[1], 1):
            raise ValueError(f"The input's shape: {input_shape} is not broadcastable with "
                             f"[x.shape[0], y.shape[1]]: [{x_shape[0]},{y_shape[1]}]")
    else:
        raise ValueError(f"The dimention of input should be 2 or 1 but receive input's shape: "
                         f"{input_shape}")


def addmm_(input, x, y, beta=1.0, alpha=1.0, name=None):
    """In place: input becomes ``addmm(input, x, y, beta, alpha)``."""
    _addmm_checks(input.shape, x.shape, y.shape)
    out_shape = [x.shape[0], y.shape[1]]
    if list(input.shape) != out_shape:
        raise ValueError(f"The shape of the result {out_shape} is different from that of "
                         f"inplace tensor {list(input.shape)} in the Inplace operation.")
    return inplace(input, lambda t: addmm(t, x, y, beta, alpha))


def _axes_pair(axes, x, y):
    """Paddle's tensordot ``axes``: an int n (the last n of x, the first n of y),
    a list of x's axes (y's the same), or a pair of lists."""
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        if axes < 0:
            raise AssertionError(f"The 'axes' in tensordot should not be negative, but "
                                 f"received axes={axes}.")
        return list(range(len(x.shape) - axes, len(x.shape))), list(range(axes))
    if is_var(axes):
        axes = axes.tolist()
    if not isinstance(axes, (list, tuple)):
        raise TypeError(f"The type of 'axes' in tensordot must be int, tuple, list or Tensor, "
                        f"but received {type(axes)}")
    axes_y = []
    if not axes or isinstance(axes[0], (int, np.integer)):
        axes_x = axes
    else:
        axes_x = axes[0]
        if len(axes) > 1:
            axes_y = axes[1]
    axes_x = axes_x.tolist() if is_var(axes_x) else list(axes_x)
    axes_y = axes_y.tolist() if is_var(axes_y) else list(axes_y)
    if len(axes_x) < len(axes_y):
        axes_x.extend(axes_y[len(axes_x):])
    elif len(axes_y) < len(axes_x):
        axes_y.extend(axes_x[len(axes_y):])
    return axes_x, axes_y


def tensordot(x, y, axes=2, name=None):
    """Contract x and y over the pairs of ``axes`` (transpose, reshape, matmul)."""
    axes_x, axes_y = _axes_pair(axes, x, y)
    shape_x, shape_y = list(x.shape), list(y.shape)
    nx, ny = len(shape_x), len(shape_y)
    contract_x, contract_y = [False] * nx, [False] * ny
    size = 1
    for ax, ay in zip(axes_x, axes_y):
        sx, sy = shape_x[ax], shape_y[ay]
        if sx == 1:
            shape_y[ay] = 1
            y = reshape(_sum(y, ay), shape_y)
        elif sy == 1:
            shape_x[ax] = 1
            x = reshape(_sum(x, ax), shape_x)
        elif sx != sy:
            raise AssertionError(f"The dimensional size for 'x' and 'y' in tensordot should "
                                 f"match each other, but 'x' has size {sx} in dim {ax} while "
                                 f"'y' has size {sy} in dim {ay}.")
        contract_x[ax] = contract_y[ay] = True
        size *= shape_x[ax]
    perm_x = [i for i in range(nx) if not contract_x[i]]
    out_shape = [shape_x[i] for i in perm_x]
    free_x = int(np.prod(out_shape, dtype=np.int64))
    free_y_axes = [i for i in range(ny) if not contract_y[i]]
    out_shape += [shape_y[i] for i in free_y_axes]
    free_y = int(np.prod([shape_y[i] for i in free_y_axes], dtype=np.int64))
    x = reshape(transpose(x, perm_x + list(axes_x)), [free_x, size])
    y = reshape(transpose(y, list(axes_y) + free_y_axes), [size, free_y])
    return reshape(M.matmul(x, y), out_shape)


# ------------------------------------------------------------------ cdist, renorm
_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


def cdist(x, y, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary", name=None):
    """The p-norm distance between each pair of rows of x [..., P, M] and y [..., R, M]."""
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"The compute_mode should be {', '.join(map(repr, _CDIST_MODES))}, "
                         f"but received compute_mode is {compute_mode}.")
    mode = _CDIST_MODES[compute_mode]
    xs, ys = list(x.shape), list(y.shape)
    if len(xs) < 2:
        raise AssertionError(f"The x must be at least 2-dimensional, But received Input x's "
                             f"dimensional is {len(xs)}.")
    if len(ys) < 2:
        raise AssertionError(f"The y must be at least 2-dimensional, But received Input y's "
                             f"dimensional is {len(ys)}.")
    if xs[-1] != ys[-1]:
        raise AssertionError(f"The x and y must have same last dimension, But received Input "
                             f"x's last dimension is {xs[-1]}, Input y's last dimension is "
                             f"{ys[-1]}.")
    if not p >= 0:
        raise AssertionError(f"The p must be greater than or equal to 0, But received p is "
                             f"{p}.")
    r1, r2, c1 = xs[-2], ys[-2], xs[-1]
    p = float(p)
    if r1 == 0 or r2 == 0:
        return empty((r1, r2), dtype=x.dtype)
    if c1 == 0:
        return zeros((r1, r2), dtype=x.dtype)
    if p == 2.0 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25))):
        x_norm = _sum(M.pow(x, 2), axis=-1, keepdim=True)
        y_norm = _sum(M.pow(y, 2), axis=-1, keepdim=True)
        nd = len(ys)
        perm = list(range(nd - 2)) + [nd - 1, nd - 2]
        y_t = transpose(y, perm=perm)
        y_norm_t = transpose(y_norm, perm=perm)
        res = M.matmul(x, y_t) * -2 + y_norm_t + x_norm
        return M.sqrt(M.clip(res, min=0.0))
    diff = x[..., None, :] - y[..., None, :, :]
    return bind(_OPS["p_norm"], (diff,), {"porder": p, "axis": -1, "epsilon": 1e-12,
                                          "keepdim": False, "asvector": False})[0]


def _renorm_axis(x, axis):
    nd = len(x.shape)
    if not axis < nd:
        raise ValueError(f"the axis:{axis} should be less then the shape's size {nd}:"
                         f"{list(x.shape)}")
    if axis < 0:
        if not axis >= -nd:
            raise ValueError(f"the axis:{axis} should not be less than -1 * length of "
                             f"input_shape:{-nd}")
        axis += nd
    return axis


def renorm(x, p, axis, max_norm):
    """Each slice along ``axis`` whose p-norm exceeds max_norm scaled down to it."""
    axis = _renorm_axis(x, axis)
    return bind(_OPS["renorm"], (x,), {"p": float(p), "axis": axis,
                                      "max_norm": float(max_norm)})[0]


def renorm_(x, p, axis, max_norm):
    """In place: x becomes ``renorm(x, p, axis, max_norm)``."""
    axis = _renorm_axis(x, axis)
    return inplace(x, lambda t: renorm(t, p, axis, max_norm))


# ------------------------------------------------------------------ einsum
def _check_term(term, operand):
    for c in term.replace(".", ""):
        if not c.isalpha():
            raise AssertionError(f"Invalid equation: {c} is not a valid label, which should be "
                                 f"letters.")
    if term.replace("...", "", 1).find(".") != -1:
        raise AssertionError("Invalid equation: `.` is found outside of an ellipsis.")
    nd = len(operand.shape)
    full = term.replace("...", "." * (nd - len(term) + 3))
    if len(full) != nd:
        raise AssertionError(f"Invalid equation: the label string '{term}' misses dimensions.")


def _implicit_rhs(lhs):
    counts = {}
    for c in lhs:
        counts[c] = counts.get(c, 0) + 1
    rhs = "..." if "..." in lhs else ""
    return rhs + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ".,"))


def _chain_output(a, b, rest, rhs):
    """The labels a two-operand step keeps: those the other terms or the output
    still need, in order of appearance, after an ellipsis if either has one."""
    need = set(rhs) | set("".join(rest))
    ell = "..." if "..." in a or "..." in b else ""
    labels = dict.fromkeys(c for c in (a + b).replace("...", "") if c in need)
    return ell + "".join(labels)


def einsum(equation, *operands):
    """Einstein summation over the operands (lower-cased labels, ``...``
    broadcasting, an implicit output of the labels seen once, sorted)."""
    if not operands:
        raise AssertionError("Required at least one operand in Einsum API, but received 0 ")
    eq = equation.replace(" ", "")
    lhs, *rhs = eq.lower().split("->")
    if len(rhs) >= 2:
        raise AssertionError("Invalid equation: multiple `->` were found.")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise AssertionError(f"Invalid equation: the number of operands is {len(operands)}, "
                             f"but found {len(terms)} segments in the label equation.")
    for t, x in zip(terms, operands):
        _check_term(t, x)
    rhs = rhs[0] if rhs else _implicit_rhs(lhs)
    if "..." in lhs and "..." not in rhs:
        raise AssertionError("Invalid equation: missing ellipsis in output labels.")
    if len(operands) <= 2:
        return bind(_OPS["einsum"], (list(operands),), {"equation": lhs + "->" + rhs})[0]
    acc, acc_term = operands[0], terms[0]
    for k in range(1, len(operands)):
        rest = terms[k + 1:]
        out = rhs if not rest else _chain_output(acc_term, terms[k], rest, rhs)
        acc = bind(_OPS["einsum"], ([acc, operands[k]],),
                   {"equation": f"{acc_term},{terms[k]}->{out}"})[0]
        acc_term = out
    return acc
