"""``paddle.amp.auto_cast`` / ``amp_guard`` and ``decorate`` / ``amp_decorate``.

As Paddle 2.6, AMP works on a GPU place only: on the CPU (sampan's numpy
backend, the default place) ``auto_cast(enable=True)`` warns that it makes no
effect and runs the block in float32, and ``decorate(level='O2')`` returns
the models and optimizers unchanged, exactly what real Paddle's CPU build
does.  Where AMP is on (a GPU place), the block's ops get their inputs cast
in op dispatch (``ops.amp``: eager ops and ops appended to a Program alike,
so a to_static function called inside the block is traced with the casts).
sampan holds no bfloat16 tensors (numpy has none), so ``dtype='bfloat16'``
warns and runs in float32 there too.
"""
import copy
import functools
import warnings

from ..ops.amp import AmpState, set_amp, get_amp
from . import place as _place
from .amp_lists import white_list, black_list

__all__ = ["auto_cast", "amp_guard", "decorate", "amp_decorate"]


class _GlobalState:
    """Paddle's ``amp_global_state()``: the dtype of the innermost auto_cast."""
    amp_dtype = "float32"


_global = _GlobalState()
_STATES = {}


def amp_global_state():
    return _global


def _update_list(custom_white_list, custom_black_list, level="O1", dtype="float16"):
    """The white and black op lists of ``level``/``dtype`` with the custom ones
    applied (an op named in both custom lists is an error)."""
    if level == "O0":
        return set(), set()
    white = copy.copy(white_list()[dtype][level])
    black = copy.copy(black_list()[dtype][level])
    if custom_white_list and custom_black_list:
        for op in custom_white_list:
            if op in custom_black_list:
                raise ValueError("Custom white list overlap custom black list")
    for op in custom_white_list or ():
        black.discard(op)
        white.add(op)
    for op in custom_black_list or ():
        white.discard(op)
        black.add(op)
    return white, black


class amp_guard:
    """A context (and decorator) running its block with auto mixed precision;
    see ``auto_cast``."""

    def __init__(self, enable=True, custom_white_list=None, custom_black_list=None,
                 level="O1", dtype="float16", use_promote=True):
        # checked as the block is entered, as Paddle's (a generator context)
        self._args = (enable, custom_white_list, custom_black_list, level, dtype, use_promote)
        self._saved = []

    def _state(self):
        enable, custom_white_list, custom_black_list, level, dtype, use_promote = self._args
        level = str(level).upper()
        if level not in ("O0", "OD", "O1", "O2"):
            raise ValueError("level should be O0, OD, O1 or O2.")
        dtype = str(dtype).lower()
        if enable and dtype not in ("float16", "bfloat16"):
            raise ValueError("If enable amp, dtype should be 'float16' or 'bfloat16'.")
        if enable and not _place.enabled_here():
            warnings.warn(f"amp_guard can only be enabled on CUDAPlace, XPUPlace, and "
                          f"CustomPlace, current place is {_place.place_text()}, so it makes no "
                          f"effect.")
            enable = False
        if enable and dtype == "bfloat16":
            warnings.warn("sampan holds no bfloat16 tensors (numpy has no bfloat16), so "
                          "auto_cast(dtype='bfloat16') makes no effect.")
            enable = False
        white, black = _update_list(custom_white_list, custom_black_list, level, dtype)
        if not enable or level == "O0":
            return dtype, None
        key = (level, dtype, frozenset(white), frozenset(black), bool(use_promote))
        state = _STATES.get(key)
        if state is None:       # one per configuration: its per-op decisions are cached
            state = _STATES[key] = AmpState(level, dtype, white, black, use_promote)
        return dtype, state

    def __enter__(self):
        dtype, state = self._state()
        # the dtype stays after the block (Paddle's GradScaler.scale reads it there)
        _global.amp_dtype = dtype
        self._saved.append(set_amp(state))
        return self

    def __exit__(self, *exc):
        set_amp(self._saved.pop())
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return run


def auto_cast(enable=True, custom_white_list=None, custom_black_list=None, level="O1",
              dtype="float16", use_promote=True):
    """Run a block with auto mixed precision: at O1 the ops of the white list
    compute in ``dtype``, those of the black list in float32, the others in
    float32 when an input is float32; at O2 (parameters cast by ``decorate``)
    every op but the black list's computes in ``dtype`` when its inputs are
    (or always, with ``use_promote=False``); at OD only the white list's."""
    return amp_guard(enable, custom_white_list, custom_black_list, level, dtype, use_promote)


def _in_amp_guard():
    s = get_amp()
    return s is not None and s.level == "O1"


def _in_pure_fp16_guard():
    s = get_amp()
    return s is not None and s.level == "O2"


