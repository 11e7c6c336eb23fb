"""What a fused convolution (sampan_conv2d_fusion, sampan_conv2d_winograd) does
to its output on the way out: the bias (one value per output channel) and the
activation, with the numbers of the unfused elementwise_add and activation ops
(and ``fc_epilogue``: the same for sampan_fc's bias and relu).

numpy does them as two passes over the output after the GEMM wrote it (the
bias add, then the activation), each a full read and write of an array that
is tens of MB at batch 16, and a residual connection adds a third op (its
add) and pass.  ``epilogue(act, alpha, dtype, residual)`` -> ``fn(res, bias,
start)`` does them in place over ``res`` (N, O, ...), C-contiguous:

- no activation, relu and relu6 (``CLAMPS``): one compiled pass, bias, the
  residual (``(conv + bias) + residual``, the order of the unfused adds), then
  a clamp to [lo, hi] (numba; NaN passes both tests as it passes np.maximum and
  np.clip; relu sends -0.0 to +0.0 as np.maximum(x, 0) does, relu6 keeps it
  as np.clip does).  A missing bias is added as -0.0, the identity of IEEE
  addition (+0.0 would turn -0.0 into +0.0);
- hard_swish and hard_sigmoid: one compiled pass too (numba, the activation
  ops' scalar code after the same adds: 16x240x28x28 0.92 -> 0.37 ms);
- sigmoid, swish and silu (float32): one compiled pass with a vectorized exp
  (kernels/cpu/sigmoid_kernel.py), the pass the unfused ops take too, so the
  same bits (ShuffleNetV2-swish 1.12-1.19x Paddle's time before, 0.79-0.90x);
- every other activation: the bias and the residual added by numpy, then the
  activation in place (``activate``).

The 1x1 GEMM path of conv_forward calls it per sample right after that
sample's GEMM, while its output is still in cache: 16x32x112x112 -> 64 with
relu 15.3 -> 9.5 ms, 16x128x56x56 -> 128 12.2 -> 9.1 ms, batch 1 0.57 ->
0.33 ms.  The depthwise kernels take the same clamp in their own loops.
"""
import numpy as np

from ...ops.registry import get_op
from .activation import ACTIVATIONS, ACTIVATIONS_INTO, SIGMOID_COMPILED_MIN
from .depthwise import _U
from .fused_elementwise import activation_into, compiled_kernel, _NUMBA_FLOATS
from . import sigmoid_kernel

__all__ = ["CLAMPS", "epilogue", "activate", "fc_epilogue"]

# act -> (lo, hi, tie): outputs below lo (or equal to it, with tie: -0.0 at a
# 0.0 bound) become lo, above hi become hi; tie only with lo = +0.0 (the
# compiled kernels' clamp, llvm_jit.Emitter.clamp, adds +0.0 for it)
CLAMPS = {"": (-np.inf, np.inf, False), "relu": (0.0, np.inf, True),
          "relu6": (0.0, 6.0, False)}


def _bias_clamp(a, bias, resid, has_resid, lo, hi, tie):
    m, o, n = a.shape
    un = _U(n)
    for s in range(m):
        for c in range(o):
            r = a[s, c]
            bo = bias[c]
            if has_resid:
                q = resid[s, c]
                for j in range(un):
                    v = (r[j] + bo) + q[j]
                    if v < lo or (tie and v == lo):
                        v = lo
                    if v > hi:
                        v = hi
                    r[j] = v
            else:
                for j in range(un):
                    v = r[j] + bo
                    if v < lo or (tie and v == lo):
                        v = lo
                    if v > hi:
                        v = hi
                    r[j] = v


def _bias_hard(a, bias, resid, has_resid, swish, p0, p1, p2, z, one):
    """(row + bias[c]) (+ residual), then hard_swish (``swish``: v * clip(v + p0, 0,
    p1) / p2) or hard_sigmoid (clip(v * p0 + p1, 0, 1)): the scalar code of the
    activation ops' compiled passes (fused_elementwise.py), so the same bits."""
    m, o, n = a.shape
    un = _U(n)
    for s in range(m):
        for c in range(o):
            r = a[s, c]
            q = resid[s, c]
            bo = bias[c]
            for j in range(un):
                v = r[j] + bo
                if has_resid:
                    v = v + q[j]
                if swish:
                    t = v + p0
                    t = z if t < z else p1 if t > p1 else t
                    r[j] = (v * t) / p2
                else:
                    t = v * p0 + p1
                    r[j] = z if t < z else one if t > one else t


