"""Programs with the math_extra ops (the special functions, atan2, heaviside /
fmax / fmin, nextafter, lerp, logspace, cross, mv, addmm, trace, dist,
renorm, einsum) and the composites over them (gcd's ``while`` loop, frexp,
nan_to_num, diff, trapezoid ...), saved by sampan (``jit.save`` of a
to_static function), run in real PaddlePaddle 2.6.2 (paddle.inference and
paddle.jit.load) and give sampan's outputs: the op types, slots and
attributes sampan writes for them are Paddle's.

``lcm`` runs under paddle.jit.load only: its ``elementwise_mul`` -> ``abs``
makes paddle.inference's oneDNN activation-fuse pass fail on the CPU
(PreconditionNotMet "oneDNN activation fuses require use_mkldnn=True"), for
the program Paddle itself saves for ``paddle.lcm`` too."""
import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec

from . import fn_models

MODES = fn_models.MODES


def _special(x, y):
    a = paddle.abs(x) + 0.5
    return (paddle.acosh(a + 1), paddle.asinh(x), paddle.atanh(x * 0.5), paddle.digamma(a),
            paddle.lgamma(x), paddle.polygamma(a, 2), paddle.i0(x * 4), paddle.i0e(x * 4),
            paddle.i1(x * 4), paddle.i1e(x * 4), paddle.erfinv(x * 0.9), paddle.trunc(x * 3),
            paddle.logit(a * 0.5, 0.1), paddle.stanh(x), paddle.atan2(x, y),
            paddle.heaviside(x, y), paddle.fmax(x, y), paddle.fmin(x, y),
            paddle.nextafter(x, y), paddle.lerp(x, y, 0.3), paddle.lerp(x, y, a * 0.1),
            paddle.multigammaln(a + 1, 3), paddle.sgn(x), paddle.deg2rad(x))


def _products(x, y):
    return (paddle.einsum("ij,jk->ik", x, y), paddle.einsum("ii->i", x),
            paddle.einsum("ij,jk,kl->il", x, y, x), paddle.einsum("ij->ii", x[:, :2]),
            paddle.trace(x, 1), paddle.cross(x[:3, :3], y[:3, :3], axis=0),
            paddle.mv(x, y[0]), paddle.addmm(x, x, y, 0.5, 2.0), paddle.dist(x, y, 3),
            paddle.renorm(x, 2.0, 0, 0.5), paddle.cdist(x, y), paddle.tensordot(x, y, 1),
            paddle.inner(x, y), paddle.outer(x[0], y[1]), paddle.mm(x, y))


def _composites(x, y):
    xi = paddle.cast(x * 10, "int64")
    yi = paddle.cast(y * 7, "int64")
    m, e = paddle.frexp(x * 100)
    return (paddle.gcd(xi, yi), m, e, paddle.nan_to_num(paddle.log(x)),
            paddle.diff(x, n=2, axis=0), paddle.trapezoid(x, dx=0.5),
            paddle.cumulative_trapezoid(x, y[0], axis=1), paddle.logspace(0, 2, 5),
            paddle.ldexp(x, yi), paddle.hypot(x, y), paddle.logaddexp(x, y), paddle.frac(x * 3),
            paddle.floor_mod(x, paddle.abs(y) + 0.5))


def _lcm(x, y):
    return (paddle.lcm(paddle.cast(x * 10, "int64"), paddle.cast(y * 7, "int64")),)


MODELS = {"special": _special, "products": _products, "composites": _composites, "lcm": _lcm}
ONLY = {"lcm": ["jit_load"]}
SPEC = [InputSpec([4, 4], "float32", "x"), InputSpec([4, 4], "float32", "y")]


def _inputs():
    rng = np.random.RandomState(13)
    return {"x": rng.uniform(-0.7, 0.7, (4, 4)).astype("float32"),
            "y": rng.uniform(-0.7, 0.7, (4, 4)).astype("float32")}


@pytest.fixture(scope="module")
def batch(paddle_side, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("interop_math_extra")
    return fn_models.save_and_run(paddle_side, workdir, MODELS, _inputs(), SPEC, ONLY)


@pytest.mark.parametrize("name,mode", [(n, m) for n in MODELS for m in ONLY.get(n, MODES)])
def test_math_extra_program_runs_in_real_paddle(name, mode, batch):
    fn_models.check(batch, name, mode)
