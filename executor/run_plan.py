"""Run a plan on arrays: the one path from values to results that the Executor,
jit's partial program (to_static's runner) and the inference Predictor share.

``PlanRun(program, feed_names, fetch_names, <persistables>)`` plans the
program's global block once (plan -> dependencies -> liveness -> runner, as the
``ExecutionConfig`` says) and settles, once, everything a run needs besides its
feeds:

- where the persistables it reads come from, given by exactly one of
  ``scope=`` (the Executor: scope variables, read at every run and written
  back; one with no value is an error naming the op that reads it),
  ``tensors=`` (the partial program: name -> eager tensor, read in place
  through ``tensor._data`` and written back; every one must be bound) or
  ``arrays=`` (the Predictor: read-only arrays fixed now);
- one ``FeedSpec`` per feed variable: it turns a value into an array and
  checks dtype and shape against the declaration (``check``: "data" checks
  the variables declared by ``static.data``, "all" every feed, None none),
  with one set of messages naming the variable, expected against actual;
- the variables the block reads that are neither fed, computed nor
  persistable: with a scope they are looked up there at every run (a value
  set in the scope stands for a feed), otherwise building fails naming them;
- the fetch names (an unknown one fails here) and which fetches may share
  memory with a value the run loaded (``fetch_aliased``: a caller that hands
  results out copies those).

A run, ``prepared.run_arrays(feeds)`` (``feeds`` in ``feed_names`` order,
already accepted), is then: the persistables' values, the feeds, the scope
values -> the planned runner -> the persistables it wrote stored back -> the
fetches.  ``run_arrays`` itself is composed at build for this plan's sources
(no branch a run does not need).
"""
import operator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..kernels.registry import CPU
from ..kernels.transform import backend_of, to_backend
from . import deps as D, liveness as L
from .explain import explain
from .numerics import switch as _numerics_switch
from .plan import Plan
from .reuse import shape_only_inputs as _shape_only_inputs
from .runner import CompiledSerial, LoopSerial, Threaded

__all__ = ["PlanRun", "FeedSpec", "ExecutionConfig"]


@dataclass(frozen=True)
class ExecutionConfig:
    """How programs run.  ``runner``: "serial" (compiled straight-line code, or an
    interpreted loop when ``hook`` is set) or "threaded"; ``hook(instr, values)``
    is called after every instruction (instrumentation); ``specialize`` lets
    the compiled runner call kernels' ``fast`` forms; ``reuse`` lets an op write
    its output into the buffer of an input that dies at it (executor/reuse.py);
    ``cache_size`` bounds the interpreter cache of an Executor; ``gc=False``
    keeps every temporary until the run ends (executor/liveness.py)."""
    runner: str = "serial"
    num_threads: int = 4
    specialize: bool = True
    reuse: bool = True
    hook: Any = None
    cache_size: int = 64
    gc: bool = True

    def __post_init__(self):
        if self.runner not in ("serial", "threaded"):
            raise ValueError(f"ExecutionConfig.runner must be 'serial' or 'threaded', "
                             f"got {self.runner!r}")


_DEFAULT = ExecutionConfig()
_CHECKS = (None, "data", "all")


