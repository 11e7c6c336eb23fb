"""Kernels of the fused ops of ops/defs/fused_passes.py (written by the
build-strategy passes of program/passes/).

Each computes, number for number, what the ops it replaces compute: the same
numpy calls as the unfused kernels (relu's mask, elementwise_add_grad's
reduction, matmul_v2_grad, batch_norm and its grad, sgd/momentum/adam per
parameter), so a program gives the same losses with a pass on or off.
"""
import numpy as np

from ...ops.defs.fused_passes import add_act_order
from ..registry import kernel
from .activation import _gelu, _gelu_grad, _mask, _relu, _relu_grad, _relu_grad_into, _relu_into
from .conv_epilogue import fc_epilogue
from .math import norm_cdf
from .elementwise import align_y, reduce_to, REUSE_MIN
from .linalg import matmul, matmul_v2_grad
from .norm import batch_norm, batch_norm_grad
from .optimizer import sgd, momentum, adam

F32_64 = ("float32", "float64")
_TANH_GELU = {"approximate": True}
_ERF_GELU = {"approximate": False}


# ------------------------------------------------------------------ fused_elemwise_add_activation
def _unary(name, x, scale):
    if name == "relu":             # the compiled loops (numpy 2's maximum: ~2 GB/s)
        return _relu(x)
    if name == "tanh":
        return np.tanh(x)
    if name == "scale":
        return x * x.dtype.type(scale)
    return _gelu(x, _TANH_GELU)        # Paddle's fused gelu is the tanh approximation


def _unary_into(name, a, scale):
    """``_unary`` computed in ``a``'s array (a value nothing else holds)."""
    if name == "relu":
        return _relu_into(a)
    if name == "tanh":
        return np.tanh(a, out=a)
    if name == "scale":
        return np.multiply(a, a.dtype.type(scale), out=a)
    return _gelu(a, _TANH_GELU)


def _unary_grad(name, x, out, g, scale, into=False):
    """Gradient through the unary functor given its input ``x`` (for gelu) or
    its output ``out`` (relu, tanh); ``into``: in ``g``'s array."""
    if name == "relu":
        return _relu_grad_into(out, g) if into else _relu_grad(out, g)
    if name == "tanh":
        t = 1 - out * out
        return np.multiply(g, t, out=g) if into else g * t
    if name == "scale":
        return np.multiply(g, g.dtype.type(scale), out=g) if into else g * g.dtype.type(scale)
    return _gelu_grad(x, g, _TANH_GELU)


def _aligned(x, y, axis):
    return align_y(x, y, axis) if axis != -1 else y


def _fea(x, y, attrs, need, into=False):
    """Out (and IntermediateOut when wanted) of fused_elemwise_add_activation;
    ``into``: Out goes into X's array (executor/reuse.py chose it)."""
    unary, after = add_act_order(attrs["functor_list"])
    axis, scale = attrs["axis"], attrs["scale"]
    lean = need is not None and not need[1]          # nobody reads IntermediateOut
    if after:                                        # unary(X + Y)
        if lean:
            a = np.add(x, _aligned(x, y, axis), out=x) if into else x + _aligned(x, y, axis)
            return _unary_into(unary, a, scale), None
        inter = x + _aligned(x, y, axis)
        return _unary(unary, inter, scale), inter
    inter = _unary(unary, y, scale)                  # X + unary(Y)
    out = np.add(x, _aligned(x, inter, axis), out=x) if into else x + _aligned(x, inter, axis)
    return out, (None if lean else inter)


@kernel("fused_elemwise_add_activation", dtypes=F32_64)
def fused_elemwise_add_activation(ins, attrs, need):
    return _fea(ins[0], ins[1], attrs, need)


def _fea_into(ins, attrs, need):
    x, y = ins
    if x.dtype is y.dtype:
        try:
            return _fea(x, y, attrs, need, into=True)
        except (ValueError, TypeError):
            pass
    return _fea(x, y, attrs, need)


def _fea_fast(into):
    """Fast forms (executor/plan.py, ``fast_first``): Out only, the unary
    functor and the add chosen once per instruction."""
    def fast(attrs):
        unary, after = add_act_order(attrs["functor_list"])
        axis, scale = attrs["axis"], attrs["scale"]
        if axis != -1:
            return None
        if after:
            def f(x, y):
                if into and x.dtype is y.dtype:
                    try:
                        return _unary_into(unary, np.add(x, y, out=x), scale)
                    except (ValueError, TypeError):
                        pass
                return _unary_into(unary, x + y, scale)
            return f

        def g(x, y):
            i = _unary(unary, y, scale)
            if into and x.dtype is y.dtype:
                try:
                    return np.add(x, i, out=x)
                except (ValueError, TypeError):
                    pass
            return x + i
        return g
    return fast


