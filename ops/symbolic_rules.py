"""Symbolic shape rules: the few ops that *compute* a dimension.

An op's own infer_meta already carries symbolic dimensions it copies (a
``SymDim`` is the int -1: elementwise broadcasting, matmul, transpose,
softmax, layer_norm's Y, split along another axis, reshape's 0 ...).  The
rules here fill the -1 dims an infer_meta *computes* from symbols:

    reshape2 (a -1 from the element count), flatten_contiguous_range,
    concat (a sum), slice / strided_slice (``B-1``), split (``B/2``),
    layer_norm's Mean/Variance (leading dims multiplied)

and the *values* of small int tensors that hold dimensions, so that
``reshape(x, [x.shape[0] * 8, -1])`` in converted code (Paddle's ``shape`` +
``slice`` ops) is known to be ``B*8``: ``shape``, ``slice`` of a shape,
``fill_constant``, ``cast``, ``scale`` and elementwise add/sub/mul of them.

``refine(op_type, metas, vals, attrs, outs)`` runs only while a Program holds
symbols (program/static_mode.py asks ``program._symbolic`` first): ``metas``
are the input Metas (shapes holding SymDims), ``vals`` per input slot the
known symbolic value of a dimension-holding int tensor (a list of ``Sym`` or
None per element), ``outs`` the infer_meta's output Metas.  It returns
``(shapes, values)``: per output slot a shape with SymDims where the rule
knows more (None to keep), and the values of the outputs.  A rule never
changes a dimension the infer_meta gave as a number: only -1 dims are
annotated, so the ProgramDesc is the same with or without symbols.
"""
from .symbolic import Sym, SymDim, as_expr

__all__ = ["refine", "merge", "RULE_TYPES"]

_BIG = 2 ** 31 - 1
_RULES = {}
_VALUE_RULES = {}


def _rule(*types, table=_RULES):
    def deco(fn):
        for t in types:
            table[t] = fn
        return fn
    return deco


def _expr(d):
    """A dimension as a Sym (known ints too), None when unknown without a symbol."""
    return as_expr(d)


def _prod(dims):
    out = Sym.const(1)
    for d in dims:
        e = _expr(d)
        if e is None:
            return None
        out = out * e
    return out


def merge(shape, exprs):
    """``shape`` (from the infer_meta) with its -1 dims replaced by SymDims of
    ``exprs`` (a Sym or None per dim); None when nothing is gained."""
    if exprs is None or len(exprs) != len(shape):
        return None
    out, gained = list(shape), False
    for i, (d, e) in enumerate(zip(shape, exprs)):
        if d == -1 and type(d) is not SymDim and isinstance(e, Sym):
            out[i] = SymDim(e)
            gained = True
    return tuple(out) if gained else None


def _open(outs):
    """Whether an output has a -1 dim without a symbol (what a shape rule fills)."""
    for m in outs:
        for x in (m if isinstance(m, list) else (m,)):
            if x is not None:
                for d in x.shape:
                    if d == -1 and type(d) is not SymDim:
                        return True
    return False


def refine(op_type, metas, vals, attrs, outs):
    shapes = values = None
    rule = _RULES.get(op_type)
    if rule is not None and _open(outs):
        try:
            shapes = rule(metas, vals, attrs, outs)
        except (ArithmeticError, IndexError, KeyError, TypeError, ValueError):
            shapes = None           # a rule never stops an op the infer_meta accepted
    vrule = _VALUE_RULES.get(op_type)
    if vrule is not None and (any(v is not None for v in vals) or op_type in _SOURCES):
        try:
            values = vrule(metas, vals, attrs, outs)
        except (ArithmeticError, IndexError, KeyError, TypeError, ValueError):
            values = None
    return shapes, values


# ----------------------------------------------------------------- shapes
def _target_exprs(shape_attr, shape_list_vals, shape_t_vals):
    if shape_t_vals is not None:
        return list(shape_t_vals)
    if shape_list_vals:
        items = []
        for v in shape_list_vals:
            if v is None or len(v) != 1:
                return None
            items.append(v[0])
        return items
    return [Sym.const(s) if s >= 0 else int(s) for s in shape_attr]


@_rule("reshape2", "reshape")
def _reshape(metas, vals, attrs, outs):
    x = metas[0]
    target = _target_exprs(attrs.get("shape", ()),
                           vals[2] if len(vals) > 2 else None, vals[1] if len(vals) > 1 else None)
    if target is None:
        return None
    exprs, infer_at = [], None
    for i, t in enumerate(target):
        if t is None:
            return None
        c = t.const_value() if isinstance(t, Sym) else t
        if c == 0:
            exprs.append(_expr(x.shape[i]))
        elif c == -1 or (isinstance(c, int) and c < 0):
            infer_at = i
            exprs.append(None)
        else:
            exprs.append(t)
    if infer_at is not None:
        total, known = _prod(x.shape), _prod(e for j, e in enumerate(exprs) if j != infer_at)
        if total is not None and known is not None:
            exprs[infer_at] = total.divide(known)
    return [merge(outs[0].shape, exprs)]


@_rule("flatten_contiguous_range")
def _flatten(metas, vals, attrs, outs):
    x = metas[0]
    nd = len(x.shape)
    if nd == 0:
        return None
    a, b = attrs["start_axis"] % nd, attrs["stop_axis"] % nd
    exprs = [_expr(d) for d in x.shape[:a]] + [_prod(x.shape[a:b + 1])] + \
        [_expr(d) for d in x.shape[b + 1:]]
    return [merge(outs[0].shape, exprs)]


