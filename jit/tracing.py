"""Tracing: run a (converted) function once in static mode to get its Program.

``trace`` builds a ``ConcreteProgram`` for one input signature:
1. a fresh Program (and startup program) under ``building`` (static mode on,
   one thread at a time), a fresh name generator;
2. ``static.data`` for every tensor input, as the call's key describes it
   (``arguments.Signature.feeds``: named after its InputSpec or parameter,
   ``x``; ``x_0`` ... inside lists; the key's shape, -1 where the InputSpec has
   None, dtype and stop_gradient);
3. the function runs with those Variables in place of the tensors
   (``Signature.substitute``); every eager tensor it touches (a Layer's
   parameters and buffers, captured constants) becomes a persistable Variable
   of the same name bound to that very tensor (``Program.bind_tensor``), so the
   program refers to the live parameters;
4. the outputs are flattened (``nest``): static Variables become the program's
   outputs, Python values are kept as constants of the result structure.
"""
from ..dygraph.tensor import Tensor
from ..dygraph.engine import set_recording
from ..program.framework import Program
from ..program.program_guard import building
from ..program.data import data
from ..program.symbolic import named_dims
from ..static.nn import nest
from ..utils import unique_name
from ..ops import is_graph_value

__all__ = ["ConcreteProgram", "trace", "flatten_outputs", "rebuild_outputs"]


class ConcreteProgram:
    """One traced program: ``main_program``, its feed Variables ``inputs`` (in
    call order), its output Variables ``outputs`` (flat), the result structure,
    and ``parameters`` (the bound eager tensors: parameters and buffers)."""

    def __init__(self, main_program, startup_program, inputs, outputs, template,
                 function, kwargs=None):
        self.main_program = main_program
        self.startup_program = startup_program
        self.inputs = inputs
        self.outputs = outputs
        self.template = template
        self.function = function
        self.kwargs = kwargs or {}
        self.input_stop_gradients = [v.stop_gradient for v in inputs]

    @property
    def parameters(self):
        """Bound tensors of the program (parameters first, then buffers)."""
        bound = list(self.main_program.bound_tensors.values())
        params = [t for t in bound if getattr(t, "trainable", None) is not None]
        return params + [t for t in bound if getattr(t, "trainable", None) is None]

    def __repr__(self):
        ins = ", ".join(f"{v.name}: {v.type_str()}" for v in self.inputs)
        outs = ", ".join(f"{v.name}: {v.type_str()}" for v in self.outputs)
        return f"<ConcreteProgram ({ins}) -> ({outs}), {len(self.main_program.global_block().ops)} ops>"


class _Slot:
    """Placeholder for output k in the result template."""
    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k

    def __repr__(self):
        return f"<output {self.k}>"


# ----------------------------------------------------------------- tracing
def trace(function, instance, signature, key, inputs, args, kwargs):
    """Run ``function`` (``instance`` first when it is a method) in static mode on
    Variables standing for the tensors of ``args``/``kwargs``, whose
    ``signature.flatten`` gave ``key`` and ``inputs``."""
    program, startup = Program(), Program()
    # the program is the same whatever the caller's grad mode (a call under
    # no_grad runs it without a backward; only the user's own no_grad stops one)
    recording = set_recording(True)
    try:
        return _trace(program, startup, function, instance, signature, key, inputs,
                      args, kwargs)
    finally:
        set_recording(recording)


def _trace(program, startup, function, instance, signature, key, inputs, args, kwargs):
    # a to_static program: ``loss.backward()`` and ``optimizer.step()`` may be
    # traced into it (static/variable_methods.py, optimizer/static_minimize.py)
    program.to_static_trace = True
    with building(program, startup), unique_name.guard():
        feeds = []
        for name, leaf in signature.feeds(key, inputs):
            v = data(name, named_dims(name, leaf.shape), leaf.dtype)   # None dims: x_d0
            v.stop_gradient = leaf.stop_gradient
            feeds.append(v)
        feed_sg = [v.stop_gradient for v in feeds]
        # the function gets views of the feed variables: an in-place op rebinding
        # one (x.reshape_()) leaves the feed itself untouched
        views = [v._view() for v in feeds]
        s_args, s_kwargs = signature.substitute(key, args, kwargs, views)
        out = function(instance, *s_args, **s_kwargs) if instance is not None \
            else function(*s_args, **s_kwargs)
        outputs = []
        template = flatten_outputs(out, outputs, program)
    concrete = ConcreteProgram(program, startup, feeds, outputs, template, function, kwargs)
    # an input the function sets to need a gradient (`x.stop_gradient = False`,
    # eager code differentiating with respect to it) needs one from the caller
    # too (one no op writes: a loop carrying it sets the flag of its own)
    written = {n for b in program.blocks for op in b.ops for n in op.output_arg_names}
    made = [i for i, (v, sg) in enumerate(zip(feeds, feed_sg))
            if sg and not v.stop_gradient and v.name not in written]
    concrete.made_differentiable = made
    # inputs an in-place op rebound (x.add_(y), x[0] = v): their final variables,
    # which a call writes into the caller's tensors, as the eager in-place ops do
    gb = program.global_block()
    concrete.written_inputs = [(i, view.name) for i, (v, view) in enumerate(zip(feeds, views))
                               if view.desc is not v.desc and view.block is gb]
    # those written while gradients were recorded: a call must not pass a leaf
    # tensor that needs a gradient for them (the eager in-place write's error)
    concrete.grad_written = [i for i, _ in concrete.written_inputs
                             if views[i]._written_with_grad]
    concrete.input_stop_gradients = [sg and i not in made for i, sg in enumerate(feed_sg)]
    return concrete


# ----------------------------------------------------------------- outputs
def flatten_outputs(out, outputs, program):
    """The result template: ``out`` with each static Variable replaced by
    ``_Slot(k)`` (k indexes ``outputs``, which this fills, in ``nest.flatten``
    order: dict items by sorted key, as Paddle); an eager tensor is bound to
    the program; Python values stay as they are."""
    def slot(x):
        if is_graph_value(x):
            outputs.append(x)
        elif isinstance(x, Tensor):
            outputs.append(program.bind_tensor(x))
        else:
            return x
        return _Slot(len(outputs) - 1)
    return nest.map_structure(slot, out)


def rebuild_outputs(template, values, leaves=None):
    """The user's result: the template with ``values[k]`` at each slot; None
    when every slot is None (the partial program's "no value": the function
    returned nothing on this call's path).  ``leaves``: ``nest.flatten(template)``
    when the caller keeps it."""
    if values and all(v is None for v in values) and isinstance(template, (list, tuple)):
        return None
    if leaves is None:
        leaves = nest.flatten(template)
    return nest.pack_sequence_as(template, [values[x.k] if type(x) is _Slot else x
                                            for x in leaves])


def is_slot(template):
    return type(template) is _Slot