_fea_into.fast = _fea_fast(True)
_fea_into.fast_first = True
fused_elemwise_add_activation.fast = _fea_fast(False)
fused_elemwise_add_activation.fast_first = True
fused_elemwise_add_activation.fresh = True
fused_elemwise_add_activation.inplace = ((0, 0, "bcast"),)       # Out into X's buffer
fused_elemwise_add_activation.reuse = lambda attrs, pairs: _fea_into
fused_elemwise_add_activation.reuse_min = REUSE_MIN


def _fea_grad(ins, attrs, need, into=False):
    x, y, out, inter, g = ins
    unary, after = add_act_order(attrs["functor_list"], "fused_elemwise_add_activation_grad",
                                 "_grad")
    axis, scale = attrs["axis"], attrs["scale"]
    want_x, want_y = need is None or need[0], need is None or need[1]
    x_shape = x.shape if x is not None else g.shape
    if after:
        pre = inter
        if unary == "gelu" and pre is None:
            pre = x + _aligned(x, y, axis)
        if out is None and unary in ("relu", "tanh"):
            out = _unary(unary, inter, scale)
        d = _unary_grad(unary, pre, out, g, scale, into and unary != "gelu")
        dx = (d if d.shape == x_shape else reduce_to(d, x_shape)) if want_x else None
        dy = None
        if want_y:
            dy = reduce_to(d, y.shape, axis) if d.shape != y.shape else \
                (d.copy() if want_x else d)          # (outputs never share an array)
        return dx, dy, None
    dx = (g.copy() if g.shape == x_shape else reduce_to(g, x_shape)) if want_x else None
    dy = None
    if want_y:
        gi = g if g.shape == y.shape else reduce_to(g, y.shape, axis)
        act = inter if inter is not None or unary in ("scale", "gelu") else \
            _unary(unary, y, scale)
        dy = _unary_grad(unary, y, act, gi, scale)
    return dx, dy, None


@kernel("fused_elemwise_add_activation_grad", dtypes=F32_64)
def fused_elemwise_add_activation_grad(ins, attrs, need):
    return _fea_grad(ins, attrs, need)


def _fea_grad_into(ins, attrs, need):
    g = ins[4]
    if ins[2] is not None and ins[2].dtype is g.dtype:
        return _fea_grad(ins, attrs, need, into=True)
    return _fea_grad(ins, attrs, need)


fused_elemwise_add_activation_grad.fresh = True
# X@GRAD computed in Out@GRAD's buffer (the gradient through the activation)
fused_elemwise_add_activation_grad.inplace = ((0, 4, "same"),)
fused_elemwise_add_activation_grad.reuse = lambda attrs, pairs: _fea_grad_into
fused_elemwise_add_activation_grad.reuse_min = REUSE_MIN


# ------------------------------------------------------------------ fused_gemm_epilogue
def _erf_gelu(x):
    return x * norm_cdf(x)


@kernel("fused_gemm_epilogue", dtypes=F32_64)
def fused_gemm_epilogue(ins, attrs, need):
    x, y, b = ins
    pre = matmul(x, y, attrs["trans_x"], attrs["trans_y"])
    pre += b                    # a new array: updated in place
    act = attrs["activation"]
    if act == "none":
        return pre, None
    keep = need is None or need[1]      # ReserveSpace wanted (a backward reads it)
    if act == "relu":
        mask = pre > 0 if keep else None
        return np.maximum(pre, 0, out=pre), mask
    return _erf_gelu(pre), (pre if keep else None)


def _gemm_fast(attrs):
    """Out only (no ReserveSpace: no backward reads it), in the matmul's array."""
    tx, ty, act = attrs["trans_x"], attrs["trans_y"], attrs["activation"]

    def f(x, y, b):
        pre = matmul(x, y, tx, ty)
        if act != "gelu":       # bias (and relu) in one compiled pass over the new product
            return fc_epilogue(pre, b, act == "relu")
        pre += b
        return _erf_gelu(pre)
    return f


fused_gemm_epilogue.fast = _gemm_fast
fused_gemm_epilogue.fast_first = True
fused_gemm_epilogue.fresh = True


