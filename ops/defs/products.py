"""Products and norms of whole tensors: cross, mv, addmm, trace, dist, renorm,
and einsum (its equation parsed once here, for the shape rule and the
kernels: ``parse_einsum``).

einsum has Paddle's slots: ``Operands*`` in, ``Out`` plus the intermediates
``InnerCache*`` and ``XShape*`` (one per operand) out; its grad op reads
``InnerCache`` (sampan keeps the operands there), ``x_shape`` and ``Out@GRAD``
and writes ``Operands@GRAD``.
"""
import string

import numpy as np

from ..declare import defop, defgrad, grad_op, REQUIRED
from ..meta_rules import broadcast_shapes, norm_axis
from ..registry import GradOp, Meta, OpError
from ..errors import OUT_OF_RANGE


# ------------------------------------------------------------------ cross
CROSS_DEFAULT_DIM = 9        # Paddle's "no axis given": the first axis of size 3


def cross_axis(x_shape, y_shape, dim):
    """The axis ``cross`` works along (checked as Paddle checks it); None while
    unknown dims (-1) leave it open."""
    xs, ys = list(x_shape), list(y_shape)
    if len(xs) != len(ys) or any(a != b and a >= 0 and b >= 0 for a, b in zip(xs, ys)):
        raise OpError(f"cross: the shape of X {xs} must equal the shape of Y {ys}")
    if dim == CROSS_DEFAULT_DIM:
        for i, d in enumerate(xs):
            if d == 3:
                return i
        if -1 in xs:        # an unknown dim may be the 3: the kernel decides
            return None
        raise OpError(f"cross: no axis is given and X (shape {xs}) has no dimension of "
                      f"size 3")
    ax = norm_axis(dim, len(xs), "cross: axis")
    if xs[ax] not in (3, -1):
        raise OpError(f"cross: X and Y must have size 3 along axis {dim}, got shape {xs}")
    return ax


def _cross_infer(metas, attrs):
    x, y = metas
    cross_axis(x.shape, y.shape, attrs["dim"])
    return (x,)


_CROSS_ATTRS = (("dim", "INT", CROSS_DEFAULT_DIM),)
defgrad("cross_grad", "X Y Out@GRAD", "X@GRAD? Y@GRAD?", _CROSS_ATTRS)
defop("cross", "X Y", "Out", _CROSS_ATTRS, infer=_cross_infer, same_dtype=("X", "Y"),
      grad=grad_op("cross_grad", uses=("X", "Y"), wrt=("X", "Y")), renames={"axis": "dim"})


# ------------------------------------------------------------------ mv
def mv_check(x_shape, v_shape):
    if len(x_shape) != 2:
        raise OpError(f"mv: x must be 2-D, got shape {list(x_shape)}")
    if len(v_shape) != 1:
        raise OpError(f"mv: vec must be 1-D, got shape {list(v_shape)}")
    if x_shape[1] != v_shape[0] and x_shape[1] >= 0 and v_shape[0] >= 0:
        raise OpError(f"mv: x's second dimension ({x_shape[1]}, shape {list(x_shape)}) must "
                      f"equal vec's length ({v_shape[0]})")


def _mv_infer(metas, attrs):
    x, v = metas
    mv_check(x.shape, v.shape)
    return (Meta((x.shape[0],), x.dtype),)


defgrad("mv_grad", "X Vec Out@GRAD", "X@GRAD? Vec@GRAD?")
defop("mv", "X Vec", "Out", infer=_mv_infer, same_dtype=("X", "Vec"),
      grad=grad_op("mv_grad", uses=("X", "Vec"), wrt=("X", "Vec")))


# ------------------------------------------------------------------ addmm
def addmm_shape(i_shape, x_shape, y_shape):
    """Out's shape [x0, y1]; Input must broadcast to it."""
    if len(x_shape) != 2 or len(y_shape) != 2:
        raise OpError(f"addmm: x and y must be 2-D, got x {list(x_shape)} and y "
                      f"{list(y_shape)}")
    if x_shape[1] != y_shape[0] and x_shape[1] >= 0 and y_shape[0] >= 0:
        raise OpError(f"addmm: x's width ({x_shape[1]}) must equal y's height ({y_shape[0]}), "
                      f"got x {list(x_shape)} and y {list(y_shape)}")
    if len(i_shape) not in (1, 2):
        raise OpError(f"addmm: input must be 1-D or 2-D, got shape {list(i_shape)}")
    out = (x_shape[0], y_shape[1])
    broadcast_shapes(i_shape, out, names=("Input", "x @ y"))
    return out


def _addmm_infer(metas, attrs):
    i, x, y = metas
    return (Meta(addmm_shape(i.shape, x.shape, y.shape), x.dtype),)


