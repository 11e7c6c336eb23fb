"""Smaller ``paddle.static`` names (Paddle 2.6): ``create_global_var``,
``device_guard``, ``accuracy``, ``xpu_places`` and the IPU names (sampan has no
XPU or IPU: they raise a clear error)."""
import contextlib

import numpy as np

from ..ops import bind, get_op, has_op, in_static_mode, OpError
from ..ops.declare import defop
from ..kernels.registry import kernel
from ..ops.dtypes import to_enum, to_np_dtype
from ..utils import unique_name
from ..program.program_guard import default_main_program, default_startup_program
from ..program import static_mode
from .. import tensor as T

__all__ = ["create_global_var", "device_guard", "accuracy", "xpu_places",
           "IpuCompiledProgram", "IpuStrategy", "ipu_shard_guard", "set_ipu_shard",
           "WeightNormParamAttr", "ExponentialMovingAverage", "auc"]

_GLOBAL_VAR_DTYPES = ("bool", "float16", "float32", "float64", "int8", "int16", "int32",
                      "int64", "uint8", "uint16")


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """A variable of the main program's global block filled with ``value`` by a
    ``fill_constant`` in the startup program (where it is persistable)."""
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"The type of 'shape' in create_global_var must be list or tuple, "
                        f"but received {type(shape)}")
    for d in shape:
        if not isinstance(d, (int, np.integer)):
            raise TypeError(f"The type of the items of 'shape' in create_global_var must be "
                            f"int, but received {type(d)}")
        if d < 0:
            raise ValueError(f"create_global_var: every dim of 'shape' must be >= 0, got "
                             f"{list(shape)}")
    np_dtype = to_np_dtype(dtype)
    if str(np_dtype) not in _GLOBAL_VAR_DTYPES and dtype not in ("bfloat16", "uint16"):
        raise TypeError(f"The data type of 'dtype' in create_global_var must be one of "
                        f"{list(_GLOBAL_VAR_DTYPES)}, but received {dtype}")
    shape = [int(d) for d in shape]
    name = name or unique_name.generate_with_ignorable_key("_generated_var")
    main = default_main_program().global_block()
    var = main.create_var(name=name, shape=shape, dtype=np_dtype, persistable=persistable,
                          stop_gradient=True)
    sb = default_startup_program().global_block()
    if name not in sb.vars:
        init = sb.create_var(name=name, shape=shape, dtype=np_dtype, persistable=True,
                             stop_gradient=True)
        sb.append_op(type="fill_constant", outputs={"Out": [init]},
                     attrs={"shape": shape, "dtype": to_enum(np_dtype), "value": float(value),
                            "str_value": str(float(value)), "force_cpu": bool(force_cpu),
                            **static_mode.bookkeeping()})
    return var


def _all_ops(program):
    return {b.idx: len(b.ops) for b in program.blocks}


@contextlib.contextmanager
def device_guard(device=None):
    """Ops appended inside get ``op_device = device`` ('cpu', 'gpu', 'gpu:<id>';
    None/'' leaves it empty).  An inner guard wins over an outer one.  sampan runs
    every op on its one backend: the attribute is recorded, as Paddle writes it."""
    index = None
    if device and ":" in device:
        device, index = device.split(":", 1)
        if device == "cpu":
            raise ValueError("Should not set device id for cpu.")
    if device not in ("cpu", "gpu", "xpu", "", None):
        raise ValueError("The Attr(device) should be 'cpu', 'xpu', 'gpu' or custom device, "
                         "and it can also be empty string or None when there is no need to "
                         f"specify device. But received {device}")
    if index:
        device = f"{device}:{index}"
    program = default_main_program()
    start = _all_ops(program)
    try:
        yield
    finally:
        if device:
            for b in program.blocks:
                for op in b.ops[start.get(b.idx, 0):]:
                    if not op.has_attr("op_device") or not op.attr("op_device"):
                        op._set_attr("op_device", device)


