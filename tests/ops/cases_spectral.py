"""Op-spec cases of the complex-number ops (complex, real, imag, conj, angle,
as_complex, as_real), the FFTs (fft_c2c, fft_r2c, fft_c2r over one and
several axes, both directions, every normalization, one- and two-sided),
frame / overlap_add, and the complex kernels of existing ops (arithmetic,
matmul, reductions, unary math and activations, data movement).

Complex inputs and outputs are differentiated by test_op_table.py part by
part: the loss is sum Re(conj(W) out), and the gradient of a complex input is
dL/dRe + i dL/dIm (Paddle's convention).
"""
import numpy as np

from .spec import Case, rand
from .cases_nn_extra import _UF1, ref_fold
from .cases_reshape_index import _fill_diag_tensor_ref, _unfold_ref


def crand(*shape, seed=0, low=-1.0, high=1.0):
    """complex128 values with real and imaginary parts in [low, high)."""
    return (rand(*shape, seed=seed, low=low, high=high)
            + 1j * rand(*shape, seed=seed + 100, low=low, high=high))


def _fft_attrs(axes, norm, forward, **extra):
    return {"axes": list(axes), "normalization": norm, "forward": forward, **extra}


def _c2c_ref(axes, norm, forward):
    def ref(X):
        return (np.fft.fftn if forward else np.fft.ifftn)(X, axes=axes, norm=norm)
    return ref


