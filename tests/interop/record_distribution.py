"""Record real Paddle 2.6.2's answers for the expressions in CASES into
tests/distribution/fixtures/paddle_values.json (not a test module; run it with
the oracle venv):

    ~/.cache/sampan-interop/paddle-2.6.2/bin/python tests/interop/record_distribution.py

Each case is a Python expression over ``paddle``, ``np`` and ``D``
(``paddle.distribution``) without randomness; the fixture keeps the
expression with its value (array, dtype, shape) or the error raised, and
test_recorded.py evaluates the same expression with ``sampan`` as ``paddle``.
"""
import json
import os
import warnings

import numpy as np

T = "paddle.to_tensor"
CASES = [
    # Normal: values, dtypes, shapes
    "D.Normal(0.5, 2.0).log_prob(paddle.to_tensor([0.1, 1.0, -3.0]))",
    "D.Normal(0.5, 2.0).entropy()",
    "D.Normal(0.5, 2.0).probs(paddle.to_tensor([0.1, 1.0]))",
    "D.Normal(0.5, 2.0).prob(paddle.to_tensor([0.1, 1.0]))",
    "D.Normal(np.array([0., 1.]), np.array([1., 3.])).log_prob(paddle.to_tensor([0.5, 0.5], dtype='float64'))",
    "D.Normal([0., 1.], [1., 3.]).entropy()",
    "D.Normal(np.array([0., 1.], 'float32'), 2.).variance",
    "D.Normal(paddle.to_tensor([0., 1.]), paddle.to_tensor([1., 2.])).mean",
    "D.Normal(0., 1.).kl_divergence(D.Normal(1., 2.))",
    "D.kl_divergence(D.Normal(paddle.to_tensor([0., 1.]), paddle.to_tensor([1., 2.])), D.Normal(paddle.to_tensor([0.5, -1.]), paddle.to_tensor([2., 0.5])))",
    "list(D.Normal(0., 1.).batch_shape)",
    "list(D.Normal(np.zeros((2, 3)), 1.).batch_shape)",
    "D.Normal(paddle.to_tensor(1.), 1.)",
    "D.Normal(0., 1.).sample([2, 3]).shape",
    "D.Normal(0., 1.).sample([]).shape",
    "D.Normal(0., 1.).rsample([2, 3]).shape",
    "D.Normal(paddle.to_tensor([0., 1.]), paddle.to_tensor([1., 2.])).sample([4]).shape",
    "str(D.Normal(np.array([0.]), np.array([1.])).sample([3]).dtype)",
    "D.Normal(0., 1.).sample(3)",
    "D.Normal('a', 1.)",
    "D.Uniform(np.array([0., 1.]), 2.).entropy()",
    # Uniform
    "D.Uniform(-1., 3.).log_prob(paddle.to_tensor([0.5, 4.0]))",
    "D.Uniform(-1., 3.).probs(paddle.to_tensor([0.5, 4.0]))",
    "D.Uniform([0., 1.], [2., 5.]).entropy()",
    "D.Uniform(0., 1.).sample([5]).shape",
    "D.Uniform(paddle.to_tensor([0., 1.]), paddle.to_tensor([1., 2.])).sample([5]).shape",
    # Cauchy
    "D.Cauchy(0.5, 2.).log_prob(paddle.to_tensor([0.1, 3.0]))",
    "D.Cauchy(paddle.to_tensor([0., 1.]), 2.).cdf(paddle.to_tensor([0.1, 3.0]))",
    "D.Cauchy(0.5, 2.).entropy()",
    "D.Cauchy(0.5, 2.).kl_divergence(D.Cauchy(1.0, 0.5))",
    "D.Cauchy(0.5, 2.).mean",
    "D.Cauchy('a', 2.)",
    "D.Cauchy(0.5, 2.).log_prob(1.0)",
    "D.Cauchy(paddle.to_tensor([0., 1.]), 2.).rsample([3]).shape",
    # Laplace
    "D.Laplace(0.5, 2.).log_prob(paddle.to_tensor([0.1, 3.0]))",
    "D.Laplace(0.5, 2.).cdf(paddle.to_tensor([0.1, 3.0]))",
    "D.Laplace(0.5, 2.).icdf(paddle.to_tensor([0.1, 0.9]))",
    "D.Laplace(0.5, 2.).entropy()",
    "D.Laplace(0.5, 2.).variance",
    "D.Laplace(0.5, 2.).stddev",
    "D.Laplace(0.5, 2.).kl_divergence(D.Laplace(1.0, 0.5))",
    "D.Laplace(paddle.to_tensor([0., 1.]), paddle.to_tensor([1., 2.])).sample([3]).shape",
    # Beta / Dirichlet
    "D.Beta(2., 3.).log_prob(paddle.to_tensor([0.2, 0.7]))",
    "D.Beta(2., 3.).prob(paddle.to_tensor(0.3))",
    "D.Beta(paddle.to_tensor([2., 0.5]), 3.).entropy()",
    "D.Beta(2., 3.).mean",
    "D.Beta(2., 3.).variance",
    "D.Beta(paddle.to_tensor([2., 0.5]), 3.).sample([4]).shape",
    "D.Beta(2., 3.).sample([4]).shape",
    "D.Beta(paddle.to_tensor([[2.], [3.]]), 3.).sample([4]).shape",
    "D.kl_divergence(D.Beta(2., 3.), D.Beta(paddle.to_tensor([1., 4.]), paddle.to_tensor([0.5, 2.])))",
    "D.Dirichlet(paddle.to_tensor([1., 2., 3.])).log_prob(paddle.to_tensor([0.2, 0.3, 0.5]))",
    "D.Dirichlet(paddle.to_tensor([[1., 2., 3.], [0.5, 0.5, 4.]])).entropy()",
    "D.Dirichlet(paddle.to_tensor([1., 2., 3.])).mean",
    "D.Dirichlet(paddle.to_tensor([1., 2., 3.])).variance",
    "D.Dirichlet(paddle.to_tensor([[1., 2., 3.]])).sample([5]).shape",
    "D.Dirichlet(paddle.to_tensor(1.))",
    "D.kl_divergence(D.Dirichlet(paddle.to_tensor([1., 2., 3.])), D.Dirichlet(paddle.to_tensor([2., 2., 1.])))",
    # Bernoulli
    "D.Bernoulli(0.3).log_prob(paddle.to_tensor([0., 1.]))",
    "D.Bernoulli(paddle.to_tensor([0.3, 0.9])).entropy()",
    "D.Bernoulli(paddle.to_tensor([0.3, 0.9])).cdf(paddle.to_tensor([-1., 0.5]))",
    "D.Bernoulli(paddle.to_tensor([0.3, 0.9])).variance",
    "D.Bernoulli(paddle.to_tensor([0.3, 0.9])).kl_divergence(D.Bernoulli(paddle.to_tensor([0.5, 0.2])))",
    "D.Bernoulli(paddle.to_tensor([0.3, 0.9], dtype='float64')).prob(paddle.to_tensor([1., 0.], dtype='float64'))",
    "D.Bernoulli(1.5)",
    "D.Bernoulli(paddle.to_tensor([0.3, 0.9])).sample([3]).shape",
    "D.Bernoulli(paddle.to_tensor([0.3, 0.9])).rsample([3]).shape",
    "D.Bernoulli(0.0).probs",
    # Categorical
    "D.Categorical(paddle.to_tensor([1., 2., 3.])).probs(paddle.to_tensor([0, 2]))",
    "D.Categorical(paddle.to_tensor([1., 2., 3.])).log_prob(paddle.to_tensor([0, 2]))",
    "D.Categorical(paddle.to_tensor([[1., 2., 3.], [4., 1., 1.]])).probs(paddle.to_tensor([0, 2]))",
    "D.Categorical(paddle.to_tensor([[1., 2., 3.], [4., 1., 1.]])).probs(paddle.to_tensor([[0], [2]]))",
    "D.Categorical(paddle.to_tensor([[1., 2., 3.], [4., 1., 1.]])).entropy()",
    "D.Categorical(paddle.to_tensor([[1., 2., 3.], [4., 1., 1.]])).kl_divergence(D.Categorical(paddle.to_tensor([[1., 1., 3.], [2., 1., 1.]])))",
    "D.Categorical(paddle.to_tensor([[1., 2., 3.], [4., 1., 1.]])).sample([5]).shape",
    "D.Categorical(paddle.to_tensor([1., 2., 3.])).sample([5, 2]).shape",
    "str(D.Categorical(paddle.to_tensor([1., 2., 3.])).sample([5, 2]).dtype)",
    # Geometric
    "D.Geometric(0.3).pmf(2)",
    "D.Geometric(paddle.to_tensor([0.3, 0.6])).log_pmf(paddle.to_tensor([2., 0.]))",
    "D.Geometric(paddle.to_tensor([0.3, 0.6])).cdf(paddle.to_tensor([2., 0.]))",
    "D.Geometric(paddle.to_tensor([0.3, 0.6])).entropy()",
    "D.Geometric(paddle.to_tensor([0.3, 0.6])).mean",
    "D.Geometric(paddle.to_tensor([0.3, 0.6])).variance",
    "D.Geometric(paddle.to_tensor([0.3, 0.6])).stddev",
    "D.Geometric(0.3).kl_divergence(D.Geometric(0.6))",
    "D.Geometric(1.5)",
    "D.Geometric('a')",
    "D.Geometric(0.3).pmf(1.5)",
    "D.Geometric(paddle.to_tensor([0.3, 0.6])).sample([3]).shape",
    # Gumbel
    "D.Gumbel(0.5, 2.).log_prob(paddle.to_tensor([0.1, 3.0]))",
    "D.Gumbel(0.5, 2.).cdf(paddle.to_tensor([0.1, 3.0]))",
    "D.Gumbel(0.5, 2.).entropy()",
    "D.Gumbel(0.5, 2.).mean",
    "D.Gumbel(0.5, 2.).variance",
    "D.Gumbel(paddle.to_tensor([0., 1.]), paddle.to_tensor([1., 2.])).sample([3]).shape",
    "D.Gumbel(paddle.to_tensor([0., 1.]), paddle.to_tensor([1., 2.])).rsample([3]).shape",
    # LogNormal
    "D.LogNormal(0.5, 2.).log_prob(paddle.to_tensor([0.1, 3.0]))",
    "D.LogNormal(0.5, 2.).probs(paddle.to_tensor([0.1, 3.0]))",
    "D.LogNormal(0.5, 2.).entropy()",
    "D.LogNormal(0.5, 0.5).mean",
    "D.LogNormal(0.5, 0.5).variance",
    "D.LogNormal(0.5, 2.).kl_divergence(D.LogNormal(0., 1.))",
    "D.kl_divergence(D.LogNormal(0.5, 2.), D.LogNormal(0., 1.))",
    "list(D.LogNormal(paddle.to_tensor([0., 1.]), paddle.to_tensor([1., 2.])).batch_shape)",
    "D.LogNormal(paddle.to_tensor([0., 1.]), paddle.to_tensor([1., 2.])).sample([3]).shape",
    # Multinomial
    "D.Multinomial(10, paddle.to_tensor([0.2, 0.3, 0.5])).log_prob(paddle.to_tensor([2., 3., 5.]))",
    "D.Multinomial(10, paddle.to_tensor([0.2, 0.3, 0.5])).prob(paddle.to_tensor([2., 3., 5.]))",
    "D.Multinomial(5, paddle.to_tensor([[0.2, 0.3, 0.5], [0.1, 0.0, 0.9]])).log_prob(paddle.to_tensor([[1., 1., 3.], [2., 0., 3.]]))",
    "D.Multinomial(10, paddle.to_tensor([0.2, 0.3, 0.5])).entropy()",
    "D.Multinomial(4, paddle.to_tensor([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])).entropy()",
    "D.Multinomial(10, paddle.to_tensor([0.2, 0.3, 0.5])).mean",
    "D.Multinomial(10, paddle.to_tensor([0.2, 0.3, 0.5])).variance",
    "D.Multinomial(10, paddle.to_tensor([[0.2, 0.3, 0.5]])).sample([4]).shape",
    "D.Multinomial(0, paddle.to_tensor([0.2, 0.8]))",
    "D.Multinomial(3, paddle.to_tensor(0.2))",
    # Independent / TransformedDistribution
    "D.Independent(D.Normal(paddle.to_tensor([[0., 1.], [2., 3.]]), paddle.to_tensor([[1., 2.], [1., 1.]])), 1).log_prob(paddle.to_tensor([0.5, 0.5]))",
    "D.Independent(D.Normal(paddle.to_tensor([[0., 1.], [2., 3.]]), paddle.to_tensor([[1., 2.], [1., 1.]])), 2).entropy()",
    "[list(D.Independent(D.Normal(paddle.to_tensor([[0., 1.], [2., 3.]]), paddle.to_tensor([[1., 2.], [1., 1.]])), 1).batch_shape), list(D.Independent(D.Normal(paddle.to_tensor([[0., 1.], [2., 3.]]), paddle.to_tensor([[1., 2.], [1., 1.]])), 1).event_shape)]",
    "D.Independent(D.Normal(0., 1.), 2)",
    "D.Independent(1.0, 1)",
    "D.TransformedDistribution(D.Normal(0., 1.), [D.AffineTransform(paddle.to_tensor(1.), paddle.to_tensor(2.))]).log_prob(paddle.to_tensor([0.3, 2.0]))",
    "D.TransformedDistribution(D.Normal(paddle.to_tensor([0.2]), paddle.to_tensor([1.5])), [D.ExpTransform(), D.PowerTransform(paddle.to_tensor(2.))]).log_prob(paddle.to_tensor([0.3, 2.0]))",
    "D.TransformedDistribution(D.Normal(0., 1.), [1])",
    "D.TransformedDistribution(1, [])",
    # Transforms
    "D.AffineTransform(paddle.to_tensor(1.), paddle.to_tensor(-2.)).forward_log_det_jacobian(paddle.to_tensor([0.3, 2.0]))",
    "D.AffineTransform(paddle.to_tensor([1., 2.]), paddle.to_tensor(2.)).forward_shape([3, 1])",
    "D.AffineTransform(1., paddle.to_tensor(2.))",
    "D.ExpTransform().inverse_log_det_jacobian(paddle.to_tensor([0.3, 2.0]))",
    "D.ExpTransform().forward(1.0)",
    "D.AbsTransform().inverse(paddle.to_tensor([0.3, 2.0]))",
    "D.AbsTransform().inverse_log_det_jacobian(paddle.to_tensor([0.3, 2.0]))",
    "D.AbsTransform().forward_log_det_jacobian(paddle.to_tensor([0.3, 2.0]))",
    "D.PowerTransform(paddle.to_tensor(3.)).forward_log_det_jacobian(paddle.to_tensor([0.3, 2.0]))",
    "D.PowerTransform(paddle.to_tensor([2., 3.])).inverse(paddle.to_tensor([4.0, 8.0]))",
    "D.PowerTransform(2.)",
    "D.SigmoidTransform().forward_log_det_jacobian(paddle.to_tensor([0.3, -2.0]))",
    "D.SigmoidTransform().inverse(paddle.to_tensor([0.3, 0.9]))",
    "D.TanhTransform().forward_log_det_jacobian(paddle.to_tensor([0.3, -2.0]))",
    "D.TanhTransform().inverse_log_det_jacobian(paddle.to_tensor([0.3, -0.9]))",
    "D.SoftmaxTransform().forward(paddle.to_tensor([[1., 2., 3.]]))",
    "D.SoftmaxTransform().inverse(paddle.to_tensor([[0.2, 0.3, 0.5]]))",
    "D.SoftmaxTransform().forward_log_det_jacobian(paddle.to_tensor([[1., 2., 3.]]))",
    "D.SoftmaxTransform().forward(paddle.to_tensor(1.))",
    "D.StickBreakingTransform().forward(paddle.to_tensor([[0.5, -1., 2.]]))",
    "D.StickBreakingTransform().inverse(paddle.to_tensor([0.1, 0.2, 0.3, 0.4]))",
    "D.StickBreakingTransform().forward_log_det_jacobian(paddle.to_tensor([[0.5, -1., 2.]]))",
    "D.StickBreakingTransform().forward_shape((2, 3))",
    "D.StickBreakingTransform().inverse_shape((2, 3))",
    "D.ReshapeTransform((2, 3), (3, 2)).forward(paddle.arange(12, dtype='float32').reshape([2, 2, 3])).shape",
    "D.ReshapeTransform((2, 3), (3, 2)).forward_log_det_jacobian(paddle.ones([4, 2, 3]))",
    "D.ReshapeTransform((2, 3), (3, 2)).forward_shape((5, 2, 3))",
    "D.ReshapeTransform((2, 3), (3, 2)).inverse_shape((5, 3, 2))",
    "D.ReshapeTransform((2, 3), (3, 2)).forward_shape((5, 3, 2))",
    "D.ReshapeTransform((2, 3), (4, 2))",
    "D.ChainTransform([D.AffineTransform(paddle.to_tensor(1.), paddle.to_tensor(2.)), D.ExpTransform()]).forward_log_det_jacobian(paddle.to_tensor([0.3, 2.0]))",
    "D.ChainTransform([D.AffineTransform(paddle.to_tensor(1.), paddle.to_tensor(2.)), D.ExpTransform()]).inverse(paddle.to_tensor([0.3, 2.0]))",
    "D.ChainTransform([D.ExpTransform(), D.StickBreakingTransform()]).forward_log_det_jacobian(paddle.to_tensor([[0.3, 2.0]]))",
    "D.ChainTransform([1])",
    "D.IndependentTransform(D.ExpTransform(), 1).forward_log_det_jacobian(paddle.to_tensor([[0.3, 2.0], [1., 2.]]))",
    "D.IndependentTransform(D.ExpTransform(), 0)",
    "D.StackTransform([D.ExpTransform(), D.TanhTransform()], axis=1).forward(paddle.to_tensor([[0.3, 2.0], [1., 2.]]))",
    "D.StackTransform([D.ExpTransform(), D.TanhTransform()], axis=1).forward_log_det_jacobian(paddle.to_tensor([[0.3, 2.0], [1., 2.]]))",
    "D.StackTransform([D.ExpTransform(), D.TanhTransform()], axis=1).forward(paddle.to_tensor([[0.3, 2.0, 1.]]))",
    "D.StackTransform([], axis=1)",
    "D.ExpTransform()(D.Normal(0., 1.)).log_prob(paddle.to_tensor([0.5, 2.0]))",
    "D.ExpTransform()(D.TanhTransform()).forward(paddle.to_tensor([0.5, 2.0]))",
    # kl dispatch
    "D.kl_divergence(D.Normal(0., 1.), D.Laplace(0., 1.))",
    "D.register_kl(int, D.Normal)",
]