# ----------------------------------------------------------------- decorate
_NORMS_KEPT = ("BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "SyncBatchNorm")
_NORMS_FP16 = ("LayerNorm", "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D")


def _keep_fp32(layer, dtype):
    from .. import nn
    if not getattr(layer, "_cast_to_low_precison", True):
        return True
    if isinstance(layer, tuple(getattr(nn, n) for n in _NORMS_KEPT if hasattr(nn, n))):
        return True
    return getattr(layer, "_dtype", None) == "float16" or (
        dtype == "float16" and
        isinstance(layer, tuple(getattr(nn, n) for n in _NORMS_FP16 if hasattr(nn, n))))


def _set_excluded_layers(models, excluded_layers):
    from ..nn import Layer
    msg = ("excluded_layers must be either a nn.Layer instance/type or a list of nn.Layer "
           "instances/types.")
    instances, types = [], []
    if excluded_layers is None:
        pass
    elif isinstance(excluded_layers, Layer):
        instances = [excluded_layers]
    elif isinstance(excluded_layers, type) and issubclass(excluded_layers, Layer):
        types = [excluded_layers]
    elif isinstance(excluded_layers, list):
        for item in excluded_layers:
            if isinstance(item, Layer):
                instances.append(item)
            elif isinstance(item, type) and issubclass(item, Layer):
                types.append(item)
            else:
                raise TypeError(msg)
    else:
        raise TypeError(msg)
    for inst in instances:
        for layer in inst.sublayers(include_self=True):
            layer._cast_to_low_precison = False
    types = tuple(types)
    for model in models:
        for layer in model.sublayers(include_self=True):
            if types and isinstance(layer, types):
                layer._cast_to_low_precison = False


class _StateDictHook:
    """Casts a model's floating state to ``save_dtype`` when it is saved."""

    def __init__(self, save_dtype):
        self._save_dtype = save_dtype

    def __call__(self, state_dict):
        from ..tensor.math import cast
        for key, value in list(state_dict.items()):
            if getattr(value, "_data", None) is not None and value._data.dtype.kind == "f":
                out = cast(value, self._save_dtype)
                out.name = value.name
                state_dict[key] = out


def amp_decorate(models, optimizers=None, level="O1", dtype="float16", master_weight=None,
                 save_dtype=None, master_grad=False, excluded_layers=None):
    """See ``decorate``."""
    from ..nn import Layer
    from ..optimizer import Optimizer
    if level not in ("O1", "O2"):
        raise ValueError("level should be O1 or O2, O1 represent AMP train mode, O2 represent "
                         "Pure fp16 train mode.")
    if dtype not in ("float16", "bfloat16"):
        raise ValueError("dtype only support float16 or bfloat16.")
    unchanged = models if optimizers is None else (models, optimizers)
    if level == "O1" or not _place.enabled_here() or dtype == "bfloat16":
        return unchanged
    single = isinstance(models, Layer)
    models = [models] if single else models
    if not isinstance(models, list):
        raise TypeError("models must be either a single model or a list of models.")
    for m in models:
        if not isinstance(m, Layer):
            raise RuntimeError(f"Current train mode is pure fp16, models should be "
                               f"paddle.nn.Layer, but receive {type(m)}.")
    _set_excluded_layers(models, excluded_layers)
    for model in models:
        for layer in model.sublayers(include_self=True):
            if not _keep_fp32(layer, dtype):
                layer._to_impl(dtype=dtype, include_sublayers=False, floating_only=True)
    opt_single = isinstance(optimizers, Optimizer)
    if optimizers is not None:
        opts = [optimizers] if opt_single else optimizers
        if not isinstance(opts, list):
            raise TypeError("optimizers must be either a single optimizer or a list of "
                            "optimizers.")
        for opt in opts:
            if not isinstance(opt, Optimizer):
                raise RuntimeError(f"Current train mode is pure fp16, optimizers should be "
                                   f"paddle.optimizer.Optimizer, but receive {type(opt)}.")
            opt._multi_precision = master_weight is not False
    if save_dtype is not None:
        if save_dtype not in ("float16", "bfloat16", "float32", "float64"):
            raise ValueError(f"save_dtype can only be float16 float32 or float64, but your "
                             f"input save_dtype is {save_dtype}.")
        for model in models:
            for layer in model.sublayers(include_self=True):
                layer.register_state_dict_hook(_StateDictHook(save_dtype))
    out_models = models[0] if single else models
    if optimizers is None:
        return out_models
    return out_models, optimizers


def decorate(models, optimizers=None, level="O1", dtype="float16", master_weight=None,
             save_dtype=None, master_grad=False, excluded_layers=None):
    """Prepare models and optimizers for AMP: O1 changes nothing; O2 casts the
    floating parameters of every layer but BatchNorm (and, for float16,
    LayerNorm/InstanceNorm) and excluded layers to ``dtype`` and turns on the
    optimizers' float32 master weights (``master_weight`` not False)."""
    return amp_decorate(models, optimizers, level, dtype, master_weight, save_dtype,
                        master_grad, excluded_layers)