def accuracy(input, label, k=1, correct=None, total=None):
    """Top-``k`` accuracy (Paddle's static ``accuracy``: ``top_k_v2`` (unsorted) then
    the ``accuracy`` op); outputs named ``accuracy_<n>.tmp_<k>`` in a program."""
    if str(label.dtype).endswith("int32"):
        label = T.cast(label, "int64")
    if not in_static_mode():
        values, indices = T.topk(input, k=k)
        return bind(get_op("accuracy"), (values, indices, label))[0]
    owner = unique_name.generate("accuracy")
    old = static_mode._naming["base"]
    static_mode._naming["base"] = owner
    try:
        values, indices = bind(get_op("top_k_v2"), (input, None),
                               {"k": int(k), "axis": -1, "largest": True, "sorted": False})
        return bind(get_op("accuracy"), (values, indices, label))[0]
    finally:
        static_mode._naming["base"] = old


def xpu_places(device_ids=None):
    raise RuntimeError("xpu_places: sampan has no XPU support (it runs on CPU, and on "
                       "CUDA GPUs through cupy); use cpu_places() or cuda_places()")


def _no_ipu(what):
    raise RuntimeError(f"{what}: sampan has no IPU (Graphcore) support; run the program "
                       f"with static.Executor on CPU or GPU instead")


class IpuStrategy:
    def __init__(self, *args, **kwargs):
        _no_ipu("IpuStrategy")


class IpuCompiledProgram:
    def __init__(self, *args, **kwargs):
        _no_ipu("IpuCompiledProgram")


def ipu_shard_guard(index=-1, stage=-1):
    _no_ipu("ipu_shard_guard")


def set_ipu_shard(call_func, index=-1, stage=-1):
    _no_ipu("set_ipu_shard")


# ----------------------------------------------------------------- weight norm
from ..nn.param_attr import ParamAttr as _ParamAttr   # noqa: E402


def _norm_except_dim(x, dim):
    """sqrt(sum |x|^2) over every dim but ``dim`` (all dims for None), shaped as
    Paddle's ``__norm_except_dim``: 0-d for None, else ``x``'s rank with 1s."""
    def norm(t, axis):
        return T.pow(T.sum(T.pow(T.abs(t), 2.0), axis=axis), 0.5)
    shape = list(x.shape)
    if dim is None:
        return norm(x, None)
    if dim == 0:
        return T.reshape(norm(T.reshape(x, [shape[0], -1]), 1),
                         [shape[0]] + [1] * (len(shape) - 1))
    if dim == len(shape) - 1:
        return T.reshape(norm(T.reshape(x, [-1, shape[-1]]), 0),
                         [1] * (len(shape) - 1) + [shape[-1]])
    perm = list(range(len(shape)))
    perm[0], perm[dim] = dim, 0
    t = T.transpose(x, perm)
    r = T.reshape(norm(T.reshape(t, [shape[dim], -1]), 1), [shape[dim]] + [1] * (len(shape) - 1))
    return T.transpose(r, perm)


