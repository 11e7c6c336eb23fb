"""``sampan.jit.load(path_prefix)`` -> ``TranslatedLayer``: a saved model as an
``nn.Layer``.

Loading reads ``path.pdmodel`` and ``path.pdiparams`` strictly (``save_load``),
and every ``path.<method>.pdmodel`` (+ ``path.<method>.pdiparams``) beside them
as an extra method, under ``save_load.atomic_set.reading`` (a save of that prefix
killed half-way is finished first, or reported naming the files).  Each persistable
becomes one eager tensor shared by all methods, renamed as Paddle does
(``linear_0.w_0`` -> ``linear_0.w_0.load_0``, in the programs too, so it never
clashes with layers built later; ``jit.save`` writes the original names back): a
*parameter* (``Parameter``, trainable unless ``.pdiparams.info`` says otherwise)
when some op reads it and none writes it (Paddle's rule), else a *buffer* (BatchNorm
running statistics).

Each method's program is the saved one without its feed/fetch ops and without
the ``save_infer_model/scale_<k>`` output copies (as Paddle's loader keeps it,
and what ``program()`` returns); a call runs it through the partial program of
``jit`` (``PartialProgram``) with the layer's tensors bound to its persistables
(no copies), its inputs checked against the saved declarations (dtype, shape;
the messages every run of a plan gives, executor/run_plan.py): forward only
when no gradient is needed, else forward + one grad node whose backward runs
the program's backward, so ``loss.backward()`` and an optimizer fine-tune the
loaded parameters.  ``train()`` runs a copy whose
``is_test`` attributes are false (dropout active, batch norm on batch
statistics, running statistics updated), ``eval()`` the saved inference program.
"""
import os

import numpy as np

from ..dygraph import no_grad
from ..dygraph.tensor import Tensor, Parameter
from ..dygraph.tensor import wrap
from ..nn.layer.layers import Layer
from ..ops import OpError, is_graph_value
from ..save_load.fileio import FormatError, blame
from ..save_load.atomic_set import reading
from ..save_load.params_info import read_params_info
from ..save_load.manifest import read_model
from ..save_load.program_io import feed_fetch_targets
from ..save_load.prune import OUTPUT_PREFIX
from ..executor.optimize_hook import inference_optimizer
from ..program.data import InputSpec
from ..utils import unique_name

__all__ = ["TranslatedLayer", "load"]

_HOLDERS = ("feed", "fetch", "fetch_v2")
LOADED_SUFFIX = ".load"


class _Concrete:
    """What ``PartialProgram`` reads of a concrete program."""

    def __init__(self, main_program, inputs, outputs):
        self.main_program, self.inputs, self.outputs = main_program, inputs, outputs


class _Method:
    """One loaded program: its inference/training copies and their runners."""

    def __init__(self, name, program, feeds, fetches, tensors, ir_optim=False):
        self.name = name
        self.ir_optim = ir_optim
        self.program, outs = _strip(program, fetches)
        _restore_xshape(self.program)
        self.feeds, self.fetches = list(feeds), outs
        block = self.program.global_block()
        self.input_vars = [block.var(n) for n in self.feeds]
        for v in self.input_vars:          # ids and masks take no gradient
            if v.np_dtype is None or v.np_dtype.kind not in "fc":
                v.stop_gradient = True
        used = {n for b in self.program.blocks for op in b.ops
                for n in op.input_arg_names + op.output_arg_names}
        self.program._bound = {n: t for n, t in tensors.items() if n in used}
        self.train_program = self.program.clone()
        for b in self.train_program.blocks:
            for op in b.ops:
                if op.has_attr("is_test"):
                    op._set_attr("is_test", False)
        self._runners = {}

    def runner(self, training):
        pp = self._runners.get(training)
        if pp is None:
            from .partial_program import PartialProgram
            prog = self.train_program if training else self.program
            fetches = self.fetches
            if not training and self.ir_optim:
                prog, fetches = self._optimized()
            block = prog.global_block()
            concrete = _Concrete(prog, [block.var(n) for n in self.feeds],
                                 [block.var(n) for n in fetches])
            pp = self._runners[training] = PartialProgram(concrete, check_inputs=True)
        return pp

    def _optimized(self):
        """The eval program through the inference passes (``jit.load(...,
        ir_optim=True)``): folded weights are new tensors made from the
        parameters' values now; ``TranslatedLayer.train()`` and
        ``set_state_dict`` drop them, so the next eval call folds again.  Eval
        calls of such a layer run without gradients (fused ops have none)."""
        optimize = inference_optimizer()
        if optimize is None:
            return self.program, self.fetches
        bound = self.program._bound
        params = {n: t.numpy() for n, t in bound.items()}
        prog, fetches = optimize(self.program, params, self.feeds, self.fetches)
        prog._bound = {n: wrap(a, stop_gradient=True, name=n) for n, a in params.items()}
        return prog, fetches

    def forget_eval_runner(self):
        if self.ir_optim:
            self._runners.pop(False, None)


