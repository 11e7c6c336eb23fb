"""``sampan.linalg`` beyond the op table and the conformance cases: the module
itself, finite-difference gradients of the Python composites (norm, cond,
pinv, cov, corrcoef, householder_product), and the same functions through a
static Program with ``append_backward``, through ``to_static`` training, and
saved with ``jit.save`` and loaded back."""
import numpy as np
import pytest

import sampan as paddle
from sampan import static

L = paddle.linalg
NAMES = ["cholesky", "norm", "cond", "cov", "corrcoef", "inv", "eig", "eigvals", "multi_dot",
         "matrix_rank", "svd", "qr", "householder_product", "pca_lowrank", "lu", "lu_unpack",
         "matrix_power", "det", "slogdet", "eigh", "eigvalsh", "pinv", "solve",
         "cholesky_solve", "triangular_solve", "lstsq"]


def _rand(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, shape)


def test_module_holds_paddles_26_names():
    import sampan.linalg as mod
    from sampan.linalg import svd
    assert mod is paddle.linalg and svd is L.svd
    public = sorted(n for n in vars(mod) if not n.startswith("_"))
    assert public == sorted(NAMES)
    ns = {}
    exec("from sampan.linalg import *", ns)
    assert sorted(n for n in ns if not n.startswith("_")) == sorted(NAMES)
    # Paddle's top level has these four too, and not the others
    for n in ("cholesky", "eigvalsh", "inverse", "norm"):
        assert callable(getattr(paddle, n))
    for n in ("svd", "qr", "det", "eigh", "lstsq"):
        assert not hasattr(paddle, n)
    assert L.inv is paddle.inverse


def _fd_check(fn, arrays, eps=1e-6, tol=1e-5):
    """d(sum(fn(*xs) * w))/dxs from the tape against central differences."""
    xs = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
    out = fn(*xs)
    w = np.random.RandomState(5).uniform(0.5, 1.5, out.shape)
    (out * paddle.to_tensor(w)).sum().backward()

    def loss(vals):
        return float((fn(*[paddle.to_tensor(v) for v in vals]).numpy() * w).sum())

    for k, a in enumerate(arrays):
        num = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            hi = [v.copy() for v in arrays]
            lo = [v.copy() for v in arrays]
            hi[k][idx] += eps
            lo[k][idx] -= eps
            num[idx] = (loss(hi) - loss(lo)) / (2 * eps)
        got = xs[k].grad.numpy() if xs[k].grad is not None else np.zeros_like(a)
        np.testing.assert_allclose(got, num, rtol=tol, atol=tol, err_msg=f"input {k}")


A3 = _rand(3, 3) + 2 * np.eye(3)


@pytest.mark.parametrize("fn,arrays", [
    (lambda x: L.norm(x, p=3, axis=[0, 1]), [_rand(2, 3)]),
    (lambda x: L.norm(x, p="fro", axis=[0, 2]), [_rand(2, 3, 2)]),
    (lambda x: L.cond(x), [A3]),
    (lambda x: L.cond(x, p="nuc"), [A3]),
    (lambda x: L.cond(x, p=-1), [A3]),
    (lambda x: L.pinv(x), [_rand(3, 4)]),
    (lambda x: L.pinv(x + x.T, hermitian=True), [A3]),
    (lambda x: L.cov(x, rowvar=False), [_rand(4, 3)]),
    (lambda x, a: L.cov(x, aweights=a), [_rand(2, 4), _rand(4, seed=1) + 2]),
    (lambda x: L.corrcoef(x), [_rand(3, 4)]),
    (lambda x, t: L.householder_product(x, t), [_rand(4, 3), _rand(3, seed=2)]),
    (lambda x, t: L.householder_product(x, t), [_rand(2, 3, 2), _rand(2, 2, seed=3)]),
], ids=["norm_p3_axes", "norm_fro_axes", "cond", "cond_nuc", "cond_m1", "pinv",
        "pinv_hermitian", "cov_cols", "cov_aweights", "corrcoef", "householder",
        "householder_batch"])
def test_composite_gradients(fn, arrays):
    _fd_check(fn, arrays)


