"""The call side of program/traced_grads.py: a to_static function that calls
``loss.backward()`` leaves the parameters' ``.grad`` as eager code would.

Per call: ``live()`` says whether a parameter held a live gradient when the
call began (not None, not a cleared one, dygraph/tensor.py ``is_cleared``);
only then does the program run with its start additions (``feeds``: those
gradients, shared zeros for the others); otherwise its copy without them
(``program.traced_grads.without_starts``).  Either fetches each parameter's
final gradient (``fetch_names``), and ``write`` puts them in ``.grad`` and
clears the cleared ones (``Tensor.clear_gradient``)."""
from ..dygraph.tensor import _shared_zeros, is_cleared, wrap
from ..program.traced_grads import prune, without_starts

__all__ = ["GradWriteback"]


class GradWriteback:
    def __init__(self, state, bound):
        self.starts = [(bound[name], start, g, total)
                       for name, (start, g, total) in state.starts.items()]
        self.writes = [(bound[name], var.name) for name, var in state.vars.items()]
        self.clears = list(state.cleared.values())
        self.start_names = [s[1] for s in self.starts]
        self.raw = state.raw
        self._renamed = {total: g for _, _, g, total in self.starts}

    def live(self):
        for p, _, _, _ in self.starts:
            g = p._grad
            if g is not None and not is_cleared(g):
                return True
        return False

    def feeds(self):
        """The start variables' arrays: each parameter's live gradient, or zeros."""
        out = []
        for p, _, _, _ in self.starts:
            g = p._grad
            d = p._data
            out.append(g._data if g is not None and not is_cleared(g)
                       else _shared_zeros(d.shape, d.dtype))
        return out

    def fetch_names(self, live):
        names = [name for _, name in self.writes]
        return names if live else [self._renamed.get(n, n) for n in names]

    def program(self, program, live):
        """The program a call runs: without the start additions unless ``live``,
        and without the kept copies of gradients nobody reads."""
        if not live:
            program = without_starts(program, [s[1:] for s in self.starts])
        elif self.raw:
            program = program.clone()
        return prune(program, self.raw, self.fetch_names(live)) if self.raw else program

    def write(self, arrays):
        for (p, _), a in zip(self.writes, arrays):
            p._grad = wrap(a, False)
        for p, set_to_zero, had in self.clears:
            if had and set_to_zero and p._grad is None:     # zeros, as after an eager backward
                d = p._data
                p._grad = wrap(_shared_zeros(d.shape, d.dtype), False)
            else:
                p.clear_gradient(set_to_zero)
