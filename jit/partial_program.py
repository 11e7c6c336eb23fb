"""The partial program: runs a ConcreteProgram for eager callers.

Planned once per concrete program, lazily, in one of two shapes:

- forward only (no gradient needed: grad mode off, or no input and no
  parameter needs one): the program's interpreter fetches the outputs;
- training: the backward is built once with ``static.gradients(outputs,
  inputs + params, target_gradients=<out@GRAD data>)`` on a copy of the
  program; one interpreter plans the forward ops of that copy and also
  fetches the forward values the backward ops read (``saved``: intermediates,
  a loop's step scopes), another plans the backward ops.  A call runs the
  forward and records ONE grad node on the eager tape (``dygraph/py_node.py``)
  holding the saved values; ``loss.backward()`` runs the backward interpreter
  in that node and delivers the gradients to the inputs and the eager
  parameters, so ``optimizer.step()`` works unchanged.

Each interpreter is a ``PlanRun`` (executor/run_plan.py, the path the
Executor and the Predictor run too) bound to the eager tensors: values never
go through a scope, the persistables are read from the bound tensors' arrays
and those the program writes (batch-norm running statistics) are stored back
into them.  So a call is: gather arrays -> run -> wrap outputs.  A loaded
model's inputs are checked against its declarations (``check_inputs``);
to_static's program cache already keys its programs by input spec.  Outputs
that may be the "no value" of a path with no ``return`` come with a has-value
flag the program computes (jit/no_value.py); None where it is false.

Higher-order gradients (``sampan.grad(..., create_graph=True)`` through a
call): the backward program maps (inputs, parameters, output gradients) to
the input and parameter gradients, and is itself a program of ops with
gradient rules.  So under create_graph the grad node does not run the
backward interpreter on arrays; it calls a second PartialProgram, the *grad
program* (the forward ops followed by the backward ops, fed the call's inputs
and the output gradients, fetching the gradients), on the tape's tensors.
That call records its own grad node, whose backward is the static gradient
of the grad program (double-grad ops from the same op records), so the
gradients it returns are differentiable, to any order (its own node does the
same under create_graph).  The forward values the backward reads are
recomputed from the inputs, since the saved arrays carry no dependence on
them; the recomputation leaves state alone (persistables the program writes
are not stored back) and replays the random generator from its state at the
forward call, so random ops (dropout) draw what they drew then.  A grad
program fetches only the gradients the tape's walk uses (``sampan.grad(y, x)``
drops the parameters'), so paths through grad ops without a gradient rule
that nobody differentiates stay out of its own backward; one is built per
concrete program, set of differentiable output gradients and set of wanted
gradients, on first use.
"""
import numpy as np

from ..dygraph import engine as _engine
from ..dygraph.engine import rebound
from ..dygraph.tensor import Tensor
from ..dygraph.tensor import wrap
from ..dygraph.aliases import write_data
from ..dygraph.py_node import PyOp, record
from ..kernels import random as _random
from ..kernels.registry import CPU
from ..kernels.transform import backend_of
from ..ops import OpError, kind_of
from ..program.program_guard import building
from ..program.data import data
from ..program.variable import VarType
from ..executor.run_plan import PlanRun, ExecutionConfig
from ..program.backward import gradients
from ..program.backward_pass import BUILDERS
from ..program.backward_path import find_path
from ..program.passes.fuse_elementwise import fused_clone
from ..program.traced_grads import traced_grads
from .grad_writeback import GradWriteback
from .no_value import clone, has_value_flags, written_flags

__all__ = ["PartialProgram"]

_recording = _engine.recording
LOD_TENSOR_ARRAY = VarType.LOD_TENSOR_ARRAY
_CONFIG = ExecutionConfig()


def _plan(program, feed_names, fetch_names, bound, backend, shape_only=(), check=False,
          write_back=True):
    """``program`` planned for fixed feeds/fetches (executor/run_plan.py), its
    persistables read from and written to the bound eager tensors."""
    return PlanRun(program, feed_names, fetch_names, tensors=bound, backend=backend,
                   config=_CONFIG, shape_only=shape_only, check="all" if check else None,
                   noun="input", write_back=write_back)