_ADDMM_ATTRS = (("Beta", "FLOAT", 1.0), ("Alpha", "FLOAT", 1.0))
defgrad("addmm_grad", "Input X Y Out@GRAD", "Input@GRAD? X@GRAD? Y@GRAD?", _ADDMM_ATTRS)
defop("addmm", "Input X Y", "Out", _ADDMM_ATTRS, infer=_addmm_infer,
      same_dtype=("Input", "X", "Y"), renames={"beta": "Beta", "alpha": "Alpha"},
      grad=grad_op("addmm_grad", uses=("Input", "X", "Y"), wrt=("Input", "X", "Y")))


# ------------------------------------------------------------------ trace
def trace_axes(shape, offset, axis1, axis2):
    """(axis1, axis2) normalized, checked as Paddle checks them, and in increasing
    order: Paddle's trace takes its diagonal in the plane of the sorted axes (the
    offset counts along the later one), whichever order they are given in."""
    nd = len(shape)
    if nd < 2:
        raise OpError(f"trace: x must be at least 2-D, got shape {list(shape)}",
                      kind=OUT_OF_RANGE)
    a1 = norm_axis(axis1, nd, "trace: axis1", kind=OUT_OF_RANGE)
    a2 = norm_axis(axis2, nd, "trace: axis2", kind=OUT_OF_RANGE)
    if a1 == a2:
        raise OpError(f"trace: axis1 and axis2 must differ, got {axis1} and {axis2}")
    return min(a1, a2), max(a1, a2)


def _trace_infer(metas, attrs):
    x = metas[0]
    a1, a2 = trace_axes(x.shape, attrs["offset"], attrs["axis1"], attrs["axis2"])
    return (Meta(tuple(d for i, d in enumerate(x.shape) if i not in (a1, a2)), x.dtype),)


_TRACE_ATTRS = (("offset", "INT", 0), ("axis1", "INT", 0), ("axis2", "INT", 1))
defgrad("trace_grad", "Input Out@GRAD", "Input@GRAD", _TRACE_ATTRS)
defop("trace", "Input", "Out", _TRACE_ATTRS, infer=_trace_infer,
      grad=grad_op("trace_grad", uses=("Input",), wrt=("Input",)),
      no_need_buffer=("Input",))


# ------------------------------------------------------------------ dist
def _dist_infer(metas, attrs):
    x, y = metas
    broadcast_shapes(x.shape, y.shape)
    return (Meta((), x.dtype),)


defgrad("dist_grad", "X Y Out Out@GRAD", "X@GRAD? Y@GRAD?", (("p", "FLOAT", 2.0),),
        infer=lambda m, a: (m[0], m[1]))
defop("dist", "X Y", "Out", (("p", "FLOAT", 2.0),), infer=_dist_infer, same_dtype=("X", "Y"),
      grad=grad_op("dist_grad", uses=("X", "Y", "Out"), wrt=("X", "Y")))


# ------------------------------------------------------------------ renorm
_RENORM_ATTRS = (("p", "FLOAT", REQUIRED), ("axis", "INT", REQUIRED),
                 ("max_norm", "FLOAT", REQUIRED))


def _renorm_infer(metas, attrs):
    x = metas[0]
    norm_axis(attrs["axis"], len(x.shape), "renorm: axis")
    return (x,)


defgrad("renorm_grad", "X Out@GRAD", "X@GRAD", _RENORM_ATTRS, infer=lambda m, a: (m[0],))
defop("renorm", "X", "Out", _RENORM_ATTRS, infer=_renorm_infer,
      grad=grad_op("renorm_grad", uses=("X",)))


# ------------------------------------------------------------------ einsum
LETTERS = set(string.ascii_lowercase)
# labels sampan gives the dims an ellipsis stands for (and size-1 dims broadcast
# against a larger one): never a label of the user's (Paddle lower-cases those)
_BCAST = string.ascii_uppercase


class Einsum:
    """An einsum equation resolved against operand shapes: ``inputs`` (one label
    string per operand, the ellipsis spelled out in upper-case labels), ``output``
    (labels, a repeated one meaning a diagonal), ``sizes`` (label -> size, -1
    unknown) and ``equation`` (numpy's spelling, to the output's distinct labels)."""

    def __init__(self, inputs, output, sizes):
        self.inputs, self.output, self.sizes = inputs, output, sizes
        # a label repeated in the output puts the result on that diagonal
        self.unique_output = "".join(dict.fromkeys(output))
        self.equation = ",".join(inputs) + "->" + self.unique_output

    def out_shape(self):
        return tuple(self.sizes[c] for c in self.output)


def _split_equation(equation, n):
    eq = equation.replace(" ", "").lower()
    lhs, *rhs = eq.split("->")
    if len(rhs) > 1:
        raise OpError(f"einsum: invalid equation '{equation}': more than one '->'")
    terms = lhs.split(",")
    if len(terms) != n:
        raise OpError(f"einsum: invalid equation '{equation}': {len(terms)} operand term(s) "
                      f"for {n} operand(s)")
    for t in terms + rhs:
        bad = set(t.replace("...", "", 1)) - LETTERS
        if bad:
            raise OpError(f"einsum: invalid equation '{equation}': {sorted(bad)} are not "
                          f"labels (letters) or an ellipsis")
    return terms, (rhs[0] if rhs else None)


