"""``paddle.optimizer.SGD``: ``param -= lr * grad`` (the ``sgd`` op)."""
import numpy as np

from ..dygraph.aliases import write_data
from ..ops import bind, get_op
from .optimizer import Optimizer

_SGD = get_op("sgd")
_MP = {"multi_precision": True}


class SGD(Optimizer):
    type = "sgd"

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision=False, name=None):
        if learning_rate is None:
            raise ValueError("SGD: learning_rate is not set")
        self._multi_precision = bool(multi_precision)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, params, hp):
        for p in params:
            if self._use_master(p):
                self._create_master_weight(p)

    def _append_optimize_op(self, param, grad, lr, attrs):
        master = self._master_weights.get(param.name) if self._master_weights else None
        if master is not None:
            return self._run_update(_SGD, (param, lr, grad, master), _MP, (param, master))
        # hottest path: numpy arrays of one dtype whose kernel is cached (what
        # bind would run, without its dispatch: no grad is recorded here)
        p, g, r = getattr(param, "_data", None), getattr(grad, "_data", None), \
            getattr(lr, "_data", None)
        if type(p) is np.ndarray and type(g) is np.ndarray and p.dtype is g.dtype \
                and p.shape == g.shape and type(r) is np.ndarray and r.size == 1:
            entry = _SGD.eager_cache.get(p.dtype)
            if entry is not None and not entry[1]:
                d = entry[0]([p, r, g, None], _SGD.default_attrs, None)[0]
                if d is not p or getattr(param, "_alias", None) is not None:
                    write_data(param, d)
                return None
        # hot path: default attrs, one in-place output to check
        outs = bind(_SGD, (param, lr, grad, None))
        d = getattr(outs[0], "_data", None)
        if d is not None and (d is not param._data or getattr(param, "_alias", None) is not None):
            write_data(param, d)
        return outs
