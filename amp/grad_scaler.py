"""``paddle.amp.GradScaler`` / ``AmpScaler``: dynamic loss scaling.

As Paddle 2.6, a scaler is enabled on a GPU place only: on the CPU
``GradScaler()`` warns that it makes no effect and every method passes
through (``scale`` returns the loss, ``minimize``/``step`` run the
optimizer, ``state_dict`` is empty).  Enabled, ``scale`` multiplies the loss
by the scale; ``unscale_`` runs ``check_finite_and_unscale`` over the
parameters' gradients (by dtype); ``step``/``minimize`` skip the optimizer
when a gradient was not finite; ``update`` moves the scale as
``update_loss_scaling`` does.  Given a static loss (static mode, or a
to_static function's converted code), ``scale`` multiplies by the scale
variable and ``minimize`` appends backward, ``check_finite_and_unscale``,
``update_loss_scaling`` and the optimizer's ops (Paddle's static AMP
optimizer's sequence).
"""
import warnings
from collections import defaultdict
from enum import Enum

import numpy as np

from ..ops import bind, get_op, is_graph_value
from ..dygraph import no_grad
from ..dygraph.tensor import wrap
from . import place as _place
from .auto_cast import amp_global_state

__all__ = ["AmpScaler", "GradScaler", "OptimizerState"]

_CHECK = get_op("check_finite_and_unscale")
_UPDATE = get_op("update_loss_scaling")


class OptimizerState(Enum):
    INIT = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_optimizer_state():
    return {"state": OptimizerState.INIT}


def _params_of(optimizer):
    groups = getattr(optimizer, "_param_groups", None)
    if groups and isinstance(groups[0], dict):
        return [p for g in groups for p in g["params"]]
    return list(optimizer._parameter_list or [])


