"""``static.CompiledProgram``, ``BuildStrategy`` and ``ExecutionStrategy``
(Paddle 2.6's ``paddle.base.compiler``; the strategies are pybind classes
there: fixed properties with Paddle's names and defaults, assigning any other
attribute raises AttributeError).

``Executor.run(compiled, feed, fetch_list)`` runs a CompiledProgram: the first
run for a (program version, fetch targets) pair clones the program and runs
the graph passes the BuildStrategy turns on (program/passes/: fused
elementwise_add+act, gemm epilogue, batch_norm+act, ``enable_auto_fusion``'s
trees of elementwise ops compiled by numba, merged optimizer ops);
the fetch targets stay computed.  That clone and the execution config the
strategies give (``enable_inplace`` -> buffer reuse, executor/reuse.py;
``memory_optimize=False`` -> no early frees of temporaries,
executor/liveness.py; ``ExecutionStrategy.num_threads > 1`` -> the threaded
runner) are cached, so a step costs one dict lookup more than a plain
Program.  As in Paddle, the strategy is read at that first compile; later
changes to it do not recompile.
"""
import dataclasses
from enum import IntEnum

from ..program.framework import Program
from ..program.passes import BUILD_PASSES, apply_passes

__all__ = ["CompiledProgram", "BuildStrategy", "ExecutionStrategy"]


class _ReduceStrategy(IntEnum):
    AllReduce = 0
    Reduce = 1
    _NoReduce = 2


_ReduceStrategy.__name__ = _ReduceStrategy.__qualname__ = "ReduceStrategy"


class _GradientScaleStrategy(IntEnum):
    CoeffNumDevice = 0
    One = 1
    Customized = 2


_GradientScaleStrategy.__name__ = _GradientScaleStrategy.__qualname__ = "GradientScaleStrategy"


def _bool(cls, name, v):
    if isinstance(v, bool) or (isinstance(v, int) and not isinstance(v, IntEnum)) \
            or type(v).__name__ == "bool_":
        return bool(v)
    raise TypeError(f"{cls}.{name}: incompatible value {v!r} ({type(v).__name__}); "
                    f"expected a bool")


def _int(cls, name, v):
    if isinstance(v, int) and not isinstance(v, bool):
        return int(v)
    raise TypeError(f"{cls}.{name}: incompatible value {v!r} ({type(v).__name__}); "
                    f"expected an int")


def _str(cls, name, v):
    if isinstance(v, str):
        return v
    raise TypeError(f"{cls}.{name}: incompatible value {v!r} ({type(v).__name__}); "
                    f"expected a str")


def _optional_bool(cls, name, v):
    if v is None or isinstance(v, bool):
        return v
    raise ValueError(f"{cls}.{name} must be set to None, False or True")


def _enum(enum):
    def check(cls, name, v):
        if isinstance(v, enum):
            return v
        raise TypeError(f"{cls}.{name}: incompatible value {v!r}; expected a "
                        f"{cls}.{enum.__name__} member")
    return check


def _set_of_str(cls, name, v):
    if isinstance(v, (set, frozenset, list, tuple)) and all(isinstance(s, str) for s in v):
        return set(v)
    raise TypeError(f"{cls}.{name}: expected a set of op type names, got {v!r}")


def _list_of_str(cls, name, v):
    if isinstance(v, (list, tuple)) and all(isinstance(s, str) for s in v):
        return list(v)
    raise TypeError(f"{cls}.{name}: expected a list of str, got {v!r}")


class _Strategy:
    """Fixed properties (``_FIELDS``: name -> (default, check)), values in ``_v``."""
    __slots__ = ("_v",)
    _FIELDS = {}

    def __init__(self):
        object.__setattr__(self, "_v", {k: (set(d) if isinstance(d, set) else
                                            list(d) if isinstance(d, list) else d)
                                        for k, (d, _) in self._FIELDS.items()})

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        for name, (_, check) in cls._FIELDS.items():
            setattr(cls, name, property(
                lambda self, n=name: self._v[n],
                lambda self, v, n=name, c=check: self._v.__setitem__(
                    n, c(type(self).__name__, n, v))))

    def __repr__(self):
        return f"<{type(self).__name__} " + ", ".join(
            f"{k}={v!r}" for k, v in self._v.items()) + ">"


_B, _I, _S = _bool, _int, _str