def _refuse_leaf_writes(inputs, written):
    """The eager in-place write's error for an input the function writes in
    place (with gradients recorded) that is a leaf tensor needing a gradient."""
    for i in written:
        t = inputs[i]
        if not t.stop_gradient and t._node is None:
            raise ValueError(f"Leaf Tensor ({t.name}) that doesn't stop gradient can't use "
                             "inplace strategy: the to_static function writes its input "
                             f"{i} in place (wrap the write in paddle.no_grad(), or pass a "
                             "tensor with stop_gradient=True)")


class PartialProgram:
    """Runs one ConcreteProgram; ``__call__(inputs) -> list of output Tensors``."""
    build_strategy = None      # to_static's (set by jit/static_function.py)

    def __init__(self, concrete, writes_state=True, check_inputs=False):
        self.concrete = concrete
        # False for a grad program (module doc): its recomputed forward leaves
        # the persistables it writes as they are
        self.writes_state = writes_state
        # inputs checked against the program's declarations at every call (a
        # loaded model's; to_static's program cache already keys by input spec)
        self.check_inputs = check_inputs
        # the program run: the traced one, or a copy that also computes which
        # outputs hold "no value" on a call (jit/no_value.py)
        program, self.flag_names = has_value_flags(concrete.main_program, concrete.outputs)
        # inputs written in place (while gradients were recorded) that a call must
        # not pass as a leaf needing a gradient (the eager write's error): refused
        # before the run where every call writes them, after it where a path may
        # leave them alone (a write under a tensor-dependent ``if``): the program
        # then computes whether this call wrote them (jit/no_value.py
        # ``written_flags``), fetched just before the written values
        written = dict(getattr(concrete, "written_inputs", ()))
        grad_written = list(getattr(concrete, "grad_written", ()))
        program, wflags = written_flags(program, [concrete.inputs[i].name for i in grad_written],
                                        [written[i] for i in grad_written])
        self.grad_written = [i for i, f in zip(grad_written, wflags) if f is None]
        self.grad_written_if = [i for i, f in zip(grad_written, wflags) if f is not None]
        self.written_flag_names = [f for f in wflags if f is not None]
        self.program = program
        self.bound = program.bound_tensors
        self.feed_names = [v.name for v in concrete.inputs]
        self.out_names = [v.name for v in concrete.outputs]
        sgs = getattr(concrete, "input_stop_gradients", None) or \
            [v.stop_gradient for v in concrete.inputs]
        # a function that trains itself (loss.backward() and optimizer.step() traced
        # in: optimizer/static_minimize.py) holds its backward and updates; its call
        # records nothing on the tape
        state = traced_grads(concrete.main_program)
        trains = state is not None
        # the parameters' .grad through the call, as eager (jit/grad_writeback.py)
        self.grads = GradWriteback(state, self.bound) if trains and (
            state.vars or state.cleared) else None
        self.input_needs_grad = [not sg and not trains for sg in sgs]
        self.made_differentiable = getattr(concrete, "made_differentiable", ())
        # (input index, variable) of the inputs written in place: fetched last and
        # written into the caller's tensors after each call (``_write_inputs``)
        self.written = list(getattr(concrete, "written_inputs", ()))
        self.written_names = [n for _, n in self.written]
        # inputs written through a view (program/views.py records each write into
        # a root): a caller's leaf stays a leaf, as eagerly, so for such a call the
        # new value differentiates as the input itself (``_leaf_root_grads``)
        feed_pos = {n: i for i, n in enumerate(self.feed_names)}
        self.root_writes = {}
        for origin, out in concrete.main_program.__dict__.get("_jst_root_writes", ()):
            if origin in feed_pos:
                self.root_writes.setdefault(feed_pos[origin], []).append(out)
        self.any_input_grad = any(self.input_needs_grad)
        self.grad_params = [] if trains else \
            [t for t in self.bound.values() if not t.stop_gradient]
        # what runs before each call (a traced optimizer's learning rate)
        self.before_run = tuple(concrete.main_program.__dict__.get("before_run", ()))
        # outputs that can carry a gradient (one node slot per distinct variable)
        sources = {n for n, need in zip(self.feed_names, self.input_needs_grad) if need}
        if not trains:
            sources.update(n for n, t in self.bound.items() if not t.stop_gradient)
        carry = _carrying(program, sources)
        slots, self.out_slot = {}, []
        for v in concrete.outputs:
            # an output that is an input needing a gradient is its own path
            diff = v.name in sources or v.name in carry
            if not diff or v.persistable or v.np_dtype is None or \
                    v.np_dtype.kind not in "fc":
                self.out_slot.append(-1)
            else:
                self.out_slot.append(slots.setdefault(v.name, len(slots)))
        # an input written in place whose new value carries a gradient: one more
        # slot, and the caller's tensor takes that position (as eagerly: its later
        # uses differentiate through the write)
        gb = program.global_block()
        self.written_slot = []
        for _, name in self.written:
            v = gb.var(name)
            diff = (name in sources or name in carry) and not v.persistable and \
                v.np_dtype is not None and v.np_dtype.kind in "fc"
            self.written_slot.append(slots.setdefault(name, len(slots)) if diff else -1)
        self.diff_outs = list(slots)
        self.leaf_outs = _leaf_outputs(program, concrete.outputs, self.out_slot,
                                       set(self.feed_names) | set(self.bound))
        # outputs that are tensor arrays come back as lists of tensors
        self.array_outs = [k for k, v in enumerate(concrete.outputs) if v.type == LOD_TENSOR_ARRAY]
        # outputs that are a parameter or buffer: the eager tensor itself, as eager returns it
        self.bound_outs = [(k, self.bound[v.name]) for k, v in enumerate(concrete.outputs)
                           if v.persistable and v.name in self.bound]
        # the outputs that may be the "no value" of a path with no `return`, in
        # the order of their has-value flags (fetched after the outputs)
        self.no_value = [k for k, f in enumerate(self.flag_names) if f is not None]
        self.n_out = len(self.out_names)
        self.n_flags = len(self.no_value)
        self._forward = None
        self._forward_live = None       # with the gradients' start additions
        self._train = None
        self._leaf_trains = {}          # (input indices whose caller's tensor is a leaf) -> _Train
        self._backend = None

    # ------------------------------------------------------------- calling
    def __call__(self, inputs):
        if self.before_run:
            for f in self.before_run:
                f()
        for i in self.made_differentiable:     # as the eager code's `x.stop_gradient = False`
            inputs[i].stop_gradient = False
        if self.grad_written and _recording():
            _refuse_leaf_writes(inputs, self.grad_written)
        if _recording() and self.diff_outs and (self.any_input_grad or
                                                    _any_trainable(self.grad_params)):
            return self._call_train(inputs)
        grads = self.grads
        if grads is not None and grads.live():
            fwd = self._forward_live or self._plan_forward(inputs, live=True)
            feeds = [t._data for t in inputs] + grads.feeds()
        else:
            fwd = self._forward or self._plan_forward(inputs)
            feeds = [t._data for t in inputs]
        if self.check_inputs:
            fwd.check_feeds(feeds)
        outs = fwd.run_arrays(feeds)
        if self.grad_written_if and _recording():
            self._refuse_written_leaves(inputs, outs)
        n = self.n_out
        if grads is not None:
            grads.write(outs[n + self.n_flags:])
        if self.written:
            self._write_inputs(inputs, outs)
        if self.array_outs:
            result = self._with_arrays(outs[:n])
        else:
            result = [wrap(a) for a in outs[:n]]
        for k, t in self.bound_outs:
            result[k] = t
        if self.leaf_outs and _recording():
            _unstop(result, self.leaf_outs)
        return self._drop_no_value(result, outs[n:]) if self.no_value else result

    def _refuse_written_leaves(self, inputs, outs):
        """The eager write's error for a leaf needing a gradient that this call
        wrote in place under a condition (its flag, fetched before the written
        values, is true); before anything is written back."""
        end = len(outs) - len(self.written)
        flags = outs[end - len(self.written_flag_names):end]
        _refuse_leaf_writes(inputs, [i for i, f in zip(self.grad_written_if, flags) if f])

    def _write_inputs(self, inputs, outs):
        """The final values of the inputs the function wrote in place, into the
        caller's tensors (their views see them; the in-place version counts)."""
        for (i, _), a in zip(self.written, outs[len(outs) - len(self.written):]):
            t = inputs[i]
            write_data(t, a)
            t._bump_inplace_version()

    def _drop_no_value(self, result, flags):
        """None for each output whose has-value flag is false (the function
        reached its end without a `return` on this call's path)."""
        for k, flag in zip(self.no_value, flags):
            if flag is not None and not flag:
                result[k] = None
        return result

    def _with_arrays(self, outs):
        arrays = set(self.array_outs)
        return [[wrap(x) for x in (a or [])] if k in arrays else wrap(a)
                for k, a in enumerate(outs)]

    def _call_train(self, inputs):
        leaves = tuple(i for i in self.root_writes
                       if inputs[i]._node is None and not inputs[i].stop_gradient) \
            if self.root_writes else ()
        tr = (self._train or self._plan_train(inputs)) if not leaves else \
            (self._leaf_trains.get(leaves) or self._plan_train(inputs, leaves))
        fwd, bwd = tr.forward, tr.backward
        feeds = [t._data for t in inputs]
        if self.check_inputs:
            fwd.check_feeds(feeds)
        rng = _random.get_state() if tr.random else None
        outs = fwd.run_arrays(feeds)
        if self.grad_written_if:
            self._refuse_written_leaves(inputs, outs)
        if self.written:
            self._write_inputs(inputs, outs)
        n_out, n_saved = self.n_out, tr.n_saved
        saved = _Saved(outs[n_out:n_out + n_saved], bwd.load(),
                       [feeds[i] for i in tr.fed_back], feeds, rng)
        ins = [inputs[i] for i in tr.grad_inputs] + self.grad_params
        diff_arrays = [outs[i] for i in tr.slot_first]
        node = record(tr.op, ins, saved, diff_arrays)
        for (i, _), s in zip(self.written, self.written_slot):
            if s >= 0 and i not in leaves:  # its later uses differentiate through the write
                rebound(inputs[i], node, s, False)
        result = []
        for k, slot in enumerate(self.out_slot):
            a = outs[k]
            result.append(wrap(a) if slot < 0 else wrap(a, False, node, slot))
        if self.array_outs:
            for k in self.array_outs:
                result[k] = [wrap(x) for x in (outs[k] or [])]
        for k, t in self.bound_outs:
            result[k] = t
        if self.leaf_outs:
            _unstop(result, self.leaf_outs)
        if self.no_value:
            return self._drop_no_value(result, outs[n_out + n_saved:])
        return result

    # ------------------------------------------------------------- planning
    def backend(self, inputs):
        if self._backend is None:
            arrays = [t._data for t in inputs] + [t._data for t in self.bound.values()]
            self._backend = next((backend_of(a) for a in arrays if a is not None), CPU)
        return self._backend

    def _plan_forward(self, inputs, live=False):
        program, fetch, feed = self.program, self.out_names + self.flags(), self.feed_names
        if self.grads is not None:
            program = self.grads.program(program, live)
            fetch = fetch + self.grads.fetch_names(live)
            if live:
                feed = feed + self.grads.start_names
        fetch = fetch + self.written_flag_names + self.written_names
        if getattr(self.build_strategy, "enable_auto_fusion", False):
            # forward only (no backward reads its values): elementwise trees fused
            program = fused_clone(program, keep=feed + fetch)
        plan = _plan(program, feed, fetch, self.bound, self.backend(inputs),
                     check=self.check_inputs, write_back=self.writes_state)
        if live:
            self._forward_live = plan
        else:
            self._forward = plan
        return plan

    def flags(self):
        """The has-value flags the forward fetches after its outputs (jit/no_value.py)."""
        return [f for f in self.flag_names if f is not None]

    def _plan_train(self, inputs, leaves=()):
        tr = _Train(self, self.backend(inputs), [n for i in leaves for n in self.root_writes[i]])
        if leaves:
            self._leaf_trains[leaves] = tr
        else:
            self._train = tr
        return tr

    def explain(self):
        """The plans built so far, as text."""
        parts = []
        if self._forward is not None:
            parts.append("forward:\n" + self._forward.explain())
        if self._train is not None:
            parts.append("training forward:\n" + self._train.forward.explain())
            parts.append("backward:\n" + self._train.backward.explain())
        return "\n\n".join(parts)

    @property
    def backward_program(self):
        """The program holding forward and backward ops (None before the
        first call that needed gradients)."""
        return None if self._train is None else self._train.backward_program