def _r2c_ref(axes, norm, forward, onesided):
    def ref(X):
        full = (np.fft.fftn if forward else np.fft.ifftn)(X, axes=axes, norm=norm)
        if onesided:
            full = np.take(full, np.arange(X.shape[axes[-1]] // 2 + 1), axis=axes[-1])
        return full
    return ref


def _c2r_ref(axes, norm, forward, n):
    """The real transform of the Hermitian extension of X's half spectrum,
    written out: transform the other axes, then extend the last one
    (conjugate mirror; the DC and Nyquist bins count by their real part),
    transform it, keep the real part."""
    f = np.fft.fftn if forward else np.fft.ifftn

    def ref(X):
        last = axes[-1]
        m = n // 2 + 1
        half = np.take(X, np.arange(min(m, X.shape[last])), axis=last)
        if half.shape[last] < m:
            pad = [(0, 0)] * X.ndim
            pad[last] = (0, m - half.shape[last])
            half = np.pad(half, pad)
        if len(axes) > 1:
            half = f(half, axes=axes[:-1], norm=norm)
        idx = [slice(None)] * X.ndim
        for k in [0] + ([n // 2] if n % 2 == 0 else []):
            idx[last] = k
            half[tuple(idx)] = half[tuple(idx)].real
        mirror = np.conj(np.flip(np.take(half, np.arange(1, (n + 1) // 2), axis=last),
                                 axis=last))
        full = np.concatenate([half, mirror], axis=last)
        return np.real(f(full, axes=[last], norm=norm))
    return ref


CASES = []

# ------------------------------------------------------------------ complex / real / imag ...
CASES += [
    Case("complex", {"X": rand(2, 3, seed=1), "Y": rand(2, 3, seed=2)},
         ref=lambda X, Y: X + 1j * Y),
    Case("complex", {"X": rand(2, 1, seed=1), "Y": rand(3, seed=2)},
         ref=lambda X, Y: X + 1j * Y, id="complex_bcast"),
    Case("complex", {"X": rand(2, 3, seed=1, dtype="float32"),
                     "Y": rand(2, 3, seed=2, dtype="float32")},
         ref=lambda X, Y: (X + 1j * Y).astype("complex64"), grad=False, id="complex_float32"),
    Case("real", {"X": crand(2, 3, seed=3)}, ref=lambda X: X.real),
    Case("imag", {"X": crand(2, 3, seed=4)}, ref=lambda X: X.imag),
    Case("conj", {"X": crand(2, 3, seed=5)}, ref=lambda X: np.conj(X)),
    Case("conj", {"X": rand(2, 3, seed=5)}, ref=lambda X: np.conj(X), id="conj_real"),
    Case("conj", {"X": np.arange(6).reshape(2, 3)}, ref=lambda X: np.conj(X), grad=False, id="conj_int"),
    Case("angle", {"X": crand(2, 3, seed=6)}, ref=lambda X: np.angle(X)),
    Case("angle", {"X": rand(2, 3, seed=6)}, ref=lambda X: np.angle(X), id="angle_real"),
    Case("as_complex", {"X": rand(3, 2, seed=7)}, ref=lambda X: X[..., 0] + 1j * X[..., 1]),
    Case("as_complex", {"X": rand(2, 3, 2, seed=7)}, ref=lambda X: X[..., 0] + 1j * X[..., 1],
         id="as_complex_3d"),
    Case("as_real", {"X": crand(2, 3, seed=8)},
         ref=lambda X: np.stack([X.real, X.imag], axis=-1)),
]

# ------------------------------------------------------------------ FFTs
for _norm in ("backward", "forward", "ortho"):
    for _fwd in (True, False):
        tag = f"{_norm}_{'fwd' if _fwd else 'inv'}"
        CASES.append(Case("fft_c2c", {"X": crand(3, 4, seed=10)},
                          _fft_attrs([1], _norm, _fwd), ref=_c2c_ref([1], _norm, _fwd),
                          id=f"fft_c2c_{tag}"))
        for _one in (True, False):
            CASES.append(Case("fft_r2c", {"X": rand(3, 5, seed=11)},
                              _fft_attrs([1], _norm, _fwd, onesided=_one),
                              ref=_r2c_ref([1], _norm, _fwd, _one),
                              id=f"fft_r2c_{tag}_{'onesided' if _one else 'full'}"))
        for _n in (4, 5):
            CASES.append(Case("fft_c2r", {"X": crand(2, 3, seed=12)},
                              _fft_attrs([1], _norm, _fwd, last_dim_size=_n if _n == 5 else 0),
                              ref=_c2r_ref([1], _norm, _fwd, _n),
                              id=f"fft_c2r_{tag}_n{_n}"))
CASES += [
    Case("fft_c2c", {"X": crand(2, 3, 4, seed=13)}, _fft_attrs([0, 2], "backward", True),
         ref=_c2c_ref([0, 2], "backward", True), id="fft_c2c_2axes"),
    Case("fft_c2c", {"X": crand(2, 3, seed=13)}, _fft_attrs([-1, 0], "ortho", False),
         ref=_c2c_ref([-1, 0], "ortho", False), id="fft_c2c_negative_axes"),
    Case("fft_r2c", {"X": rand(4, 3, 5, seed=14)},
         _fft_attrs([0, 2], "backward", True, onesided=True),
         ref=_r2c_ref([0, 2], "backward", True, True), id="fft_r2c_2axes"),
    Case("fft_r2c", {"X": rand(4, 6, seed=14)},
         _fft_attrs([1, 0], "ortho", False, onesided=True),
         ref=_r2c_ref([1, 0], "ortho", False, True), id="fft_r2c_2axes_last_first"),
    Case("fft_c2r", {"X": crand(3, 2, 3, seed=15)},
         _fft_attrs([0, 2], "backward", False), ref=_c2r_ref([0, 2], "backward", False, 4),
         id="fft_c2r_2axes"),
    Case("fft_c2r", {"X": crand(3, 4, seed=15)},
         _fft_attrs([1, 0], "forward", True, last_dim_size=5),
         ref=_c2r_ref([1, 0], "forward", True, 5), id="fft_c2r_2axes_hermitian_fwd"),
    Case("fft_c2c", {"X": crand(3, 4, seed=16).astype("complex64")},
         _fft_attrs([1], "backward", True), ref=_c2c_ref([1], "backward", True), rtol=1e-5,
         atol=1e-5, grad=False, id="fft_c2c_complex64"),
    Case("fft_r2c", {"X": rand(3, 4, seed=16, dtype="float32")},
         _fft_attrs([1], "backward", True, onesided=True),
         ref=_r2c_ref([1], "backward", True, True), rtol=1e-5, atol=1e-5, grad=False,
         id="fft_r2c_float32"),
]


# ------------------------------------------------------------------ frame / overlap_add
def _frame_ref(fl, hop, axis):
    def ref(X):
        seq = X.shape[-1] if axis == -1 else X.shape[0]
        n = 1 + (seq - fl) // hop
        if axis == -1:
            return np.stack([X[..., j * hop:j * hop + fl] for j in range(n)], axis=-1)
        return np.stack([X[j * hop:j * hop + fl] for j in range(n)], axis=0)
    return ref


def _ola_ref(hop, axis):
    def ref(X):
        if axis == -1:
            fl, n = X.shape[-2], X.shape[-1]
            out = np.zeros(X.shape[:-2] + ((n - 1) * hop + fl,), X.dtype)
            for j in range(n):
                out[..., j * hop:j * hop + fl] += X[..., j]
            return out
        n, fl = X.shape[0], X.shape[1]
        out = np.zeros(((n - 1) * hop + fl,) + X.shape[2:], X.dtype)
        for j in range(n):
            out[j * hop:j * hop + fl] += X[j]
        return out
    return ref


def _fr(fl, hop, axis=-1):
    return {"frame_length": fl, "hop_length": hop, "axis": axis}


CASES += [
    Case("frame", {"X": rand(2, 9, seed=20)}, _fr(4, 2), ref=_frame_ref(4, 2, -1)),
    Case("frame", {"X": rand(10, seed=20)}, _fr(4, 3), ref=_frame_ref(4, 3, -1),
         id="frame_1d_tail_unused"),
    Case("frame", {"X": rand(9, 2, seed=21)}, _fr(3, 2, 0), ref=_frame_ref(3, 2, 0),
         id="frame_axis0"),
    Case("frame", {"X": crand(2, 7, seed=22)}, _fr(3, 2), ref=_frame_ref(3, 2, -1),
         id="frame_complex"),
    Case("frame", {"X": np.arange(12).reshape(2, 6)}, _fr(3, 3), ref=_frame_ref(3, 3, -1),
         grad=False, id="frame_int"),
    Case("overlap_add", {"X": rand(2, 4, 3, seed=23)}, {"hop_length": 2},
         ref=_ola_ref(2, -1)),
    Case("overlap_add", {"X": rand(3, 4, 2, seed=24)}, {"hop_length": 1, "axis": 0},
         ref=_ola_ref(1, 0), id="overlap_add_axis0"),
    Case("overlap_add", {"X": crand(4, 3, seed=25)}, {"hop_length": 4},
         ref=_ola_ref(4, -1), id="overlap_add_complex_no_overlap"),
]

# ------------------------------------------------------------------ complex kernels of existing ops
_A, _B = crand(2, 3, seed=30), crand(2, 3, seed=31, low=0.5, high=1.5)
_EW = {"axis": -1}
CASES += [
    Case("elementwise_add", {"X": _A, "Y": crand(3, seed=32)}, _EW,
         ref=lambda X, Y: X + Y, id="add_complex_bcast"),
    Case("elementwise_sub", {"X": _A, "Y": _B}, _EW, ref=lambda X, Y: X - Y,
         id="sub_complex"),
    Case("elementwise_mul", {"X": _A, "Y": crand(2, 1, seed=33)}, _EW,
         ref=lambda X, Y: X * Y, id="mul_complex_bcast"),
    Case("elementwise_div", {"X": _A, "Y": _B}, _EW, ref=lambda X, Y: X / Y,
         id="div_complex"),
    Case("matmul_v2", {"X": crand(2, 3, seed=34), "Y": crand(3, 2, seed=35)},
         ref=lambda X, Y: X @ Y, id="matmul_complex"),
    Case("matmul_v2", {"X": crand(2, 3, seed=34), "Y": crand(2, 3, seed=35)},
         {"trans_y": True}, ref=lambda X, Y: X @ Y.T, id="matmul_complex_ty"),
    Case("dot", {"X": crand(2, 3, seed=36), "Y": crand(2, 3, seed=37)},
         ref=lambda X, Y: (X * Y).sum(-1), id="dot_complex"),
    Case("abs", {"X": crand(2, 3, seed=38)}, ref=lambda X: np.abs(X), id="abs_complex"),
    Case("reduce_sum", {"X": _A}, {"dim": [1], "keep_dim": False, "reduce_all": False},
         ref=lambda X: X.sum(1), id="reduce_sum_complex"),
    Case("reduce_mean", {"X": _A}, {"dim": [0], "keep_dim": True, "reduce_all": False},
         ref=lambda X: X.mean(0, keepdims=True), id="reduce_mean_complex"),
    Case("mean", {"X": _A}, ref=lambda X: np.asarray(X.mean()), id="mean_complex"),
    Case("scale", {"X": _A}, {"scale": 2.0, "bias": 0.5}, ref=lambda X: 2 * X + 0.5,
         id="scale_complex"),
    Case("sum", {"X": [_A, _B]}, ref=lambda X: X[0] + X[1], id="add_n_complex"),
    Case("reshape2", {"X": _A}, {"shape": [3, 2]}, ref=lambda X: X.reshape(3, 2),
         id="reshape2_complex"),
    Case("transpose2", {"X": _A}, {"axis": [1, 0]}, ref=lambda X: X.T,
         id="transpose2_complex"),
    Case("concat", {"X": [_A, _B]}, {"axis": 0}, ref=lambda X: np.concatenate(X, 0),
         id="concat_complex"),
    Case("slice", {"Input": _A}, {"axes": [1], "starts": [1], "ends": [3]},
         ref=lambda Input: Input[:, 1:3], id="slice_complex"),
    Case("expand_v2", {"X": crand(1, 3, seed=39)}, {"shape": [2, 3]},
         ref=lambda X: np.broadcast_to(X, (2, 3)), id="expand_v2_complex"),
    Case("roll", {"X": _A}, {"shifts": [1], "axis": [1]}, ref=lambda X: np.roll(X, 1, 1),
         id="roll_complex"),
    Case("flip", {"X": _A}, {"axis": [0]}, ref=lambda X: X[::-1], grad=False,
         id="flip_complex"),
    Case("pad", {"X": _A}, {"paddings": [0, 1, 1, 0], "pad_value": 0.0},
         ref=lambda X: np.pad(X, [(0, 1), (1, 0)]), id="pad_complex"),
    Case("cast", {"X": _A}, {"in_dtype": 24, "out_dtype": 6}, ref=lambda X: X.real,
         id="cast_complex_to_float64"),
    Case("cast", {"X": rand(2, 3, seed=40)}, {"in_dtype": 6, "out_dtype": 24},
         ref=lambda X: X.astype("complex128"), id="cast_float64_to_complex"),
]

_Z = crand(2, 3, seed=41, low=-0.8, high=0.8)
_HOLOMORPHIC = {
    "exp": np.exp, "expm1": np.expm1, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "sinh": np.sinh, "cosh": np.cosh, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "tanh": np.tanh, "sigmoid": lambda z: 1 / (1 + np.exp(-z)),
    "silu": lambda z: z / (1 + np.exp(-z)),
    "logsigmoid": lambda z: -np.log1p(np.exp(-z)),
    # Re z of either sign: acosh's derivative changes branch with it
    "acosh": np.arccosh, "asinh": np.arcsinh, "atanh": np.arctanh,
}
for _name, _f in _HOLOMORPHIC.items():
    CASES.append(Case(_name, {"X": _Z}, ref=lambda X, f=_f: f(X), id=f"{_name}_complex"))


def _hard_swish_ref(X):
    t = X + 3
    gate = np.where(t.real < 0, 0, np.where(t.real > 6, 6, t))
    return X * gate / 6


CASES += [
    Case("softplus", {"X": crand(2, 3, seed=42) * 3 + np.array([0, 0, 25])},
         {"beta": 1.0, "threshold": 20.0},
         ref=lambda X: np.where(X.real > 20, X, np.log1p(np.exp(X))), id="softplus_complex"),
    Case("softsign", {"X": crand(2, 3, seed=43)}, ref=lambda X: X / (1 + np.abs(X)),
         id="softsign_complex"),
    Case("hard_swish", {"X": crand(2, 3, seed=44) * 4 + np.array([-6, 0, 6])},
         ref=_hard_swish_ref, id="hard_swish_complex"),
]

# ------------------------------------------------------------------ views, selections, products
_C = crand(3, 4, seed=45)
_ZC = crand(2, 3, seed=46)
_ZC[0, 1] = 0                       # a zero: cumprod's gradient takes its product path
CASES += [
    Case("stanh", {"X": _Z}, {"scale_a": 0.67, "scale_b": 1.7159},
         ref=lambda X: 1.7159 * np.tanh(0.67 * X), id="stanh_complex"),
    Case("cumprod", {"X": crand(2, 3, seed=47)}, {"dim": 1}, ref=lambda X: np.cumprod(X, 1),
         id="cumprod_complex"),
    Case("cumprod", {"X": _ZC}, {"dim": -1}, ref=lambda X: np.cumprod(X, -1),
         id="cumprod_complex_zero"),
    Case("kron", {"X": crand(2, 2, seed=48), "Y": crand(2, 3, seed=49)},
         ref=lambda X, Y: np.kron(X, Y), id="kron_complex"),
    Case("einsum", {"Operands": [crand(2, 3, seed=50), crand(3, 4, seed=51)]},
         {"equation": "ij,jk->ik"}, ref=lambda Operands: np.einsum("ij,jk->ik", *Operands),
         id="einsum_complex"),
    Case("einsum", {"Operands": [crand(3, 3, seed=52)]}, {"equation": "ii->i"},
         ref=lambda Operands: np.einsum("ii->i", *Operands), id="einsum_complex_diagonal"),
    # LAPACK is handed the row-major matrix as it is, so it orders the eigenvalues of X^T
    Case("eigvals", {"X": crand(3, 3, seed=53)}, ref=lambda X: np.linalg.eigvals(X.T),
         grad=False, id="eigvals_complex"),
    Case("as_strided", {"input": _C}, {"dims": [4, 3], "stride": [1, 4]},
         ref=lambda input: input.T.copy(), id="as_strided_complex"),
    Case("diagonal", {"Input": _C}, {"offset": -1}, ref=lambda Input: np.diagonal(Input, -1),
         id="diagonal_complex"),
    Case("fill_diagonal_tensor", {"X": _C, "Y": crand(1, 3, seed=54)}, {"offset": 1},
         ref=_fill_diag_tensor_ref, id="fill_diagonal_tensor_complex"),
    Case("fold", {"X": crand(2, 12, 12, seed=55)}, dict(_UF1, output_sizes=[4, 6]),
         ref=lambda X: (ref_fold(X.real, [4, 6], [2, 3], [1, 1], [0] * 4, [1, 1])
                        + 1j * ref_fold(X.imag, [4, 6], [2, 3], [1, 1], [0] * 4, [1, 1])),
         id="fold_complex"),
    Case("tensor_unfold", {"input": _C}, {"axis": 1, "size": 2, "step": 1},
         ref=_unfold_ref(1, 2, 1), id="tensor_unfold_complex"),
    Case("multiplex", {"X": [_C, crand(3, 4, seed=56), crand(3, 4, seed=57)],
                       "Ids": np.array([[2], [0], [1]], "int32")},
         ref=lambda X, Ids: np.stack(X)[Ids[:, 0], np.arange(3)], id="multiplex_complex"),
    Case("trace", {"Input": _C}, {"offset": 1, "axis1": 0, "axis2": 1},
         ref=lambda Input: np.asarray(np.trace(Input, 1)), id="trace_complex"),
    Case("tril_triu", {"X": _C}, {"diagonal": 1, "lower": True}, ref=lambda X: np.tril(X, 1),
         id="tril_complex"),
    Case("view_shape", {"input": _C}, {"dims": [2, 6]}, ref=lambda input: input.reshape(2, 6),
         id="view_shape_complex"),
    Case("view_dtype", {"input": _C}, {"dtype": 6}, ref=lambda input: input.view("float64"),
         grad=False, id="view_dtype_complex_as_float64"),
]
