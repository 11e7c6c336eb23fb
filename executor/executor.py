"""``Executor.run(program, feed, fetch_list)``: find or build the interpreter
for (program signature, feed names, fetch names, scope), then run it.

An ``Interpreter`` is the Executor's ``PlanRun`` (executor/run_plan.py, the
path the partial program and the Predictor run too): planned once, its
persistables read from the scope at every run (eager tensors bound to the
program in place) and written back.  Here: the cache of interpreters, feeds
taken from a dict, fetches handed out as numpy arrays, a learning-rate
scheduler's value set before a run, errors of a loaded program naming its file.
"""
import warnings
from collections import OrderedDict

import numpy as np

from ..kernels.place import CPUPlace, backend_of_place
from ..kernels.registry import CPU
from ..kernels.transform import backend_of, to_backend
from ..program.framework import Program
from ..program.program_guard import default_main_program
from .compiled import CompiledProgram
from .run_plan import ExecutionConfig, PlanRun
from .scope import global_scope, LoDTensor
from ..ops import is_graph_value

__all__ = ["Executor", "ExecutionConfig", "Interpreter"]


class Interpreter(PlanRun):
    """The Executor's ``PlanRun`` (executor/run_plan.py): persistables from a
    scope, feeds from a ``{name: value}`` dict (those ``static.data`` declared
    are checked), fetches handed back as numpy arrays (or LoDTensors)."""

    def __init__(self, program, feed_names, fetch_names, scope, backend, config):
        super().__init__(program, feed_names, fetch_names, scope=scope, backend=backend,
                         config=config, check="data", noun="feed")

    def bind(self, bound):
        """Point the scope variables of eager-bound persistables at their tensors."""
        for name, t in bound.items():
            sv = self._scope_var(name)
            if sv._bound is not t:
                sv.bind(t)

    def run(self, feed, return_numpy=True):
        outs = self.run_arrays(self.feed_arrays(feed))
        return [_fetched(a, copy, return_numpy) for a, copy in zip(outs, self.fetch_aliased)]


def _fetched(a, copy, return_numpy):
    # kernels (ufuncs on 0-d arrays, the runner's fast forms) may leave a
    # numpy scalar; the user gets a 0-d array, as from Paddle
    if type(a) is not np.ndarray and isinstance(a, np.generic):
        a = np.asarray(a)
        copy = False
    if a is not None and backend_of(a) != CPU:
        a = to_backend(a, CPU)
    elif copy and a is not None:
        a = a.copy()            # the scope (or the caller's feed) keeps its own array
    return a if return_numpy else LoDTensor(a)


class Executor:
    """Runs programs (Paddle's ``paddle.static.Executor``)."""

    def __init__(self, place=None, config=None):
        self.place = place if place is not None else CPUPlace()
        self.backend = backend_of_place(self.place) or CPU
        self.config = config or ExecutionConfig()
        self._cache = OrderedDict()
        # the same call again (same program version, feed names, fetch objects,
        # scope) finds its interpreter by identity, without rebuilding the key;
        # entries hold the objects whose ids they use, so no id is reused
        self._memo = {}

    def run(self, program=None, feed=None, fetch_list=None, feed_var_name="feed",
            fetch_var_name="fetch", scope=None, return_numpy=True, use_program_cache=True):
        scope = scope if scope is not None else global_scope()
        program, config = _resolve(program, fetch_list, self.config, scope)
        feed = {} if feed is None else feed
        if isinstance(feed, (list, tuple)) and len(feed) == 1 and isinstance(feed[0], dict):
            feed = feed[0]      # one place's feed, as a static-mode DataLoader yields it
        if not isinstance(feed, dict):
            raise TypeError(f"feed must be a dict of name -> array (or a list holding one "
                            f"such dict, one per place), got {type(feed).__name__}"
                            + (f" of {len(feed)} items" if isinstance(feed, (list, tuple))
                               else ""))
        try:
            interp = self.prepare(program, feed, fetch_list, scope, use_program_cache, config)
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
                use_program_cache=True, config=None):
        """The interpreter ``run`` would use (built, or taken from the cache);
        ``config``: the execution config a CompiledProgram's strategies give."""
        scope = scope if scope is not None else global_scope()
        if config is None:
            program, config = _resolve(program, fetch_list, self.config, scope)
        if use_program_cache:
            fetch = _fetch_objects(fetch_list)
            memo_key = (id(program), program._version, tuple(feed) if feed else (),
                        tuple(f if type(f) is str else id(f) for f in fetch), id(scope),
                        id(config))
            hit = self._memo.get(memo_key)
            if hit is not None:
                return hit[0]
        interp = self._prepare(program, feed, fetch_list, scope, use_program_cache, config)
        if use_program_cache:
            if len(self._memo) >= 4 * self.config.cache_size:
                self._memo.clear()
            self._memo[memo_key] = (interp, program, fetch, scope, config)
        return interp

    def _prepare(self, program, feed, fetch_list, scope, use_program_cache, config):
        block = program.global_block()
        feed_names = []
        for n in (feed or {}):
            if block.has_var(n):
                feed_names.append(n)
            else:
                warnings.warn(f"feed '{n}' is not a variable of the program; ignored",
                              stacklevel=3)
        feed_names = tuple(sorted(feed_names))
        fetch_names = _fetch_names(fetch_list)
        key = (program._signature(), feed_names, fetch_names, id(scope))
        if config is not self.config:
            key += (config,)
        interp = self._cache.get(key) if use_program_cache else None
        if interp is None or interp.scope is not scope:
            interp = Interpreter(program, feed_names, fetch_names, scope, self.backend,
                                 config)
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


def _resolve(program, fetch_list, config, scope):
    """(the Program to run, its execution config): a CompiledProgram gives its
    compiled clone and the config its strategies ask for (executor/compiled.py)."""
    if isinstance(program, CompiledProgram):
        return program._prepared(_fetch_names(fetch_list), config, scope)
    return _program(program), config


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


def _fetch_names(fetch_list):
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
        names.append(name)
    return tuple(names)


def _from_model(exc, source):
    """An error running a loaded program names the model file it came from
    (same exception object, type and traceback)."""
    where = f"model '{source}'"
    if exc.args and isinstance(exc.args[0], str) and source not in exc.args[0]:
        exc.args = (f"{where}: {exc.args[0]}",) + exc.args[1:]
    return exc