class AmpScaler:
    """Loss scaling for AMP training (Paddle's ``AmpScaler``: its defaults
    are ``init_loss_scaling=2**15``, ``incr_every_n_steps=1000``)."""

    def __init__(self, enable=True, init_loss_scaling=2.0 ** 15, incr_ratio=2.0,
                 decr_ratio=0.5, incr_every_n_steps=1000, decr_every_n_nan_or_inf=1,
                 use_dynamic_loss_scaling=True):
        if enable and not _place.enabled_here():
            warnings.warn(f"AmpScaler can only be enabled on CUDAPlace, XPUPlace and "
                          f"CustomPlace, current place is {_place.place_text()}, so it makes no "
                          f"effect.")
            enable = False
        self._enable = enable
        if not enable:
            return
        if not incr_ratio > 1.0:
            raise AssertionError("The incr_ratio must be > 1.0.")
        if not decr_ratio < 1.0:
            raise AssertionError("The decr_ratio must be < 1.0.")
        self._init_loss_scaling = init_loss_scaling
        self._incr_ratio = incr_ratio
        self._decr_ratio = decr_ratio
        self._incr_every_n_steps = incr_every_n_steps
        self._decr_every_n_nan_or_inf = decr_every_n_nan_or_inf
        self._incr_count = 0
        self._decr_count = 0
        self._use_dynamic_loss_scaling = use_dynamic_loss_scaling
        self._found_inf = wrap(np.array([False]))
        self._scale = wrap(np.array([init_loss_scaling], np.float32))
        self._cache_founf_inf = None
        self._optimizer_states = defaultdict(_refresh_optimizer_state)
        self._static_steps = None        # good/bad step counters of static programs

    # ------------------------------------------------------------- scaling
    def scale(self, var):
        """``var`` times the loss scale (``var`` itself when disabled)."""
        if self._enable and amp_global_state().amp_dtype != "float16" and \
                self._use_dynamic_loss_scaling:
            self._enable = False
            self._use_dynamic_loss_scaling = False
            warnings.warn(f"It is not recommended to use dynamic loss scaling for "
                          f"{amp_global_state().amp_dtype}, so GradScaler is disable by "
                          f"default.")
        if not self._enable:
            return var
        return var * self._scale        # a float16 loss is promoted to float32

    def minimize(self, optimizer, *args, **kwargs):
        """``optimizer.minimize`` on the unscaled gradients, skipped when one is
        not finite; then the scale is updated."""
        if not self._enable:
            return optimizer.minimize(*args, **kwargs)
        loss = args[0] if args else kwargs.get("loss")
        if is_graph_value(loss):
            return self._static_minimize(optimizer, *args, **kwargs)
        state = self._optimizer_states[id(optimizer)]
        if state["state"] is OptimizerState.INIT:
            self._unscale(optimizer)
        optimize_ops, params_grads = None, None
        if bool(self._found_inf):
            self._cache_founf_inf = True
        else:
            optimize_ops, params_grads = optimizer.minimize(*args, **kwargs)
            self._cache_founf_inf = False
        if self._use_dynamic_loss_scaling:
            self._update()
        self._optimizer_states = defaultdict(_refresh_optimizer_state)
        return optimize_ops, params_grads

    @no_grad()
    def _unscale(self, optimizer):
        if not self._enable:
            return
        state = self._optimizer_states[id(optimizer)]
        if state["state"] is OptimizerState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if state["state"] is OptimizerState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        by_dtype = {}
        for p in _params_of(optimizer):
            g = p._grad
            if g is not None and getattr(g, "_data", None) is not None:
                by_dtype.setdefault(g._data.dtype.name, []).append(g)
        found = False
        for name in ("float16", "bfloat16", "float32"):
            grads = by_dtype.get(name)
            if not grads:
                continue
            outs, inf = bind(_CHECK, (grads, self._scale), None)
            for g, o in zip(grads, outs):     # in place, as Paddle's eager op
                g._data = o._data
            found = found or bool(inf._data.reshape(-1)[0])
        self._found_inf = wrap(np.array([found]))
        state["state"] = OptimizerState.UNSCALED

    def _update(self):
        if not self._enable:
            return
        if self._cache_founf_inf:
            self._incr_count = 0
            self._decr_count += 1
            if self._decr_count == self._decr_every_n_nan_or_inf:
                print(f"Found inf or nan, current scale is: {float(self._scale)}, decrease "
                      f"to: {float(self._scale)}*{float(self._decr_ratio)}")
                self._scale = wrap(self._scale._data * np.float32(self._decr_ratio))
                self._decr_count = 0
        else:
            self._decr_count = 0
            self._incr_count += 1
            if self._incr_count == self._incr_every_n_steps:
                self._scale = wrap(self._scale._data * np.float32(self._incr_ratio))
                self._incr_count = 0

    # ------------------------------------------------------------- static programs
    def _static_minimize(self, optimizer, loss, startup_program=None, parameters=None,
                         no_grad_set=None):
        """Static ``minimize``: backward, check_finite_and_unscale, (with dynamic
        scaling) update_loss_scaling, then the optimizer's update ops."""
        params_grads = optimizer.backward(loss, startup_program, parameters, no_grad_set)
        params_grads = [(p, g) for p, g in params_grads if g is not None]
        if not params_grads:
            return [], params_grads
        grads = [g for _, g in params_grads]
        outs, found = bind(_CHECK, (grads, self._scale), None)
        if self._use_dynamic_loss_scaling:
            if self._static_steps is None:
                self._static_steps = (wrap(np.zeros([1], np.int32)),
                                      wrap(np.zeros([1], np.int32)))
            good, bad = self._static_steps
            outs = bind(_UPDATE, (outs, found, self._scale, good, bad, None),
                        {"incr_every_n_steps": self._incr_every_n_steps,
                         "decr_every_n_nan_or_inf": self._decr_every_n_nan_or_inf,
                         "incr_ratio": float(self._incr_ratio),
                         "decr_ratio": float(self._decr_ratio)})[0]
        params_grads = [(p, g) for (p, _), g in zip(params_grads, outs)]
        optimize_ops = optimizer.apply_gradients(params_grads)
        return optimize_ops, params_grads

    # ------------------------------------------------------------- accessors
    def is_enable(self):
        return self._enable

    def is_use_dynamic_loss_scaling(self):
        return self._use_dynamic_loss_scaling

    def get_init_loss_scaling(self):
        return self._init_loss_scaling

    def set_init_loss_scaling(self, new_init_loss_scaling):
        self._init_loss_scaling = new_init_loss_scaling
        self._scale = wrap(np.array([new_init_loss_scaling], np.float32))

    def get_incr_ratio(self):
        return self._incr_ratio

    def set_incr_ratio(self, new_incr_ratio):
        if not new_incr_ratio > 1.0:
            raise AssertionError("The new_incr_ratio must be > 1.0.")
        self._incr_ratio = new_incr_ratio

    def get_decr_ratio(self):
        return self._decr_ratio

    def set_decr_ratio(self, new_decr_ratio):
        if not new_decr_ratio < 1.0:
            raise AssertionError("The new_decr_ratio must be < 1.0.")
        self._decr_ratio = new_decr_ratio

    def get_incr_every_n_steps(self):
        return self._incr_every_n_steps

    def set_incr_every_n_steps(self, new_incr_every_n_steps):
        self._incr_every_n_steps = new_incr_every_n_steps

    def get_decr_every_n_nan_or_inf(self):
        return self._decr_every_n_nan_or_inf

    def set_decr_every_n_nan_or_inf(self, new_decr_every_n_nan_or_inf):
        self._decr_every_n_nan_or_inf = new_decr_every_n_nan_or_inf

    def state_dict(self):
        """The scaler's state (empty when disabled)."""
        if not self._enable:
            return {}
        return {"scale": self._scale.numpy(), "incr_ratio": self._incr_ratio,
                "decr_ratio": self._decr_ratio, "incr_every_n_steps": self._incr_every_n_steps,
                "decr_every_n_nan_or_inf": self._decr_every_n_nan_or_inf,
                "incr_count": self._incr_count, "decr_count": self._decr_count,
                "use_dynamic_loss_scaling": self._use_dynamic_loss_scaling}

    def load_state_dict(self, state_dict):
        if not self._enable:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The input state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_loss_scaling = state_dict["scale"][0]
        self._scale = wrap(np.array([self._init_loss_scaling], np.float32))
        self._incr_ratio = state_dict["incr_ratio"]
        self._decr_ratio = state_dict["decr_ratio"]
        self._incr_every_n_steps = state_dict["incr_every_n_steps"]
        self._decr_every_n_nan_or_inf = state_dict["decr_every_n_nan_or_inf"]
        self._incr_count = state_dict["incr_count"]
        self._decr_count = state_dict["decr_count"]
        self._use_dynamic_loss_scaling = state_dict["use_dynamic_loss_scaling"]