def test_householder_product_is_the_qr_q():
    """Paddle's reflectors from numpy's QR: the product gives Q back (LAPACK's
    geqrf layout: v_i below the diagonal of the packed matrix, tau_i)."""
    a = _rand(4, 3)
    q, r = np.linalg.qr(a)
    # one Householder step at a time, as geqrf: reflect column i of the remainder
    packed, taus, rem = np.zeros_like(a), [], a.copy()
    for i in range(3):
        x = rem[i:, i]
        alpha = -np.sign(x[0]) * np.linalg.norm(x)
        v = x.copy()
        v[0] -= alpha
        v /= v[0]
        tau = 2.0 / (v @ v)
        rem[i:, :] -= tau * np.outer(v, v @ rem[i:, :])
        packed[i + 1:, i] = v[1:]
        packed[i, i:] = rem[i, i:]
        taus.append(tau)
    got = L.householder_product(paddle.to_tensor(packed), paddle.to_tensor(np.array(taus)))
    np.testing.assert_allclose(np.abs(got.numpy()), np.abs(q), atol=1e-12)


def _static_grads(build, arrays):
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            xs = [static.data(f"x{i}", list(a.shape), str(a.dtype)) for i, a in enumerate(arrays)]
            for x in xs:
                x.stop_gradient = False
            loss = paddle.sum(build(*xs))
            grads = static.append_backward(loss, parameter_list=[x.name for x in xs])
        exe = static.Executor(static.CPUPlace())
        exe.run(startup)
        feed = {f"x{i}": a for i, a in enumerate(arrays)}
        outs = exe.run(main, feed=feed, fetch_list=[loss] + [g for _, g in grads])
        ops = [op.type for op in main.global_block().ops]
    finally:
        paddle.disable_static()
    return outs[0], outs[1:], ops


def _eager_grads(build, arrays):
    xs = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
    loss = paddle.sum(build(*xs))
    loss.backward()
    return loss.numpy(), [x.grad.numpy() for x in xs]


def _chain(x, y):
    """Every differentiable linalg op in one expression."""
    spd = paddle.matmul(x, x, transpose_y=True) + 4 * paddle.eye(3, dtype=x.dtype)
    c = L.cholesky(spd)
    u, s, vh = L.svd(x)
    q, r = L.qr(x)
    w, v = L.eigh(spd)
    lu, piv = L.lu(x)
    p, lo, up = L.lu_unpack(lu, piv)
    out = L.cholesky_solve(y, c) + L.solve(x, y) + L.triangular_solve(x, y)
    out = out + paddle.matmul(L.inv(x), y) * L.det(x) + L.slogdet(x)[1]
    out = out + paddle.matmul(L.matrix_power(x, 2), y) + L.multi_dot([q, r, y])
    out = out + paddle.matmul(u * s.unsqueeze(-2), paddle.matmul(vh, y))
    out = out + L.eigvalsh(spd).unsqueeze(-1) + w.unsqueeze(-1) + paddle.matmul(lo, up)[:, :2]
    return out + L.norm(x) + L.cond(x, "fro")


def test_static_append_backward_matches_eager():
    arrays = [A3, _rand(3, 2, seed=4)]
    want_loss, want = _eager_grads(_chain, arrays)
    loss, got, ops = _static_grads(_chain, arrays)
    np.testing.assert_allclose(loss, want_loss, rtol=1e-10)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-8, atol=1e-10)
    for t in ("cholesky_grad", "svd_grad", "qr_grad", "eigh_grad", "lu_grad", "lu_unpack_grad",
              "cholesky_solve_grad", "solve_grad", "triangular_solve_grad", "inverse_grad",
              "determinant_grad", "slogdeterminant_grad", "matrix_power_grad",
              "multi_dot_grad", "eigvalsh_grad", "frobenius_norm_grad"):
        assert t in ops, t


def test_to_static_training_matches_eager():
    arrays = [A3, _rand(3, 2, seed=4)]
    want_loss, want = _eager_grads(_chain, arrays)
    fn = paddle.jit.to_static(_chain)
    xs = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
    loss = paddle.sum(fn(*xs))
    loss.backward()
    np.testing.assert_allclose(loss.numpy(), want_loss, rtol=1e-10)
    for x, w in zip(xs, want):
        np.testing.assert_allclose(x.grad.numpy(), w, rtol=1e-8, atol=1e-10)


