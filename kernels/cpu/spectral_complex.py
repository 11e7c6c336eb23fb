"""complex64 / complex128 kernels of existing ops, where Paddle 2.6.2 registers
them (tests/conformance/fixtures/kernel_dtypes.json), in one table.

- ``SAME``: the op's float kernel computes complex values as they are (data
  movement, linear maps, numpy's complex arithmetic and functions), so that
  kernel is registered for the complex dtypes too.
- ``CONJUGATED``: grad ops of holomorphic ops.  With Paddle's convention (the
  gradient of a real loss with respect to z is dL/dRe z + i dL/dIm z), the
  gradient through Out = f(X) is dOut * conj(f'(X)); the float kernels compute
  dOut * f'(...) of the forward values, and every f' here has real
  coefficients (conj(f'(z)) = f'(conj z)), so the float kernel run on the
  conjugated forward values (the inputs that are not incoming gradients) is
  the complex kernel.
- The rest are written out: ``abs`` (a real result), softsign (not
  holomorphic), acosh's gradient (the float kernel's formula takes the other
  branch for Re z < 0), and the activations whose float kernels compare values
  (Paddle compares the real parts of complex numbers) or use functions numpy
  has no complex form of (logaddexp).
"""
import numpy as np

from ...ops import get_op
from ...ops.dtypes import real_of
from ..registry import KernelKey, CPU, ANY, COMPLEX, register_kernel, kernel
from . import (activation, creation, control_flow, compare, elementwise, indexing,  # noqa: F401
               linalg, linalg_ext, manipulation, math, math_extra,
               nn_extra, products, reduce, reshape_index,
               sort_search)   # the float kernels borrowed below

SAME = (
    # creation and data movement
    "fill_constant", "fill_zeros_like", "empty", "shape", "size",
    "reshape2", "reshape2_grad", "reshape2_grad_grad", "squeeze2", "squeeze2_grad",
    "unsqueeze2", "unsqueeze2_grad", "flatten_contiguous_range",
    "flatten_contiguous_range_grad", "transpose2", "transpose2_grad",
    "concat", "concat_grad", "split", "stack", "stack_grad", "unstack", "unstack_grad",
    "unbind", "expand_v2", "expand_v2_grad", "tile", "broadcast_tensors",
    "broadcast_tensors_grad", "flip", "roll", "roll_grad", "pad", "pad_grad", "pad3d",
    "pad3d_grad",
    # indexing
    "slice", "slice_grad", "strided_slice", "strided_slice_grad", "gather_nd",
    "gather_nd_grad", "index_select", "index_select_grad", "index_sample",
    "index_sample_grad", "set_value", "set_value_grad", "index_put", "index_put_grad",
    # linear arithmetic and reductions
    "scale", "sum", "sum_grad", "elementwise_add", "elementwise_add_grad",
    "elementwise_add_grad_grad", "elementwise_add_triple_grad", "elementwise_sub",
    "elementwise_sub_grad", "elementwise_sub_grad_grad", "reduce_sum", "reduce_sum_grad",
    "reduce_mean", "reduce_mean_grad", "mean", "mean_grad",
    # holomorphic forward ops
    "elementwise_mul", "elementwise_div", "matmul_v2", "dot", "exp", "expm1", "sin",
    "cos", "tan", "sinh", "cosh", "asin", "acos", "atan", "tanh", "sigmoid", "silu",
    # comparisons that numpy defines for complex numbers as Paddle does
    "isclose", "logical_and", "logical_or", "logical_xor", "logical_not",
    # views, selections and their adjoints (real 0/1 coefficients)
    "as_strided", "as_strided_grad", "diagonal", "diagonal_grad", "fill_diagonal_tensor",
    "fill_diagonal_tensor_grad", "fold", "fold_grad", "tensor_unfold", "tensor_unfold_grad",
    "multiplex", "multiplex_grad", "trace", "trace_grad", "tril_triu", "tril_triu_grad",
    "view_shape", "view_shape_grad", "view_dtype",
    # holomorphic forward ops (eigvals: LAPACK's complex routine, no gradient in Paddle)
    "acosh", "asinh", "atanh", "stanh", "cumprod", "kron", "einsum", "eigvals",
)

CONJUGATED = (
    "elementwise_mul_grad", "elementwise_div_grad", "matmul_v2_grad", "dot_grad",
    "exp_grad", "expm1_grad", "sin_grad", "cos_grad", "tan_grad", "sinh_grad", "cosh_grad",
    "asin_grad", "acos_grad", "atan_grad", "tanh_grad", "sigmoid_grad", "silu_grad",
    "asinh_grad", "atanh_grad", "stanh_grad", "cumprod_grad", "kron_grad", "einsum_grad",
)


def float_kernel(op_type):
    """The op's CPU kernel for float64 (else float32)."""
    ks = get_op(op_type).kernels
    for dt in ("float64", "float32"):
        fn = ks.get(KernelKey(CPU, ANY, dt))
        if fn is not None:
            return fn
    raise KeyError(f"op '{op_type}' has no float kernel to serve complex dtypes")