class GradScaler(AmpScaler):
    """Loss scaling for AMP training in dynamic graph mode, with ``step`` and
    ``update`` besides ``minimize`` (Paddle's defaults: ``init_loss_scaling=2**16``,
    ``incr_every_n_steps=2000``)."""

    def __init__(self, enable=True, init_loss_scaling=2.0 ** 16, incr_ratio=2.0,
                 decr_ratio=0.5, incr_every_n_steps=2000, decr_every_n_nan_or_inf=1,
                 use_dynamic_loss_scaling=True):
        super().__init__(enable, init_loss_scaling, incr_ratio, decr_ratio,
                         incr_every_n_steps, decr_every_n_nan_or_inf, use_dynamic_loss_scaling)

    def step(self, optimizer):
        """``optimizer.step()`` on the unscaled gradients, skipped when one is not
        finite."""
        if not self._enable:
            return optimizer.step()
        state = self._optimizer_states[id(optimizer)]
        if state["state"] is OptimizerState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["state"] is OptimizerState.INIT:
            self._unscale(optimizer)
        if bool(self._found_inf):
            self._cache_founf_inf = True
        else:
            optimizer.step()
            self._cache_founf_inf = False
        state["state"] = OptimizerState.STEPPED
        if not self._use_dynamic_loss_scaling:
            self._optimizer_states = defaultdict(_refresh_optimizer_state)

    def update(self):
        """Move the loss scale after ``step``."""
        if not self._enable:
            return
        if self._use_dynamic_loss_scaling:
            self._update()
            self._optimizer_states = defaultdict(_refresh_optimizer_state)

    def unscale_(self, optimizer):
        """Divide the parameters' gradients by the scale (once per step)."""
        return super()._unscale(optimizer)
