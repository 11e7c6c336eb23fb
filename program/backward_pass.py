"""One static backward pass (``_Pass``), the engine of static/backward.py:
path (static/backward_path.py), then grad ops emitted walking the path ops
backwards, then appended to the grad block.

Gradient names are ``_Ref`` objects until the pass decides them: a
contribution to the gradient of ``x`` starts as
``x@GRAD@RENAME@block<b>@<k>``; when ``x``'s writer is reached (or the walk
ends) the contributions are *finalized*: a single one is renamed ``x@GRAD``,
several are added by a ``sum`` op into ``x@GRAD``.  A name already taken in
the grad block's scope chain (a second backward on one program) becomes a
fresh ``unique_name`` (``x@GRAD_0``), as Paddle's ``_rename_grad_`` does.

A forward variable written by several ops (a while body's loop variables, an
in-place write) has one gradient per version: finalizing at the writer
consumes the contributions of the later readers, and the earlier readers'
contributions form the gradient of the earlier version.  A tensor array
written in place (by an op that does not read it: ``write_to_array``, a
branch writing an outer array) is the exception: only some elements change,
so its gradient after the write is seeded again as a contribution to the
gradient before it (the write's own grad only reads it, Paddle's rule).

A grad op reads the forward values its op read; where a later forward op of
the block overwrites such a variable (an index ``i`` read by
``write_to_array(x, i)`` and then carried by a ``while``), the backward would
read the later value.  The pass keeps the value the op read instead: an
``assign`` to ``<name>@SNAPSHOT`` is inserted before the op and the grad op
reads the copy (Paddle's static backward reads the overwritten value; eager
differentiates what was read).  Inside a sub-block the step scopes already
hold each iteration's values of the enclosing block's variables, so only the
block's own variables are kept this way.
"""
from ..ops import OpError
from ..ops.grad_rules import grad_steps
from ..utils import unique_name
from . import attrs as A
from .backward_path import find_path, ZERO_GRAD_OPS
from .variable import VarType

GRAD = "@GRAD"
BUILDERS = {}          # op type -> grad builder (static/backward.py docstring)


class _Ref:
    """A gradient variable's name, fixed when the pass decides it."""
    __slots__ = ("name", "var")

    def __init__(self, name, var):
        self.name, self.var = name, var

    def __repr__(self):
        return self.name


def _name(x):
    return x.name if isinstance(x, _Ref) else x


