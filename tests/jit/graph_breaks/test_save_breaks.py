"""jit.save of a function whose trace reads values: reads that the InputSpecs
decide (fixed dimensions, constants) become constants of the one program;
reads that depend on the data are all named in one GraphBreakError, and no
file is written."""
import os

import numpy as np
import pytest

import sampan as paddle
from sampan.jit.graph_break import GraphBreakError
from sampan.static import InputSpec

pytestmark = pytest.mark.filterwarnings("ignore:jit.save")


def by_fixed_dim(x):
    n = paddle.shape(x)[1].item()             # the spec fixes dim 1
    k = int(paddle.to_tensor(2).item())       # a constant
    return x * float(n) + k


def by_data(x):
    m = float(x.mean().numpy())
    y = x * 2.0 if m > 0 else x
    k = int(x.sum().item())
    for _ in range(k % 3):
        y = y + 1.0
    return y


def by_open_dim(x):
    return x * paddle.shape(x)[0].item()


def test_reads_decided_by_the_spec_are_saved_as_constants(tmp_path):
    sf = paddle.jit.to_static(by_fixed_dim)
    paddle.jit.save(sf, str(tmp_path / "m"), input_spec=[InputSpec([None, 3], "float32")])
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for b in (1, 4):
        x = np.random.RandomState(b).rand(b, 3).astype("float32")
        np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), x * 3.0 + 2,
                                   rtol=1e-6)


def test_every_data_dependent_read_is_named(tmp_path):
    with pytest.raises(GraphBreakError) as e:
        paddle.jit.save(paddle.jit.to_static(by_data), str(tmp_path / "m"),
                        input_spec=[InputSpec([None, 3], "float32")])
    msg = str(e.value)
    assert "2 graph break(s)" in msg
    assert "m = float(x.mean().numpy())" in msg and "k = int(x.sum().item())" in msg
    assert msg.count("depends on the data of input 'x'") == 2
    assert not os.path.exists(str(tmp_path / "m.pdmodel"))


def test_a_dimension_the_spec_leaves_open_is_a_break(tmp_path):
    with pytest.raises(GraphBreakError, match="leaves open"):
        paddle.jit.save(paddle.jit.to_static(by_open_dim), str(tmp_path / "m"),
                        input_spec=[InputSpec([None, 3], "float32")])
    # fixed in the spec, the same read is decided
    paddle.jit.save(paddle.jit.to_static(by_open_dim), str(tmp_path / "m"),
                    input_spec=[InputSpec([4, 3], "float32")])
    out = paddle.jit.load(str(tmp_path / "m"))(paddle.ones([4, 3]))
    np.testing.assert_allclose(out.numpy(), np.full([4, 3], 4.0))


def test_calls_with_breaks_still_run_after_a_refused_save(tmp_path):
    sf = paddle.jit.to_static(by_data)
    x = paddle.full([2, 3], 0.5)
    with pytest.raises(GraphBreakError):
        paddle.jit.save(sf, str(tmp_path / "m"), input_spec=[InputSpec([None, 3], "float32")])
    np.testing.assert_allclose(sf(x).numpy(), by_data(x).numpy(), rtol=1e-6)
