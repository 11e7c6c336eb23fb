"""``paddle.optimizer.Optimizer``: the base every optimizer shares.

One update is: collect ``(param, grad)`` pairs -> gradient clipping ->
regularization (``grad + decay``) -> one update op per parameter (``sgd``,
``adam`` ...) run through ``bind``, the same op a static ``minimize`` appends.
The update ops write the parameter and its accumulators in place.

State follows Paddle: accumulators live in ``_accumulators[acc_name][param.name]``
as persistable tensors named ``<param.name>_<acc_name>_<n>`` (``linear_0.w_0_moment1_0``);
``state_dict()`` lists them by that name, plus ``master_weights`` (multi_precision)
and ``LR_Scheduler`` (when the learning rate is a scheduler).  A state dict
loaded before the first step is held and consumed as accumulators are created.

Hot path (``step``): the learning-rate tensor is cached and rebuilt only when
the rate changes; parameters without clip or regularization cost one op call.

Static mode (a static ``loss`` to ``minimize``/``backward``, static pairs to
``apply_gradients``): ``static_minimize`` appends the backward and gives the
program's learning-rate variable, then runs this same code, whose
mode-dependent steps are ``ops`` actions (``create_state``: persistable
variables filled in the startup program; ``update``: regularization written
into the gradient; ``for_each_pair``: Paddle's per-parameter op_role_var and
name scopes); the update ops are appended, not run.
"""
import numbers
import re

import numpy as np

from ..dygraph.aliases import write_data
from ..dygraph import Tensor, no_grad
from ..dygraph.tensor import wrap
from ..ops import (bind, create_state, for_each_pair, in_static_mode, is_graph_value,
                   name_scope, op_role, update)
from ..utils import unique_name
from .lr import LRScheduler
from .regularizer import L2Decay, WeightDecayRegularizer
from ..nn.clip import GradientClipBase

_OP_ROLE_OPTIMIZE, _OP_ROLE_LRSCHED = 2, 16      # Paddle's OpRole values
_FP16 = np.dtype("float16")
_FP32 = np.dtype("float32")
_SUFFIX = re.compile(r"_\d+$")


