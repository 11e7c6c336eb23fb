"""Programs with the ``paddle.linalg`` ops, saved by sampan (``jit.save`` of a
to_static function), run in real PaddlePaddle 2.6.2 (paddle.inference and
paddle.jit.load) and give sampan's outputs: the op types, slots and
attributes sampan writes are Paddle's.  Sign-ambiguous factors (svd, eigh,
qr, eig vectors) leave the model through sign-free expressions."""
import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec

from . import fn_models

L = paddle.linalg
MODES = fn_models.MODES


def _factors(x, y):
    spd = paddle.matmul(x, x, transpose_y=True) + 4 * paddle.eye(3)
    c = L.cholesky(spd)
    u, s, vh = L.svd(x)
    q, r = L.qr(x)
    w, v = L.eigh(spd, UPLO="U")
    lu, piv, info = L.lu(x, get_infos=True)
    p, lo, up = L.lu_unpack(lu, piv)
    return (c, s, paddle.matmul(u * s.unsqueeze(-2), vh), paddle.matmul(q, r), w,
            paddle.abs(v), lu, piv, info, paddle.matmul(p, paddle.matmul(lo, up)),
            L.eigvalsh(spd), L.matrix_rank(x), L.slogdet(x))


def _solvers(x, y):
    spd = paddle.matmul(x, x, transpose_y=True) + 4 * paddle.eye(3)
    c = L.cholesky(spd, upper=True)
    sol, res, rank, sv = L.lstsq(x, y, driver="gelsd")
    return (L.solve(x, y), L.triangular_solve(x, y, upper=False, transpose=True),
            L.cholesky_solve(y, c, upper=True), L.inv(x), L.det(x),
            L.matrix_power(x, -2), L.multi_dot([x, x, y]), sol, rank, sv)


def _composites(x, y):
    return (L.norm(x), L.norm(x, p=3, axis=1), L.norm(x, p=float("inf"), axis=[0, 1]),
            L.cond(x), L.cond(x, p="fro"), L.pinv(x), L.cov(x), L.corrcoef(x))


def _householder(x, y):
    return L.householder_product(x, y[:, 0])


def _eig(x, y):
    return L.eig(x)[0], L.eigvals(x)


MODELS = {"factors": _factors, "solvers": _solvers, "composites": _composites, "eig": _eig,
          "householder": _householder}
# Paddle's predictor cannot hand out a complex output (copy_to_cpu asks for float32,
# with Paddle's own saved eig model too)
NO_PREDICTOR = {"eig"}
SPEC = [InputSpec([3, 3], "float32", "x"), InputSpec([3, 2], "float32", "y")]


def _inputs():
    rng = np.random.RandomState(7)
    return {"x": (rng.uniform(-1, 1, (3, 3)) + 2 * np.eye(3)).astype("float32"),
            "y": rng.uniform(-1, 1, (3, 2)).astype("float32")}


@pytest.fixture(scope="module")
def batch(paddle_side, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("interop_linalg")
    return fn_models.save_and_run(paddle_side, workdir, MODELS, _inputs(), SPEC)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(MODELS))
def test_linalg_program_runs_in_real_paddle(name, mode, batch):
    if mode == "inference" and name in NO_PREDICTOR:
        pytest.skip("Paddle's predictor has no complex outputs")
    fn_models.check(batch, name, mode)