@_rule("concat")
def _concat(metas, vals, attrs, outs):
    xs = metas[0]
    if metas[1] is not None or not xs:
        return None
    nd = len(xs[0].shape)
    ax = attrs["axis"] % nd
    total = Sym.const(0)
    for m in xs:
        e = _expr(m.shape[ax])
        if e is None:
            return None
        total = total + e
    exprs = [total if i == ax else _expr(d) for i, d in enumerate(outs[0].shape)]
    return [merge(outs[0].shape, exprs)]


def _slice_len(d, start, end):
    e = _expr(d)
    if e is None or e.is_const():
        return None
    lo = Sym.const(start) if start >= 0 else e + start
    if end >= _BIG:
        hi = e
    elif end < 0:
        hi = e + end
    else:
        return None             # min(d, end): not a polynomial
    return hi - lo


@_rule("slice", "strided_slice")
def _slice(metas, vals, attrs, outs):
    x = metas[0]
    if any(m is not None and m != [] for m in metas[1:]):
        return None
    steps = attrs.get("strides") or [1] * len(attrs["axes"])
    exprs = [_expr(d) for d in x.shape]
    for a, s, e, st in zip(attrs["axes"], attrs["starts"], attrs["ends"], steps):
        a = a % len(exprs)
        exprs[a] = _slice_len(x.shape[a], s, e) if st == 1 else None
    dec = {a % len(exprs) for a in attrs.get("decrease_axis") or ()}
    exprs = [e for i, e in enumerate(exprs) if i not in dec]
    return [merge(outs[0].shape, exprs)]


@_rule("split")
def _split(metas, vals, attrs, outs):
    x = metas[0]
    if metas[1] is not None or metas[2]:
        return None
    ax = attrs["axis"] % len(x.shape)
    d = _expr(x.shape[ax])
    if d is None or d.is_const():
        return None
    num, sections = attrs["num"], list(attrs["sections"])
    if num > 0:
        sizes = [d.divide(num)] * num
    elif sections.count(-1) == 1:
        rest = d - sum(s for s in sections if s != -1)
        sizes = [rest if s == -1 else Sym.const(s) for s in sections]
    else:
        return None
    res = []
    for m, size in zip(outs[0], sizes):
        exprs = [size if i == ax else _expr(x.shape[i]) for i in range(len(x.shape))]
        res.append(merge(m.shape, exprs))
    return [res if any(r is not None for r in res) else None]


@_rule("layer_norm")
def _layer_norm(metas, vals, attrs, outs):
    x = metas[0]
    left = _prod(x.shape[:attrs["begin_norm_axis"]])
    return [None] + [merge(m.shape, [left]) if m is not None else None for m in outs[1:]]


# ----------------------------------------------------------------- values of dims
_SOURCES = {"shape", "fill_constant"}


@_rule("shape", table=_VALUE_RULES)
def _v_shape(metas, vals, attrs, outs):
    return [[_expr(d) for d in metas[0].shape]]


@_rule("fill_constant", table=_VALUE_RULES)
def _v_fill(metas, vals, attrs, outs):
    shape = list(attrs.get("shape") or ())
    v = attrs.get("value", 0.0)
    if shape not in ([], [1]) or any(m for m in metas if m) or v != int(v):
        return None
    v = int(v)
    return [[Sym.const(v) if v >= 0 else v]]


@_rule("slice", table=_VALUE_RULES)
def _v_slice(metas, vals, attrs, outs):
    v = vals[0]
    if v is None or any(m is not None and m != [] for m in metas[1:]) or \
            list(attrs["axes"]) != [0]:
        return None
    s, e = attrs["starts"][0], attrs["ends"][0]
    return [list(v[slice(s, None if e >= _BIG else e)])]


@_rule("cast", "assign", "reshape2", "squeeze2", "unsqueeze2", table=_VALUE_RULES)
def _v_same(metas, vals, attrs, outs):
    return [vals[0]]


@_rule("scale", table=_VALUE_RULES)
def _v_scale(metas, vals, attrs, outs):
    v = vals[0]
    sc, bias = attrs.get("scale", 1.0), attrs.get("bias", 0.0)
    if v is None or metas[1] is not None or sc != int(sc) or bias != int(bias):
        return None
    sc, bias = int(sc), int(bias)
    if attrs.get("bias_after_scale", True):
        return [[_lin(e, sc, 0, bias) for e in v]]
    return [[_lin(e, 1, bias, 0) * sc if _lin(e, 1, bias, 0) is not None else None for e in v]]


def _lin(e, sc, pre, post):
    if not isinstance(e, Sym):
        return None
    return (e + pre) * sc + post if sc >= 0 else None


def _ew(fn):
    def rule(metas, vals, attrs, outs):
        a, b = vals[0], vals[1]
        if a is None or b is None or not (len(a) == len(b) or len(a) == 1 or len(b) == 1):
            return None
        n = max(len(a), len(b))
        a, b = a * n if len(a) == 1 else a, b * n if len(b) == 1 else b
        return [[fn(x, y) if isinstance(x, Sym) and isinstance(y, Sym) else None
                 for x, y in zip(a, b)]]
    return rule


_VALUE_RULES["elementwise_add"] = _ew(lambda x, y: x + y)
_VALUE_RULES["elementwise_sub"] = _ew(lambda x, y: x - y)
_VALUE_RULES["elementwise_mul"] = _ew(lambda x, y: x * y)

RULE_TYPES = frozenset(_RULES) | frozenset(_VALUE_RULES)     # the ops refine() knows
