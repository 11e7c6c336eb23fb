"""The parameters' ``.grad`` through a to_static function that calls
``loss.backward()`` (and maybe ``opt.step()`` / ``opt.clear_grad()``).

Eagerly, ``backward()`` adds each parameter's gradient to what its ``.grad``
held (None and a cleared gradient count as nothing), ``step()`` reads
``.grad`` and ``clear_grad()`` zeroes it (or sets None).  A traced function
does the same to the same tensors, so code that steps outside the function
(gradient accumulation over calls), or reads ``.grad`` after it, sees what
eager code sees.  While tracing, each parameter's gradient has a state:

- untouched: ``.grad`` as it was when the call began;
- a Variable: the gradient so far.  The first ``backward()`` reaching an
  untouched parameter adds the gradient it held when the call began: a
  *start* variable the call feeds, ``total = elementwise_add(g, start)``;
  later ones add with ``sum``;
- cleared (``set_to_zero`` True or False), by a traced ``clear_grad()``: as
  ``Tensor.clear_gradient``, zeros where it held a gradient (certainly so
  after a traced backward reached it), None where it held none.

A ``backward()`` after a traced ``step()`` differentiates through the updated
parameters (the step's ops, built under no_grad, make each parameter a leaf
again: program/backward_path.py), as eager code does: two optimizers in one
function (a GAN's discriminator and generator steps) trace.

A traced ``step()`` updates with the Variables; where its clipping or
weight decay rewrites one in place (as Paddle's static clip does), the
gradient before the step is kept (``keep_raw``: an ``assign`` before the
step's ops), since eager ``step`` leaves ``.grad`` as it was.  A kept copy
nobody reads (a ``clear_grad()`` follows) is dropped from the program run
(``prune``).  A call of the program
(jit/partial_program.py) then feeds the starts, fetches the Variables and,
after the run, writes them into ``.grad`` (and clears the cleared ones, as
``Tensor.clear_gradient``).  When no parameter held a live gradient at the
call's start (the usual loop ends with ``clear_grad()``), the call runs a
copy without the start additions (``without_starts``): each ``total`` is its
``g``, and nothing is added.
"""
from ..utils import unique_name
from .static_mode import append_op

__all__ = ["TracedGrads", "prune", "traced_grads", "without_starts"]


class TracedGrads:
    """The state of the parameters' gradients in one traced program (module doc)."""

    def __init__(self):
        self.vars = {}          # parameter name -> Variable holding its gradient so far
        # parameter name -> (the eager parameter, set_to_zero, whether a traced
        # backward had given it a gradient before the clear)
        self.cleared = {}
        self.starts = {}        # parameter name -> (start name, g name, total name)
        self.raw = set()        # names of the copies ``keep_raw`` made
        self.walked = set()     # ids of the ops a traced backward went through

    def add(self, block, param, grad):
        """``grad`` (a Variable of ``block``) added to ``param``'s gradient."""
        name = param.name
        old = self.vars.get(name)
        if old is None and name not in self.cleared and name not in self.starts:
            start = block.create_var(name=unique_name.generate(name + "@GRAD@START"),
                                     shape=grad.shape, dtype=grad.np_dtype)
            total = block.create_var(name=unique_name.generate(name + "@GRAD@TOTAL"),
                                     shape=grad.shape, dtype=grad.np_dtype)
            append_op(block, "elementwise_add", {"X": [grad], "Y": [start]},
                      {"Out": [total]}, {"axis": -1})
            self.starts[name] = (start.name, grad.name, total.name)
            grad = total
        elif old is not None:       # a second loss: its gradients add to the first's
            total = block.create_var(name=unique_name.generate(name + "@GRAD@SUM"),
                                     shape=grad.shape, dtype=grad.np_dtype)
            append_op(block, "sum", {"X": [old, grad]}, {"Out": [total]})
            grad = total
        self.cleared.pop(name, None)
        self.vars[name] = grad

    def keep_raw(self, block, start):
        """After a traced step whose ops are ``block.ops[start:]``: each gradient
        Variable they write in place is copied just before them, and the copy
        is the gradient from now on."""
        written = {n for op in block.ops[start:] for n in op.output_arg_names}
        for name, var in list(self.vars.items()):
            if var.name in written:
                raw = block.create_var(name=unique_name.generate(var.name + "@RAW"),
                                       shape=var.shape, dtype=var.np_dtype)
                block._insert_op(start, "assign", {"X": [var]}, {"Out": [raw]})
                self.vars[name] = raw
                self.raw.add(raw.name)

    def clear(self, params, set_to_zero):
        """A traced ``clear_grad(set_to_zero)`` of the eager ``params``."""
        for p in params:
            had = self.vars.pop(p.name, None) is not None
            self.cleared[p.name] = (p, bool(set_to_zero), had)


def traced_grads(program, create=False):
    """The program's ``TracedGrads`` (None when it has none and ``create`` is false)."""
    state = program.__dict__.get("traced_grads")
    if state is None and create:
        state = program.__dict__["traced_grads"] = TracedGrads()
    return state


def without_starts(program, starts):
    """A copy of ``program`` with each start addition removed and its total
    named as its ``g`` everywhere (``starts``: the (start, g, total) names;
    ops after it may read the total or write it in place: weight decay)."""
    copy = program.clone()
    added = {(g, start): total for start, g, total in starts}
    renamed = {total: g for _, g, total in starts}
    for block in copy.blocks:
        for i in reversed(range(len(block.ops))):
            op = block.ops[i]
            if op.type == "elementwise_add":
                ins, outs = op.inputs, op.outputs
                key = (tuple(ins.get("X", ())), tuple(ins.get("Y", ())))
                if len(key[0]) == len(key[1]) == 1 and \
                        added.get((key[0][0], key[1][0])) == outs.get("Out", [None])[0]:
                    block._remove_op(i)
        for op in block.ops:
            for name in set(op.input_arg_names) & renamed.keys():
                op._rename_input(name, renamed[name])
            for name in set(op.output_arg_names) & renamed.keys():
                op._rename_output(name, renamed[name])
    return copy


def prune(program, copies, fetch):
    """Drop (in place) the ``assign`` ops making ``copies`` that no op reads and
    ``fetch`` leaves out."""
    unused = set(copies) - set(fetch)
    for block in program.blocks:
        unused -= {n for op in block.ops for n in op.input_arg_names}
    for block in program.blocks:
        for i in reversed(range(len(block.ops))):
            op = block.ops[i]
            if op.type == "assign" and op.output_arg_names[0] in unused:
                block._remove_op(i)
    return program
