"""``paddle.optimizer.AdamW``: Adam with decoupled weight decay, applied by
the ``adamw`` op as ``param *= 1 - lr * coeff`` before the Adam step.
``apply_decay_param_fun(name)`` picks the parameters that decay; ``lr_ratio(param)``
scales each parameter's learning rate."""
import numbers

from ..dygraph import Tensor
from ..ops import get_op
from .adam import Adam

_ADAMW = get_op("adamw")


class AdamW(Adam):
    type = "adamw"
    _op = _ADAMW
    _group_sets_regularizer = False

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=0.01, lr_ratio=None, apply_decay_param_fun=None,
                 grad_clip=None, lazy_mode=False, multi_precision=False, name=None):
        if weight_decay is None:
            raise ValueError("AdamW: weight_decay is not set")
        if isinstance(weight_decay, bool) or not isinstance(weight_decay, (numbers.Real,
                                                                            Tensor)):
            raise TypeError("AdamW: weight_decay should be float or Tensor, got "
                            f"{type(weight_decay).__name__}")
        if lr_ratio is not None and not callable(lr_ratio):
            raise TypeError("AdamW: 'lr_ratio' should be a function of the parameter, got "
                            f"{type(lr_ratio).__name__}")
        self._weight_decay = weight_decay
        self._coeff = weight_decay
        self._lr_ratio = lr_ratio
        self._apply_decay_param_fun = apply_decay_param_fun
        # the decay is the op's, so the base class gets no weight_decay
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip,
                         lazy_mode, multi_precision, name=name)

    def _hyper_defaults(self):
        d = super()._hyper_defaults()
        d["weight_decay"] = self._weight_decay
        return d

    def _op_attrs(self, hp):
        # a group's weight_decay is the decay coefficient here, not a regularizer
        # (read from the group's hyperparameters: eager step and static minimize)
        coeff = hp.get("weight_decay", self._weight_decay)
        self._coeff = c = self._weight_decay if coeff is None else coeff
        attrs = super()._op_attrs(hp)
        attrs["coeff"] = float(c.item() if isinstance(c, Tensor) else c)
        attrs["with_decay"] = True
        attrs["lr_ratio"] = 1.0
        return attrs

    def _param_attrs(self, param, attrs, master):
        decay = (self._apply_decay_param_fun is None
                 or bool(self._apply_decay_param_fun(param.name)))
        ratio = 1.0 if self._lr_ratio is None else float(self._lr_ratio(param))
        if decay and ratio == 1.0 and master is None:
            return attrs
        attrs = dict(attrs)
        attrs["with_decay"] = decay
        attrs["lr_ratio"] = ratio
        attrs["multi_precision"] = master is not None
        return attrs
