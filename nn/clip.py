"""Gradient clipping (``paddle.nn.ClipGradByValue / ByNorm / ByGlobalNorm``).

A clip object is called by the optimizer on the ``(param, grad)`` pairs and
returns new pairs; parameters with ``need_clip=False`` pass through untouched
(and, for the global norm, do not count towards it).  The arithmetic is ops
(``clip``, ``clip_by_norm``, ``squared_l2_norm``, ``sum``, ``sqrt``, ...), the
same in both modes; what differs is Paddle's bookkeeping, done through the
``ops`` mode actions: in a static program the ops sit under name scope
``gradient_clip`` with op_role = Optimize and op_role_var = [param, grad] for
the ops of one gradient (the clipped one, for per-gradient clips; the last
pair's for the global-norm ops), and the global-norm clip scales each gradient
in place (``ops.update``), where eagerly it makes new gradients.
``auto_skip_clip`` needs the norm's value, so a static program has no such
skip, as in Paddle.
"""
from ..ops import bind, get_op, is_graph_value, name_scope, op_role, update
from ..ops.dtypes import NP_TO_ENUM, to_np_dtype

__all__ = ["ClipGradByValue", "ClipGradByNorm", "ClipGradByGlobalNorm", "clip_by_norm"]

_OPS = {}
_OP_ROLE_OPTIMIZE = 2


def _run(op_type, ins, attrs=None):
    op = _OPS.get(op_type)
    if op is None:
        op = _OPS[op_type] = get_op(op_type)
    return bind(op, ins, attrs)[0]


def _squared_l2_norm(x):
    return _run("squared_l2_norm", (x,))


def clip_by_norm(x, max_norm, name=None):
    """``x * max_norm / ||x||`` when ``||x|| > max_norm``, else ``x``."""
    return _run("clip_by_norm", (x,), {"max_norm": float(max_norm)})


def _cast(x, np_dtype):
    return _run("cast", (x,), {"in_dtype": NP_TO_ENUM[_np_dtype(x)],
                               "out_dtype": NP_TO_ENUM[np_dtype]})


def _np_dtype(x):
    return to_np_dtype(x.dtype)


def _clipped(p):
    return getattr(p, "need_clip", True) is not False


def _role(p, g):
    """Ops of one gradient's clip: op_role Optimize, op_role_var [param, grad]."""
    return op_role(_OP_ROLE_OPTIMIZE, [p.name, g.name])


class GradientClipBase:
    """Base: ``clip(params_grads) -> params_grads``."""

    def __call__(self, params_grads):
        with name_scope("gradient_clip"), op_role(_OP_ROLE_OPTIMIZE):
            return self._clip(params_grads)

    def _clip(self, params_grads):
        """Per-gradient clips: ``_clip_one`` on every gradient whose parameter
        takes clipping (subclasses clipping jointly override this)."""
        out = []
        for p, g in params_grads:
            if g is None:
                continue
            if not _clipped(p):
                out.append((p, g))
                continue
            with _role(p, g) as names:
                new = self._clip_one(g)
                if names is not None:
                    names[1] = new.name         # Paddle's _correct_clip_op_role_var
            out.append((p, new))
        return out

    def _clip_one(self, g):
        raise NotImplementedError(f"{type(self).__name__} must define _clip_one")


class ClipGradByValue(GradientClipBase):
    """Clip every gradient element into ``[min, max]`` (``min`` defaults to ``-max``)."""

    def __init__(self, max, min=None):
        if min is None:
            if max <= 0.0:
                raise ValueError(f"ClipGradByValue: max must be positive when min is not "
                                 f"given, got max={max}")
            min = -max
        if min > max:
            raise ValueError(f"ClipGradByValue: min ({min}) must not exceed max ({max})")
        self.max = float(max)
        self.min = float(min)

    def __str__(self):
        return f"Clip Gradient By Value, min = {self.min:f}, max={self.max:f}"

    def _clip_one(self, g):
        return _run("clip", (g, None, None), {"min": self.min, "max": self.max})


class ClipGradByNorm(GradientClipBase):
    """Rescale each gradient whose L2 norm exceeds ``clip_norm`` to that norm."""

    def __init__(self, clip_norm):
        self.clip_norm = float(clip_norm)

    def __str__(self):
        return f"Gradient Clip By Norm, clip_norm={self.clip_norm:f}"

    def _clip_one(self, g):
        return clip_by_norm(g, self.clip_norm)


class ClipGradByGlobalNorm(GradientClipBase):
    """Scale all gradients by ``clip_norm / max(global_norm, clip_norm)``, where
    ``global_norm`` is the L2 norm of every clipped gradient together (summed in
    float64 when any gradient is float64, else float32).  With
    ``auto_skip_clip=True`` nothing is scaled unless the norm exceeds clip_norm."""

    def __init__(self, clip_norm, group_name="default_group", auto_skip_clip=False):
        if not isinstance(group_name, str):
            raise TypeError(f"ClipGradByGlobalNorm: group_name must be a str, got "
                            f"{type(group_name).__name__}")
        self.clip_norm = float(clip_norm)
        self.group_name = group_name
        self.auto_skip_clip = auto_skip_clip

    def __str__(self):
        return f"Gradient Clip By GlobalNorm, global_norm={self.clip_norm:f}"

    def _clip(self, params_grads):
        """Paddle's global-norm clip: squared_l2_norm per gradient, ``sum`` per
        dtype and over dtypes, sqrt, fill_constant(clip_norm), scale =
        clip_norm / max(clip_norm, norm), each gradient times the scale (cast
        to its dtype)."""
        by_dtype, last = {}, None
        for p, g in params_grads:
            if g is None or not _clipped(p):
                continue
            with _role(p, g):
                sq = _squared_l2_norm(g)
            by_dtype.setdefault(_np_dtype(sq).name, []).append(sq)
            last = (p, g)
        if not by_dtype:
            return params_grads
        with _role(*last):
            sum_dtype = "float64" if "float64" in by_dtype else "float32"
            parts = []
            for name in ("float16", "float32", "float64"):
                if name in by_dtype:
                    s = _run("sum", (by_dtype[name],))
                    parts.append(s if name == sum_dtype else _cast(s, to_np_dtype(sum_dtype)))
            total = parts[0] if len(parts) == 1 else _run("sum", (parts,))
            norm = _run("sqrt", (total,))
            dt = _np_dtype(norm)
            max_norm = _run("fill_constant", (None, None, None),
                            {"shape": [1], "dtype": NP_TO_ENUM[dt], "value": self.clip_norm})
            if self.auto_skip_clip and not is_graph_value(norm):
                if float(norm.numpy().reshape(-1)[0]) <= self.clip_norm:
                    return params_grads
                scale = _run("elementwise_div", (max_norm, norm))
            else:
                scale = _run("elementwise_div",
                             (max_norm, _run("elementwise_max", (max_norm, norm))))
        out = []
        for p, g in params_grads:
            if g is None:
                continue
            if _clipped(p):
                with _role(p, g):
                    gd = _np_dtype(g)
                    s = scale if gd == dt else _cast(scale, gd)
                    g = update("elementwise_mul", {"X": g, "Y": s}, g)
            out.append((p, g))
        return out
