"""Grad nodes whose backward is a Python callable.

Most grad nodes replay grad ops of an OpDef.  Some producers of eager tensors
are not one op: ``to_static``'s partial program runs a whole backward program
for the outputs of one call.  Such a producer records a ``GradNode`` whose
``op`` is a ``PyOp``: it carries what the tape reads of an op (type name,
output count, "has a gradient") plus ``py_backward``, which the tape calls in
place of replaying grad ops.

``backward(node, grads) -> list`` receives the node and one output gradient
array per output (None where no gradient arrived) and returns one gradient
array (or None) per entry of ``node.ins``.  What the forward saved for it
lives in ``node.arrays``; the tape drops it when the node has run (unless
``retain_graph``).  With ``create_graph=True`` the gradients come back as
plain (non-differentiable) tensors: a Python backward is opaque to the tape.
"""
from .engine import GradNode
from .tensor import Tensor

__all__ = ["PyOp", "record"]


class PyOp:
    """Stands in for an OpDef on a node with a Python backward."""
    __slots__ = ("type", "n_outputs", "backward")
    grad = True            # the tape asks whether a gradient rule exists
    fast_bw = False        # never the tape's unrolled single-grad-op path
    list_outputs = False

    def __init__(self, type, n_outputs, backward):
        self.type = type
        self.n_outputs = n_outputs
        self.backward = backward

    def py_backward(self, node, gouts, m):
        """Called by the tape (``m``: its array or tensor arithmetic)."""
        if m.create_graph:
            gouts = [None if g is None else g._data for g in gouts]
        grads = self.backward(node, gouts)
        if m.create_graph:
            grads = [None if g is None else Tensor(g) for g in grads]
        return grads

    def __repr__(self):
        return f"<PyOp {self.type}>"


def record(op, ins, saved, outs):
    """A grad node for ``op`` over input tensors ``ins`` (edges to producers and
    leaves), keeping ``saved`` (``node.arrays``) and output arrays ``outs``."""
    return GradNode(op, None, list(ins), saved, outs)