def _strip(program, fetches):
    """A copy without feed/fetch ops and the saver's output copies; returns it and
    the names its outputs now have."""
    p = program.clone()
    block = p.global_block()
    producer = {n: op for op in block.ops for n in op.output_arg_names}
    reads = {}
    for b in p.blocks:
        for op in b.ops:
            if op.type not in _HOLDERS:
                for n in op.input_arg_names:
                    reads[n] = reads.get(n, 0) + 1
    outs, drop, gone = [], set(), []
    for name in fetches:
        op = producer.get(name)
        if (op is not None and op.type == "scale" and name.startswith(OUTPUT_PREFIX)
                and not reads.get(name) and not op.input("ScaleTensor")
                and op.attr("scale") == 1.0 and op.attr("bias") == 0.0):
            drop.add(id(op))
            gone.append(name)
            name = op.input("X")[0]
        outs.append(name)
    for i in range(len(block.ops) - 1, -1, -1):
        if block.ops[i].type in _HOLDERS or id(block.ops[i]) in drop:
            block._remove_op(i)
    for name in gone:               # a re-save names its copies afresh, as Paddle does
        if name not in outs and block.has_var(name):
            block._remove_var(name)
    return p, outs


def _restore_xshape(program):
    """Give back the ``XShape`` outputs Paddle's savers leave off ``transpose2`` /
    ``flatten_contiguous_range`` (FORMAT.md §5.6), and einsum's ``InnerCache`` /
    ``XShape`` (one per operand): their grad ops read them."""
    for b in program.blocks:
        for op in list(b.ops):
            od = op.opdef
            if od is not None and op.type == "einsum":
                _restore_per_operand(b, op, od)
                continue
            if od is None or "XShape" not in od.output_index or op.output("XShape"):
                continue
            x = b._var_recursive(op.input("X")[0])
            name, k = f"{op.output('Out')[0]}.xshape", 0
            while b._find_var_recursive(name) is not None:
                k += 1
                name = f"{op.output('Out')[0]}.xshape_{k}"
            b.create_var(name=name, shape=(0,) + tuple(x.shape), dtype=x.np_dtype)
            op.set_output("XShape", [name])


def _restore_per_operand(block, op, od):
    """einsum's intermediate outputs: one variable per operand, of its shape."""
    operands = [block._var_recursive(n) for n in op.input("Operands")]
    for slot in od.outputs:
        if not slot.intermediate or op.output(slot.name):
            continue
        names = []
        for k, x in enumerate(operands):
            name = f"{op.output('Out')[0]}.{slot.name.lower()}_{k}"
            while block._find_var_recursive(name) is not None:
                name += "_"
            block.create_var(name=name, shape=tuple(x.shape), dtype=x.np_dtype)
            names.append(name)
        op.set_output(slot.name, names)