class Optimizer:
    """Base class.  A subclass stores its hyperparameters, then calls
    ``super().__init__``; it provides ``_hyper_defaults`` (what a param group
    may override), ``_create_accumulators`` and ``_append_optimize_op``."""
    type = None
    _group_sets_regularizer = True      # AdamW keeps decay out of the gradient
    _multi_precision = False

    def __init__(self, learning_rate, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        cls = type(self).__name__
        self._learning_rate = _check_lr(learning_rate, cls)
        self._parameter_list = _check_parameters(parameters, cls)
        self.regularization = _check_weight_decay(weight_decay, cls)
        self._grad_clip = _check_grad_clip(grad_clip, cls)
        self._name = name
        self._accumulators = {}          # acc name -> {param name: Tensor}
        self._accumulators_holder = {}   # loaded state not yet consumed
        self._master_weights = {}        # param name -> float32 Tensor
        self._prepared = set()           # names of params whose accumulators exist
        self._held_by_base = {}
        self._lr_tensor = None
        self._lr_name = None
        self._lr_value = None
        self._scaled_lr = {}             # per-parameter lr multiplier -> Tensor
        self._default_dict = {"weight_decay": self.regularization, "grad_clip": self._grad_clip}
        self._default_dict.update(self._hyper_defaults())
        self._dtype = None
        self._param_groups = []
        self._grouped = bool(self._parameter_list) and isinstance(self._parameter_list[0], dict)
        if self._grouped:
            for group in self._parameter_list:
                self._add_param_group(dict(group))
        elif self._parameter_list is not None:
            self._param_groups = self._parameter_list
        params = self._all_params()
        if params:
            dt = _dtype_of(params[0])
            self._dtype = _FP32 if dt == _FP16 or dt.kind != "f" else dt

    def _hyper_defaults(self):
        """Hyperparameters a parameter group may override (beyond weight_decay,
        grad_clip, learning_rate)."""
        return {}

    # ------------------------------------------------------------- groups
    def _add_param_group(self, param_group):
        if "params" not in param_group:
            raise ValueError(f"{type(self).__name__}: a parameter group needs a 'params' entry, "
                             f"got keys {sorted(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters should be in ordered collections, but "
                            "received set, please use list instead.")
        params = list(params)
        where = f"param group {len(self._param_groups)}"
        for i, p in enumerate(params):
            _check_param(p, type(self).__name__, f"{where} item {i}")
            if not hasattr(p, "optimize_attr"):
                raise TypeError(f"{type(self).__name__}: parameter groups hold Parameters "
                                f"(from layers or paddle.create_parameter), but {where} "
                                f"item {i} is a plain Tensor")
        param_group["params"] = params
        for k, v in self._default_dict.items():
            param_group.setdefault(k, v)
        seen = set()
        for g in self._param_groups:
            seen.update(id(p) for p in g["params"])
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        for p in params:
            if self._group_sets_regularizer:
                wd = param_group["weight_decay"]
                p.regularizer = L2Decay(wd) if isinstance(wd, numbers.Real) else wd
            p.optimize_attr["learning_rate"] = param_group.get("learning_rate", 1.0)
        self._param_groups.append(param_group)

    def _all_params(self):
        if self._parameter_list is None:
            return []
        if self._grouped:
            return [p for g in self._param_groups for p in g["params"]]
        return self._parameter_list

    # ------------------------------------------------------------- learning rate
    def get_lr(self):
        lr = self._learning_rate
        return lr if isinstance(lr, float) else lr()

    def set_lr(self, value):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"The type of 'value' in optimizer.set_lr must be float, but "
                            f"received {type(value)}.")
        if isinstance(self._learning_rate, LRScheduler):
            raise RuntimeError("optimizer's learning rate can't be LRScheduler when invoke "
                               "this API, because this will lead to conflict.")
        self._learning_rate = float(value)

    def set_lr_scheduler(self, scheduler):
        if not isinstance(scheduler, LRScheduler):
            raise TypeError(f"The type of 'scheduler' in optimizer.set_lr_scheduler must be "
                            f"LRScheduler, but received {type(scheduler)}.")
        self._learning_rate = scheduler

    def _global_lr(self):
        """The learning-rate tensor, rebuilt only when the rate changed."""
        v = self.get_lr()
        if v != self._lr_value or self._lr_tensor is None:
            if self._lr_name is None:
                self._lr_name = unique_name.generate("learning_rate")
            self._lr_value = v
            self._lr_tensor = self._new_state(self._lr_name, [], self._dtype or _FP32, v)
            self._scaled_lr.clear()
        return self._lr_tensor

    def _param_lr(self, param, lr):
        """``lr`` times the parameter's own multiplier (optimize_attr)."""
        attr = getattr(param, "optimize_attr", None)
        ratio = 1.0 if attr is None else attr.get("learning_rate", 1.0)
        if isinstance(ratio, Tensor):
            return ratio
        if ratio == 1.0:
            return lr
        if is_graph_value(lr):      # a scale op per parameter, as Paddle's static pass
            with op_role(_OP_ROLE_OPTIMIZE | _OP_ROLE_LRSCHED), \
                    name_scope("scale_with_param_lr"):
                return lr * float(ratio)
        t = self._scaled_lr.get(ratio)
        if t is None:
            dt = lr._data.dtype.type
            t = self._scaled_lr[ratio] = wrap(np.asarray(dt(self._lr_value) * dt(ratio)))
        return t

    # ------------------------------------------------------------- the update
    @no_grad()
    def step(self):
        """Update every parameter that has a gradient (eager; inside a to_static
        function, the update ops appended to its program: static_minimize)."""
        if in_static_mode():
            from . import static_minimize
            return static_minimize.traced_step(self)
        if self._parameter_list is None:
            raise AttributeError("parameters argument given to the Optimizer should not be "
                                 "None in dygraph mode.")
        if not self._grouped:
            self._apply_optimize(_with_grads(self._parameter_list), self._default_dict)
            return
        for group in self._param_groups:
            hp = dict(self._default_dict)
            hp.update((k, v) for k, v in group.items() if k != "params")
            self._apply_optimize(_with_grads(group["params"]), hp)

    def _apply_optimize(self, params_grads, hp):
        self._update(self._prepare(params_grads, hp), hp)

    def _prepare(self, params_grads, hp):
        """Gradient clipping, then regularization."""
        clip = hp["grad_clip"]
        if clip is not None and params_grads:
            params_grads = clip(params_grads)
        return self.append_regularization_ops(params_grads, self.regularization)

    def _update(self, params_grads, hp, lr=None):
        """Accumulators for new parameters, then one update op per parameter
        (``lr``: the learning-rate tensor, default the optimizer's own)."""
        params_grads = [(p, g) for p, g in params_grads if not p.stop_gradient]
        if not params_grads:
            return
        new = [p for p, _ in params_grads if p.name not in self._prepared]
        if new:
            self._create_accumulators(new, hp)
            self._prepared.update(p.name for p in new)
        if lr is None:
            lr = self._global_lr()
        attrs = self._op_attrs(hp)
        for_each_pair(params_grads, lambda p, g: self._append_optimize_op(
            p, g, self._param_lr(p, lr), attrs), "optimizer")

    def _op_attrs(self, hp):
        """Attributes of the update op for one group (None: the op's defaults)."""
        return None

    def _create_accumulators(self, params, hp):
        pass

    def _append_optimize_op(self, param, grad, lr, attrs):
        raise NotImplementedError(f"{type(self).__name__} must implement _append_optimize_op")

    def _run_update(self, op, ins, attrs, targets):
        """Run the update op; where a kernel had to write a fresh array (a
        read-only input), hand it to the tensor it updates."""
        outs = bind(op, ins, attrs)
        for t, o in zip(targets, outs):
            if t is not None and o is not None:
                d = getattr(o, "_data", None)
                if d is not None and (d is not t._data or getattr(t, "_alias", None) is not None):
                    write_data(t, d)     # a fresh array, or t's views must see it
        return outs

    # ------------------------------------------------------------- regularization
    def append_regularization_ops(self, parameters_and_grads, regularization=None):
        """``grad + decay`` for every parameter with a regularizer (its own, else
        ``regularization``)."""
        todo = [(p, g) for p, g in parameters_and_grads if g is not None and
                (getattr(p, "regularizer", None) or regularization) is not None]
        if not todo:
            return parameters_and_grads
        with name_scope("regularization"):
            new = dict(zip((id(p) for p, _ in todo), for_each_pair(
                todo, lambda p, g: self._create_regularization_of_grad(p, g, regularization),
                None)))
        return [(p, new.get(id(p), g)) for p, g in parameters_and_grads]

    def _create_regularization_of_grad(self, param, grad, regularization=None):
        reg = getattr(param, "regularizer", None)
        if reg is None:
            reg = regularization
        if grad is None or reg is None:
            return grad
        return update("sum", {"X": [grad, reg(param, grad)]}, grad)

    # ------------------------------------------------------------- state
    def _new_state(self, name, shape, dtype, fill_value):
        return create_state(name, shape, dtype, fill_value)

    def _add_accumulator(self, name, param, dtype=None, fill_value=0.0, shape=None):
        accs = self._accumulators.setdefault(name, {})
        if param.name in accs:
            return accs[param.name]
        var = unique_name.generate(f"{param.name}_{name}")
        t = self._new_state(var, param.shape if shape is None else shape,
                            _dtype_of(param) if dtype is None else dtype, fill_value)
        held = self._take_held(var)
        if held is not None:
            _load_into(t, held, var)
        accs[param.name] = t
        return t

    def _get_accumulator(self, name, param):
        try:
            return self._accumulators[name][param.name]
        except KeyError:
            raise KeyError(f"{type(self).__name__}: accumulator '{name}' does not exist for "
                           f"parameter {param.name}") from None

    def _create_master_weight(self, param):
        if is_graph_value(param):
            from . import static_minimize
            return static_minimize.master_weight(self, param)
        t = self._master_weights.get(param.name)
        if t is None:
            var = unique_name.generate(param.name + "_fp32_master")
            t = wrap(param._data.astype(_FP32), name=var)
            t.persistable = True
            held = self._accumulators_holder.get("master_weights", {}).pop(param.name, None)
            if held is not None:
                _load_into(t, held, var)
            self._master_weights[param.name] = t
        return t

    def _use_master(self, param):
        return self._multi_precision and _dtype_of(param) == _FP16

    def _take_held(self, var):
        """Loaded state for accumulator ``var``: by exact name, else by the name
        without its counter suffix (the same accumulator of another optimizer
        instance, e.g. ``..._moment1_1`` for ``..._moment1_0``)."""
        held = self._accumulators_holder
        if not held:
            return None
        if var in held:
            return held.pop(var)
        keys = self._held_by_base.get(_SUFFIX.sub("", var))
        while keys:
            k = keys.pop()
            if k in held:
                return held.pop(k)
        return None

    def state_dict(self):
        out = {}
        for accs in self._accumulators.values():
            for t in accs.values():
                out[t.name] = t
        if self._master_weights:
            out["master_weights"] = dict(self._master_weights)
        if isinstance(self._learning_rate, LRScheduler):
            out["LR_Scheduler"] = self._learning_rate.state_dict()
        return out

    def set_state_dict(self, state_dict):
        if not isinstance(state_dict, dict):
            raise TypeError(f"{type(self).__name__}.set_state_dict expects a dict, got "
                            f"{type(state_dict).__name__}")
        state = dict(state_dict)
        sched = state.pop("LR_Scheduler", None)
        if isinstance(self._learning_rate, LRScheduler) and sched is not None:
            self._learning_rate.set_state_dict(sched)
        state.pop("StructuredToParameterName@@", None)
        masters = dict(state.pop("master_weights", None) or {})
        for pname, t in self._master_weights.items():
            if pname in masters:
                _load_into(t, masters.pop(pname), t.name)
        self._accumulators_holder = state
        self._held_by_base = {}
        for k in state:
            self._held_by_base.setdefault(_SUFFIX.sub("", k), []).append(k)
        if masters:
            state["master_weights"] = masters
        for accs in self._accumulators.values():
            for t in accs.values():
                held = self._take_held(t.name)
                if held is None:
                    raise KeyError(f"optimizer Tensor {t.name} not found in the state dict "
                                   f"given to {type(self).__name__}.set_state_dict")
                _load_into(t, held, t.name)

    set_dict = set_state_dict

    # ------------------------------------------------------------- user API
    def clear_grad(self, set_to_zero=True):
        if in_static_mode():       # inside a to_static function: the traced clear
            from . import static_minimize
            return static_minimize.traced_clear_grad(self, set_to_zero)
        for p in self._all_params():
            if not p.stop_gradient:
                p.clear_gradient(set_to_zero)

    clear_gradients = clear_grad

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Eager, as Paddle: apply the gradients already computed by
        ``loss.backward()`` (minimize does not run backward itself).
        A static ``loss``: append backward and update ops (static_minimize).
        Returns ``(optimize_ops, params_grads)``."""
        if is_graph_value(loss):
            from . import static_minimize
            if getattr(loss.block.program, "to_static_trace", False):
                return static_minimize.traced_minimize(self, loss)
            return static_minimize.minimize(self, loss, startup_program, parameters,
                                            no_grad_set)
        params = parameters if parameters is not None else self._all_params()
        skip = set()
        for v in no_grad_set or ():
            skip.add(v if isinstance(v, str) else v.name)
        params_grads = [(p, g) for p, g in _with_grads(params) if p.name not in skip]
        with no_grad():
            self._apply_optimize(params_grads, self._default_dict)
        return [], params_grads

    def backward(self, loss, startup_program=None, parameters=None, no_grad_set=None,
                 callbacks=None):
        if is_graph_value(loss):
            from . import static_minimize
            return static_minimize.backward(self, loss, startup_program, parameters,
                                            no_grad_set, callbacks)
        params = parameters if parameters is not None else self._all_params()
        return _with_grads(params)

    @no_grad()
    def apply_gradients(self, params_grads):
        if params_grads and is_graph_value(params_grads[0][0]):
            from . import static_minimize
            return static_minimize.apply_gradients(self, params_grads)
        self._apply_optimize(sorted(params_grads, key=lambda x: x[0].name),
                             self._default_dict)
        return []

    def __repr__(self):
        return f"{type(self).__name__}(learning_rate={self.get_lr()})"


# ----------------------------------------------------------------- helpers
def _dtype_of(p):
    """numpy dtype of an eager tensor or a static Variable."""
    d = getattr(p, "_data", None)
    return d.dtype if d is not None else p.np_dtype


def _with_grads(params):
    return [(p, p._grad) for p in params if not p.stop_gradient and p._grad is not None]


def _load_into(t, value, name):
    """Copy a saved value (Tensor or array) into state tensor ``t``."""
    a = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
    if tuple(a.shape) != tuple(t._data.shape):
        if a.size == t._data.size and a.size == 1:
            a = a.reshape(t._data.shape)
        else:
            raise ValueError(f"optimizer state {name}: the saved value has shape "
                             f"{list(a.shape)} but the optimizer holds shape {t.shape}")
    write_data(t, np.array(a, dtype=t._data.dtype))


def _check_lr(lr, cls):
    if isinstance(lr, LRScheduler):
        return lr
    if isinstance(lr, bool) or not isinstance(lr, numbers.Real):
        raise TypeError(f"{cls}: learning rate should be float or LRScheduler, got "
                        f"{type(lr).__name__} here")
    return float(lr)


def _check_param(p, cls, where):
    if not isinstance(p, Tensor) and not is_graph_value(p):
        raise TypeError(f"{cls}: `parameters` must hold Tensors (Parameters) or parameter-group "
                        f"dicts, but {where} is a {type(p).__name__}")


def _check_parameters(parameters, cls):
    if parameters is None:
        return None
    if isinstance(parameters, Tensor) or is_graph_value(parameters):
        raise TypeError(f"{cls}: `parameters` argument given to the optimizer should be an "
                        f"iterable of paddle Tensors, but got argument type is "
                        f"`{type(parameters).__name__}`.")
    if isinstance(parameters, dict):
        raise TypeError(f"{cls}: `parameters` argument should not get dict type, if parameter "
                        "groups is needed, please set `parameters` as list of dict")
    try:
        params = list(parameters)
    except TypeError:
        raise TypeError(f"{cls}: `parameters` must be a list of Tensors or of parameter-group "
                        f"dicts, got {type(parameters).__name__}") from None
    if params and isinstance(params[0], dict):
        for i, g in enumerate(params):
            if not isinstance(g, dict):
                raise TypeError(f"{cls}: `parameters` mixes parameter-group dicts with "
                                f"{type(g).__name__} (item {i})")
    else:
        for i, p in enumerate(params):
            _check_param(p, cls, f"item {i}")
    return params


def _check_weight_decay(weight_decay, cls):
    if weight_decay is None or isinstance(weight_decay, WeightDecayRegularizer):
        return weight_decay
    if isinstance(weight_decay, bool) or not isinstance(weight_decay, numbers.Real):
        raise TypeError(f"{cls}: weight_decay must be a float or a regularizer (L1Decay, "
                        f"L2Decay), got {type(weight_decay).__name__}")
    return L2Decay(float(weight_decay))


def _check_grad_clip(grad_clip, cls):
    if grad_clip is None:
        return None
    if not isinstance(grad_clip, GradientClipBase):
        raise TypeError(f"{cls}: 'grad_clip' should be an instance of GradientClipBase's "
                        f"derived class, got {type(grad_clip).__name__}")
    return grad_clip
