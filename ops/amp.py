"""Auto mixed precision in op dispatch: the casts ``paddle.amp.auto_cast`` puts
in front of an op, decided per op call as Paddle's eager AMP does
(``GetAmpDestDtype`` / ``EagerAmpAutoCast``), for eager ops and for ops
appended to a Program (to_static, static mode) alike.

``sampan.amp`` turns it on for the running thread with ``set_amp(AmpState)``
(and off with ``set_amp(None)``); that wraps the thread's ``bind`` handler
(``mode.set_handler_wrap``), so while no thread is under auto_cast ``bind``
is exactly what it is without AMP.

The destination dtype of an op call (``dest_dtype``), with ``low`` the AMP
dtype (float16):

- level O1/O2 with promotion (O1 always, O2 unless ``use_promote=False``):
  white-list op -> ``low``; black-list op -> float32; any other op -> float32
  when one of its floating inputs is float32, else ``low``;
- O2 without promotion: black-list op -> float32, every other op -> ``low``;
- OD: white-list op -> ``low``, every other op -> float32;
- an op without a ``low`` kernel computes in float32 (Paddle's unsupported list).

Then each input of dtype float32/float16/bfloat16 that differs from the
destination is cast by a ``cast`` op (recorded on the tape eagerly, so the
gradient flows back in the input's dtype; appended to the Program in static
mode).  Norm ops (``batch_norm``, ``layer_norm``, ``sync_batch_norm``) cast only
``X``: their scale, bias and statistics keep float32.  Optimizer updates, the
loss-scaling ops and ``cast`` itself are never cast (Paddle generates no AMP
code for them).
"""
import numpy as np

from .mode import set_handler_wrap, _local, _wrapped_threads
from .registry import get_op
from .dtypes import to_enum

__all__ = ["AmpState", "set_amp", "get_amp", "amp_key", "dest_dtype", "NO_AMP_OPS"]

_F32 = np.dtype("float32")
_AMP_FLOATS = (np.dtype("float32"), np.dtype("float16"))
_CAST = get_op("cast")
# ops without AMP casts: Paddle's eager code generator emits none for them
NO_AMP_OPS = frozenset({
    "cast", "assign", "share_data", "fill_constant", "assign_value", "uniform_random",
    "gaussian_random", "check_finite_and_unscale", "update_loss_scaling",
    "sgd", "momentum", "lars_momentum", "adam", "adamw", "adamax", "adagrad", "adadelta",
    "rmsprop", "lamb", "merged_adam", "merged_momentum", "dgc_momentum", "ftrl",
    "decayed_adagrad", "average_accumulates",
})
_ONLY_X = {"batch_norm": "X", "layer_norm": "X", "sync_batch_norm": "X"}
_WHITE, _BLACK, _GRAY, _SKIP = range(4)


class AmpState:
    """What one ``auto_cast`` block asks for: ``level`` ('O1', 'O2', 'OD'),
    the low dtype (numpy), the white and black op-type sets, ``use_promote``."""

    def __init__(self, level, dtype, white, black, use_promote=True):
        self.level = level
        self.low = np.dtype(dtype)
        self.white = frozenset(white)
        self.black = frozenset(black)
        self.use_promote = bool(use_promote) or level != "O2"
        self._kinds = {}                 # op type -> _WHITE/_BLACK/_GRAY/_SKIP
        self._has_low = {}               # op type -> whether it has a ``low`` kernel
        self.key = (level, self.low.name, tuple(sorted(self.white)),
                    tuple(sorted(self.black)), self.use_promote)

    def kind(self, op):
        k = self._kinds.get(op.type)
        if k is None:
            t = op.type
            if t in NO_AMP_OPS or not op.inputs:
                k = _SKIP
            elif t in self.black:
                k = _BLACK
            elif t in self.white:
                k = _WHITE
            else:
                k = _GRAY
            self._kinds[t] = k
        return k

    def __repr__(self):
        return f"AmpState(level={self.level!r}, dtype={self.low.name!r})"


def _dtype_of(x):
    d = getattr(x, "_data", None)
    if d is not None:
        return d.dtype
    return getattr(x, "np_dtype", None)


def _amp_inputs(op, ins):
    """[(slot index, element index or None, value, dtype)] of the inputs AMP may
    cast (float32/float16 ones)."""
    only = _ONLY_X.get(op.type)
    found = []
    for i, x in enumerate(ins):
        if x is None or (only is not None and op.inputs[i].name != only):
            continue
        if type(x) is list or type(x) is tuple:
            for k, e in enumerate(x):
                dt = _dtype_of(e)
                if dt in _AMP_FLOATS:
                    found.append((i, k, e, dt))
        else:
            dt = _dtype_of(x)
            if dt in _AMP_FLOATS:
                found.append((i, None, x, dt))
    return found


def dest_dtype(state, op, floats):
    """The dtype ``op`` computes in under ``state``, given the dtypes of its
    castable inputs (``floats``); None when nothing is cast."""
    kind = state.kind(op)
    if kind == _SKIP or not floats:
        return None
    low = state.low
    if state.level == "OD":
        dst = low if kind == _WHITE else _F32
    elif not state.use_promote:
        dst = _F32 if kind == _BLACK else low
    elif kind == _WHITE:
        dst = low
    elif kind == _BLACK:
        dst = _F32
    elif op.type in _ONLY_X and low == np.float16:
        dst = _F32 if floats[0] == _F32 else low
    else:
        dst = _F32 if _F32 in floats else low
    if dst is low:
        ok = state._has_low.get(op.type)
        if ok is None:
            ok = state._has_low[op.type] = op.has_kernel_dtype(low)
        if not ok:
            dst = _F32
    return dst


def _wrap(state):
    kinds = state._kinds

    def wrap(handler):
        def amp_handler(op, ins, attrs):
            k = kinds.get(op.type)
            if k is None:
                k = state.kind(op)
            if k == _SKIP:
                return handler(op, ins, attrs)
            found = _amp_inputs(op, ins)
            dst = dest_dtype(state, op, [f[3] for f in found]) if found else None
            if dst is None:
                return handler(op, ins, attrs)
            new = None
            for i, j, x, dt in found:
                if dt == dst:
                    continue
                if new is None:
                    new = [list(v) if type(v) is list or type(v) is tuple else v for v in ins]
                    cast_attrs = {"in_dtype": to_enum(dt), "out_dtype": to_enum(dst)}
                elif cast_attrs["in_dtype"] != to_enum(dt):
                    cast_attrs = {"in_dtype": to_enum(dt), "out_dtype": to_enum(dst)}
                y = handler(_CAST, (x,), cast_attrs)[0]
                if j is None:
                    new[i] = y
                else:
                    new[i][j] = y
            return handler(op, ins if new is None else tuple(new), attrs)
        return amp_handler
    wrap.state = state
    return wrap


def set_amp(state):
    """Turn auto mixed precision on (an ``AmpState``) or off (None) for this
    thread; returns the previous state."""
    prev = set_handler_wrap(None if state is None else _wrap(state))
    return None if prev is None else prev.state


def get_amp():
    """This thread's ``AmpState``, or None when auto_cast is off."""
    w = _local.wrap
    return None if w is None else w.state


def amp_key():
    """A hashable key of this thread's AMP state, None when auto_cast is off
    (cheap then: one global read), for caches of programs traced under it."""
    if not _wrapped_threads[0]:
        return None
    w = _local.wrap
    return None if w is None else w.state.key