def conjugating(op_type, fn):
    """``fn`` run on the conjugated forward values of grad op ``op_type`` (its
    input slots that are not incoming gradients)."""
    op = get_op(op_type)
    fwd = tuple(i for i, s in enumerate(op.inputs) if "@GRAD" not in s.name)

    def k(ins, attrs, need):
        ins = list(ins)
        for i in fwd:
            a = ins[i]
            if type(a) is list:                 # a duplicable slot (einsum's Operands)
                ins[i] = [np.conj(x) if x is not None and x.dtype.kind == "c" else x
                          for x in a]
            elif a is not None and a.dtype.kind == "c":
                ins[i] = np.conj(a)
        return fn(ins, attrs, need)
    k.__name__ = f"{op_type}_complex"
    return k


for _t in SAME:
    register_kernel(_t, COMPLEX)(float_kernel(_t))
for _t in CONJUGATED:
    register_kernel(_t, COMPLEX)(conjugating(_t, float_kernel(_t)))


# ------------------------------------------------------------------ abs
@kernel("abs", dtypes=COMPLEX)
def abs_complex(ins, attrs, need):
    x = ins[0]
    return (np.abs(x).astype(real_of(x.dtype), copy=False),)


def _unit(x):
    """x / |x|, 0 where x is 0."""
    r = np.abs(x)
    return np.where(r == 0, 0, x / np.where(r == 0, 1, r)).astype(x.dtype, copy=False)


@kernel("abs_grad", dtypes=COMPLEX)
def abs_grad_complex(ins, attrs, need):
    # |z| = sqrt(Re^2 + Im^2): dL/dRe + i dL/dIm = dOut z / |z|
    x, g = ins
    return (g * _unit(x),)


# ------------------------------------------------------------------ acosh
@kernel("acosh_grad", dtypes=COMPLEX)
def acosh_grad_complex(ins, attrs, need):
    # acosh'(z) = 1 / (sqrt(z - 1) sqrt(z + 1)) on numpy's principal branch; the
    # float kernel's 1 / sqrt(z^2 - 1) has the opposite sign where Re z < 0
    x, g = ins
    return ((g / np.conj(np.sqrt(x - 1) * np.sqrt(x + 1))).astype(g.dtype, copy=False),)


# ------------------------------------------------------------------ activations
def _re(x):
    return x.real if x.dtype.kind == "c" else x


def _logsigmoid(x):
    return -np.log1p(np.exp(-x))


def _softplus(x, a):
    b, th = a["beta"], a["threshold"]
    bx = x * b
    with np.errstate(over="ignore", invalid="ignore"):
        soft = np.log1p(np.exp(bx)) / b
    return np.where(_re(bx) > th, x, soft).astype(x.dtype, copy=False)


def _softplus_grad(x, g, a):
    b, th = a["beta"], a["threshold"]
    bx = np.conj(x) * b
    return np.where(_re(bx) > th, g, g * activation.sigmoid(bx)).astype(g.dtype, copy=False)


def _hard_swish_gate(t, a):
    """x + offset clipped to [0, threshold] by its real part."""
    r = _re(t)
    return np.where(r < 0, 0, np.where(r > a["threshold"], a["threshold"], t))


def _hard_swish(x, a):
    return (x * _hard_swish_gate(x + a["offset"], a) / a["scale"]).astype(x.dtype, copy=False)


def _hard_swish_grad(x, g, a):
    r = _re(x + a["offset"])
    d = np.where(r < 0, 0, np.where(r < a["threshold"],
                                    (2 * np.conj(x) + a["offset"]) / a["scale"], 1))
    return (g * d).astype(g.dtype, copy=False)


def _softsign_grad(x, g, a):
    # f = z / (1 + |z|) is not holomorphic: with r = |z|, the gradient is
    # g conj(df/dz) + conj(g) df/dz*, df/dz = 1/(1+r) - r/(2(1+r)^2),
    # df/dz* = -z^2 / (2r(1+r)^2) (0 at z = 0)
    r = np.abs(x)
    q = (1 + r) ** 2
    safe = np.where(r == 0, 1, r)
    dz = 1 / (1 + r) - r / (2 * q)
    dzs = np.where(r == 0, 0, -x * x / (2 * safe * q))
    return (g * dz + np.conj(g) * dzs).astype(g.dtype, copy=False)


_ACTIVATIONS = {
    # name: (forward(x, attrs), grad(x, dout, attrs)); the grad ops read X
    "logsigmoid": (lambda x, a: _logsigmoid(x),
                   lambda x, g, a: g * activation.sigmoid(-np.conj(x))),
    "softplus": (_softplus, _softplus_grad),
    "hard_swish": (_hard_swish, _hard_swish_grad),
    "softsign": (lambda x, a: x / (1 + np.abs(x)), _softsign_grad),
}


def _register_activation(name, fwd, grad):
    @kernel(name, dtypes=COMPLEX)
    def k(ins, attrs, need):
        return (fwd(ins[0], attrs),)

    @kernel(f"{name}_grad", dtypes=COMPLEX)
    def kg(ins, attrs, need):
        return (grad(ins[0], ins[1], attrs),)


for _name, (_f, _g) in _ACTIVATIONS.items():
    _register_activation(_name, _f, _g)
