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
``retain_graph``).

With ``create_graph=True`` the tape calls ``graph_backward(node, grads,
wanted)`` instead, with the output gradients as Tensors and, per entry of
``node.ins``, whether the walk uses its gradient (None may be returned for
the others): it must return Tensors the tape recorded (differentiable
gradients).  A PyOp without one cannot give higher-order gradients, and says
so rather than return constants.
"""
from ..ops import OpError
from .engine import GradNode

__all__ = ["PyOp", "record"]


class PyOp:
    """Stands in for an OpDef on a node with a Python backward."""
    __slots__ = ("type", "n_outputs", "backward", "graph_backward")
    grad = True            # the tape asks whether a gradient rule exists
    fast_bw = False        # never the tape's unrolled single-grad-op path
    _node_bw = None        # nor its compiled node backward (grad_fast.py)
    list_outputs = False

    def __init__(self, type, n_outputs, backward, graph_backward=None):
        self.type = type
        self.n_outputs = n_outputs
        self.backward = backward
        self.graph_backward = graph_backward

    @property
    def one_output(self):
        """Whether its node's output gradient is one array (the tape's chain)."""
        return self.n_outputs == 1

    def py_backward(self, node, gouts, m, wanted):
        """Called by the tape (``m``: its array or tensor arithmetic; ``wanted``:
        which inputs' gradients the walk uses)."""
        if not m.create_graph:
            return self.backward(node, gouts)
        if self.graph_backward is None:
            raise OpError(f"'{self.type}' has no differentiable backward: higher-order "
                          f"gradients (create_graph=True) through it are not supported")
        return self.graph_backward(node, gouts, wanted)

    def __repr__(self):
        return f"<PyOp {self.type}>"


def record(op, ins, saved, outs):
    """A grad node for ``op`` over input tensors ``ins`` (edges to producers and
    leaves), keeping ``saved`` (``node.arrays``) and output arrays ``outs``."""
    return GradNode(op, None, list(ins), saved, outs)
