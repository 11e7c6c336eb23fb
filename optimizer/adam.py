"""``paddle.optimizer.Adam`` (and the accumulator layout AdamW shares):
moment1, moment2 per parameter, beta1_pow_acc / beta2_pow_acc of shape [1]
starting at beta1 / beta2 and advanced by the op after each update."""
import numbers

import numpy as np

from ..dygraph import Tensor
from ..ops import get_op
from .optimizer import Optimizer, _dtype_of

_ADAM = get_op("adam")
_FP16 = np.dtype("float16")
_FP32 = np.dtype("float32")


def _check_betas(cls, beta1, beta2, epsilon):
    for name, v in (("beta1", beta1), ("beta2", beta2), ("epsilon", epsilon)):
        if v is None:
            raise ValueError(f"{cls}: {name} is not set")
    if not isinstance(beta1, Tensor) and not 0 <= beta1 < 1:
        raise ValueError(f"{cls}: invalid value of beta1 {beta1}, expect beta1 in [0,1).")
    if not isinstance(beta2, Tensor) and not 0 <= beta2 < 1:
        raise ValueError(f"{cls}: invalid value of beta2 {beta2}, expect beta2 in [0,1).")
    if not isinstance(epsilon, Tensor) and not 0 <= epsilon:
        raise ValueError(f"{cls}: invalid value of epsilon {epsilon}, expect epsilon >= 0.")


def create_moments(opt, params, hp):
    """Adam's accumulators (Lamb's too): moment1, moment2 like the parameter, and
    beta1_pow_acc / beta2_pow_acc of shape [1] starting at beta1 / beta2; with
    multi_precision they belong to the float32 master weight (Paddle)."""
    b1, b2 = hp["beta1"], hp["beta2"]
    for p in params:
        target = opt._create_master_weight(p) if opt._use_master(p) else p
        dt = _dtype_of(target)
        dt = _FP32 if dt == _FP16 else dt
        opt._add_accumulator(opt._moment1_acc_str, target, dtype=dt)
        opt._add_accumulator(opt._moment2_acc_str, target, dtype=dt)
        opt._add_accumulator(opt._beta1_pow_acc_str, target, dtype=dt, shape=[1],
                             fill_value=0.9 if isinstance(b1, Tensor) else b1)
        opt._add_accumulator(opt._beta2_pow_acc_str, target, dtype=dt, shape=[1],
                             fill_value=0.999 if isinstance(b2, Tensor) else b2)


class Adam(Optimizer):
    type = "adam"
    _op = _ADAM
    _moment1_acc_str = "moment1"
    _moment2_acc_str = "moment2"
    _beta1_pow_acc_str = "beta1_pow_acc"
    _beta2_pow_acc_str = "beta2_pow_acc"

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 parameters=None, weight_decay=None, grad_clip=None, lazy_mode=False,
                 multi_precision=False, use_multi_tensor=False, name=None):
        if learning_rate is None:
            raise ValueError(f"{type(self).__name__}: learning_rate is not set")
        _check_betas(type(self).__name__, beta1, beta2, epsilon)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._lazy_mode = bool(lazy_mode)
        self._multi_precision = bool(multi_precision)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _hyper_defaults(self):
        return {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon,
                "lazy_mode": self._lazy_mode}

    # ------------------------------------------------------------- state
    def _create_accumulators(self, params, hp):
        create_moments(self, params, hp)

    def _op_attrs(self, hp):
        attrs = {"lazy_mode": hp["lazy_mode"], "multi_precision": False}
        for k in ("beta1", "beta2", "epsilon"):
            v = hp[k]
            if isinstance(v, numbers.Real):
                attrs[k] = float(v)
        return attrs

    def _extra_inputs(self, hp_attrs):
        b1 = self._beta1 if isinstance(self._beta1, Tensor) else None
        b2 = self._beta2 if isinstance(self._beta2, Tensor) else None
        eps = self._epsilon if isinstance(self._epsilon, Tensor) else None
        return b1, b2, eps

    def _param_attrs(self, param, attrs, master):
        if master is None:
            return attrs
        attrs = dict(attrs)
        attrs["multi_precision"] = True
        return attrs

    def _append_optimize_op(self, param, grad, lr, attrs):
        master = self._master_weights.get(param.name) if self._master_weights else None
        key = (param if master is None else master).name
        accs = self._accumulators
        m1 = accs[self._moment1_acc_str][key]
        m2 = accs[self._moment2_acc_str][key]
        p1 = accs[self._beta1_pow_acc_str][key]
        p2 = accs[self._beta2_pow_acc_str][key]
        b1t, b2t, epst = self._extra_inputs(attrs)
        ins = (param, grad, lr, m1, m2, p1, p2, master, None, b1t, b2t, epst)
        return self._run_update(self._op, ins, self._param_attrs(param, attrs, master),
                                (param, m1, m2, p1, p2, master))