class PlanRun:
    """A program's global block planned once for fixed feeds and fetches, its
    persistables bound; ``run_arrays(feeds) -> fetches`` (module docstring).

    ``shape_only``: names among the fetches whose values the caller reads only
    for their shapes (the partial program's forward values that its backward
    reads through shape-only kernel inputs); ops may reuse their buffers.
    ``noun`` names a feed in messages ("feed" for ``Executor.run``'s dict,
    "input" for a model's inputs).  ``write_back=False`` leaves the
    persistables the block writes as they are."""

    def __init__(self, program, feed_names, fetch_names, *, scope=None, tensors=None,
                 arrays=None, backend=CPU, config=None, shape_only=(), check="data",
                 noun="feed", write_back=True):
        if [scope, tensors, arrays].count(None) != 2:
            raise TypeError("PlanRun needs exactly one source of persistable values: "
                            "scope=, tensors= or arrays=")
        if check not in _CHECKS:
            raise ValueError(f"PlanRun check must be one of {_CHECKS}, got {check!r}")
        self.scope, self.backend, self.config = scope, backend, config or _DEFAULT
        block = program.global_block()
        for n in fetch_names:
            if block._find_var_recursive(n) is None:
                raise ValueError(f"fetch target '{n}' is not a variable of the program")
        plan = self.plan = Plan(block, tuple(feed_names), tuple(fetch_names), backend)
        self._build_runner(shape_only)
        self.feed_names, self.fetch_names = plan.feed_names, plan.fetch_names
        self.feeds = tuple(FeedSpec(plan.vars[i], noun, _checked(check, plan.vars[i]), backend)
                           for i in plan.feed_idx)
        self.n_fetch = len(plan.fetch_idx)
        loaded = set(plan.loaded)
        self.fetch_aliased = tuple(i in loaded or plan.vars[i].persistable
                                   for i in plan.fetch_idx)
        self._external = [plan.names[i] for i in plan.external]
        if self._external and scope is None:
            raise self.unfed(plan.external[0])
        self._n_written = len(plan.persist_written)
        self._bind(scope, tensors, arrays)
        self._write_back = write_back and self._n_written > 0 and arrays is None
        self.run_arrays = self._compose(arrays is not None)

    def _build_runner(self, shape_only):
        """Dependencies, liveness (``shape_only`` fetches' buffers may be reused)
        and the runner the config asks for."""
        plan, config = self.plan, self.config
        self.deps = D.build(plan.instrs)
        fetched = set(plan.fetch_idx) - set(plan.loaded)
        keep_shape = tuple(i for i in (plan.index.get(n) for n in shape_only)
                           if i in fetched and not plan.vars[i].persistable)
        self.live = L.build(plan, self.deps, config.reuse, keep_shape, config.gc)
        if config.runner == "threaded":
            self.runner = Threaded(plan, self.deps, self.live, config.num_threads, config.hook)
        elif config.hook is not None:
            self.runner = LoopSerial(plan, self.live, config.hook)
        else:
            self.runner = CompiledSerial(plan, self.live, config.specialize)

    def _bind(self, scope, tensors, arrays):
        """Where the persistables the plan reads (``_read``) and writes
        (``_written``) live, and how to read (``load``) and store them."""
        plan, names = self.plan, self.plan.names
        if scope is not None:
            self._read = [self._scope_var(names[i]) for i in plan.persist_read]
            self._written = [self._scope_var(names[i]) for i in plan.persist_written]
            self.load, self._store = self._load_scope, self._store_scope
        elif tensors is not None:
            self._read = [self._bound(tensors, i) for i in plan.persist_read]
            self._written = [self._bound(tensors, i) for i in plan.persist_written]
            self.load, self._store = self._load_tensors, self._store_tensors
        else:
            missing = [i for i in plan.persist_read if arrays.get(names[i]) is None]
            if missing:
                raise self._no_value(missing[0], "has no value among the model's parameters")
            self._read = [arrays[names[i]] for i in plan.persist_read]
            self._written = None        # read-only: what the block writes is dropped
            self.load, self._store = self._read.copy, None

    # ------------------------------------------------------------- running
    def _compose(self, fixed):
        """``run_arrays(feeds, persist=None)``: run on ``feeds`` (arrays, in
        ``feed_names`` order, already accepted) -> the fetches' values, in
        ``fetch_names`` order.  ``persist``: the persistables' values as
        ``load()`` gave them earlier (default: read now)."""
        load, n = self.load, self.n_fetch
        # FLAGS_check_nan_inf: one test per run picks the checking loop (executor/numerics.py)
        runner = _numerics_switch(self.plan, self.live, self.runner, self.config.hook)
        if fixed and not self._n_written:
            values = self._read

            def run_fixed(feeds, persist=None):
                return runner((values if persist is None else list(persist)) + feeds)
            return run_fixed
        external = self._external_values if self._external else None
        store = self._store if self._write_back else None
        written = self._n_written

        def run_arrays(feeds, persist=None):
            inputs = load() if persist is None else list(persist)
            inputs += feeds
            if external is not None:
                inputs += external()
            outs = runner(inputs)
            if not written:
                return outs
            if store is not None:
                store(outs[n:])
            return outs[:n]
        return run_arrays

    def feed_arrays(self, feed):
        """The feeds of a ``{name: value}`` dict, accepted (converted and checked)."""
        try:
            return [spec.accept(feed[spec.name]) for spec in self.feeds]
        except KeyError:
            missing = [s for s in self.feeds if s.name not in feed]
            if not missing:
                raise
            raise missing[0].not_fed(f"pass feed={{'{missing[0].name}': array}}") from None

    def check_feeds(self, arrays):
        """``arrays`` (in ``feed_names`` order) checked against the feeds' declarations."""
        for spec, a in zip(self.feeds, arrays):
            spec.check(a)
        return arrays

    def shape_only_inputs(self):
        """Names of the values this plan loads (feeds, scope values) that it reads
        only for their shapes (kernels' ``shape_only`` inputs)."""
        return [self.plan.names[i] for i in _shape_only_inputs(self.plan)]

    def explain(self):
        """The plan as text: instructions (a control-flow op's sub-block plans
        nested under it), reduced dependency edges, frees."""
        return explain(self.plan, self.deps, self.live, self.runner)

    # ------------------------------------------------------------- persistables
    def _scope_var(self, name):
        return self.scope.find_var(name) or self.scope.var(name)

    def _load_scope(self):
        values = []
        for k, sv in enumerate(self._read):
            a = sv.get()
            if a is None:
                a = self._reload(k)
            values.append(a)
        return values

    def _reload(self, k):
        sv = self._read[k] = self._scope_var(self._read[k].name)   # created since?
        a = sv.get()
        if a is None:
            raise self._no_value(self.plan.persist_read[k],
                                 "is not initialized in the scope; run the startup program "
                                 "first (exe.run(startup_program)) or set it in the scope")
        return a

    def _store_scope(self, values):
        for sv, a in zip(self._written, values):
            sv.set(np.asarray(a) if isinstance(a, np.generic) else a)

    def _load_tensors(self):
        return [t._data for t in self._read]

    def _store_tensors(self, values):
        for t, a in zip(self._written, values):
            a = np.asarray(a) if isinstance(a, np.generic) else a
            if getattr(t, "_alias", None) is None:
                t._data = a
            else:                   # an eager tensor with views: they see the write
                t._write_shared(a)

    def _bound(self, tensors, i):
        t = tensors.get(self.plan.names[i])
        if t is None:
            raise self._no_value(i, "is not an eager tensor (a Layer parameter or buffer) "
                                    "bound to the program; create parameters in the Layer's "
                                    "__init__, not inside the converted function")
        return t

    def _external_values(self):
        values = []
        for name in self._external:
            sv = self.scope.find_var(name)
            a = None if sv is None else sv.get()
            if a is None:
                raise self.unfed(self.plan.index[name])
            values.append(a)
        return values

    # ------------------------------------------------------------- messages
    def _reader(self, i):
        user = self.plan.first_reader.get(i)
        return f"read by {user.where()}" if user is not None else "fetched"

    def _no_value(self, i, why):
        var = self.plan.vars[i]
        return RuntimeError(f"persistable variable '{self.plan.names[i]}' ({var.type_str()}), "
                            f"{self._reader(i)}, {why}")

    def unfed(self, i):
        """The error for variable ``i``, read by the block but never fed, computed
        nor held (with a scope: set in it)."""
        name, var = self.plan.names[i], self.plan.vars[i]
        kind = "data" if var.need_check_feed else "variable"
        if self.scope is not None:
            return ValueError(f"{kind} '{name}' ({var.type_str()}) is {self._reader(i)} but was "
                              f"not fed, is not computed by the program and has no value in "
                              f"the scope; pass feed={{'{name}': array}}")
        return ValueError(f"{kind} '{name}' ({var.type_str()}) is {self._reader(i)} but was not "
                          f"fed, is not computed by the program and is not a persistable")


