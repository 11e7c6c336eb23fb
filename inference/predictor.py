"""``create_predictor(config)`` -> ``Predictor``: a saved model run on the executor.

Everything is resolved once, when the predictor is created: the model and its
parameters are read strictly (``save_load.program_io``), sampan's graph passes
run on a private copy (``inference.passes``, when ``Config.ir_optim()``), and
the executor plans the program once with the parameter arrays bound
(``executor.run_plan.PlanRun``, the path the Executor and to_static run too:
variable table, kernels chosen, frees, compiled straight-line runner; inputs
checked against the model's declarations with its messages).  A run then
costs: one list of arrays (the parameters, then the inputs in ``col`` order),
one call of the compiled runner (where its values can pass 32 MB, its blocks
served from glibc's heap so the next run finds them in place:
``kernels.host_memory.large_from_heap``), and handing the outputs to their
handles.

``Config.enable_profile()`` runs the plan through the executor's timed loop
instead (inference/profile.py): ``profile_report()`` tells where the time went.

``clone()`` shares the program, the plan and the parameter arrays (read-only
here) and gets its own input/output handles.  Handles follow Paddle Inference's
``Tensor``: ``reshape``, ``copy_from_cpu`` (copies, checks dtype and shape),
``copy_to_cpu``, ``shape``, ``name``, ``type``.  ``run([arrays]) -> [arrays]``
runs directly on a list of inputs.
"""
import contextlib
import functools
import math
import weakref

import numpy as np

from ..executor.run_plan import ExecutionConfig, PlanRun
from ..kernels.blas_threads import set_blas_threads
from ..kernels.host_memory import MMAP_THRESHOLD, large_from_heap
from ..kernels.registry import CPU
from ..ops import OpError
from ..save_load.atomic_set import reading
from ..save_load.fileio import blame
from ..save_load.manifest import read_model, sidecars
from ..save_load.program_io import feed_fetch_targets
from ..utils.version import __version__
from .config import Config, DataType
from . import passes
from .profile import OpProfile
from ..dygraph.tensor import wrap as eager_tensor

__all__ = ["Predictor", "PredictorPool", "Tensor", "create_predictor", "get_version",
           "get_trt_compile_version", "get_trt_runtime_version"]


def get_version():
    return f"sampan {__version__} (numpy CPU predictor)"


def get_trt_compile_version():
    """TensorRT's version this build was compiled with: none, (0, 0, 0), as
    Paddle's builds without TensorRT answer."""
    return (0, 0, 0)


def get_trt_runtime_version():
    """TensorRT's version found at run time: none, (0, 0, 0)."""
    return (0, 0, 0)


class _Core:
    """What clones share: the program and its ``PlanRun`` (parameters bound)."""

    def __init__(self, config):
        model, pfile = config.prog_file(), config.params_file()
        if not model:
            raise ValueError("the Config names no model file: Config(model_file, "
                             "params_file) or Config(path_prefix)")
        # an interrupted save (its manifest too) is finished or reported first
        with reading(model, pfile, *sidecars(model)):
            program, params = read_model(model, pfile)      # + its manifest's checks
        feeds, fetches = feed_fetch_targets(program, model)
        if config._threads_given:
            set_blas_threads(config.cpu_math_library_num_threads())
        self.output_names = list(fetches)
        self.pass_report = []           # (pass, op types removed, added): explain()
        try:                            # an op the plan cannot run: name the model
            fetch_src = list(fetches)
            if config.ir_optim():
                program, fetch_src = passes.optimize(program, params, feeds, fetches,
                                                     skip=config._deleted_passes,
                                                     report=self.pass_report)
            self.program = program
            # Config.enable_profile: every op timed through the executor's hook
            self.profile = OpProfile() if config._profile else None
            exe = ExecutionConfig(hook=self.profile.hook) if self.profile else None
            self.run = PlanRun(program, feeds, fetch_src, arrays=params, backend=CPU,
                               check="all", noun="input", write_back=False, config=exe)
            self.row_bytes = _row_bytes(self.run.plan)
        except (ValueError, RuntimeError, OpError) as exc:
            raise blame(exc, model)
        self.inputs = self.run.feeds
        self.model, self.params_file = model, pfile