def _leaf_root_grads(program, writes):
    """The backward of the scatters that wrote into a caller's leaf (``writes``:
    their outputs) made the eager leaf's: the new root's gradient goes whole to
    the old root (the leaf itself), none to the written values (zeros)."""
    keys = {(op.input("Ids")[0], op.input("Updates")[0]) for b in program.blocks
            for op in b.ops if op.type == "scatter" and op.output("Out")[0] in writes}
    for block in program.blocks:
        i = 0
        while i < len(block.ops):
            op = block.ops[i]
            if op.type != "scatter_grad" or \
                    (op.input("Ids")[0], op.input("Updates")[0]) not in keys:
                i += 1
                continue
            gout, upd = op.input("Out@GRAD")[0], op.input("Updates")[0]
            xg, ug = op.output("X@GRAD"), op.output("Updates@GRAD")
            block._remove_op(i)
            if ug:
                block._insert_op(i, "fill_any_like", {"X": [upd]}, {"Out": ug},
                                 {"value": 0.0, "dtype": -1})
                i += 1
            if xg:
                block._insert_op(i, "assign", {"X": [gout]}, {"Out": xg})
                i += 1


def _carrying(program, sources):
    """Names of the variables that carry a gradient from ``sources``: the static
    backward's own path analysis (a loop variable written in a while body is
    not marked by its stop_gradient flag)."""
    block = program.global_block()
    _, carry = find_path(block.ops, [], set(sources), set(), block._find_var_recursive,
                         BUILDERS, True)
    return carry