def _is_parameter(name, programs):
    """Paddle's rule: read by some op, written by none."""
    read = written = False
    for p in programs:
        for b in p.blocks:
            for op in b.ops:
                if op.type in _HOLDERS:
                    continue
                read = read or name in op.input_arg_names
                written = written or name in op.output_arg_names
    return read and not written


class TranslatedLayer(Layer):
    """A loaded model (see module docstring)."""

    def __init__(self, methods, tensors, info=None, saved_names=None):
        super().__init__()
        self._methods = methods
        self._tensors = tensors
        self._info = info or {}
        self._saved_names = saved_names or {n: n for n in tensors}   # loaded -> file name
        for name, t in tensors.items():
            attr = name.replace(".", "_").replace("/", "_")
            if isinstance(t, Parameter):
                self.add_parameter(attr, t)
            else:
                self.register_buffer(attr, t)
        for mname in methods:
            if mname != "forward":
                object.__setattr__(self, mname, _bound_method(self, mname))

    def forward(self, *inputs):
        return self._call("forward", inputs)

    def train(self):
        for m in self._methods.values():    # folded weights would go stale in training
            m.forget_eval_runner()
        return super().train()

    def set_state_dict(self, state_dict, *args, **kwargs):
        out = super().set_state_dict(state_dict, *args, **kwargs)
        for m in self._methods.values():
            m.forget_eval_runner()
        return out

    def _call(self, mname, inputs):
        m = self._methods[mname]
        if len(inputs) != len(m.feeds):
            raise ValueError(f"the loaded '{mname}' takes {len(m.feeds)} input(s) "
                             f"{m.feeds}, got {len(inputs)}")
        if any(is_graph_value(x) for x in inputs):
            raise NotImplementedError(
                f"a jit.load-ed TranslatedLayer cannot be called on static Variables (inside "
                f"@to_static or static mode) yet; call its '{mname}' eagerly")
        try:
            args = [x if isinstance(x, Tensor) else wrap(np.asarray(x)) for x in inputs]
            if m.ir_optim and not self.training:    # fused/folded: inference only
                with no_grad():
                    outs = m.runner(False)(args)
            else:
                outs = m.runner(self.training)(args)
        except (ValueError, OpError) as exc:       # bad inputs or a failing op: name the model file
            raise blame(exc, getattr(m, "source", "<loaded model>"))
        return outs[0] if len(outs) == 1 else outs

    def program(self, method_name="forward"):
        """The method's program (saved program without feed/fetch and output copies)."""
        return self._method(method_name).program

    def _method(self, name):
        try:
            return self._methods[name]
        except KeyError:
            raise ValueError(f"the loaded model has no method '{name}'; it has "
                             f"{sorted(self._methods)}") from None

    def _input_spec(self, method_name="forward"):
        return [InputSpec(v.shape, v.np_dtype, v.name)
                for v in self._method(method_name).input_vars]

    def _output_spec(self, method_name="forward"):
        m = self._method(method_name)
        block = m.program.global_block()
        return [InputSpec(block.var(n).shape, block.var(n).np_dtype, n) for n in m.fetches]

    @property
    def persistable_tensors(self):
        """{variable name: eager tensor} of every persistable (sampan extra)."""
        return dict(self._tensors)


def _bound_method(layer, mname):
    def call(*inputs):
        return layer._call(mname, inputs)
    call.__name__ = mname
    return call


def _method_files(prefix):
    """{method name: (model path, params path)}, 'forward' first."""
    folder = os.path.dirname(prefix) or "."
    base = os.path.basename(prefix)
    found = {"forward": (prefix + ".pdmodel", prefix + ".pdiparams")}
    for f in sorted(os.listdir(folder)):
        if f.startswith(base + ".") and f.endswith(".pdmodel"):
            mid = f[len(base) + 1:-len(".pdmodel")]
            if mid and "." not in mid and mid != "forward":
                stem = os.path.join(folder, base + "." + mid)
                found[mid] = (stem + ".pdmodel", stem + ".pdiparams")
    return found


