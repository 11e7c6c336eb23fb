"""``paddle.optimizer.Lamb``: the ``lamb`` op per parameter (layer-wise
adaptive Adam with decoupled weight decay ``lamb_weight_decay``, 0 for the
parameters ``exclude_from_weight_decay_fn`` selects); accumulators moment1,
moment2, beta1_pow_acc, beta2_pow_acc as Adam's.  The optimizer's own
``weight_decay`` regularization is not used (Paddle passes None)."""
from ..ops import get_op
from .adam import create_moments
from .optimizer import Optimizer

_LAMB = get_op("lamb")


class Lamb(Optimizer):
    type = "lamb"
    _moment1_acc_str = "moment1"
    _moment2_acc_str = "moment2"
    _beta1_pow_acc_str = "beta1_pow_acc"
    _beta2_pow_acc_str = "beta2_pow_acc"

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-6, parameters=None, grad_clip=None,
                 exclude_from_weight_decay_fn=None, multi_precision=False, always_adapt=False,
                 name=None):
        for n, v in (("learning_rate", learning_rate), ("beta1", beta1), ("beta2", beta2),
                     ("epsilon", epsilon)):
            if v is None:
                raise ValueError(f"Lamb: {n} is not set")
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._lamb_weight_decay = lamb_weight_decay
        self._exclude_from_weight_decay_fn = exclude_from_weight_decay_fn
        self._multi_precision = bool(multi_precision)
        self.always_adapt = always_adapt
        super().__init__(learning_rate, parameters, None, grad_clip, name)

    def _hyper_defaults(self):
        return {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon,
                "lamb_weight_decay": self._lamb_weight_decay,
                "exclude_from_weight_decay_fn": self._exclude_from_weight_decay_fn}

    def _create_accumulators(self, params, hp):
        create_moments(self, params, hp)

    def _op_attrs(self, hp):
        return {"beta1": float(hp["beta1"]), "beta2": float(hp["beta2"]),
                "epsilon": float(hp["epsilon"]), "weight_decay": hp["lamb_weight_decay"],
                "always_adapt": bool(self.always_adapt), "multi_precision": False,
                "_exclude": hp["exclude_from_weight_decay_fn"]}

    def _append_optimize_op(self, param, grad, lr, attrs):
        attrs = dict(attrs)
        exclude = attrs.pop("_exclude")
        wd = 0.0 if exclude is not None and exclude(param) else attrs["weight_decay"]
        attrs["weight_decay"] = float(wd)
        master = self._master_weights.get(param.name) if self._use_master(param) else None
        if master is not None:
            attrs["multi_precision"] = True
        key = (param if master is None else master).name
        accs = self._accumulators
        m1 = accs[self._moment1_acc_str][key]
        m2 = accs[self._moment2_acc_str][key]
        p1 = accs[self._beta1_pow_acc_str][key]
        p2 = accs[self._beta2_pow_acc_str][key]
        ins = (param, grad, lr, m1, m2, p1, p2, master, None)
        return self._run_update(_LAMB, ins, attrs, (param, m1, m2, p1, p2, master))