def _rows_bias_relu(a, bias, relu, z):
    """sampan_fc's bias (over the last axis) and relu, np.maximum's rule
    (``z``: +0.0 in the dtype)."""
    m, n = a.shape
    un = _U(n)
    for i in range(m):
        r = a[i]
        for j in range(un):
            v = r[j] + bias[j]
            if relu:
                v = v if v > z or v != v else z
            r[j] = v


def fc_epilogue(out, bias, relu):
    """sampan_fc's ``out += bias`` then relu (np.maximum(out, 0)) in place on the
    fresh product ``out`` (..., N): one compiled pass where numba is present
    (W5's 64x256 layers 46 -> 40 us), numpy's two otherwise; the same bits."""
    kernel = compiled_kernel(_rows_bias_relu)
    if kernel is not None and out.dtype in _NUMBA_FLOATS and bias.dtype == out.dtype and \
            bias.ndim == 1 and out.ndim >= 1 and out.size and out.flags.c_contiguous and \
            type(out) is np.ndarray and out.shape[-1] == bias.shape[0]:
        kernel(out.reshape(-1, out.shape[-1]), bias, relu, out.dtype.type(0))
        return out
    out += bias
    if relu:
        np.maximum(out, 0, out=out)
    return out


_ACT_ATTRS = {}


def activate(out, act, alpha):
    """``act`` applied to a fused conv's fresh output: in place by its in-place
    kernel (relu, tanh), the compiled sigmoid pass (sigmoid, swish, silu; float32,
    as the unfused ops take it) or its compiled one-pass loop (hard_swish, relu6,
    hard_sigmoid, leaky_relu: ``activation_into``, 10x numpy's passes on
    MobileNetV3's maps), else by the activation op's own kernel function
    (kernels/cpu/activation.py), with that op's declared default attributes
    (``alpha`` for leaky_relu): the numbers of the unfused activation op."""
    if not act:
        return out
    into = ACTIVATIONS_INTO.get(act)
    if into is not None:
        return into[0](out)
    if act in sigmoid_kernel.KINDS and type(out) is np.ndarray and out.dtype == np.float32 \
            and out.flags.c_contiguous and out.size >= SIGMOID_COMPILED_MIN and \
            sigmoid_kernel.available():
        return sigmoid_kernel.sigmoid_rows(out.reshape(1, 1, -1), None, None, act,
                                           _beta(act)).reshape(out.shape)
    key = (act, alpha, out.dtype)
    entry = _ACT_ATTRS.get(key)
    if entry is None:
        attrs = dict(get_op(act).default_attrs,
                     **({"alpha": alpha} if act == "leaky_relu" else {}))
        entry = _ACT_ATTRS[key] = (attrs, activation_into(act, attrs, out.dtype))
    attrs, compiled = entry
    if compiled is not None and type(out) is np.ndarray and out.flags.c_contiguous:
        return compiled(out)
    return ACTIVATIONS[act][0](out, attrs)


_EPILOGUES = {}


def epilogue(act, alpha, dtype, residual=None):
    """``fn(res, bias, start=0)``: ``bias`` (O values or None), then the samples
    ``start:start + len(res)`` of ``residual`` (N, O, ..., or None) added and
    ``act`` applied to ``res`` (a block of samples (n, O, ...)) in place
    (module docstring); returns the result: ``res``, or a new array where the
    activation has no in-place form (sigmoid, swish: numpy's own loops).
    A relu/relu6/no activation epilogue (float32, float64) carries ``spec``:
    ``(CLAMPS[act], residual)`` for a kernel that does it in its stores."""
    key = (act, alpha, dtype)
    fn = _EPILOGUES.get(key)
    if fn is None:
        fn = _EPILOGUES[key] = _make(act, alpha, np.dtype(dtype))
    if residual is None:
        return fn

    def with_residual(res, bias, start=0):
        return fn(res, bias, start, residual)
    clamp = getattr(fn, "clamp", None)
    with_residual.spec = None if clamp is None else (clamp, residual)
    return with_residual


def _beta(act):
    """The sigmoid's scale of ``act`` with its op's default attrs (swish's beta)."""
    return float(get_op(act).default_attrs.get("beta", 1.0))