class Tensor:
    """An input or output handle of a Predictor (Paddle Inference's ``Tensor``)."""
    __slots__ = ("_name", "_data", "_spec", "_is_input", "_handed", "_shape")

    def __init__(self, name, spec=None):
        self._name = name
        self._data = None
        self._spec = spec               # an input's FeedSpec (executor/run_plan.py)
        self._is_input = spec is not None
        self._handed = False
        self._shape = None

    def name(self):
        return self._name

    def reshape(self, shape):
        if not self._is_input:
            raise ValueError(f"output '{self._name}' cannot be reshaped")
        self._shape = [int(d) for d in shape]

    def shape(self):
        if self._data is not None:
            return list(self._data.shape)
        if self._shape is not None:
            return list(self._shape)
        dims = self._spec.dims if self._spec is not None else None
        return [] if dims is None else list(dims)

    def type(self):
        d = self._data.dtype if self._data is not None else \
            (self._spec.dtype if self._spec is not None else None)
        return DataType.BY_NUMPY.get(np.dtype(d).name, -1) if d is not None else -1

    def lod(self):
        return []

    def set_lod(self, lod):
        pass

    def copy_from_cpu(self, data):
        if not self._is_input:
            raise ValueError(f"'{self._name}' is an output; copy_from_cpu is for inputs")
        a = np.array(getattr(data, "_data", data), copy=True, order="C")
        self._data = self._spec.check(a)

    def share_external_data(self, data):
        """Use ``data`` without copying (it must not change until run() returns)."""
        a = np.ascontiguousarray(getattr(data, "_data", data))
        self._data = self._spec.check(a)

    def copy_to_cpu(self):
        a = self._data
        if a is None:
            what = "copy_from_cpu() first" if self._is_input else "run() first"
            raise ValueError(f"tensor '{self._name}' holds no data; call {what}")
        if self._handed or self._is_input:
            return a.copy()
        self._handed = True             # a fresh result of run(): the first caller owns it
        return a

    def __repr__(self):
        return f"<inference Tensor {self._name} {self.shape()}>"