class _Pass:
    """One backward pass over ``fwd_block``'s ops; grad ops go to ``block``."""

    def __init__(self, program, fwd_block, block, no_grad, callbacks=None, trust=False):
        self.program, self.fwd_block, self.block = program, fwd_block, block
        self.trust = trust                # sources are taken as given (nested passes)
        self.no_grad = no_grad            # forward names that never get a gradient
        self.callbacks = callbacks or []
        self.pending = {}                 # forward name -> contributions (_Ref or str)
        self.final = {}                   # forward name -> finalized gradient
        self.specs = []                   # (type, inputs, outputs, attrs)
        self.taken = set()                # names given out in this pass
        self.rename_k = {}
        self.carry = set()
        self.grad_to_var = {}             # the callbacks' context (Paddle's grad_to_var)
        self.overwritten = {}             # id(forward op) -> names a later op writes
        self.snapshots = {}               # (id(forward op), name) -> the copy's name

    # ------------------------------------------------------------- names
    def _free(self, name):
        return name not in self.taken and self.block._find_var_recursive(name) is None

    def _fresh(self, base):
        name = base
        while not self._free(name):
            name = unique_name.generate(base)
        self.taken.add(name)
        return name

    def _var(self, name):
        v = self.fwd_block._find_var_recursive(name)
        if v is None:
            raise OpError(f"backward: variable '{name}' is not declared in block "
                          f"{self.fwd_block.idx} or its parents")
        return v

    def _lookup(self, name):
        return self.fwd_block._find_var_recursive(name)

    def needs_grad(self, name):
        return name in self.carry

    def grad_out(self, name):
        """A new contribution to the gradient of ``name`` (named when finalized)."""
        k = self.rename_k.get(name, 0)
        self.rename_k[name] = k + 1
        ref = _Ref(f"{name}{GRAD}@RENAME@block{self.block.idx}@{k}", self._var(name))
        self.pending.setdefault(name, []).append(ref)
        return ref

    def discard(self, name):
        return _Ref(self._fresh(f"{name}{GRAD}@UNUSED"), self._var(name))

    def zeros(self, name):
        var = self._var(name)
        ref = _Ref(self._fresh(name + GRAD), var)
        if var.type == VarType.LOD_TENSOR_ARRAY:       # zeros of each element
            self.append_op("fill_zeros_like", {"X": [name]}, {"Out": [ref]})
        else:
            self.append_op("fill_any_like", {"X": [name]}, {"Out": [ref]},
                           {"value": 0.0, "dtype": -1})
        return ref

    def append_op(self, type, inputs, outputs, attrs=None):
        self.specs.append((type, inputs, outputs, dict(attrs or {})))
        return len(self.specs) - 1

    # ------------------------------------------------------------- contributions
    def seed(self, name, grad):
        self.pending.setdefault(name, []).append(grad)

    def finalize(self, name):
        """The gradient of ``name`` from all contributions so far (None: none)."""
        parts = self.pending.pop(name, None)
        if not parts:
            return None
        if len(parts) == 1:
            g = parts[0]
            if isinstance(g, _Ref) and "@RENAME@" in g.name:
                g.name = self._fresh(name + GRAD)
        else:
            for p in parts:
                if isinstance(p, _Ref):
                    p.name = self._fresh(p.name)
            g = _Ref(self._fresh(name + GRAD), self._var(name))
            self.append_op("sum", {"X": parts}, {"Out": [g]})
        self.final[name] = g             # the last one: the earliest version of ``name``
        return g

    # ------------------------------------------------------------- the walk
    def run(self, ops, targets, sources, seeds):
        """Queue the grads of ``ops`` (forward order) for ``targets`` given the
        ``seeds`` {target name: grad}; ``sources``: None (every unstopped leaf)
        or the set of requested names (static/backward_path.py)."""
        path, self.carry = find_path(ops, targets, sources, self.no_grad, self._lookup,
                                     BUILDERS, self.trust)
        self.overwritten = _overwritten_inputs(ops, self.fwd_block)
        for name, g in seeds.items():
            self.seed(name, g)
        on_path = {id(op) for op in path}
        for op in reversed(ops):
            if id(op) not in on_path:
                for n in op.output_arg_names:
                    if self._in_place_array(op, n):
                        continue                # its gradient passes this write
                    if not self.trust and sources is not None and n in sources:
                        self.finalize(n)        # a requested intermediate: its gradient
                    elif op.no_grad and n in self.carry:
                        self.finalize(n)        # a leaf written under no_grad (an
                        # optimizer's update, backward_path.py): the gradient of the
                        # value written is the leaf's, as eagerly
                    else:                       # overwritten by a value needing no grad
                        self.pending.pop(n, None)
                continue
            out_grads = {slot: [self.finalize(n) if n in self.carry else None for n in names]
                         for slot, names in op._outputs.items()}
            if all(g is None for gs in out_grads.values() for g in gs):
                continue
            builder = BUILDERS.get(op.type)
            if builder is not None:
                builder(self, op, out_grads)
            else:
                self._emit_records(op, out_grads)
            for slot, names in op._outputs.items():
                for n, g in zip(names, out_grads[slot]):
                    if g is not None and self._in_place_array(op, n):
                        self.seed(n, g)         # the earlier version's gradient too
        return path

    def _in_place_array(self, op, name):
        """``op`` writes some elements of tensor array ``name`` without reading
        it (write_to_array, a branch writing an outer array): the gradient of the
        array after the op is also the gradient of the array before it (the
        op's grad only reads it), as in Paddle.  An ``assign`` replaces the
        whole array (a list rebound to a new one, e.g. by ``pop()``): the
        earlier version gets no gradient through it."""
        v = self._lookup(name)
        return v is not None and v.type == VarType.LOD_TENSOR_ARRAY and \
            op.type != "assign" and name not in op.input_arg_names

    def _emit_records(self, op, out_grads):
        fwd = op.opdef
        if op.type in ZERO_GRAD_OPS and (fwd is None or fwd.grad is None):
            return      # e.g. a zero initialiser of a variable a loop carries later
        if fwd is None or fwd.grad is None:
            raise OpError(f"backward: op '{op.type}' (block {op.block.idx}) lies on the path "
                          f"to the loss but has no gradient rule; mark its inputs "
                          f"stop_gradient=True or add them to no_grad_set"
                          + (f"\n  defined at {op.source}" if op.source else ""))
        attrs = {k: v for k, v in op.all_attrs().items() if k not in A.BOOKKEEPING}
        need_in = [[n in self.carry for n in op._inputs.get(s.name, ())] for s in fwd.inputs]
        zeros = {}
        for step in grad_steps(fwd, attrs):
            need = [d is not None and any(need_in[d]) for d in step.dsts]
            if True not in need:
                continue
            # outputs the grad op's own gradient rule reads (div's DX) are computed even
            # when no input needs them, so a later backward of this program finds them
            kept = _outputs_read_by_grad(step.opdef, attrs)
            need = [n or (d is not None and j in kept) for j, (d, n) in
                    enumerate(zip(step.dsts, need))]
            ins = {}
            for slot, src in zip(step.opdef.inputs, step.srcs):
                if src is not None:
                    ins[slot.name] = self._source(op, fwd, src, out_grads, zeros)
            outs = {}
            for slot, d, n in zip(step.opdef.outputs, step.dsts, need):
                if n:
                    names = op._inputs.get(fwd.inputs[d].name, ())
                    outs[slot.name] = [self.grad_out(v) if w else self.discard(v)
                                       for v, w in zip(names, need_in[d])]
            own = attrs if step.attrs_fn is None else step.attrs_fn(attrs)
            self.append_op(step.opdef.type, ins, outs, step.own_attrs(own))

    def _source(self, op, fwd, src, out_grads, zeros):
        kind, i = src
        if kind == 0:
            names = op._inputs.get(fwd.inputs[i].name, ())
            later = self.overwritten.get(id(op))
            if later:
                return [self._snapshot(op, n) if n in later else n for n in names]
            return list(names)
        slot = fwd.outputs[i].name
        names = op._outputs.get(slot, ())
        if kind == 1:
            return list(names)
        got = []
        for n, g in zip(names, out_grads.get(slot, ())):
            if g is None:
                g = zeros.get(n)
                if g is None:
                    g = zeros[n] = self.zeros(n)
            got.append(g)
        return got

    def _snapshot(self, op, name):
        """The name of a copy of ``name`` made just before forward ``op`` runs
        (module doc: a later op overwrites it)."""
        key = (id(op), name)
        got = self.snapshots.get(key)
        if got is None:
            block, var = op.block, self._var(name)
            got = self.snapshots[key] = unique_name.generate(name + "@SNAPSHOT")
            block.create_var(name=got, shape=var.shape, dtype=var.np_dtype or "float32",
                             type=var.type, stop_gradient=True)
            copy = block._insert_op(block.ops.index(op), "assign", inputs={"X": [name]},
                                    outputs={"Out": [got]},
                                    attrs={"op_role": A.OP_ROLE_FORWARD, "op_role_var": []})
            copy.location = op.location
        return got

    # ------------------------------------------------------------- nested blocks
    def sub_backward(self, fwd_block, targets, wanted):
        """Differentiate ``fwd_block``'s ops into a new grad block (module doc)."""
        program = self.program
        cur = program.current_block_idx
        gb = program._create_block(parent_idx=fwd_block.idx)
        program.current_block_idx = cur
        gb._set_forward_block_idx(fwd_block.idx)
        sub = _Pass(program, fwd_block, gb, self.no_grad, self.callbacks, trust=True)
        seeds = {t: _Ref(sub._fresh(t + GRAD), sub._var(t)) for t in dict.fromkeys(targets)}
        wanted = list(dict.fromkeys(wanted))
        sub.run(list(fwd_block.ops), list(seeds), set(wanted), seeds)
        grads = {}
        for name in wanted:
            g = sub.finalize(name)
            if g is not None and not any(g is r for r in seeds.values()):
                grads[name] = _name(g)
        for r in seeds.values():
            # declared in the forward sub-block: to the grad block's plan a seed
            # is then an outer variable, supplied by the runner
            if fwd_block._find_var_recursive(r.name) is None:
                v = r.var
                fwd_block.create_var(name=r.name, shape=v.shape,
                                     dtype=v.np_dtype or "float32", type=v.type)
        sub.flush()
        return gb, {t: r.name for t, r in seeds.items()}, grads

    # ------------------------------------------------------------- appending
    def flush(self):
        """Append the queued ops (op_role Backward) and create their outputs."""
        block = self.block
        ops = []
        for type, ins, outs, attrs in self.specs:
            for names in outs.values():
                for x in names:
                    self._declare(x)
            attrs.setdefault("op_role", A.OP_ROLE_BACKWARD)
            attrs.setdefault("op_role_var", [])
            op = block.append_op(type,
                                 inputs={k: [_name(x) for x in v] for k, v in ins.items()},
                                 outputs={k: [_name(x) for x in v] for k, v in outs.items()},
                                 attrs=attrs)
            ops.append(op)
            if self.callbacks and not attrs["op_role"] & A.OP_ROLE_LOSS:
                ctx = self.grad_to_var
                ctx.update((g.name, g.var.name) for vs in outs.values() for g in vs
                           if isinstance(g, _Ref))
                ctx["__current_op_desc__"] = op.desc
                for cb in self.callbacks:
                    cb(block=block, context=ctx)
        self.specs = []
        return ops

    def _declare(self, x):
        if not isinstance(x, _Ref) or self.block._find_var_recursive(x.name) is not None:
            return
        v = x.var
        self.block.create_var(name=x.name, shape=v.shape, dtype=v.np_dtype or "float32",
                              type=v.type)


def _outputs_read_by_grad(opdef, attrs):
    """Output slot indices of ``opdef`` (a grad op) that its own grad rule reads."""
    if opdef.grad is None:
        return frozenset()
    return frozenset(i for st in grad_steps(opdef, attrs) for src in st.srcs
                     if src is not None and src[0] == 1 for i in (src[1],))


def _overwritten_inputs(ops, block):
    """{id(op): the dense variables of ``block`` it reads that the same op or a
    later one of ``ops`` writes} (for the ops that have any)."""
    written_after, out = set(), {}
    for op in reversed(ops):
        written_after.update(op.output_arg_names)
        hit = [n for n in op.input_arg_names if n in written_after and n in block.vars
               and block.vars[n].type == VarType.LOD_TENSOR and not block.vars[n].persistable]
        if hit:
            out[id(op)] = frozenset(hit)
    return out