class WeightNormParamAttr(_ParamAttr):
    """A ParamAttr whose parameter ``w`` is reparametrized as ``w = g * v / ||v||``
    (https://arxiv.org/pdf/1602.07868.pdf; the norm over every dim but ``dim``),
    as Paddle's static LayerHelper builds it: two parameters ``<name>_g`` (shape 1s,
    ``shape[dim]`` at ``dim``) and ``<name>_v`` (the weight's shape, with the
    initializer), ``g`` computed from ``v`` in the startup program, ``w`` in the main
    program.  Static graphs only (eagerly use ``paddle.nn.utils.weight_norm``)."""

    params_with_weight_norm = []

    def __init__(self, dim=None, name=None, initializer=None, learning_rate=1.0,
                 regularizer=None, trainable=True, do_model_average=False, need_clip=True):
        super().__init__(name=name, initializer=initializer, learning_rate=learning_rate,
                         regularizer=regularizer, trainable=trainable,
                         do_model_average=do_model_average, need_clip=need_clip)
        self.dim = dim

    def _sub_attr(self, suffix, initializer):
        return _ParamAttr(name=self.name + suffix, initializer=initializer,
                          learning_rate=self.learning_rate, regularizer=self.regularizer,
                          trainable=self.trainable, do_model_average=self.do_model_average,
                          need_clip=self.need_clip)

    def _create_weight_normalize(self, owner, shape, dtype):
        from ..program.program_guard import program_guard
        from ..ops import create_parameter as _create
        if not in_static_mode():
            raise RuntimeError("WeightNormParamAttr works in static graphs only; in dynamic "
                               "mode use paddle.nn.utils.weight_norm")
        dim = self.dim
        if dim is not None:
            if not -len(shape) <= dim < len(shape):
                raise ValueError(f"WeightNormParamAttr: dim {dim} out of range for a "
                                 f"parameter of shape {list(shape)}")
            dim = dim % len(shape)
        g_shape = [1] * len(shape)
        if dim is not None:
            g_shape[dim] = shape[dim]
        main, startup = default_main_program(), default_startup_program()
        v = _create(self._sub_attr("_v", self.initializer), list(shape), dtype)
        g_name = self.name + "_g"
        sb = startup.global_block()
        if g_name not in sb.vars:
            g_init = sb.create_parameter(name=g_name, shape=g_shape, dtype=dtype,
                                         trainable=self.trainable,
                                         optimize_attr={"learning_rate": self.learning_rate},
                                         regularizer=self.regularizer,
                                         need_clip=self.need_clip,
                                         do_model_average=self.do_model_average)
            with program_guard(startup, startup):
                norm = T.reshape(_norm_except_dim(sb.var(v.name), dim), g_shape)
                static_mode.append_op(sb, "assign", {"X": [norm]}, {"Out": [g_init]})
        g = main.global_block().vars.get(g_name)
        if g is None:
            g = main.global_block().create_parameter(
                name=g_name, shape=g_shape, dtype=dtype, trainable=self.trainable,
                optimize_attr={"learning_rate": self.learning_rate},
                regularizer=self.regularizer, need_clip=self.need_clip,
                do_model_average=self.do_model_average)
        norm = _norm_except_dim(v, dim)
        scale = T.divide(g, norm)
        if dim is None:
            w = T.multiply(v, scale)
        else:
            w = bind(get_op("elementwise_mul"), (v, T.reshape(scale, [shape[dim]])),
                     {"axis": dim})[0]
        WeightNormParamAttr.params_with_weight_norm.append(w)
        return w


# ----------------------------------------------------------------- moving average
def _assign(src, dst):
    """An ``assign`` op writing ``src`` into the existing variable ``dst``."""
    static_mode.append_op(default_main_program().current_block(), "assign", {"X": [src]},
                          {"Out": [dst]})


