"""Programs with the triangle, diagonal and index-write ops, saved by sampan
(``jit.save`` of a to_static function), run in real PaddlePaddle 2.6.2
(paddle.inference and paddle.jit.load) and give sampan's outputs: the op types,
slots and attributes sampan writes for them are Paddle's.

Not here: the strided views (view_shape, view_dtype, tensor_unfold,
as_strided): Paddle's functions for them are dygraph-only and its static
executor registers no kernel for those op types, so no Program holding them
runs in Paddle.  ``vander`` is built increasing: its decreasing form ends in
``res[:, ::-1]``, whose strided_slice sampan writes with end -2**31, which
Paddle's kernel clamps to 0 (dropping a column; Paddle writes end -1)."""
import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec

from . import fn_models

MODES = fn_models.MODES


def _triangles(x, y):
    return (paddle.tril(x, 1), paddle.triu(x, -1), paddle.diag(x[0], 1, 0.5),
            paddle.diag(x, -1), paddle.diag_embed(y, 1), paddle.diagonal(x, 1, 1, 0),
            paddle.diagonal_scatter(x, y[0]), paddle.diagflat(y), paddle.rot90(x),
            paddle.tril_indices(4, 3, 1) + 0)


def _writes(x, y):
    idx = paddle.to_tensor([[0, 1, 2, 0]])
    rows = paddle.to_tensor([0, 2, 0])
    nd = paddle.to_tensor([[1, 1], [0, 3], [1, 1]])
    pick = paddle.to_tensor([[1], [0], [1], [0]], "int32")
    return (paddle.put_along_axis(x, idx, y[:1], 0),
            paddle.put_along_axis(x, idx, y[:1], 0, "add"),
            paddle.put_along_axis(x, idx, y[:1], 0, "mean", False),
            paddle.index_add(x, rows, 0, y[:3]), paddle.index_fill(x, rows[:2], 1, -1.0),
            paddle.scatter_nd_add(x, nd, y[0, :3]), paddle.scatter_nd(rows[:, None], y[:3],
                                                                      [4, 4]),
            paddle.multiplex([x, y], pick), paddle.select_scatter(x, y[1], 0, 2),
            paddle.take(x, paddle.to_tensor([[0, -1], [5, 3]])))


def _shapes(x, y):
    a, b = paddle.meshgrid(x[0], y[1, :2])
    return (paddle.kron(x[:2, :2], y[:2, :3]), paddle.repeat_interleave(x, 2, 1),
            paddle.repeat_interleave(x, paddle.to_tensor([1, 0, 2, 1]), 0),
            paddle.crop(x, [2, -1], [1, 1]), a, b, paddle.combinations(x[0, :3]),
            paddle.vander(x[0, :3], increasing=True), paddle.unflatten(x, 1, [2, 2]),
            paddle.shard_index(paddle.to_tensor([[16], [1], [19], [10]]), 20, 2, 1))


MODELS = {"triangles": _triangles, "writes": _writes, "shapes": _shapes}
SPEC = [InputSpec([4, 4], "float32", "x"), InputSpec([4, 4], "float32", "y")]


def _inputs():
    rng = np.random.RandomState(11)
    return {"x": rng.uniform(-1, 1, (4, 4)).astype("float32"),
            "y": rng.uniform(-1, 1, (4, 4)).astype("float32")}


@pytest.fixture(scope="module")
def batch(paddle_side, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("interop_reshape_index")
    return fn_models.save_and_run(paddle_side, workdir, MODELS, _inputs(), SPEC)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(MODELS))
def test_reshape_index_program_runs_in_real_paddle(name, mode, batch):
    fn_models.check(batch, name, mode)
