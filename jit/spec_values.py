"""Value reads while a program is traced from InputSpecs (``jit.save``,
``get_concrete_program``): the ones the specs decide, and the breaks.

A saved model is one program, so a value read (``int(t)``, ``t.numpy()`` ...)
cannot become a graph break there.  Two kinds of read still have one answer
for every input the InputSpecs admit, and a trace may use it as a constant:

- a value computed only from constants and the *fixed* dimensions of the
  inputs (``int(paddle.shape(x)[1])`` where the spec fixes dim 1, a number
  built with ``paddle.to_tensor(3)``), with no random op and no parameter on
  the way: the program so far is run on example inputs and the trace goes on
  with the value;
- every other read depends on the data: it is recorded, the trace goes on
  with the value of one example input (so the reads after it are found too),
  and at the end ``GraphBreakError`` names every such read's line and reason
  together, not just the first.

Reads inside a sub-block being built (a branch of a tensor ``if``, a loop
body) cannot be run on their own: such a read stops the trace at once (the
error names the reads found before it as well).
"""
import numpy as np

from ..executor import Executor, Scope
from .graph_break import GraphBreakError, describe

__all__ = ["SpecReads"]

_RANDOM_ATTRS = ("seed", "fix_seed")


class SpecReads:
    """The resolver of one trace (``program.value_request.resolving``)."""

    def __init__(self, feeds, fn_name="function"):
        self.fn_name = fn_name
        self.feeds = {name: leaf for name, leaf in feeds}   # name -> TensorLeaf
        self.breaks = []         # ValueRequests the data decides
        self.decided = []        # (ValueRequest, value) the specs decide

    def __call__(self, var, reason, location, cls):
        request = cls(var.name, reason, location)
        if var.block.idx != 0:
            self.breaks.append(request)
            raise self.error()
        why = self._data_dependence(var)
        try:
            value = self._evaluate(var)
        except Exception:
            self.breaks.append(request)
            raise self.error() from None
        if why is None:
            self.decided.append((request, value))
        else:
            request.depends_on = why
            self.breaks.append(request)
        return value

    def error(self):
        """The GraphBreakError naming every data-dependent read (None when
        there is none)."""
        if not self.breaks:
            return None
        items = "\n".join(f"  - {describe(r)}" + (f", which depends on {r.depends_on}"
                                                   if getattr(r, "depends_on", None) else "")
                          for r in self.breaks)
        return GraphBreakError(
            f"to_static: '{self.fn_name}' reads tensor values that depend on its inputs' data, "
            f"so it has no single program (a saved model is one program); "
            f"{len(self.breaks)} graph break(s):\n{items}\nKeep those computations in "
            f"tensor ops (a tensor condition becomes a cond op), or fix the dimensions they "
            f"read in the InputSpec.", self.breaks[0])

    # ------------------------------------------------------------- analysis
    def _data_dependence(self, var):
        """None when ``var``'s value follows from constants and fixed input
        dimensions only; else what it depends on (a phrase)."""
        block = var.block
        writer = {}
        for op in block.ops:
            for n in op.output_arg_names:
                writer[n] = op
        todo, seen, open_dims = [var.name], set(), []
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            if name in self.feeds:
                return f"the data of input '{name}'"
            v = block._find_var_recursive(name)
            if v is not None and getattr(v, "persistable", False):
                return f"the value of '{name}' (a parameter or buffer)"
            op = writer.get(name)
            if op is None:
                continue
            if op.type in ("shape", "shape64"):
                src = op.input_arg_names[0]
                if src in self.feeds and -1 in tuple(self.feeds[src].shape):
                    open_dims.append(src)
                if src not in self.feeds:
                    todo.append(src)   # the shape of a computed value: its inputs' shapes
                continue
            if any(a in op.all_attrs() for a in _RANDOM_ATTRS) or \
                    any(k in op.all_attrs() for k in ("sub_block", "sub_blocks")):
                return f"op '{op.type}' (random, or control flow)"
            todo.extend(op.input_arg_names)
        if open_dims and not np.array_equal(self._evaluate(var, 1), self._evaluate(var, 3)):
            return f"a dimension of input '{open_dims[0]}' its InputSpec leaves open (None)"
        return None

    def _evaluate(self, var, open_size=1):
        """``var``'s value on example inputs (a seeded normal sample, zeros
        for integers; ``open_size`` for the dimensions the specs leave open:
        a value that a shape decides is the same for two sizes or depends on
        an open dimension)."""
        program = var.block.program.clone()
        rs = np.random.RandomState(0)
        feed = {}
        for name, leaf in self.feeds.items():
            shape = [open_size if d < 0 else d for d in leaf.shape]
            dtype = np.dtype(leaf.dtype)
            feed[name] = rs.standard_normal(shape).astype(dtype) \
                if dtype.kind in "fc" else np.zeros(shape, dtype)
        out = Executor().run(program, feed=feed, fetch_list=[var.name], scope=Scope())
        return np.asarray(out[0])
