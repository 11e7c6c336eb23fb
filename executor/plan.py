"""The plan of one block, built once per (program, feeds, fetches): a flat
variable table and one instruction per op, with its kernel chosen and its
inputs/outputs as table indices.

``feed``/``fetch`` holder ops (loaded models carry them) are not
instructions: their targets become the plan's feeds and fetches.  An op type
with no kernel may register an instruction factory in ``OP_RUNNERS`` (the
seam for control flow: ``conditional_block``/``while`` run their sub-blocks
with their own cached plans).

A kernel may carry ``fast(attrs)``, returning ``g(*arrays) -> array`` (or None
when these attrs need the general path) that computes exactly what the kernel
computes for a single-output op with plain inputs (None for an absent
dispensable slot); the compiled serial runner calls ``g`` directly (the per-op
cost of the kernel convention is paid once).  A multi-output kernel marked
``fast_first`` offers it for instructions that want only its first output.
Buffer reuse (executor/reuse.py) may later swap an instruction's kernel for
its in-place variant.

Instructions whose effects nobody can see (outputs never read, no side
effect) are dropped by the dead-op pass (executor/prune.py) before the
variable roles are classified; ``dropped`` lists their ops.  The Program
itself keeps them.
"""
from ..ops import OpError, kind_of
from ..ops.dtypes import to_np_dtype
from ..kernels.registry import KernelKey, select_kernel, CPU, ANY
from ..kernels.transform import transform_inputs
from ..program.attrs import BOOKKEEPING
from .prune import live

HOLDERS = {"feed": "feed", "fetch": "fetch", "fetch_v2": "fetch"}
OP_RUNNERS = {}     # op type -> factory(instr, plan) -> fn(ins, attrs, need)


def register_op_runner(op_type, factory):
    """Run ops of ``op_type`` (no kernel) by ``factory(instr, plan)``'s callable."""
    OP_RUNNERS[op_type] = factory


class Instr:
    """One op of the plan."""
    __slots__ = ("idx", "pos", "op", "opdef", "fn", "fast", "ins", "outs", "attrs", "need",
                 "reads", "writes", "key")

    def where(self):
        return f"op #{self.pos} '{self.op.type}' (block {self.op.block.idx})"