class Predictor:
    """Runs one loaded model (see module docstring)."""

    def __init__(self, config, _core=None):
        if not isinstance(config, Config):
            raise TypeError(f"create_predictor needs an inference.Config, got "
                            f"{type(config).__name__}")
        self._config = config
        core = self._core = _core if _core is not None else _Core(config)
        self._inputs = [Tensor(spec.name, spec) for spec in core.inputs]
        self._outputs = [Tensor(n) for n in core.output_names]
        self._in_by_name = {t._name: t for t in self._inputs}
        self._out_by_name = {t._name: t for t in self._outputs}
        self._run = core.run.run_arrays if core.profile is None else \
            functools.partial(_profiled_run, core)      # (no reference to self: no cycle)
        self._aliased = core.run.fetch_aliased
        if core.profile is not None and _core is None:
            # Paddle prints the report when the predictor goes away (clones share it)
            weakref.finalize(core, _print_report, core.profile)

    # ------------------------------------------------------------- names, handles
    def get_input_names(self):
        return [t._name for t in self._inputs]

    def get_output_names(self):
        return [t._name for t in self._outputs]

    def get_input_handle(self, name):
        try:
            return self._in_by_name[name]
        except KeyError:
            raise ValueError(f"the model has no input '{name}'; inputs: "
                             f"{self.get_input_names()}") from None

    def get_output_handle(self, name):
        try:
            return self._out_by_name[name]
        except KeyError:
            raise ValueError(f"the model has no output '{name}'; outputs: "
                             f"{self.get_output_names()}") from None

    get_input_tensor = get_input_handle
    get_output_tensor = get_output_handle

    def get_input_tensor_shape(self):
        return {spec.name: list(spec.dims) for spec in self._core.inputs}

    # ------------------------------------------------------------- running
    def run(self, inputs=None):
        """Run on the input handles' data (returns True), or on ``inputs`` (a list of
        arrays or Tensors in input order) returning the outputs as a list."""
        if inputs is not None:
            try:
                return self._run_list(inputs)
            except (ValueError, OpError) as exc:       # bad inputs or a failing op: name the model
                raise blame(exc, self._core.model)
        feeds = [t._data for t in self._inputs]
        for t, a in zip(self._inputs, feeds):
            if a is None:
                raise t._spec.not_fed(f"call get_input_handle('{t._name}')"
                                      f".copy_from_cpu(array) first")
        try:
            with self._heap(feeds):     # this run's large blocks kept for the next
                outs = self._run(feeds)
        except (ValueError, OpError) as exc:
            raise blame(exc, self._core.model)
        for t, a, aliased in zip(self._outputs, outs, self._aliased):
            # an output that may share memory with an input or a parameter is never
            # handed out as is: copy_to_cpu copies it every time
            t._data, t._handed = a, aliased or a.base is not None
        return True

    zero_copy_run = run

    def profile_report(self):
        """The profiling report so far (``Config.enable_profile()``; sampan extra),
        or None when profiling is off."""
        prof = self._core.profile
        return None if prof is None else prof.report()

    def _run_list(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) != len(self._inputs):
            raise ValueError(f"run() takes a list of {len(self._inputs)} input(s) "
                             f"{self.get_input_names()}, got "
                             f"{len(inputs) if isinstance(inputs, (list, tuple)) else inputs!r}")
        tensors = any(hasattr(x, "_data") for x in inputs)
        feeds = [t._spec.accept(x) for t, x in zip(self._inputs, inputs)]
        res = []
        with self._heap(feeds):         # the output copies below included
            outs = self._run(feeds)
            for t, a, aliased in zip(self._outputs, outs, self._aliased):
                if aliased or a.base is not None:
                    a = a.copy()        # never hand out a view of an input or a parameter
                t._data, t._handed = a, True
                res.append(a)
        if tensors:
            return [eager_tensor(a) for a in res]
        return res

    def _heap(self, feeds):
        """``large_from_heap()`` (kernels/host_memory.py) where this run may make
        blocks past glibc's mmap threshold, judged from the largest value the
        plan declares per sample (once, at load) times the batch; else a
        context that does nothing (the switch costs ~1.4 us: a tenth of a
        small model's run)."""
        per_row = self._core.row_bytes
        if per_row is not None:
            rows = feeds[0].shape[0] if feeds and getattr(feeds[0], "ndim", 0) else 1
            if rows * per_row < MMAP_THRESHOLD:
                return _NO_HOLD
        return large_from_heap()

    def clone(self, stream=None):
        """A predictor sharing this one's program, plan and weights."""
        return Predictor(self._config, self._core)

    def clear_intermediate_tensor(self):
        pass

    def try_shrink_memory(self):
        return 0

    @property
    def program(self):
        """The (optimized) program this predictor runs (sampan extra)."""
        return self._core.program

    def explain(self):
        """What the inference passes changed when this predictor loaded its
        model, pass by pass (op types removed -> added; sampan extra)."""
        return passes.describe(self._core.pass_report)

    def __repr__(self):
        return (f"<Predictor {self._core.model}: inputs {self.get_input_names()}, "
                f"outputs {self.get_output_names()}>")


_NO_HOLD = contextlib.nullcontext()


def _row_bytes(plan):
    """The largest value the plan computes, in bytes per unit of its first dim
    (a known first dim counted in full); None where a value has an unknown dim
    past the first (any size)."""
    big = 0
    for v in plan.vars:
        if v.persistable:
            continue
        shape = tuple(v.shape or ())
        if any(d < 0 for d in shape[1:]):
            return None
        dt = v.np_dtype
        big = max(big, math.prod(d for d in shape if d > 0) * (dt.itemsize if dt else 8))
    return big


def _profiled_run(core, feeds):
    core.profile.begin()
    try:
        return core.run.run_arrays(feeds)
    finally:
        core.profile.end()


def _print_report(profile):
    if profile.runs:
        print(profile.report(), flush=True)


def create_predictor(config):
    return Predictor(config)


class PredictorPool:
    """``size`` predictors of one config, for one thread each: the first made
    from ``config``, the others its clones (program, plan and weights shared,
    inputs and outputs their own).  ``retrive(idx)`` (Paddle's spelling) gives
    predictor ``idx``."""

    def __init__(self, config, size=1):
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"PredictorPool: the pool size must be an int >= 1, got {size!r}")
        first = Predictor(config)
        self._preds = [first] + [first.clone() for _ in range(size - 1)]

    def retrive(self, idx):
        if isinstance(idx, bool) or not isinstance(idx, int) or not 0 <= idx < len(self._preds):
            raise ValueError(f"PredictorPool.retrive: there are {len(self._preds)} predictors "
                             f"in the pool, index {idx!r} is not one of 0..{len(self._preds) - 1}")
        return self._preds[idx]