class BuildStrategy(_Strategy):
    """How ``CompiledProgram`` rewrites a program (Paddle's properties and
    defaults; the fusion switches run real passes, see the module docstring;
    the multi-device and CUDA switches are kept as settings)."""
    __slots__ = ()
    ReduceStrategy = _ReduceStrategy
    GradientScaleStrategy = _GradientScaleStrategy
    _FIELDS = {
        "allow_cuda_graph_capture": (False, _B), "async_mode": (False, _B),
        "bkcl_comm_num": (1, _I), "build_cinn_pass": (False, _B),
        "cache_runtime_context": (False, _B), "debug_graphviz_path": ("", _S),
        "enable_addto": (False, _B), "enable_auto_fusion": (False, _B),
        "enable_backward_optimizer_op_deps": (True, _B), "enable_inplace": (True, _B),
        "enable_sequential_execution": (False, _B), "fix_op_run_order": (False, _B),
        "fuse_adamw": (False, _B), "fuse_all_optimizer_ops": (False, _B),
        "fuse_all_reduce_ops": (True, _B), "fuse_bn_act_ops": (False, _B),
        "fuse_bn_add_act_ops": (True, _B), "fuse_broadcast_ops": (True, _B),
        "fuse_elewise_add_act_ops": (False, _B), "fuse_gemm_epilogue": (False, _B),
        "fuse_relu_depthwise_conv": (False, _B), "fused_attention": (False, _B),
        "fused_feedforward": (False, _B),
        "gradient_scale_strategy": (_GradientScaleStrategy.CoeffNumDevice,
                                    _enum(_GradientScaleStrategy)),
        "hierarchical_allreduce_inter_nranks": (0, _I), "is_distribution": (False, _B),
        "memory_optimize": (None, _optional_bool),
        "mkldnn_enabled_op_types": (set(), _set_of_str), "nccl_comm_num": (1, _I),
        "num_trainers": (1, _I),
        "reduce_strategy": (_ReduceStrategy.AllReduce, _enum(_ReduceStrategy)),
        "remove_unnecessary_lock": (True, _B), "sequential_run": (False, _B),
        "sync_batch_norm": (False, _B), "trainer_id": (0, _I),
        "trainers_endpoints": ([], _list_of_str), "use_hierarchical_allreduce": (False, _B),
    }

    def _passes(self):
        """The property names of the graph passes this strategy turns on."""
        return frozenset(name for name, _ in BUILD_PASSES if self._v[name])


class ExecutionStrategy(_Strategy):
    """How a ``CompiledProgram`` runs (Paddle's properties and defaults);
    ``num_threads`` > 1 picks the threaded runner with that many threads."""
    __slots__ = ()
    _FIELDS = {
        "allow_op_delay": (False, _B), "num_iteration_per_drop_scope": (100, _I),
        "num_iteration_per_run": (1, _I), "num_threads": (0, _I),
        "use_experimental_executor": (True, _B), "use_thread_barrier": (False, _B),
    }


class CompiledProgram:
    """A Program with a BuildStrategy, run by ``Executor.run`` (module docstring)."""

    def __init__(self, program_or_graph, build_strategy=None):
        if not isinstance(program_or_graph, Program):
            raise TypeError("The type of program_to_graph parameter is wrong, expected Graph "
                            f"or Program, but received {type(program_or_graph)}")
        if build_strategy is not None and not isinstance(build_strategy, BuildStrategy):
            raise TypeError(f"build_strategy must be a static.BuildStrategy, got "
                            f"{type(build_strategy).__name__}")
        _prune_feed_ops(program_or_graph)          # as Paddle does
        self._program = program_or_graph
        self._graph = None
        self._build_strategy = build_strategy
        self._exec_strategy = None
        self._compiled = {}        # (program version, fetch names, config id) -> entry
        self._enabled = None       # the strategy as read at the first compile
        self._scope = None
        self.applied = {}          # pass -> patterns rewritten, at the last compile

    def _prepared(self, fetch_names, base_config, scope=None):
        """(the program to run, its execution config) for these fetch names;
        ``scope``: the run's scope (one CompiledProgram runs in one scope, as
        in Paddle)."""
        if scope is not None:
            if self._scope is None:
                self._scope = scope
            elif scope is not self._scope:
                raise ValueError("Cannot compile program with different scope.")
        key = (self._program._version, fetch_names, id(base_config))
        hit = self._compiled.get(key)
        if hit is None:
            if len(self._compiled) >= 16:         # (old program versions, other fetches)
                self._compiled.pop(next(iter(self._compiled)))
            hit = self._compiled[key] = (*self._compile(fetch_names, base_config),
                                         base_config)
        return hit[:2]

    def _compile(self, fetch_names, base_config):
        if self._enabled is None:
            bs = self._build_strategy or BuildStrategy()
            es = self._exec_strategy
            threads = es.num_threads if es is not None else 0
            self._enabled = (bs._passes(), bs.enable_inplace, bs.memory_optimize is not False,
                             threads)
        passes, inplace, gc, threads = self._enabled
        config = dataclasses.replace(base_config, reuse=base_config.reuse and inplace,
                                     gc=base_config.gc and gc)
        if threads > 1:
            config = dataclasses.replace(config, runner="threaded", num_threads=threads)
        if not passes:
            return self._program, config
        src = self._program
        p = src.clone()
        for attr in ("lr_scheduler", "_source"):
            if getattr(src, attr, None) is not None:
                setattr(p, attr, getattr(src, attr))
        self.applied = apply_passes(p, passes, keep=fetch_names)
        return p, config


def _prune_feed_ops(program):
    block = program.global_block()
    for i in range(len(block.ops) - 1, -1, -1):
        if block.ops[i].type == "feed":
            block._remove_op(i)
