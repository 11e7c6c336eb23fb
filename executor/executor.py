"""``Executor.run(program, feed, fetch_list)``: find or build the interpreter
for (program signature, feed names, fetch names, scope), then run it.

An ``Interpreter`` is built once: plan (variable table, instructions with
kernels), dependencies, liveness, and a runner chosen by the
``ExecutionConfig``.  A run loads persistables from the scope (eager tensors
bound to the program are read in place), checks and loads the feeds, runs,
writes written persistables back to the scope, and returns the fetches.
"""
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..kernels.place import CPUPlace, backend_of_place
from ..kernels.registry import CPU
from ..kernels.transform import backend_of, to_backend
from ..program.framework import Program
from ..program.program_guard import default_main_program
from . import deps as D, liveness as L
from .memory import tune_allocator
from .plan import Plan
from .reuse import shape_only_inputs as _shape_only_inputs
from .runner import CompiledSerial, LoopSerial, Threaded
from .scope import global_scope, LoDTensor
from ..ops import is_graph_value

__all__ = ["Executor", "ExecutionConfig", "Interpreter"]


@dataclass(frozen=True)
class ExecutionConfig:
    """How programs run.  ``runner``: "serial" (compiled straight-line code, or an
    interpreted loop when ``hook`` is set) or "threaded"; ``hook(instr, values)``
    is called after every instruction (instrumentation); ``specialize`` lets
    the compiled runner call kernels' ``fast`` forms; ``reuse`` lets an op write
    its output into the buffer of an input that dies at it (executor/reuse.py);
    ``cache_size`` bounds the interpreter cache of an Executor."""
    runner: str = "serial"
    num_threads: int = 4
    specialize: bool = True
    reuse: bool = True
    hook: Any = None
    cache_size: int = 64

    def __post_init__(self):
        if self.runner not in ("serial", "threaded"):
            raise ValueError(f"ExecutionConfig.runner must be 'serial' or 'threaded', "
                             f"got {self.runner!r}")


