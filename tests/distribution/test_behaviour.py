"""Behaviour of sampan.distribution beyond the recorded Paddle values:
empirical moments of samples, seed reproducibility, gradients through
rsample/log_prob against finite differences, transform round trips and
log-det-Jacobians against numerical derivatives, KL against Monte Carlo,
dtype handling, and the same code under to_static / in a static Program."""
import math
import warnings

import numpy as np
import pytest

import sampan
import sampan.distribution as D

N = 20000


def t(x, dtype="float32"):
    return sampan.to_tensor(np.asarray(x, dtype=dtype))


def _lgamma(x):
    return np.vectorize(math.lgamma)(x)


# ---------------------------------------------------------------- sampling
@pytest.mark.parametrize("make,mean,var", [
    (lambda: D.Normal(t([0.5, -1.]), t([2., 0.5])), [0.5, -1.], [4., 0.25]),
    (lambda: D.Uniform(t([0., 1.]), t([2., 5.])), [1., 3.], [4 / 12, 16 / 12]),
    (lambda: D.Laplace(t([0.5, -1.]), t([2., 0.5])), [0.5, -1.], [8., 0.5]),
    (lambda: D.Gumbel(t([0.5, -1.]), t([2., 0.5])),
     [0.5 + 2 * np.euler_gamma, -1 + 0.5 * np.euler_gamma],
     [4 * np.pi ** 2 / 6, 0.25 * np.pi ** 2 / 6]),
    (lambda: D.LogNormal(t([0., 0.2]), t([0.5, 0.3])),
     [np.exp(0.125), np.exp(0.2 + 0.045)],
     [(np.exp(0.25) - 1) * np.exp(0.25), (np.exp(0.09) - 1) * np.exp(0.4 + 0.09)]),
    (lambda: D.Bernoulli(t([0.3, 0.9])), [0.3, 0.9], [0.21, 0.09]),
    (lambda: D.Geometric(t([0.3, 0.6])), [1 / 0.3 - 1, 1 / 0.6 - 1],
     [(1 / 0.3 - 1) / 0.3, (1 / 0.6 - 1) / 0.6]),
    (lambda: D.Beta(t([2., 0.5]), t([3., 0.5])), [0.4, 0.5], [6 / 150, 0.25 / 2]),
])
def test_empirical_moments(make, mean, var):
    sampan.seed(7)
    s = make().sample([N]).numpy()
    assert s.shape == (N, 2)
    np.testing.assert_allclose(s.mean(0), mean, rtol=0.05, atol=0.03)
    np.testing.assert_allclose(s.var(0), var, rtol=0.1, atol=0.01)


def test_dirichlet_multinomial_categorical_moments():
    sampan.seed(3)
    conc = np.array([1., 2., 3.], "float32")
    s = D.Dirichlet(t(conc)).sample([N]).numpy()
    np.testing.assert_allclose(s.sum(-1), 1, rtol=1e-5)
    np.testing.assert_allclose(s.mean(0), conc / 6, atol=0.01)
    c0 = conc.sum()
    np.testing.assert_allclose(s.var(0), conc * (c0 - conc) / (c0 ** 2 * (c0 + 1)), rtol=0.1)
    small = D.Dirichlet(t([0.05, 0.05])).sample([1000]).numpy()
    assert np.all(np.isfinite(small))
    p = np.array([0.2, 0.3, 0.5], "float32")
    m = D.Multinomial(10, t(p)).sample([4000]).numpy()
    assert m.shape == (4000, 3) and np.all(m.sum(-1) == 10)
    np.testing.assert_allclose(m.mean(0), 10 * p, rtol=0.05)
    c = D.Categorical(t(np.log(p))).sample([N]).numpy()
    np.testing.assert_allclose(np.bincount(c, minlength=3) / N, p, atol=0.015)


def test_cauchy_median_and_quartiles():
    sampan.seed(1)
    s = D.Cauchy(0.5, 2.).sample([N]).numpy()
    np.testing.assert_allclose(np.percentile(s, [25, 50, 75]), [-1.5, 0.5, 2.5], atol=0.15)