class ExponentialMovingAverage:
    """Paddle's static ``ExponentialMovingAverage``: ``update()`` appends to the main
    program ``ema = decay * ema + (1 - decay) * param`` for every parameter with
    ``do_model_average`` (and counts the steps in ``@EMA_STEP_COUNTER@``);
    ``apply(exe)`` swaps in the bias-corrected averages ``ema / (1 - decay^step)``
    (a context that restores the parameters on exit unless ``need_restore=False``),
    ``restore(exe)`` puts the trained values back.  ``thres_steps`` (a variable)
    makes the decay ``min(decay, (t + 1) / (t + 10))``.

    Difference: the backup copies of the parameters (``<param>.ema_tmp_<n>``) are
    persistable in the apply/restore programs, so they live in the scope between the
    two runs."""

    _STEP = "@EMA_STEP_COUNTER@"

    def __init__(self, decay=0.999, thres_steps=None, name=None):
        if not in_static_mode():
            raise Exception("In dygraph, don't support ExponentialMovingAverage.")
        from ..program.program_guard import program_guard, name_scope
        from ..program.framework import Program
        self._decay = decay
        self._thres_steps = thres_steps
        self._name = name if name is not None else ""
        self._decay_var = self._get_ema_decay()
        self._step_counter_name = self._STEP
        main = default_main_program()
        self._params_tmps = []
        for param in main.global_block().all_parameters():
            if param.do_model_average:
                tmp = main.global_block().create_var(
                    name=unique_name.generate(f"{self._name}{param.name}.ema_tmp"),
                    shape=list(param.shape), dtype=param.dtype, persistable=False,
                    stop_gradient=True)
                self._params_tmps.append((param, tmp))
        self._ema_vars = {}
        with name_scope("moving_average"):
            for param, _ in self._params_tmps:
                self._ema_vars[param.name] = create_global_var(
                    name=unique_name.generate(self._name + param.name + "_ema"),
                    shape=list(param.shape), value=0.0, dtype=param.dtype, persistable=True)
        from .nn.control_flow import cond
        self.apply_program = Program()
        with program_guard(self.apply_program, default_startup_program()):
            block = self.apply_program.global_block()
            step = create_global_var(name=self._STEP, shape=[1], value=0, dtype="int64",
                                     persistable=True)
            step = T.cast(step, "float32")
            decay = self._clone(block, self._decay_var)
            decay_pow = T.pow(decay, step)
            for param, tmp in self._params_tmps:
                p = self._clone(block, param)
                t = self._clone(block, tmp, persistable=True)
                ema = self._clone(block, self._ema_vars[param.name])
                _assign(p, t)
                val = cond(step > 0, lambda e=ema: e / (1.0 - decay_pow), lambda e=ema: e)
                _assign(val, p)
        self.restore_program = Program()
        with program_guard(self.restore_program, default_startup_program()):
            block = self.restore_program.global_block()
            for param, tmp in self._params_tmps:
                t = self._clone(block, tmp, persistable=True)
                p = self._clone(block, param)
                _assign(t, p)

    @staticmethod
    def _clone(block, var, persistable=None):
        if var.name in block.vars:
            return block.vars[var.name]
        return block.create_var(name=var.name, shape=list(var.shape), dtype=var.dtype,
                                persistable=var.persistable if persistable is None
                                else persistable, stop_gradient=True)

    def _get_ema_decay(self):
        decay_var = create_global_var(shape=[1], value=self._decay, dtype="float32",
                                      persistable=True, name="scheduled_ema_decay_rate")
        if self._thres_steps is not None:
            t = T.cast(self._thres_steps, "float32")
            decay_t = (t + 1.0) / (t + 10.0)
            _assign(T.reshape(T.minimum(decay_t, T.full_like(decay_t, self._decay)), [1]),
                    decay_var)
        return decay_var

    def update(self):
        """Append the moving-average update to the main (training) program."""
        from ..program.program_guard import name_scope
        main = default_main_program()
        block = main.global_block()
        step = create_global_var(name=self._STEP, shape=[1], value=0, dtype="int64",
                                 persistable=True)
        block._prepend_op("increment", inputs={"X": [step]}, outputs={"Out": [step]},
                          attrs={"step": 1.0, **static_mode.bookkeeping()})
        with name_scope("moving_average"):
            for param, _ in self._params_tmps:
                ema = self._ema_vars[param.name]
                ema_t = ema * self._decay_var + param * (1 - self._decay_var)
                _assign(ema_t, ema)

    @contextlib.contextmanager
    def apply(self, executor, need_restore=True):
        """Swap in the averaged parameters; restore them on exit (``need_restore``)."""
        executor.run(self.apply_program)
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor):
        """Put the parameters saved by ``apply`` back."""
        executor.run(self.restore_program)


# ----------------------------------------------------------------- auc
def _auc_infer(metas, attrs):
    from ..ops import Meta
    return (Meta((), np.dtype("float64")), metas[2], metas[3])


if not has_op("auc"):
    defop("auc", ("Predict", "Label", "StatPos", "StatNeg", "InsTagWeight?"),
          ("AUC", "StatPosOut", "StatNegOut"),
          (("curve", "STRING", "ROC"), ("num_thresholds", "INT", 2 ** 12 - 1),
           ("slide_steps", "INT", 1)), infer=_auc_infer, side_effect=True)


def _stat_auc(pos, neg, predict, label, num_thresholds, slide_steps):
    """Paddle's statAuc: bucket each sample's positive-class probability (the last
    column) into ``pos``/``neg`` (in place); with ``slide_steps`` a ring of
    per-batch buckets whose sum sits in the last bucket group."""
    predict = np.asarray(predict)
    p = predict.reshape(predict.shape[0], -1)[:, -1]
    if p.size and (p.max() > 1 or p.min() < 0):
        raise OpError(f"auc: the predicted probabilities must lie in [0, 1], got values in "
                      f"[{p.min()}, {p.max()}]")
    lab = np.asarray(label).reshape(-1)
    bins = (p * num_thresholds).astype(np.uint32).astype(np.int64)
    bl = num_thresholds + 1
    if slide_steps == 0:
        np.add.at(pos, bins[lab > 0], 1)
        np.add.at(neg, bins[lab == 0], 1)
        return
    cur = int(pos[(slide_steps + 1) * bl]) % slide_steps
    cb, sb = cur * bl, slide_steps * bl
    pos[sb:sb + bl] -= pos[cb:cb + bl]
    neg[sb:sb + bl] -= neg[cb:cb + bl]
    pos[cb:cb + bl] = 0
    neg[cb:cb + bl] = 0
    np.add.at(pos, cb + bins[lab > 0], 1)
    np.add.at(neg, cb + bins[lab == 0], 1)
    pos[sb:sb + bl] += pos[cb:cb + bl]
    neg[sb:sb + bl] += neg[cb:cb + bl]