class Interpreter:
    """A program's global block, planned once for given feeds/fetches and scope.

    ``shape_only``: names among the fetches whose values the caller reads only
    for their shapes (jit's partial program: forward values its backward reads
    through shape-only kernel inputs); ops may reuse their buffers."""

    def __init__(self, program, feed_names, fetch_names, scope, backend, config,
                 shape_only=()):
        tune_allocator()        # also for interpreters built without an Executor (jit)
        self.scope, self.backend, self.config = scope, backend, config
        plan = self.plan = Plan(program.global_block(), feed_names, fetch_names, backend)
        self.deps = D.build(plan.instrs)
        fetched = set(plan.fetch_idx) - set(plan.loaded)
        keep_shape = tuple(i for i in (plan.index.get(n) for n in shape_only)
                           if i in fetched and not plan.vars[i].persistable)
        self.live = L.build(plan, self.deps, config.reuse, keep_shape)
        if config.runner == "threaded":
            self.runner = Threaded(plan, self.deps, self.live, config.num_threads, config.hook)
        elif config.hook is not None:
            self.runner = LoopSerial(plan, self.live, config.hook)
        else:
            self.runner = CompiledSerial(plan, self.live, config.specialize)
        names = plan.names
        self._persist_in = [self._scope_var(names[i]) for i in plan.persist_read]
        self._persist_out = [self._scope_var(names[i]) for i in plan.persist_written]
        # name, declared dtype, declared shape (None: unchecked) of every feed
        self._feeds = [(names[i], plan.vars[i].np_dtype,
                        plan.vars[i].shape if plan.vars[i].need_check_feed else None)
                       for i in plan.feed_idx]
        self._external = [names[i] for i in plan.external]
        self._fetch_persist = [plan.vars[i].persistable for i in plan.fetch_idx]

    def _scope_var(self, name):
        return self.scope.find_var(name) or self.scope.var(name)

    def shape_only_inputs(self):
        """Names of the values this plan loads (feeds, scope values) that it reads
        only for their shapes (kernels' ``shape_only`` inputs)."""
        return [self.plan.names[i] for i in _shape_only_inputs(self.plan)]

    # ------------------------------------------------------------- running
    def bind(self, bound):
        """Point the scope variables of eager-bound persistables at their tensors."""
        for name, t in bound.items():
            sv = self._scope_var(name)
            if sv._bound is not t:
                sv.bind(t)

    def run(self, feed, return_numpy=True):
        plan, inputs = self.plan, []
        for k, sv in enumerate(self._persist_in):
            a = sv.get()
            if a is None:
                sv = self._persist_in[k] = self._scope_var(sv.name)   # created since?
                a = sv.get()
                if a is None:
                    raise self._uninitialized(plan.persist_read[k])
            inputs.append(a)
        try:
            for name, dtype, shape in self._feeds:
                inputs.append(self._feed_value(name, dtype, shape, feed[name]))
        except KeyError:
            missing = [n for n, _, _ in self._feeds if n not in feed]
            if not missing:
                raise
            raise self._missing_feed(plan.index[missing[0]]) from None
        for name in self._external:
            sv = self.scope.find_var(name)
            if sv is None or sv.get() is None:
                raise self._missing_feed(plan.index[name])
            inputs.append(sv.get())
        outs = self.runner(inputs)
        nf = len(plan.fetch_idx)
        for sv, a in zip(self._persist_out, outs[nf:]):
            sv.set(np.asarray(a) if isinstance(a, np.generic) else a)   # see _fetched
        return [self._fetched(a, copy, return_numpy)
                for a, copy in zip(outs[:nf], self._fetch_persist)]

    def _fetched(self, a, copy, return_numpy):
        # kernels (ufuncs on 0-d arrays, the runner's fast forms) may leave a
        # numpy scalar; the user gets a 0-d array, as from Paddle
        if type(a) is not np.ndarray and isinstance(a, np.generic):
            a = np.asarray(a)
            copy = False
        if a is not None and backend_of(a) != CPU:
            a = to_backend(a, CPU)
        elif copy and a is not None:
            a = a.copy()            # the scope keeps its own array
        return a if return_numpy else LoDTensor(a)

    def _feed_value(self, name, dtype, shape, value):
        a = value if type(value) is np.ndarray else getattr(value, "_data", None)
        if a is None:                              # not an array nor an eager Tensor
            if hasattr(value, "__array__"):
                a = np.asarray(value)
            else:                                  # lists, scalars: the declared dtype
                a = np.asarray(value, dtype=dtype)
        if shape is not None and (a.shape != shape or a.dtype != dtype):
            _check_feed(name, dtype, shape, a)      # -1 dims, or a clear error
        if self.backend != CPU and backend_of(a) != self.backend:
            a = to_backend(a, self.backend)
        return a

    def _uninitialized(self, i):
        name = self.plan.names[i]
        user = self.plan.first_reader.get(i)
        by = f", read by {user.where()}" if user is not None else ""
        return RuntimeError(f"persistable variable '{name}' ({self.plan.vars[i].type_str()}) "
                            f"is not initialized in the scope{by}; run the startup program "
                            f"first (exe.run(startup_program)) or set it in the scope")

    def _missing_feed(self, i):
        name, var = self.plan.names[i], self.plan.vars[i]
        user = self.plan.first_reader.get(i)
        kind = "data" if var.need_check_feed else "variable"
        by = f"is read by {user.where()}" if user is not None else "is fetched"
        return ValueError(f"{kind} '{name}' ({var.type_str()}) {by} but was not fed and has no "
                          f"value in the scope; pass feed={{'{name}': array}}")

    # ------------------------------------------------------------- explain
    def explain(self):
        """The plan as text: instructions (a control-flow op's sub-block plans
        nested under it), reduced dependency edges, frees."""
        plan, names = self.plan, self.plan.names

        def nm(i):
            return names[i]

        lines = [f"plan of block {plan.block.idx}: {len(plan.instrs)} instructions, "
                 f"{len(names)} variables, runner {type(self.runner).__name__}",
                 f"  feeds: {', '.join(map(nm, plan.feed_idx)) or '-'}",
                 f"  fetches: {', '.join(map(nm, plan.fetch_idx)) or '-'}",
                 f"  persistables read: {', '.join(map(nm, plan.persist_read)) or '-'}",
                 f"  persistables written: {', '.join(map(nm, plan.persist_written)) or '-'}",
                 "instructions:"]
        lines += _instr_lines(plan, getattr(self.runner, "use_fast", None), "  ",
                              self.live.reused)
        lines.append("edges (reduced):")
        edges = [f"#{i} -> {', '.join(f'#{s}' for s in out)}"
                 for i, out in enumerate(self.deps.succ) if out]
        lines += ["  " + e for e in edges] or ["  -"]
        lines.append("frees (serial order):")
        lines += ["  " + f for f in _free_lines(plan, self.live)] or ["  -"]
        return "\n".join(lines)


