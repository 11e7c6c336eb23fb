"""Symbolic dimensions at to_static's door (the rule: program/symbolic.py).

``symbolic_shape(x)``: the shape of a static Variable with its symbols
(``(B, 8)``; each symbolic dim is the int -1 and prints as its expression),
the plain shape of an eager Tensor.  Use it inside converted code where
``x.shape`` gives Paddle's runtime values for unknown dims.

``relations(specs)`` is worked out once per StaticFunction: the dimensions of
its InputSpecs that name a symbol used more than once, or an expression
(``InputSpec(['B', 8])`` and ``InputSpec(['B+1', 4])``).  When there are
some, each call checks the fed sizes against them (``check``): a
``ValueError`` naming the symbol, the argument and the dimension.  No
relations (the usual case), no per-call work.
"""
from ..ops.symbolic import SymDim
from ..program.data import InputSpec
from ..program.symbolic import symbolic_shape

__all__ = ["symbolic_shape", "relations", "check"]


def relations(specs):
    """``[(position, axis, Sym)]`` of the symbolic dims that relate inputs;
    empty when no symbol is shared and no dim is an expression."""
    dims, count = [], {}
    for i, spec in enumerate(specs):
        if not isinstance(spec, InputSpec):
            continue
        for ax, d in enumerate(spec.shape):
            if type(d) is SymDim:
                dims.append((i, ax, d.expr))
                for n in d.expr.symbols:
                    count[n] = count.get(n, 0) + 1
    return [(i, ax, e) for i, ax, e in dims
            if str(e) not in count or count[str(e)] > 1]       # an expression, or shared


def check(rels, args, sig):
    """Raise ValueError when the tensors of ``args`` break ``rels``."""
    values, where = {}, {}
    pending = []
    for i, ax, e in rels:
        if i >= len(args):
            continue
        shape = getattr(args[i], "shape", None)
        if shape is None or ax >= len(shape):
            continue
        size = int(shape[ax])
        if size < 0:                    # an InputSpec given for the tensor
            continue
        syms = e.symbols
        if len(syms) == 1 and str(e) == syms[0]:        # a plain symbol binds it
            n = syms[0]
            if n in values and values[n] != size:
                j, bx = where[n]
                raise ValueError(
                    f"to_static: {sig.label(i)} has size {size} at dimension {ax}, where its "
                    f"InputSpec has symbol {n}; but {n} is {values[n]} (dimension {bx} of "
                    f"{sig.label(j)}): inputs sharing a symbol must agree")
            values.setdefault(n, size)
            where.setdefault(n, (i, ax))
        else:
            pending.append((i, ax, e, size))
    for i, ax, e, size in pending:
        want = e.evaluate(values)
        if want is not None and want != size:
            bound = ", ".join(f"{n}={values[n]}" for n in e.symbols)
            raise ValueError(f"to_static: {sig.label(i)} has size {size} at dimension {ax}, "
                             f"where its InputSpec says {e} = {want} ({bound})")