def load(path, **configs):
    """Load a model saved by ``jit.save`` (or Paddle) as a ``TranslatedLayer``.
    ``ir_optim=True`` (sampan extra) runs the Predictor's inference passes on
    the eval program (conv+batch_norm folds, fusions; see inference/passes.py)
    when sampan.inference is loaded; the training program is never changed."""
    prefix = os.fspath(path)
    if prefix.endswith(".pdmodel"):
        prefix = prefix[:-len(".pdmodel")]
    if configs.get("model_filename"):
        prefix = os.path.join(prefix, configs["model_filename"][:-len(".pdmodel")]
                              if configs["model_filename"].endswith(".pdmodel")
                              else configs["model_filename"])
    with reading(prefix):       # a save interrupted here is finished (or reported) first
        loaded, arrays, files, info = _read_files(path, prefix)
    return _finish_load(loaded, arrays, files, info, bool(configs.get("ir_optim", False)))


def _read_files(path, prefix):
    """Every method's (program, feeds, fetches), the persistables' arrays, the method
    files and the info dict, read strictly."""
    if not os.path.isfile(prefix + ".pdmodel"):
        raise ValueError(f"The ``path`` ({path}) to load model not exists: "
                         f"{prefix}.pdmodel is not a file.")
    loaded, arrays, files = {}, {}, _method_files(prefix)
    info_path = prefix + ".pdiparams.info"
    for mname, (model, pfile) in files.items():
        # checked against the model's manifest (save_load.manifest) when it has one
        program, params = read_model(model, pfile, extra=[info_path] * (mname == "forward"))
        feeds, fetches = feed_fetch_targets(program, model)
        for n, a in params.items():
            if n in arrays and (arrays[n].shape != a.shape or arrays[n].dtype != a.dtype):
                raise FormatError(f"{pfile}: tensor '{n}' is {a.dtype}{list(a.shape)}, but "
                                  f"another method's file has it as "
                                  f"{arrays[n].dtype}{list(arrays[n].shape)}")
            arrays.setdefault(n, a)
        loaded[mname] = (program, feeds, fetches)
    info = read_params_info(info_path) if os.path.isfile(info_path) else {}
    return loaded, arrays, files, info


def _finish_load(loaded, arrays, files, info, ir_optim=False):
    # loaded persistables get Paddle's ``<name>.load_<n>`` names, so they never clash
    # with the parameters of layers built later in this process (jit.save strips them)
    renamed = {n: unique_name.generate_with_ignorable_key(n + LOADED_SUFFIX)
               for n in sorted(arrays)}
    for program, _, _ in loaded.values():
        rename_vars(program, renamed)
    programs = [p for p, _, _ in loaded.values()]
    tensors = {}
    for n in sorted(arrays):
        entry, new = info.get(n, {}), renamed[n]
        if _is_parameter(new, programs):
            trainable = entry.get("trainable", not entry.get("stop_gradient", False))
            t = Parameter(arrays[n], name=new, trainable=trainable)
        else:
            t = wrap(arrays[n], stop_gradient=True, name=new)
            t.persistable = True
        tensors[new] = t
    methods = {m: _Method(m, p, f, o, tensors, ir_optim) for m, (p, f, o) in loaded.items()}
    for m, method in methods.items():
        method.source = files[m][0]
    return TranslatedLayer(methods, tensors, info, {v: k for k, v in renamed.items()})


def rename_vars(program, mapping):
    """Rename variables everywhere in ``program`` (declarations and every op's uses)."""
    for b in program.blocks:
        for old, new in mapping.items():
            v = b.vars.get(old)
            if v is not None:
                b._rename_var_desc(v, new)
        for op in b.ops:
            for old in set(op.input_arg_names) & mapping.keys():
                op._rename_input(old, mapping[old])
            for old in set(op.output_arg_names) & mapping.keys():
                op._rename_output(old, mapping[old])