class Plan:
    """Variable table + instructions of one block (see module docstring)."""

    def __init__(self, block, feed_names, fetch_names, backend=CPU, prune=True):
        self.block = block
        self.backend = backend
        self.names, self.index, self.vars = [], {}, []
        holder_feeds = [op.output("Out")[0] for op in block.ops
                        if HOLDERS.get(op.type) == "feed"]
        # known before the instructions are made: control-flow runners ask it
        self.feed_names = tuple(dict.fromkeys(list(feed_names) + holder_feeds))
        holder_fetches = []
        self.instrs = []
        for pos, op in enumerate(block.ops):
            role = HOLDERS.get(op.type)
            if role == "feed":
                continue
            if role == "fetch":
                holder_fetches.append((op.attr("col") if op.has_attr("col") else 0,
                                       op.input("X")[0]))
            else:
                self.instrs.append(self._instr(op, len(self.instrs), pos))
        if not fetch_names:
            fetch_names = [n for _, n in sorted(holder_fetches)]
        self.fetch_names = tuple(fetch_names)
        self.feed_idx = tuple(self._slot(n) for n in self.feed_names)
        self.fetch_idx = tuple(self._slot(n) for n in self.fetch_names)
        self.dropped = ()
        if prune:
            self._prune()
        self._classify()

    def _prune(self):
        """Drop the dead instructions (executor/prune.py) and renumber the rest."""
        kept = live(self.instrs, self.fetch_idx, self.vars)
        if len(kept) == len(self.instrs):
            return
        ids = {id(ins) for ins in kept}
        self.dropped = tuple(ins.op for ins in self.instrs if id(ins) not in ids)
        for k, ins in enumerate(kept):
            ins.idx = k
        self.instrs = kept
        self.__dict__.pop("_cf_written", None)      # (control_flow's cache of writes)

    # ------------------------------------------------------------- table
    def _slot(self, name, instr=None):
        i = self.index.get(name)
        if i is None:
            var = self.block._find_var_recursive(name)
            if var is None:
                who = f"{instr.where()} uses" if instr is not None else "the plan needs"
                raise OpError(f"{who} variable '{name}', which is not declared in block "
                              f"{self.block.idx} or its parents")
            i = self.index[name] = len(self.names)
            self.names.append(name)
            self.vars.append(var)
        return i

    def _slots(self, instr, declared, given):
        """Per declared slot: None (empty), an index, or a tuple (duplicable)."""
        out = []
        for s in declared:
            names = given.get(s.name) or []
            if not names:
                out.append(None)
            elif s.duplicable:
                out.append(tuple(self._slot(n, instr) for n in names))
            else:
                out.append(self._slot(names[0], instr))
        return tuple(out)

    # ------------------------------------------------------------- instructions
    def _instr(self, op, idx, pos):
        ins = Instr()
        ins.idx, ins.pos, ins.op, ins.opdef = idx, pos, op, op.opdef
        ins.attrs = {k: v for k, v in op.all_attrs().items() if k not in BOOKKEEPING}
        ins.fast, ins.key = None, None
        if op.opdef is None:
            return self._runner_instr(ins, op)
        od = op.opdef
        ins.ins = self._slots(ins, od.inputs, op._inputs)
        ins.outs = self._slots(ins, od.outputs, op._outputs)
        ins.need = None if all(o is not None for o in ins.outs) else \
            tuple(o is not None for o in ins.outs)
        self._flatten(ins)
        factory = OP_RUNNERS.get(op.type)
        if factory is not None:
            ins.fn = factory(ins, self)
            return ins
        ins.fn, ins.key = self._kernel(ins)
        self._set_fast(ins)
        return ins

    @staticmethod
    def _set_fast(ins):
        """``ins.fast``: the kernel's fast form for these attrs, for a
        single-output op whose input slots are plain (absent ones pass None);
        a kernel marked ``fast_first`` also gets it where only its first
        output is wanted (the others absent)."""
        fast = getattr(ins.fn, "fast", None)
        ins.fast = None
        if fast is None or not all(i is None or type(i) is int for i in ins.ins):
            return
        if (len(ins.outs) == 1 and ins.need is None) or (
                getattr(ins.fn, "fast_first", False) and type(ins.outs[0]) is int
                and all(o is None for o in ins.outs[1:])):
            ins.fast = fast(ins.attrs)

    def _runner_instr(self, ins, op):
        factory = OP_RUNNERS.get(op.type)
        if factory is None:
            raise OpError(f"{ins.where()}: op type '{op.type}' is not registered in sampan "
                          f"(no declaration, no kernel); see sampan.ops.list_ops()")
        ins.ins = tuple(tuple(self._slot(n, ins) for n in names) for names in op._inputs.values())
        ins.outs = tuple(tuple(self._slot(n, ins) for n in names)
                         for names in op._outputs.values())
        ins.need = None
        self._flatten(ins)
        ins.fn = factory(ins, self)
        return ins

    @staticmethod
    def _flatten(ins):
        def flat(slots):
            out = []
            for s in slots:
                if type(s) is int:
                    out.append(s)
                elif s is not None:
                    out.extend(s)
            return tuple(out)
        ins.reads, ins.writes = flat(ins.ins), flat(ins.outs)

    def _kernel(self, ins):
        """Kernel chosen once, by the declared dtype of the op's deciding input."""
        od = ins.opdef
        di = od.dtype_index
        s = ins.ins[di] if di is not None and di < len(ins.ins) else None
        if isinstance(s, tuple):
            s = s[0] if s else None
        if s is None:
            dt = ins.attrs.get("dtype")
            dt = to_np_dtype("float32") if dt is None or dt == -1 else to_np_dtype(dt)
        else:
            dt = self.vars[s].np_dtype or to_np_dtype("float32")
        try:
            fn, used = select_kernel(od, KernelKey(self.backend, ANY, dt.name))
        except OpError as e:
            raise OpError(f"{ins.where()}: {e}{_at(ins.op)}", kind=kind_of(e)) from None
        if self.backend != CPU:             # inputs follow the kernel's backend
            fn = _moved(fn, used.backend)
        return fn, used

    # ------------------------------------------------------------- variable roles
    def _classify(self):
        written, read_first = set(), []
        for ins in self.instrs:
            for r in ins.reads:
                if r not in written:
                    read_first.append(r)
            written.update(ins.writes)
        read_first = list(dict.fromkeys(read_first))
        feeds = set(self.feed_idx)
        persist = [i for i, v in enumerate(self.vars) if v.persistable]
        self.persist_read = tuple(i for i in read_first if self.vars[i].persistable)
        self.persist_written = tuple(i for i in persist if i in written)
        unfed_fetch = [i for i in self.fetch_idx
                       if i not in written and i not in feeds and not self.vars[i].persistable]
        self.persist_read += tuple(i for i in self.fetch_idx if self.vars[i].persistable
                                   and i not in written and i not in self.persist_read)
        self.external = tuple(dict.fromkeys(
            i for i in read_first + unfed_fetch
            if i not in feeds and not self.vars[i].persistable))
        # what the runner receives, in this order
        self.loaded = self.persist_read + self.feed_idx + self.external
        keep = set(persist) | feeds | set(self.fetch_idx) | set(self.external)
        self.temporaries = tuple(i for i in range(len(self.names)) if i not in keep)
        self.first_reader = {}
        for ins in self.instrs:
            for r in ins.reads:
                self.first_reader.setdefault(r, ins)


def _moved(fn, backend):
    def k(ins, attrs, need):
        return fn(transform_inputs(ins, backend), attrs, need)
    return k


def _at(op):
    src = op.source
    return f"\n  defined at {src}" if src else ""