def _leaf_outputs(program, outputs, out_slot, every_source):
    """Outputs the function created as new leaves needing a gradient
    (``paddle.to_tensor(v, stop_gradient=False)``): no input or parameter
    reaches them, yet their Variable does not stop gradients.  Eagerly they
    come back with stop_gradient=False."""
    cand = [k for k, v in enumerate(outputs) if out_slot[k] < 0 and not v.stop_gradient
            and not v.persistable and v.type != LOD_TENSOR_ARRAY]
    if not cand:
        return []
    reach = _carrying(program, every_source) | every_source
    return [k for k in cand if outputs[k].name not in reach]


def _unstop(result, ks):
    for k in ks:
        if isinstance(result[k], Tensor):
            result[k].stop_gradient = False


def _any_trainable(params):
    for t in params:
        if not t.stop_gradient:
            return True
    return False


class _Train:
    """Forward (outputs + saved values) and backward interpreters of one
    concrete program, and the grad-node op whose backward runs the latter."""

    def __init__(self, pp, backend, leaf_writes=()):
        full = clone(pp.program)       # (its ops keep the user's `raise` errors)
        block = full.global_block()
        n_fwd = len(block.ops)
        fwd_vars = [block.var(n) for n in pp.feed_names]
        self.grad_inputs = [i for i, need in enumerate(pp.input_needs_grad) if need]
        for i in self.grad_inputs:      # (a grad program's output-gradient feeds)
            fwd_vars[i].stop_gradient = False
        bound_names = {id(t): n for n, t in pp.bound.items()}
        param_vars = [block.var(bound_names[id(t)]) for t in pp.grad_params]
        targets = [block.var(n) for n in pp.diff_outs]
        with building(full):
            tgrads = [data(_free_name(block, t.name + "@GRAD"), list(t.shape),
                           t.np_dtype) for t in targets]
            grads = gradients(targets, [fwd_vars[i] for i in self.grad_inputs]
                              + param_vars, target_gradients=tgrads)
        if leaf_writes:
            _leaf_root_grads(full, set(leaf_writes))
        if len(block.ops) < n_fwd:
            raise RuntimeError("to_static: building the backward removed forward ops")
        fwd_ops, bwd_ops = block.ops[:n_fwd], block.ops[n_fwd:]
        fwd_written = {n for op in fwd_ops for n in op.output_arg_names}
        persist = {v.name for v in block.vars.values() if v.persistable}
        reads, written = [], set()
        for op in bwd_ops:
            for n in op.input_arg_names:
                if n not in written:
                    reads.append(n)
            written.update(op.output_arg_names)
        reads = list(dict.fromkeys(reads))
        feed_pos = {n: i for i, n in enumerate(pp.feed_names)}
        tgrad_names = [t.name for t in tgrads]
        # forward values the backward reads: produced ones (an input a loop
        # overwrote included) come from the forward's fetches, untouched inputs
        # from the call's own arrays
        saved = [n for n in reads if n in fwd_written and n not in persist]
        self.fed_back = [feed_pos[n] for n in reads if n in feed_pos and n not in fwd_written]
        fed_back_names = [pp.feed_names[i] for i in self.fed_back]
        self.grad_names = [None if g is None else g.name for g in grads]
        fetch = [n for n in self.grad_names if n is not None]
        # The forward runs the forward ops of the program that also holds the
        # backward (control-flow ops keep the scopes their grads read only
        # when such a reader exists); the backward runs the backward ops of a
        # copy where the forward values it is given count as fed.
        bprog = full.clone()
        bblock = bprog.global_block()
        for n in saved + fed_back_names:
            bblock.var(n).is_data = True
        self.backward = _plan(_View(bblock, bblock.ops[n_fwd:]),
                              tgrad_names + saved + fed_back_names, fetch, pp.bound, backend,
                              write_back=False)
        # saved values the backward reads only for their shapes (X of
        # elementwise_add_grad): the forward may reuse their buffers
        keep = set(saved) - set(pp.out_names)
        shape_only = [n for n in self.backward.shape_only_inputs() if n in keep]
        self.forward = _plan(_View(block, fwd_ops), pp.feed_names,
                             pp.out_names + saved + pp.flags() + pp.written_flag_names +
                             pp.written_names, pp.bound,
                             backend, shape_only,
                             check=pp.check_inputs, write_back=pp.writes_state)
        self.backward_program = bprog
        self.n_saved = len(saved)
        # first output index of each node slot (its array is the slot's forward value)
        first = {}
        for k, s in enumerate(pp.out_slot):
            if s >= 0:
                first.setdefault(s, k)
        # the written values, fetched last (after the written flags)
        at = len(pp.out_names) + len(saved) + len(pp.flags()) + len(pp.written_flag_names)
        for j, s in enumerate(pp.written_slot):
            if s >= 0:
                first.setdefault(s, at + j)
        self.slot_first = [first[s] for s in range(len(pp.diff_outs))]
        self.op = PyOp("run_program", len(pp.diff_outs), self._backward,
                       self._backward_graph)
        # what the grad programs are built from (module doc)
        self.full, self.pp, self.tgrad_names = full, pp, tgrad_names
        self.random = any(op.opdef is not None and op.opdef.random
                          for b in full.blocks for op in b.ops)
        self._grad_programs = {}

    def _backward(self, node, gouts):
        saved = _arrays(node)
        outs = node.outs
        ins = []
        for k, g in enumerate(gouts):
            if g is None:
                g = np.zeros_like(outs[k])
            ins.append(g)
        ins += saved.values
        ins += saved.fed
        return self._by_grad_name(self.backward.run_arrays(ins, saved.persist))

    def _by_grad_name(self, res):
        """One entry per node input (None where it got no gradient)."""
        it = iter(res)
        return [None if name is None else next(it) for name in self.grad_names]

    def _backward_graph(self, node, gouts, wanted):
        """The gradients as tape tensors (create_graph): the grad program called
        on the inputs (the node's own tensors where they need a gradient) and
        the output gradients, with the random generator as at the forward.
        It fetches only the ``wanted`` gradients (a parameter's is not, in
        ``sampan.grad(y, x)``), so the paths to the others, which may run
        through grad ops without a gradient rule, stay out of its backward."""
        saved = _arrays(node)
        inputs = [wrap(a) for a in saved.feeds]
        for k, i in enumerate(self.grad_inputs):
            inputs[i] = node.ins[k]
        gts = [wrap(np.zeros_like(node.outs[k])) if g is None else g
               for k, g in enumerate(gouts)]
        wanted = tuple(w and n is not None for w, n in zip(wanted, self.grad_names))
        if not any(wanted):
            return [None] * len(wanted)
        key = (tuple(not g.stop_gradient for g in gts), wanted)
        gp = self._grad_programs.get(key)
        if gp is None:
            gp = self._grad_programs[key] = PartialProgram(_GradConcrete(self, *key),
                                                           writes_state=False)
        now = None if saved.rng is None else _random.get_state()
        if now is not None:
            _random.set_state(saved.rng)
        try:
            res = iter(gp(inputs + gts))
        except OpError as e:
            raise OpError(f"to_static: higher-order gradients (create_graph=True) through "
                          f"this call need the gradient of its backward program, and "
                          f"building it failed: {e}", kind=kind_of(e)) from e
        finally:
            if now is not None:
                _random.set_state(now)
        return [next(res) if w else None for w in wanted]