def _instr_lines(plan, use_fast, pad, reused=None):
    """One line per instruction (``in place``: an output written into the
    buffer of an input that dies there, executor/reuse.py); under a
    control-flow op, its sub-block plans (cached by its runner:
    ``fn.sub_blocks``, executor/control_flow.py)."""
    names = plan.names
    fast = use_fast or [False] * len(plan.instrs)
    reused = reused or {}

    def slot(s):
        return "-" if s is None else names[s] if type(s) is int else \
            "[" + ", ".join(names[k] for k in s) + "]"

    lines = []
    for ins in plan.instrs:
        slots = [s.name for s in ins.opdef.inputs] if ins.opdef else list(ins.op._inputs)
        args = ", ".join(f"{n}={slot(s)}" for n, s in zip(slots, ins.ins) if s is not None)
        outs = ", ".join(slot(s) for s in ins.outs if s is not None)
        key = f"  [{ins.key}{', fast' if fast[ins.idx] else ''}]" if ins.key else ""
        pairs = reused.get(ins.idx)
        if pairs:
            key += "  in place: " + ", ".join(
                f"{slot(ins.outs[o])} <- {slot(ins.ins[i])}" for o, i in pairs)
        lines.append(f"{pad}#{ins.idx} {outs} = {ins.op.type}({args}){key}")
        for sub in getattr(ins.fn, "sub_blocks", ()):
            lines += _sub_lines(sub, pad + "    ")
    return lines


def _sub_lines(sub, pad):
    plan = sub.plan
    keep = ", keeps its scopes" if sub.keep else ""
    lines = [f"{pad}block {plan.block.idx}: {len(plan.instrs)} instructions{keep}",
             f"{pad}  reads: {', '.join(sub.in_names) or '-'}",
             f"{pad}  returns: {', '.join(sub.out_names) or '-'}"]
    lines += _instr_lines(plan, getattr(sub.fn, "use_fast", None), pad + "  ",
                          getattr(sub.live, "reused", None))
    frees = _free_lines(plan, sub.live)
    if frees:
        lines.append(f"{pad}  frees: {'; '.join(frees)}")
    return lines


def _free_lines(plan, live):
    return [f"after #{i}: {', '.join(plan.names[v] for v in f)}"
            for i, f in enumerate(live.serial_frees) if f]


def _check_feed(name, want, shape, a):
    if want is not None and a.dtype != want:
        raise ValueError(f"feed '{name}': expected dtype {want} (declared by static.data), "
                         f"got {a.dtype}; convert it with .astype('{want}')")
    if len(shape) != a.ndim or not all(d == -1 or d == s for d, s in zip(shape, a.shape)):
        raise ValueError(f"feed '{name}': expected shape {list(shape)} (declared by "
                         f"static.data; -1 is any size), got {list(a.shape)}")