def _to_jsonable(v, paddle):
    if isinstance(v, paddle.Tensor):
        a = v.numpy()
        return {"kind": "tensor", "dtype": str(a.dtype), "shape": list(a.shape),
                "value": np.where(np.isfinite(a), a, 0).tolist() if a.dtype.kind == "f" else a.tolist(),
                "inf": np.isinf(a).tolist() if a.dtype.kind == "f" else None}
    if isinstance(v, (list, tuple)):
        if all(isinstance(x, paddle.Tensor) for x in v) and v:
            return {"kind": "tensors", "items": [_to_jsonable(x, paddle) for x in v]}
        return {"kind": "value", "value": [list(x) if isinstance(x, (list, tuple)) else x for x in v]}
    if isinstance(v, (int, float, str)):
        return {"kind": "value", "value": v}
    return {"kind": "object", "type": type(v).__name__}


def main():
    import paddle
    import paddle.distribution as D
    out = []
    for expr in CASES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                rec = _to_jsonable(eval(expr, {"paddle": paddle, "np": np, "D": D}), paddle)
            except Exception as e:  # noqa: BLE001 - recording what Paddle raises
                rec = {"kind": "error", "type": type(e).__name__, "message": str(e)[:300]}
        rec["expr"] = expr
        out.append(rec)
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "distribution", "fixtures",
                        "paddle_values.json")
    with open(path, "w") as f:
        json.dump({"paddle": paddle.__version__, "cases": out}, f, indent=1)
    print(f"wrote {len(out)} cases to {path}")


if __name__ == "__main__":
    main()