def test_seed_makes_samples_reproducible():
    draws = []
    for _ in range(2):
        sampan.seed(123)
        draws.append([D.Normal(0., 1.).sample([5]).numpy(),
                      D.Dirichlet(t([1., 2.])).sample([3]).numpy(),
                      D.Categorical(t([1., 2.])).sample([4]).numpy(),
                      D.Bernoulli(0.4).sample([4]).numpy()])
    for a, b in zip(*draws):
        np.testing.assert_array_equal(a, b)


def test_float64_parameters_stay_float64():
    n = D.Normal(np.array([0., 1.]), np.array([1., 2.]))
    assert n.dtype == "float64"
    assert n.sample([3]).dtype == sampan.float64
    assert n.rsample([3]).dtype == sampan.float64
    assert n.entropy().dtype == sampan.float64
    assert D.Normal([0., 1.], [1., 2.]).entropy().dtype == sampan.float32
    assert D.Uniform(np.array([0.]), np.array([1.])).sample([2]).dtype == sampan.float64
    assert D.Laplace(t([0.], "float64"), t([1.], "float64")).rsample([2]).dtype == sampan.float64
    assert D.Dirichlet(t([1., 2.], "float64")).sample([2]).dtype == sampan.float64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lp = n.log_prob(t([0.5, 0.5]))
    assert lp.dtype == sampan.float64


# ---------------------------------------------------------------- gradients
def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        xp, xm = x.copy(), x.copy()
        xp.flat[i] += eps
        xm.flat[i] -= eps
        g.flat[i] = (f(xp) - f(xm)) / (2 * eps)
    return g