def _ellipsis_sizes(terms, shapes, equation):
    """The broadcast sizes of the ellipsis dims (right-aligned across operands)."""
    ell = [len(s) - len(t.replace("...", "")) for t, s in zip(terms, shapes) if "..." in t]
    nd = max(ell, default=0)
    if nd > len(_BCAST) // 2:
        raise OpError(f"einsum: an ellipsis of {nd} dims is more than sampan supports")
    sizes = [1] * nd
    for k, (t, s) in enumerate(zip(terms, shapes)):
        if "..." not in t:
            continue
        pre = t.index("...")
        nb = len(s) - len(t) + 3
        for j, d in enumerate(s[pre:pre + nb]):
            pos = nd - nb + j
            if d == 1:
                continue
            if sizes[pos] not in (1, -1) and d not in (-1, sizes[pos]):
                raise OpError(f"einsum: the ellipsis dims of operand {k} (shape {list(s)}) do "
                              f"not broadcast against the others in '{equation}'")
            if sizes[pos] in (1, -1):
                sizes[pos] = d
    return sizes


def parse_einsum(equation, shapes):
    """Resolve ``equation`` against operand ``shapes``; raises OpError (Paddle's
    ValueError) on a malformed equation, a label whose sizes differ, or an output
    label no operand has."""
    terms, rhs = _split_equation(equation, len(shapes))
    for t, s in zip(terms, shapes):
        named = len(t.replace("...", ""))
        if ("..." in t and named > len(s)) or ("..." not in t and named != len(s)):
            raise OpError(f"einsum: the term '{t}' does not match an operand of rank "
                          f"{len(s)} (shape {list(s)})")
    if rhs is None:        # implicit output: the ellipsis, then labels seen once, sorted
        counts = {}
        for t in terms:
            for c in t.replace("...", ""):
                counts[c] = counts.get(c, 0) + 1
        rhs = ("..." if any("..." in t for t in terms) else "") + \
            "".join(sorted(c for c, k in counts.items() if k == 1))
    elif any("..." in t for t in terms) and "..." not in rhs:
        raise OpError(f"einsum: invalid equation '{equation}': the output misses the ellipsis")
    bsizes = _ellipsis_sizes(terms, shapes, equation)
    nd = len(bsizes)
    sizes = {_BCAST[j]: d for j, d in enumerate(bsizes)}
    fresh = list(_BCAST[nd:])
    inputs = []
    for t, s in zip(terms, shapes):
        pre, _, post = t.partition("...")
        nb = len(s) - len(pre) - len(post) if "..." in t else 0
        labels = list(pre)
        for j, d in enumerate(s[len(pre):len(pre) + nb]):
            pos = nd - nb + j
            if d == 1 and bsizes[pos] != 1:     # a size-1 dim broadcast: its own label
                if not fresh:
                    raise OpError(f"einsum: too many broadcast dims in '{equation}'")
                labels.append(fresh.pop(0))
                sizes[labels[-1]] = 1
            else:
                labels.append(_BCAST[pos])
        labels.extend(post)
        for c, d in zip(labels, s):
            if c in _BCAST:
                continue
            if c in sizes and sizes[c] != d and d >= 0 and sizes[c] >= 0:
                raise OpError(f"einsum: the label '{c}' has different sizes ({sizes[c]} and "
                              f"{d}) in '{equation}'")
            if sizes.get(c, -1) == -1:
                sizes[c] = d
        inputs.append("".join(labels))
    out_pre, _, out_post = rhs.partition("...")
    named = out_pre + out_post
    used = set("".join(inputs))
    for c in named:
        if c not in used:
            raise OpError(f"einsum: the output label '{c}' of '{equation}' is in no operand")
    output = out_pre + (_BCAST[:nd] if "..." in rhs else "") + out_post
    return Einsum(inputs, output, sizes)


def _einsum_infer(metas, attrs):
    ops = metas[0]
    if not ops:
        raise OpError("einsum: needs at least one operand")
    if len({np.dtype(m.dtype) for m in ops}) > 1:
        raise OpError(f"einsum: the operands have dtypes {[np.dtype(m.dtype).name for m in ops]}"
                      f"; they must match")
    e = parse_einsum(attrs["equation"], [m.shape for m in ops])
    dt = ops[0].dtype
    return (Meta(e.out_shape(), dt), list(ops), [Meta(tuple(m.shape), dt) for m in ops])


_EINSUM_ATTRS = (("equation", "STRING", REQUIRED),)
defgrad("einsum_grad", "x_shape* InnerCache* Out@GRAD", "Operands@GRAD*", _EINSUM_ATTRS,
        infer=lambda m, a: (list(m[1]),))
defop("einsum", "Operands*", "Out InnerCache*~ XShape*~", _EINSUM_ATTRS, infer=_einsum_infer,
      grad=(GradOp("einsum_grad", {"x_shape": "XShape", "InnerCache": "InnerCache",
                                   "Out@GRAD": "Out@GRAD"},
                   {"Operands@GRAD": "Operands@GRAD"}),))