@kernel("fused_gemm_epilogue_grad", dtypes=F32_64)
def fused_gemm_epilogue_grad(ins, attrs, need):
    g, x, y, reserve = ins
    act = attrs["activation_grad"]
    if act == "relu_grad":
        g = _mask(reserve if reserve.dtype.kind == "b" else reserve > 0, g)
    elif act == "gelu_grad":
        g = _gelu_grad(reserve, g, _ERF_GELU)
    want = need or (True, True, True)
    dx, dy = matmul_v2_grad((x, y, g), attrs, (want[0], want[1])) \
        if want[0] or want[1] else (None, None)
    db = reduce_to(g, (g.shape[-1],)) if want[2] else None
    return dx, dy, db


# ------------------------------------------------------------------ fused batch_norm + act
def _bn_attrs(attrs):
    return {"is_test": False, "use_global_stats": False, "trainable_statistics": False,
            "momentum": attrs.get("momentum", 0.9), "epsilon": attrs["epsilon"],
            "data_layout": "NHWC"}


def _fbn(x, z, scale, bias, mean, var, attrs):
    y, mean_out, var_out, saved_mean, saved_inv, _ = batch_norm(
        (x, scale, bias, mean, var, None), _bn_attrs(attrs), None)
    if z is not None:
        y = y + z
    return np.maximum(y, 0), mean_out, var_out, saved_mean, saved_inv, None


@kernel("fused_batch_norm_act", dtypes=F32_64)
def fused_batch_norm_act(ins, attrs, need):
    x, scale, bias, mean, var = ins
    return _fbn(x, None, scale, bias, mean, var, attrs)


@kernel("fused_bn_add_activation", dtypes=F32_64)
def fused_bn_add_activation(ins, attrs, need):
    x, z, scale, bias, mean, var = ins
    return _fbn(x, z, scale, bias, mean, var, attrs)


def _fbn_grad(ins, attrs, want):
    x, scale, bias, y, saved_mean, saved_inv, _, dy = ins
    d = _mask(y > 0, dy)
    return d, batch_norm_grad((x, scale, bias, None, None, saved_mean, saved_inv, None, d),
                              _bn_attrs(attrs), want)


@kernel("fused_batch_norm_act_grad", dtypes=F32_64)
def fused_batch_norm_act_grad(ins, attrs, need):
    return _fbn_grad(ins, attrs, need)[1]


@kernel("fused_bn_add_activation_grad", dtypes=F32_64)
def fused_bn_add_activation_grad(ins, attrs, need):
    want = need or (True, True, True, True)
    d, (dx, dscale, dbias) = _fbn_grad(ins, attrs, (want[0], want[2], want[3]))
    return dx, (d if want[1] else None), dscale, dbias


# ------------------------------------------------------------------ merged optimizer ops
def _lr(lrs, k):
    return lrs[0] if len(lrs) == 1 else lrs[k]


@kernel("sampan_merged_sgd", dtypes=F32_64)
def sampan_merged_sgd(ins, attrs, need):
    params, lrs, grads = ins
    return ([sgd((p, _lr(lrs, k), g, None), attrs, None)[0]
             for k, (p, g) in enumerate(zip(params, grads))],)


def _per_param(attrs, k, keys):
    """The single-tensor op's attrs for parameter ``k`` (list attrs: one entry
    per parameter, or none)."""
    out = dict(attrs)
    for key, default in keys:
        v = attrs[key]
        out[key] = v[k] if v else default
    return out


_MOM_LISTS = (("regularization_method", ""), ("regularization_coeff", 0.0))


@kernel("merged_momentum", dtypes=F32_64)
def merged_momentum(ins, attrs, need):
    params, grads, vels, lrs, masters = ins
    p_out, v_out, m_out = [], [], []
    for k, (p, g, v) in enumerate(zip(params, grads, vels)):
        m = masters[k] if masters else None
        po, vo, mo = momentum((p, g, v, _lr(lrs, k), m), _per_param(attrs, k, _MOM_LISTS),
                              None)
        p_out.append(po)
        v_out.append(vo)
        m_out.append(mo)
    return p_out, v_out, (m_out if masters else None)


_ADAM_FIXED = {"lazy_mode": False, "min_row_size_to_use_multithread": 1000}


@kernel("merged_adam", dtypes=F32_64)
def merged_adam(ins, attrs, need):
    params, grads, lrs, m1s, m2s, b1s, b2s, masters = ins
    a = {**attrs, **_ADAM_FIXED}
    outs = [[] for _ in range(6)]
    for k, p in enumerate(params):
        m = masters[k] if masters else None
        res = adam((p, grads[k], _lr(lrs, k), m1s[k], m2s[k], b1s[k], b2s[k], m,
                    None, None, None, None), a, None)
        for lst, r in zip(outs, res):
            lst.append(r)
    if not masters:
        outs[5] = None
    return tuple(outs)
