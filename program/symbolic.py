"""Symbolic dimensions in Programs (the expression type: ops/symbolic.py).

How a dimension gets a name:

- a string dimension names it: ``InputSpec(['B', 8], name='x')``,
  ``static.data('x', ['B', 8])``; the same name in several inputs is one
  symbol (to_static checks that the fed sizes agree), and an expression of
  symbols is allowed too (``InputSpec(['B+1', 8])``);
- a None/-1 dimension of a to_static input gets a generated name from the
  input's name and the axis: ``x_d0`` for dimension 0 of input ``x``
  (``named_dims``).  Plain ``static.data`` keeps None dims anonymous (-1).

The ProgramDesc (and so the ``.pdmodel``) keeps -1 for every symbolic
dimension, as Paddle needs; the symbols live on the Variables (``_sym``), are
shown by ``Variable.shape``/printing, and travel to saved models through the
manifest sidecar (``save_load/manifest.py``: ``symbols_of``/``attach``).

A Program holds symbols once one of its inputs has some (``_symbolic``);
only then does ``static_mode`` call ``annotate`` after each op's infer_meta,
so building a program without symbols, the executor and eager dispatch pay
nothing.
"""
from ..ops.symbolic import SymDim, has_symbol, parse, dim_text
from ..ops.symbolic_rules import refine, RULE_TYPES
from .variable import tensor_desc

__all__ = ["named_dims", "annotate", "symbolic_shape", "symbols_of", "attach", "mark",
           "as_dim"]


def as_dim(d, what):
    """A declared dimension: None -> -1, a string -> a SymDim (ValueError naming
    ``what`` when it is not an expression of symbols), ints as they are."""
    if isinstance(d, str):
        try:
            return SymDim(parse(d))
        except ValueError as e:
            raise ValueError(f"{what}: dimension {d!r} is not a symbol name or an expression "
                             f"of symbols ({e})") from None
    return d


def _ident(name):
    s = "".join(c if c.isalnum() or c == "_" else "_" for c in str(name))
    return s if s and not s[0].isdigit() else "_" + s


def named_dims(name, shape):
    """``shape`` with each anonymous -1 dim named ``<name>_d<axis>``."""
    base = None
    out = []
    for i, d in enumerate(shape):
        if d == -1 and type(d) is not SymDim:
            if base is None:
                base = _ident(name)
            d = SymDim(f"{base}_d{i}")
        out.append(d)
    return out


def mark(var, shape):
    """Give ``var`` the symbolic ``shape`` (SymDims only where its desc has -1);
    the var's program then refines symbols op by op."""
    td = tensor_desc(var.desc)
    if td is None or not has_symbol(shape) or len(td.dims) != len(shape):
        return
    dims = tuple(d if type(d) is SymDim and td.dims[i] == -1 else td.dims[i]
                 for i, d in enumerate(shape))
    if has_symbol(dims):
        var._sym = dims
        var.block.program._symbolic = True


def _vals(v):
    if v is None:
        return None
    if isinstance(v, list):
        return [x._symval for x in v]
    return v._symval


def annotate(op, in_vars, metas, attrs, out_metas, outs):
    """After ``op``'s infer_meta (whose outputs, created from its Metas, already
    carry the symbols it copied): what ``symbolic_rules`` computes for the ops
    that compute a dimension, and the values of dimension-holding int tensors."""
    if op.type not in RULE_TYPES:
        return
    vals = [_vals(v) for v in in_vars]
    shapes, values = refine(op.type, metas, vals, attrs, out_metas)
    for i, o in enumerate(outs):
        if o is None:
            continue
        s = shapes[i] if shapes is not None and i < len(shapes) else None
        if s is not None:
            if isinstance(o, list):
                for oo, ss in zip(o, s):
                    if ss is not None:
                        _set(oo, ss)
            else:
                _set(o, s)
        if values is not None and i < len(values) and values[i] is not None and \
                not isinstance(o, list) and any(e is not None for e in values[i]):
            o._symval = values[i]


def _set(var, shape):
    if not var.persistable and has_symbol(shape):
        mark(var, shape)


# ----------------------------------------------------------------- asking
def symbolic_shape(x):
    """The shape of ``x`` with its symbolic dimensions (SymDims, which are the
    int -1 and print as ``B``, ``B*8``); a plain tuple for an eager Tensor."""
    s = getattr(x, "_sym", None)
    return tuple(s) if s is not None else tuple(x.shape)


# ----------------------------------------------------------------- saved models
def symbols_of(program):
    """``{var name: [dim, ...]}`` for the variables of ``program`` holding
    symbols (a dim is an int or the expression's text): what the manifest
    sidecar records."""
    out = {}
    for b in program.blocks:
        for name, v in b.vars.items():
            if v._sym is not None:
                out[name] = [dim_text(d) for d in v._sym]
    return out


def attach(program, table):
    """Put the symbols of ``table`` ({var name: [dim, ...]}, ``symbols_of``) back
    on ``program``'s variables (a name it does not hold, or a dim that is not -1
    in its desc, is skipped: the table never changes what the desc says)."""
    if not table:
        return program
    for b in program.blocks:
        for name, v in b.vars.items():
            dims = table.get(name)
            if not isinstance(dims, list):
                continue
            try:
                shape = [SymDim(parse(d)) if isinstance(d, str) else int(d) for d in dims]
            except (ValueError, TypeError):
                continue
            mark(v, shape)
    return program


def copy_symbols(src, dst):
    """The symbols of ``src``'s variables onto ``dst``'s of the same names (a
    pruned or normalized copy), then through the shape-keeping ops ``dst``
    added (the ``scale`` of its outputs)."""
    if not src._symbolic:
        return dst
    attach(dst, symbols_of(src))
    for b in dst.blocks:
        for op in b.ops:
            if op.type in ("scale", "assign") and op.input("X") and op.output("Out"):
                x = b._find_var_recursive(op.input("X")[0])
                out = b._find_var_recursive(op.output("Out")[0])
                if x is not None and out is not None and x._sym is not None and \
                        out._sym is None:
                    mark(out, x._sym)
    return dst