def _checked(check, var):
    return check == "all" or (check == "data" and var.need_check_feed)


class FeedSpec:
    """One feed variable: ``accept(value)`` turns a value into an array on the
    run's backend, ``check(array)`` compares it with the declaration (when the
    spec checks: dtype, then rank and every dimension that is not -1)."""
    __slots__ = ("name", "var", "noun", "dtype", "dims", "_shape_ok", "_backend")

    def __init__(self, var, noun="feed", check=True, backend=CPU):
        self.name, self.var, self.noun = var.name, var, noun
        self.dtype = var.np_dtype
        self.dims = tuple(var.shape) if var.shape is not None else None
        self._shape_ok = _shape_check(self.dims) if check and self.dims is not None else None
        if check and self._shape_ok is None:
            self._shape_ok = _any_shape
        self._backend = backend if backend != CPU else None

    def accept(self, value):
        """``value`` (an array, an eager Tensor, anything numpy converts; lists and
        numbers take the declared dtype) as a checked array."""
        a = value if type(value) is np.ndarray else getattr(value, "_data", None)
        if a is None:
            a = np.asarray(value) if hasattr(value, "__array__") else \
                np.asarray(value, dtype=self.dtype)
        ok = self._shape_ok
        if ok is not None and not ((self.dtype is None or a.dtype == self.dtype)
                                   and ok(a.shape)):
            self.check(a)               # (raises: which check failed)
        if self._backend is not None and backend_of(a) != self._backend:
            a = to_backend(a, self._backend)
        return a

    def check(self, a):
        """``a`` itself when it has the declared dtype and shape, else a ValueError."""
        ok = self._shape_ok
        if ok is None or ((self.dtype is None or a.dtype == self.dtype) and ok(a.shape)):
            return a
        if self.dtype is not None and a.dtype != self.dtype:
            raise ValueError(f"{self.noun} '{self.name}': expected dtype {self.dtype}, got "
                             f"{a.dtype}; convert it with .astype('{self.dtype}')")
        raise ValueError(f"{self.noun} '{self.name}': expected shape {list(self.dims)} "
                         f"(-1 is any size), got {list(a.shape)}")

    def not_fed(self, hint):
        """The error for this feed given no value; ``hint`` says how to give one."""
        return ValueError(f"{self.noun} '{self.name}' ({self.var.type_str()}) was not fed; "
                          f"{hint}")


def _any_shape(shape):
    return True


def _shape_check(dims):
    """A fast ``shape -> bool`` for declared ``dims`` (-1: any size)."""
    n = len(dims)
    fixed = [i for i, d in enumerate(dims) if d >= 0]
    if len(fixed) == n:
        return dims.__eq__
    if not fixed:
        return lambda shape: len(shape) == n
    get = operator.itemgetter(*fixed)
    want = get(dims)
    return lambda shape: len(shape) == n and get(shape) == want