class Executor:
    """Runs programs (Paddle's ``paddle.static.Executor``)."""

    def __init__(self, place=None, config=None):
        self.place = place if place is not None else CPUPlace()
        self.backend = backend_of_place(self.place) or CPU
        tune_allocator()            # reuse freed buffers across runs (memory.py)
        self.config = config or ExecutionConfig()
        self._cache = OrderedDict()
        # the same call again (same program version, feed names, fetch objects,
        # scope) finds its interpreter by identity, without rebuilding the key;
        # entries hold the objects whose ids they use, so no id is reused
        self._memo = {}

    def run(self, program=None, feed=None, fetch_list=None, feed_var_name="feed",
            fetch_var_name="fetch", scope=None, return_numpy=True, use_program_cache=True):
        program = _program(program)
        scope = scope if scope is not None else global_scope()
        feed = {} if feed is None else feed
        if not isinstance(feed, dict):
            raise TypeError(f"feed must be a dict of name -> array, got {type(feed).__name__}")
        try:
            interp = self.prepare(program, feed, fetch_list, scope, use_program_cache)
            if program._bound:
                interp.bind(program._bound)
            sched = getattr(program, "lr_scheduler", None)
            if sched is not None:
                _set_lr(program, sched, scope)
            return interp.run(feed, return_numpy)
        except Exception as e:
            if program._source is None:
                raise
            raise _from_model(e, program._source)


    def prepare(self, program=None, feed=None, fetch_list=None, scope=None,
                use_program_cache=True):
        """The interpreter ``run`` would use (built, or taken from the cache)."""
        program = _program(program)
        scope = scope if scope is not None else global_scope()
        if use_program_cache:
            fetch = _fetch_objects(fetch_list)
            memo_key = (id(program), program._version, tuple(feed) if feed else (),
                        tuple(f if type(f) is str else id(f) for f in fetch), id(scope))
            hit = self._memo.get(memo_key)
            if hit is not None:
                return hit[0]
        interp = self._prepare(program, feed, fetch_list, scope, use_program_cache)
        if use_program_cache:
            if len(self._memo) >= 4 * self.config.cache_size:
                self._memo.clear()
            self._memo[memo_key] = (interp, program, fetch, scope)
        return interp

    def _prepare(self, program, feed, fetch_list, scope, use_program_cache):
        block = program.global_block()
        feed_names = []
        for n in (feed or {}):
            if block.has_var(n):
                feed_names.append(n)
            else:
                warnings.warn(f"feed '{n}' is not a variable of the program; ignored",
                              stacklevel=3)
        feed_names = tuple(sorted(feed_names))
        fetch_names = _fetch_names(block, fetch_list)
        key = (program._signature(), feed_names, fetch_names, id(scope))
        interp = self._cache.get(key) if use_program_cache else None
        if interp is None or interp.scope is not scope:
            interp = Interpreter(program, feed_names, fetch_names, scope, self.backend,
                                 self.config)
            if use_program_cache:
                self._cache[key] = interp
                if len(self._cache) > self.config.cache_size:
                    self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return interp

    def explain(self, program=None, feed=None, fetch_list=None, scope=None, file=None):
        """Print (and return) the plan: instructions, dependency edges, frees."""
        text = self.prepare(program, feed, fetch_list, scope).explain()
        print(text, file=file)
        return text

    def close(self):
        for interp in self._cache.values():
            close = getattr(interp.runner, "close", None)
            if close is not None:
                close()
        self._cache.clear()
        self._memo.clear()


def _set_lr(program, sched, scope):
    """A program optimized with an LRScheduler (static minimize sets
    ``program.lr_scheduler``): its learning-rate variable gets the scheduler's
    current value before every run, as Paddle's Executor does."""
    var = program.global_block().vars.get(sched._var_name)
    if var is None:
        return
    sv = scope.find_var(var.name) or scope.var(var.name)
    sv.set(np.full(var.shape, sched(), dtype=var.np_dtype))


def _program(program):
    program = default_main_program() if program is None else program
    program = getattr(program, "_program", program)       # CompiledProgram-like wrappers
    if not isinstance(program, Program):
        raise TypeError(f"Executor.run needs a static Program, got {type(program).__name__}")
    return program


def _fetch_objects(fetch_list):
    if fetch_list is None:
        return ()
    return tuple(fetch_list) if isinstance(fetch_list, (list, tuple)) else (fetch_list,)


def _fetch_names(block, fetch_list):
    if fetch_list is None:
        return ()
    if not isinstance(fetch_list, (list, tuple)):
        fetch_list = [fetch_list]
    names = []
    for f in fetch_list:
        if isinstance(f, str):
            name = f
        elif is_graph_value(f):
            name = f.name
        else:
            raise TypeError(f"fetch_list items must be Variables or names, got "
                            f"{type(f).__name__}")
        if block._find_var_recursive(name) is None:
            raise ValueError(f"fetch target '{name}' is not a variable of the program")
        names.append(name)
    return tuple(names)


def _from_model(exc, source):
    """An error running a loaded program names the model file it came from
    (same exception object, type and traceback)."""
    where = f"model '{source}'"
    if exc.args and isinstance(exc.args[0], str) and source not in exc.args[0]:
        exc.args = (f"{where}: {exc.args[0]}",) + exc.args[1:]
    return exc