class _Saved:
    """What a training call keeps for its grad node: the forward values the
    backward reads, the persistables it reads, the fed-back inputs; for a
    grad program (create_graph) every input array and the generator state."""
    __slots__ = ("values", "persist", "fed", "feeds", "rng")

    def __init__(self, values, persist, fed, feeds, rng):
        self.values, self.persist, self.fed, self.feeds, self.rng = \
            values, persist, fed, feeds, rng


def _arrays(node):
    if node.arrays is None:
        raise RuntimeError("trying to run backward through a to_static call a second "
                           "time; pass retain_graph=True to the first backward")
    return node.arrays


class _GradConcrete:
    """The grad program of a training plan as a concrete program: the forward
    and backward ops, fed the inputs then the output gradients, fetching the
    ``wanted`` input and parameter gradients (``diff_gouts``: which output
    gradients are differentiable)."""

    def __init__(self, train, diff_gouts, wanted):
        pp, block = train.pp, train.full.global_block()
        self.main_program = train.full
        self.inputs = [block.var(n) for n in pp.feed_names + train.tgrad_names]
        self.outputs = [block.var(n) for n, w in zip(train.grad_names, wanted) if w]
        self.input_stop_gradients = [not need for need in pp.input_needs_grad] + \
            [not d for d in diff_gouts]


class _View:
    """A program whose global block shows only some of its ops (what the
    interpreter plans); everything else is the real block's."""

    def __init__(self, block, ops):
        self._block = block
        self.ops = list(ops)

    def global_block(self):
        return self

    def __getattr__(self, name):
        return getattr(self._block, name)


def _free_name(block, name):
    base, n = name, 0
    while block._find_var_recursive(name) is not None:
        n += 1
        name = f"{base}_{n}"
    return name