@pytest.mark.parametrize("cls", [D.Normal, D.Laplace, D.Cauchy, D.Gumbel])
def test_rsample_gradient_matches_finite_differences(cls):
    loc0, scale0 = np.array([0.3, -0.5]), np.array([1.2, 0.7])

    def run(loc, scale, grad=False):
        sampan.seed(11)
        lt, st = t(loc, "float64"), t(scale, "float64")
        lt.stop_gradient = st.stop_gradient = not grad
        out = (cls(lt, st).rsample([5]) ** 2).sum()
        if grad:
            out.backward()
            return lt.grad.numpy(), st.grad.numpy()
        return float(out.numpy())

    gl, gs = run(loc0, scale0, True)
    np.testing.assert_allclose(gl, _fd(lambda v: run(v, scale0), loc0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gs, _fd(lambda v: run(loc0, v), scale0), rtol=1e-5, atol=1e-6)


def test_log_prob_and_kl_gradients():
    x = np.array([0.2, 1.5])

    def f(alpha, grad=False):
        a = t(alpha, "float64")
        a.stop_gradient = not grad
        out = D.Beta(a, t([2., 3.], "float64")).log_prob(t([0.3, 0.6], "float64")).sum() + \
            D.kl_divergence(D.Beta(a, t([1., 1.], "float64")),
                            D.Beta(t([2., 2.], "float64"), t([1., 3.], "float64"))).sum()
        if grad:
            out.backward()
            return a.grad.numpy()
        return float(out.numpy())

    np.testing.assert_allclose(f(x, True), _fd(f, x), rtol=1e-5)


# ---------------------------------------------------------------- transforms
TRANSFORMS = [
    (lambda: D.AffineTransform(t([1., -2.], "float64"), t([2., -0.5], "float64")), [0.3, -1.2]),
    (lambda: D.ExpTransform(), [0.3, -1.2]),
    (lambda: D.PowerTransform(t(3., "float64")), [0.3, 1.2]),
    (lambda: D.SigmoidTransform(), [0.3, -1.2]),
    (lambda: D.TanhTransform(), [0.3, -1.2]),
    (lambda: D.ChainTransform([D.ExpTransform(), D.AffineTransform(t(1., "float64"),
                                                                   t(2., "float64"))]),
     [0.3, -1.2]),
    (lambda: D.StackTransform([D.ExpTransform(), D.TanhTransform()], axis=0), [0.3, -1.2]),
]


@pytest.mark.parametrize("make,x", TRANSFORMS)
def test_elementwise_transform_round_trip_and_log_det(make, x):
    tr = make()
    x = np.array(x)
    y = tr.forward(t(x, "float64"))
    np.testing.assert_allclose(tr.inverse(y).numpy(), x, rtol=1e-9)
    # elementwise: the Jacobian is diagonal, log|dy/dx| per element
    num = np.log(np.abs(_fd(lambda v: tr.forward(t(v, "float64")).numpy().sum(), x)))
    np.testing.assert_allclose(tr.forward_log_det_jacobian(t(x, "float64")).numpy(), num,
                               rtol=1e-5)
    np.testing.assert_allclose(tr.inverse_log_det_jacobian(y).numpy(), -num, rtol=1e-5)


def test_stick_breaking_round_trip_and_log_det():
    tr = D.StickBreakingTransform()
    x = np.array([0.5, -1., 2.])
    y = tr.forward(t(x, "float64")).numpy()
    np.testing.assert_allclose(y.sum(), 1, rtol=1e-12)
    np.testing.assert_allclose(tr.inverse(t(y, "float64")).numpy(), x, rtol=1e-9)
    jac = np.stack([_fd(lambda v, i=i: tr.forward(t(v, "float64")).numpy()[i], x)
                    for i in range(4)])   # (K+1) x K; drop the dependent last row
    want = np.log(abs(np.linalg.det(jac[:-1])))
    np.testing.assert_allclose(tr.forward_log_det_jacobian(t(x, "float64")).numpy(), want,
                               rtol=1e-5)


def test_reshape_independent_and_call_forms():
    r = D.ReshapeTransform((2, 3), (3, 2))
    x = t(np.arange(12.).reshape(2, 2, 3))
    assert r.inverse(r.forward(x)).shape == [2, 2, 3]
    it = D.IndependentTransform(D.ExpTransform(), 1)
    np.testing.assert_allclose(it.forward_log_det_jacobian(t([[1., 2.], [3., 4.]])).numpy(),
                               [3., 7.])
    chain = D.ExpTransform()(D.AffineTransform(t(0.), t(2.)))
    assert isinstance(chain, D.ChainTransform)
    td = D.ExpTransform()(D.Normal(0., 1.))
    assert isinstance(td, D.TransformedDistribution)


def test_transformed_distribution_matches_lognormal():
    v = t([0.5, 2.0, 3.0])
    a = D.TransformedDistribution(D.Normal(t(0.2), t(0.7)), [D.ExpTransform()]).log_prob(v)
    b = D.LogNormal(t(0.2), t(0.7)).log_prob(v)
    x = np.array([0.5, 2.0, 3.0])
    want = -np.log(x * 0.7 * np.sqrt(2 * np.pi)) - (np.log(x) - 0.2) ** 2 / (2 * 0.49)
    np.testing.assert_allclose(a.numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(b.numpy(), want, rtol=1e-5)


# ---------------------------------------------------------------- KL
@pytest.mark.parametrize("p,q", [
    (lambda: D.Normal(t([0.3]), t([1.2])), lambda: D.Normal(t([-0.5]), t([0.8]))),
    (lambda: D.Laplace(t([0.3]), t([1.2])), lambda: D.Laplace(t([-0.5]), t([0.8]))),
    (lambda: D.Cauchy(t([0.3]), t([1.2])), lambda: D.Cauchy(t([-0.5]), t([0.8]))),
    (lambda: D.Beta(t([2.]), t([3.])), lambda: D.Beta(t([1.5]), t([1.]))),
    (lambda: D.Dirichlet(t([[1., 2., 3.]])), lambda: D.Dirichlet(t([[2., 2., 1.]]))),
    (lambda: D.LogNormal(t([0.3]), t([0.6])), lambda: D.LogNormal(t([0.1]), t([0.8]))),
])
def test_kl_matches_monte_carlo(p, q):
    sampan.seed(5)
    p, q = p(), q()
    x = p.sample([40000])
    mc = (p.log_prob(x) - q.log_prob(x)).numpy().mean()
    kl = D.kl_divergence(p, q).numpy()
    np.testing.assert_allclose(kl.reshape(-1)[0], mc, rtol=0.08, atol=0.01)


def test_discrete_kl_closed_forms():
    pa, pb = np.array([0.3, 0.9]), np.array([0.5, 0.2])
    want = pa * np.log(pa / pb) + (1 - pa) * np.log((1 - pa) / (1 - pb))
    np.testing.assert_allclose(
        D.kl_divergence(D.Bernoulli(t(pa)), D.Bernoulli(t(pb))).numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(
        D.kl_divergence(D.Geometric(t(pa)), D.Geometric(t(pb))).numpy(), want, rtol=1e-5)
    la, lb = np.log([0.2, 0.3, 0.5]), np.log([0.5, 0.25, 0.25])
    kl = D.kl_divergence(D.Categorical(t(la)), D.Categorical(t(lb))).numpy()
    np.testing.assert_allclose(kl, [np.sum(np.exp(la) * (la - lb))], rtol=1e-5)


def test_register_kl_dispatch_and_expfamily_bregman():
    class MyNormal(D.Normal):
        pass

    # a subclass falls back on its base's registration
    kl = D.kl_divergence(MyNormal(t([0.]), t([1.])), D.Normal(t([1.]), t([2.])))
    np.testing.assert_allclose(kl.numpy(), [0.5 * (0.25 + 0.25 - 1 - np.log(0.25))], rtol=1e-5)

    @D.register_kl(MyNormal, MyNormal)
    def _mine(p, q):
        return sampan.zeros([1])

    assert float(D.kl_divergence(MyNormal(t([0.]), t([1.])), MyNormal(t([1.]), t([2.])))) == 0

    class Exp(D.ExponentialFamily):
        """Exponential(rate): theta = -rate, F(theta) = -log(-theta)."""

        def __init__(self, rate):
            self.rate = rate
            super().__init__(rate.shape)

        @property
        def _natural_parameters(self):
            return (-self.rate,)

        def _log_normalizer(self, x):
            return -sampan.log(-x)

        @property
        def _mean_carrier_measure(self):
            return 0.0

    a, b = np.array([0.5, 2.]), np.array([1.5, 1.])
    kl = D.kl_divergence(Exp(t(a, "float64")), Exp(t(b, "float64"))).numpy()
    np.testing.assert_allclose(kl, np.log(a / b) + b / a - 1, rtol=1e-10)
    np.testing.assert_allclose(Exp(t(a, "float64")).entropy().numpy(), 1 - np.log(a),
                               rtol=1e-10)


# ---------------------------------------------------------------- static
def test_normal_log_prob_under_to_static_equals_eager():
    def f(x, loc, scale):
        d = D.Normal(loc, scale)
        return d.log_prob(x) + d.entropy() + D.Normal(loc, scale * 2.).kl_divergence(d)

    x, loc, scale = t([0.1, 1.0, -2.]), t([0., 0.5, 1.]), t([1., 2., 0.5])
    eager = f(x, loc, scale).numpy()
    static = sampan.jit.to_static(f)(x, loc, scale).numpy()
    np.testing.assert_allclose(static, eager, rtol=1e-6)


def test_distributions_build_static_programs():
    sampan.enable_static()
    try:
        main, startup = sampan.static.Program(), sampan.static.Program()
        with sampan.static.program_guard(main, startup):
            v = sampan.static.data("v", [3], "float32")
            a = sampan.static.data("a", [3], "float32")
            outs = [D.Beta(a, a + 1.).log_prob(v),
                    D.Laplace(a, a + 1.).cdf(v),
                    D.Dirichlet(a).sample([2]),
                    D.Normal(a, a + 1.).rsample([4]),
                    D.TanhTransform().forward_log_det_jacobian(v)]
        exe = sampan.static.Executor()
        exe.run(startup)
        vv, aa = np.array([0.2, 0.5, 0.7], "float32"), np.array([1., 2., 3.], "float32")
        res = exe.run(main, feed={"v": vv, "a": aa}, fetch_list=outs)
    finally:
        sampan.disable_static()
    want = (aa - 1) * np.log(vv) + aa * np.log(1 - vv) - \
        (_lgamma(aa) + _lgamma(aa + 1) - _lgamma(2 * aa + 1))
    np.testing.assert_allclose(res[0], want, rtol=1e-5)
    assert res[2].shape == (2, 3) and np.allclose(res[2].sum(-1), 1, rtol=1e-5)
    assert res[3].shape == (4, 3)
    np.testing.assert_allclose(res[4], np.log(1 - np.tanh(vv) ** 2), rtol=1e-5)
