"""``paddle.optimizer.Adadelta``: the ``adadelta`` op per parameter, with the
accumulators ``_avg_squared_grad`` and ``_avg_squared_update`` (Paddle's
names, so state dict keys are ``<param>__avg_squared_grad_0``)."""
from ..ops import get_op
from .optimizer import Optimizer

_ADADELTA = get_op("adadelta")


class Adadelta(Optimizer):
    type = "adadelta"
    _avg_squared_grad_acc_str = "_avg_squared_grad"
    _avg_squared_update_acc_str = "_avg_squared_update"

    def __init__(self, learning_rate=0.001, epsilon=1.0e-6, rho=0.95, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set.")
        if epsilon is None:
            raise ValueError("epsilon is not set.")
        if rho is None:
            raise ValueError("rho is not set.")
        self._epsilon, self._rho = epsilon, rho
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _hyper_defaults(self):
        return {"epsilon": self._epsilon, "rho": self._rho}

    def _create_accumulators(self, params, hp):
        for p in params:
            self._add_accumulator(self._avg_squared_grad_acc_str, p)
            self._add_accumulator(self._avg_squared_update_acc_str, p)

    def _op_attrs(self, hp):
        return {"epsilon": float(hp["epsilon"]), "rho": float(hp["rho"]),
                "multi_precision": False}

    def _append_optimize_op(self, param, grad, lr, attrs):
        accs = self._accumulators
        asg = accs[self._avg_squared_grad_acc_str][param.name]
        asu = accs[self._avg_squared_update_acc_str][param.name]
        return self._run_update(_ADADELTA, (param, grad, asg, asu, lr, None), attrs,
                                (param, asg, asu, None))
