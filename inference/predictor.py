"""``create_predictor(config)`` -> ``Predictor``: a saved model run on the executor.

Everything is resolved once, when the predictor is created: the model and its
parameters are read strictly (``save_load.program_io``), sampan's graph passes
run on a private copy (``inference.passes``, when ``Config.ir_optim()``), and
the executor plans the program once (variable table, kernels chosen, frees,
compiled straight-line runner).  A run then costs: one list of arrays (the
parameters, then the inputs in ``col`` order), one call of the compiled runner,
and handing the outputs to their handles.

``clone()`` shares the program, the plan and the parameter arrays (read-only
here) and gets its own input/output handles.  Handles follow Paddle Inference's
``Tensor``: ``reshape``, ``copy_from_cpu`` (copies, checks dtype and shape),
``copy_to_cpu``, ``shape``, ``name``, ``type``.  ``run([arrays]) -> [arrays]``
runs directly on a list of inputs.
"""
import operator

import numpy as np

from ..executor.executor import ExecutionConfig, Interpreter
from ..executor.scope import Scope
from ..kernels.registry import CPU
from ..ops import OpError
from ..save_load.atomic_set import reading
from ..save_load.fileio import FormatError, blame
from ..save_load.program_io import feed_fetch_targets, load_params, read_program
from ..utils.version import __version__
from .config import Config, DataType
from . import passes
from ..dygraph.tensor import Tensor as EagerTensor

__all__ = ["Predictor", "Tensor", "create_predictor", "get_version"]


def get_version():
    return f"sampan {__version__} (numpy CPU predictor)"


class _Core:
    """What clones share: the program, the plan's runner, the parameter arrays."""

    def __init__(self, config):
        model, pfile = config.prog_file(), config.params_file()
        if not model:
            raise ValueError("the Config names no model file: Config(model_file, "
                             "params_file) or Config(path_prefix)")
        with reading(model, pfile):     # an interrupted save is finished or reported first
            program = read_program(model)
            params = load_params(program, pfile, model)
        feeds, fetches = feed_fetch_targets(program, model)
        block = program.global_block()
        self.inputs = [(n, block.var(n)) for n in feeds]
        self.output_names = list(fetches)
        fetch_src = list(fetches)
        try:                            # an op the plan cannot run: name the model
            if config.ir_optim():
                program, fetch_src = passes.optimize(program, params, feeds, fetches,
                                                     skip=config._deleted_passes)
            self.program = program
            scope = Scope()
            for name, arr in params.items():
                scope.var(name).set(arr)
            interp = Interpreter(program, list(feeds), fetch_src, scope, CPU,
                                 ExecutionConfig())
        except (ValueError, OpError) as exc:
            raise blame(exc, model)
        plan = self.plan = interp.plan
        if plan.external:
            name = plan.names[plan.external[0]]
            user = plan.first_reader.get(plan.external[0])
            raise FormatError(f"{model}: variable '{name}' is read"
                              f"{' by ' + user.where() if user else ''} but is neither an "
                              f"input, a parameter nor computed by the model")
        self.runner = interp.runner
        self.persist = [params[plan.names[i]] for i in plan.persist_read]
        # outputs that may share memory with an input or a parameter are copied
        shared = set(plan.feed_idx) | set(plan.persist_read)
        self.aliased = [i in shared for i in plan.fetch_idx]
        self.model, self.params_file = model, pfile


class Tensor:
    """An input or output handle of a Predictor (Paddle Inference's ``Tensor``)."""
    __slots__ = ("_name", "_data", "_dtype", "_dims", "_is_input", "_handed", "_shape")

    def __init__(self, name, var=None, is_input=False):
        self._name = name
        self._data = None
        self._is_input = is_input
        self._handed = False
        self._shape = None
        self._dtype = var.np_dtype if var is not None else None
        self._dims = tuple(var.shape) if var is not None else None

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
        return [] if self._dims is None else list(self._dims)

    def type(self):
        d = self._data.dtype if self._data is not None else self._dtype
        return DataType.BY_NUMPY.get(np.dtype(d).name, -1) if d is not None else -1

    def lod(self):
        return []

    def set_lod(self, lod):
        pass

    def copy_from_cpu(self, data):
        if not self._is_input:
            raise ValueError(f"'{self._name}' is an output; copy_from_cpu is for inputs")
        a = np.array(getattr(data, "_data", data), copy=True, order="C")
        self._data = _checked_input(self._name, self._dtype, self._dims, a)

    def share_external_data(self, data):
        """Use ``data`` without copying (it must not change until run() returns)."""
        a = np.ascontiguousarray(getattr(data, "_data", data))
        self._data = _checked_input(self._name, self._dtype, self._dims, a)

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