def _calc_auc(pos, neg, num_thresholds):
    auc = 0.0
    tot_pos = tot_neg = 0.0
    for idx in range(num_thresholds, -1, -1):
        prev_pos, prev_neg = tot_pos, tot_neg
        tot_pos += float(pos[idx])
        tot_neg += float(neg[idx])
        auc += abs(tot_neg - prev_neg) * (tot_pos + prev_pos) / 2.0
    if tot_pos > 0.0 and tot_neg > 0.0:
        auc = auc / tot_pos / tot_neg
    return auc


@kernel("auc", dtypes=("float32",))
def _auc_kernel(args, attrs, need):
    """Paddle's CPU auc kernel (float32 predictions): updates copies of the counters."""
    predict, label, stat_pos, stat_neg = args[:4]
    n, s = attrs["num_thresholds"], attrs["slide_steps"]
    shape = np.shape(stat_pos)
    pos = np.array(stat_pos, dtype=np.int64).reshape(-1)
    neg = np.array(stat_neg, dtype=np.int64).reshape(-1)
    _stat_auc(pos, neg, predict, label, n, s)
    off = s * (n + 1)
    auc = _calc_auc(pos[off:], neg[off:], n)
    if s:
        pos[(s + 1) * (n + 1)] += 1
        neg[(s + 1) * (n + 1)] += 1
    return (np.array(auc, np.float64), pos.reshape(shape), neg.reshape(shape))


def _zero_state(shape):
    return create_global_var(shape, 0, "int64", persistable=True)


def auc(input, label, curve="ROC", num_thresholds=2 ** 12 - 1, topk=1, slide_steps=1,
        ins_tag_weight=None):
    """Area under the ROC curve of ``input`` ([N, 2] class probabilities; the last
    column is the positive class) against ``label``: ``(auc_out, batch_auc_out,
    [batch_stat_pos, batch_stat_neg, stat_pos, stat_neg])`` as Paddle's static
    ``auc`` (two ``auc`` ops: the batch one over the last ``slide_steps`` batches,
    the global one over every batch; the statistics are persistable counters)."""
    if not in_static_mode():
        raise RuntimeError("static.auc builds ops of a static Program; eagerly use "
                           "paddle.metric.Auc")
    if ins_tag_weight is None:
        ins_tag_weight = T.full([1, 1], 1.0, "float32")
    owner = unique_name.generate("auc")
    old = static_mode._naming["base"]
    static_mode._naming["base"] = owner
    try:
        block = default_main_program().current_block()
        bucket = num_thresholds + 1
        batch_pos = _zero_state([(1 + slide_steps) * bucket + 1])
        batch_neg = _zero_state([(1 + slide_steps) * bucket + 1])
        stat_pos = _zero_state([1, bucket])
        stat_neg = _zero_state([1, bucket])
        outs = []
        for sp, sn, steps in ((batch_pos, batch_neg, slide_steps), (stat_pos, stat_neg, 0)):
            out = block.create_var(name=unique_name.generate(f"{owner}.tmp"), shape=[],
                                   dtype="float64", stop_gradient=True)
            static_mode.append_op(block, "auc", {"Predict": [input], "Label": [label],
                                                 "StatPos": [sp], "StatNeg": [sn]},
                                  {"AUC": [out], "StatPosOut": [sp], "StatNegOut": [sn]},
                                  {"curve": curve, "num_thresholds": int(num_thresholds),
                                   "slide_steps": int(steps)})
            outs.append(out)
        return outs[1], outs[0], [batch_pos, batch_neg, stat_pos, stat_neg]
    finally:
        static_mode._naming["base"] = old