def _sigmoid_epilogue(act, fallback):
    """swish/silu/sigmoid: bias, residual and the activation in one compiled pass
    (kernels/cpu/sigmoid_kernel.py, the unfused ops' own pass: the same bits);
    ``fallback`` where the arrays do not fit it."""
    beta = _beta(act)

    def bias_sigmoid(res, bias, start=0, residual=None):
        if residual is not None:
            residual = residual[start:start + res.shape[0]]
        if res.size < SIGMOID_COMPILED_MIN or not _rows_fit(res, bias, residual, np.float32):
            return fallback(res, bias, 0, residual)     # (small: as the unfused op decides)
        return sigmoid_kernel.sigmoid_rows(res, bias, residual, act, beta)
    return bias_sigmoid


def _hard_epilogue(act, dtype, kernel, fallback):
    """hard_swish/hard_sigmoid: bias, residual and the activation in one compiled
    pass (before: numpy's bias and residual passes, then the activation's)."""
    a = get_op(act).default_attrs
    swish = act == "hard_swish"
    t = dtype.type
    params = (t(a["offset"]), t(a["threshold"]), t(a["scale"])) if swish else \
        (t(a["slope"]), t(a["offset"]), t(1))
    identity = {}

    def bias_hard(res, bias, start=0, residual=None):
        if residual is not None:
            residual = residual[start:start + res.shape[0]]
        if not _rows_fit(res, bias, residual, dtype):
            return fallback(res, bias, 0, residual)
        o = res.shape[1]
        if bias is None:
            bias = identity.get(o)
            if bias is None:
                bias = identity[o] = np.full(o, -0.0, dtype)
        r3 = res.reshape(res.shape[0], o, -1)
        kernel(r3, bias, r3 if residual is None else residual.reshape(r3.shape),
               residual is not None, swish, *params, t(0), t(1))
        return res
    return bias_hard


def _rows_fit(res, bias, residual, dtype):
    """Arrays a compiled epilogue pass takes: C-contiguous ndarrays of ``dtype``,
    (N, O, ...) with an (O,) bias and a residual shaped as ``res``."""
    def plain(x):
        return type(x) is np.ndarray and x.dtype == dtype and x.flags.c_contiguous
    return plain(res) and res.ndim >= 2 and \
        (bias is None or (bias.dtype == dtype and bias.shape == (res.shape[1],))) and \
        (residual is None or (plain(residual) and residual.shape == res.shape))


def _make(act, alpha, dtype):
    def _numpy(res, bias, start=0, residual=None):
        if bias is not None:
            res += bias.reshape((-1,) + (1,) * (res.ndim - 2))
        if residual is not None:
            res += residual[start:start + res.shape[0]]
        return activate(res, act, alpha)

    if act in sigmoid_kernel.KINDS and dtype == np.float32 and sigmoid_kernel.available():
        return _sigmoid_epilogue(act, _numpy)
    if act in ("hard_swish", "hard_sigmoid") and dtype in _NUMBA_FLOATS:
        hard = compiled_kernel(_bias_hard)
        if hard is not None:
            return _hard_epilogue(act, dtype, hard, _numpy)
    clamp = CLAMPS.get(act)
    kernel = compiled_kernel(_bias_clamp) if clamp is not None and dtype in _NUMBA_FLOATS else None
    if kernel is None:
        return _numpy
    lo, hi, tie = dtype.type(clamp[0]), dtype.type(clamp[1]), clamp[2]
    identity = {}

    def bias_clamp(res, bias, start=0, residual=None):
        if residual is not None:
            residual = residual[start:start + res.shape[0]]
            if type(residual) is not np.ndarray or residual.dtype != dtype or \
                    residual.shape != res.shape:
                return _numpy(res, bias, 0, residual)
        if type(res) is not np.ndarray or not res.flags.c_contiguous or res.dtype != dtype \
                or (bias is not None and bias.dtype != dtype):
            return _numpy(res, bias, 0, residual)
        o = res.shape[1]
        if bias is None:
            if not act and residual is None:
                return res
            bias = identity.get(o)
            if bias is None:
                bias = identity[o] = np.full(o, -0.0, dtype)
        a = res.reshape(res.shape[0], o, -1)
        kernel(a, bias, a if residual is None else residual.reshape(a.shape),
               residual is not None, lo, hi, tie)
        return res
    # what it does, for a kernel that can do it in its own stores: the clamp alone
    # (``clamp``: conv_implicit's copy), or ``spec`` = (clamp, residual)
    bias_clamp.clamp = clamp
    bias_clamp.spec = (clamp, None)
    return bias_clamp