class _Solver(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)

    def forward(self, x, y):
        a = self.fc(x) + 3 * paddle.eye(3)
        u, s, vh = L.svd(a)
        return L.solve(a, y), s, L.det(a), L.pinv(a), L.norm(a, p=2, axis=1)


def test_jit_save_and_load(tmp_path):
    paddle.seed(3)
    layer = _Solver()
    layer.eval()
    x = _rand(3, 3).astype("float32")
    y = _rand(3, 2, seed=1).astype("float32")
    want = [o.numpy() for o in layer(paddle.to_tensor(x), paddle.to_tensor(y))]
    spec = [static.InputSpec([3, 3], "float32", "x"), static.InputSpec([3, 2], "float32", "y")]
    paddle.jit.save(paddle.jit.to_static(layer, input_spec=spec), str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    got = [o.numpy() for o in loaded(paddle.to_tensor(x), paddle.to_tensor(y))]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("call,kind", [
    (lambda: L.cholesky(paddle.to_tensor([[1.0, 2.0], [2.0, 1.0]])), ValueError),
    (lambda: L.inv(paddle.ones([2, 2])), ValueError),
    (lambda: L.solve(paddle.ones([2, 3]), paddle.ones([2, 1])), ValueError),
    (lambda: L.svd(paddle.ones([3])), ValueError),
    (lambda: L.qr(paddle.ones([2, 2]), mode="full"), ValueError),
    (lambda: L.det(paddle.ones([2, 2], dtype="int32")), RuntimeError),
    (lambda: L.lstsq(paddle.ones([3, 2]), paddle.ones([3, 1]), driver="x"), ValueError),
    (lambda: L.matrix_power(paddle.ones([2, 2]), 1.5), ValueError),
])
def test_errors_name_the_fault(call, kind):
    with pytest.raises(kind):
        call()


def test_qr_r_mode_gradient_is_refused():
    x = paddle.to_tensor(_rand(3, 2), stop_gradient=False)
    r = L.qr(x, mode="r")
    with pytest.raises(ValueError, match="mode='r'"):
        r.sum().backward()


def test_complex_eigh_values_and_gradient():
    """Hermitian input: real eigenvalues; the gradient (Paddle's convention
    dL/dRe + i dL/dIm) against differences along Hermitian directions."""
    rng = np.random.RandomState(9)
    b = rng.uniform(-1, 1, (3, 3)) + 1j * rng.uniform(-1, 1, (3, 3))
    a = b + b.conj().T + np.diag([0.0, 2.0, 4.0])
    wv = rng.uniform(0.5, 1.5, 3)
    pv = rng.uniform(0.5, 1.5, (3, 3))

    def loss_np(m):
        w, v = np.linalg.eigh(m)
        proj = np.abs(v[:, 0:1] @ v[:, 0:1].conj().T) ** 2   # gauge free
        return (w * wv).sum() + (proj * pv).sum()

    x = paddle.to_tensor(a, stop_gradient=False)
    w, v = L.eigh(x)
    assert w.dtype == paddle.float64 and v.dtype == paddle.complex128
    np.testing.assert_allclose(w.numpy(), np.linalg.eigvalsh(a), atol=1e-12)
    np.testing.assert_allclose(L.eigvalsh(x).numpy(), np.linalg.eigvalsh(a), atol=1e-12)
    p = paddle.matmul(v[:, 0:1], paddle.conj(v[:, 0:1]).T)
    proj = paddle.real(p) ** 2 + paddle.imag(p) ** 2
    loss = (w * paddle.to_tensor(wv)).sum() + (proj * paddle.to_tensor(pv)).sum()
    loss.backward()
    g = x.grad.numpy()
    eps = 1e-6
    for i in range(3):
        for j in range(i + 1):
            for d in ((1.0,) if i == j else (1.0, 1j)):
                e = np.zeros((3, 3), complex)
                e[i, j] += d
                if i != j:
                    e[j, i] += np.conj(d)
                num = (loss_np(a + eps * e) - loss_np(a - eps * e)) / (2 * eps)
                np.testing.assert_allclose(np.real(np.sum(np.conj(g) * e)), num, atol=1e-6)