def _shape_check(dims):
    """A fast ``shape -> bool`` for declared ``dims`` (-1: any size; None/(): unchecked)."""
    if not dims:
        return lambda shape: True
    n = len(dims)
    fixed = [i for i, d in enumerate(dims) if d >= 0]
    if not fixed:
        return lambda shape: len(shape) == n
    get = operator.itemgetter(*fixed)
    want = get(tuple(dims))
    return lambda shape: len(shape) == n and get(shape) == want


_CHECKS = {}


def _checked_input(name, dtype, dims, a):
    if dtype is not None and a.dtype != dtype:
        raise ValueError(f"input '{name}' expects {dtype} data, got {a.dtype}; convert it "
                         f"with .astype('{dtype}')")
    check = _CHECKS.get(dims)
    if check is None:
        check = _CHECKS[dims] = _shape_check(dims)
    if not check(a.shape):
        raise ValueError(f"input '{name}' expects shape {list(dims)} (-1: any size), got "
                         f"{list(a.shape)}")
    return a


class Predictor:
    """Runs one loaded model (see module docstring)."""

    def __init__(self, config, _core=None):
        if not isinstance(config, Config):
            raise TypeError(f"create_predictor needs an inference.Config, got "
                            f"{type(config).__name__}")
        self._config = config
        core = self._core = _core if _core is not None else _Core(config)
        self._inputs = [Tensor(n, v, True) for n, v in core.inputs]
        self._outputs = [Tensor(n) for n in core.output_names]
        self._in_by_name = {t._name: t for t in self._inputs}
        self._out_by_name = {t._name: t for t in self._outputs}
        self._runner = core.runner
        self._persist = core.persist

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
        return {n: list(v.shape) for n, v in self._core.inputs}

    # ------------------------------------------------------------- running
    def run(self, inputs=None):
        """Run on the input handles' data (returns True), or on ``inputs`` (a list of
        arrays or Tensors in input order) returning the outputs as a list."""
        if inputs is not None:
            try:
                return self._run_list(inputs)
            except (ValueError, OpError) as exc:       # bad inputs or a failing op: name the model
                raise blame(exc, self._core.model)
        args = self._persist + [t._data for t in self._inputs]
        for t in self._inputs:
            if t._data is None:
                raise ValueError(f"input '{t._name}' has no data; call "
                                 f"get_input_handle('{t._name}').copy_from_cpu(array) first")
        try:
            outs = self._runner(args)
        except (ValueError, OpError) as exc:
            raise blame(exc, self._core.model)
        for t, a, aliased in zip(self._outputs, outs, self._core.aliased):
            # an output that may share memory with an input or a parameter is never
            # handed out as is: copy_to_cpu copies it every time
            t._data, t._handed = a, aliased or a.base is not None
        return True

    zero_copy_run = run

    def _run_list(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) != len(self._inputs):
            raise ValueError(f"run() takes a list of {len(self._inputs)} input(s) "
                             f"{self.get_input_names()}, got "
                             f"{len(inputs) if isinstance(inputs, (list, tuple)) else inputs!r}")
        tensors = any(hasattr(x, "_data") for x in inputs)
        arrays = []
        for t, x in zip(self._inputs, inputs):
            a = getattr(x, "_data", x)
            a = a if type(a) is np.ndarray else np.asarray(a)
            arrays.append(_checked_input(t._name, t._dtype, t._dims, a))
        outs = self._runner(self._persist + arrays)
        res = []
        for t, a, aliased in zip(self._outputs, outs, self._core.aliased):
            if aliased or a.base is not None:
                a = a.copy()            # never hand out a view of an input or a parameter
            t._data, t._handed = a, True
            res.append(a)
        if tensors:
            return [EagerTensor(a) for a in res]
        return res

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

    def __repr__(self):
        return (f"<Predictor {self._core.model}: inputs {self.get_input_names()}, "
                f"outputs {self.get_output_names()}>")


def create_predictor(config):
    return Predictor(config)
