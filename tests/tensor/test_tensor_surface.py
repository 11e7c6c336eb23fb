"""The Tensor surface and process-level names beyond what the conformance cases
compare with Paddle: in-place forms across modes and autograd, seeded draws,
FLAGS_check_nan_inf in every engine, LazyGuard, printing options, dtype limits,
and the unsupported tensor kinds."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import sampan as paddle
from sampan.ops import flags as F

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def nan_check():
    """FLAGS_check_nan_inf on for the test, off (level 0) after it."""
    paddle.set_flags({"FLAGS_check_nan_inf": True})
    yield
    paddle.set_flags({"FLAGS_check_nan_inf": False, "FLAGS_check_nan_inf_level": 0})


# ------------------------------------------------------------------ in place
def test_inplace_forms_keep_identity_and_count_writes():
    x = paddle.to_tensor([1.0, 4.0])
    assert x.inplace_version == 0
    assert x.sqrt_() is x and x.exp_() is x and paddle.tanh_(x) is x
    assert x.inplace_version == 3
    np.testing.assert_allclose(x.numpy(), np.tanh(np.exp([1.0, 2.0])), rtol=1e-6)
    x[0] = 5.0                          # a write through indexing counts too
    assert x.inplace_version == 4


def test_inplace_forms_move_the_autograd_position():
    a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = a * 1.0
    y.pow_(3).scale_(2.0)
    y.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [6.0, 24.0])


@pytest.mark.parametrize("fill", ["zero_()", "fill_(3.0)", "normal_()", "exponential_(2.0)",
                                  "cauchy_()", "geometric_(0.5)"])
def test_fills_pass_a_zero_gradient(fill):
    a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = a * 2.0
    eval(f"y.{fill}")
    (y * 1.0).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [0.0, 0.0])


def test_inplace_refusals():
    leaf = paddle.to_tensor([1.0], stop_gradient=False)
    with pytest.raises(ValueError, match="inplace"):
        leaf.exp_()
    with paddle.no_grad():
        leaf.exp_()                     # allowed without grad recording
    with pytest.raises(ValueError, match="broadcast output"):
        paddle.ones([1, 3]).add_(paddle.ones([2, 3]))
    with pytest.raises(ValueError, match="keeps the tensor's data type"):
        paddle.to_tensor([1, 2]).exp_()
    with pytest.raises(TypeError, match="scalar"):
        paddle.ones([2]).pow_(paddle.ones([2]))
    with pytest.raises(TypeError, match="must be a Tensor"):
        paddle.ones([2]).add_(1.0)


def test_comparisons_in_place_turn_x_to_bool_and_cast_changes_dtype():
    x = paddle.to_tensor([1.0, 2.0])
    x.less_than_(paddle.to_tensor([2.0, 2.0]))
    assert x.dtype == paddle.bool and x.numpy().tolist() == [True, False]
    x.cast_("int32")
    assert x.dtype == paddle.int32


def test_inplace_in_a_program_appends_the_plain_op_with_paddle_warning():
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main):
            x = paddle.static.data("x", [2], "float32")
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                y = paddle.tanh_(x)
                z = x.add_(y)
            assert any("does not perform inplace operation" in str(w.message) for w in caught)
            assert [op.type for op in main.global_block().ops] == ["tanh", "elementwise_add"]
            with pytest.raises(AssertionError, match="dynamic graph mode"):
                x.normal_()
            with pytest.raises(AssertionError, match="dynamic graph mode"):
                paddle.tolist(x)
        exe = paddle.static.Executor()
        out, = exe.run(main, feed={"x": np.array([0.5, -1.0], "float32")}, fetch_list=[z])
        np.testing.assert_allclose(out, 2 * np.tanh([0.5, -1.0]), rtol=1e-6)
    finally:
        paddle.disable_static()


def test_inplace_under_to_static_matches_eager():
    def f(x):
        y = x * 2.0
        y.exp_()
        y.clip_(0.0, 3.0)
        return y

    x = paddle.to_tensor([-1.0, 0.2, 2.0])
    np.testing.assert_allclose(paddle.jit.to_static(f)(x).numpy(), f(x).numpy(), rtol=1e-6)


def test_copy_and_detach():
    a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = a * 3.0
    assert y.copy_(paddle.to_tensor([7.0, 8.0, 9.0]), True) is None
    assert y.shape == [3] and y.numpy().tolist() == [7.0, 8.0, 9.0]
    y2 = a * 3.0
    assert y2.detach_() is y2 and y2.stop_gradient and y2.grad_fn is None
    with pytest.raises(RuntimeError, match="different data type"):
        paddle.ones([2]).copy_(paddle.ones([2], "float64"), True)


# ------------------------------------------------------------------ draws
@pytest.mark.parametrize("draw", [
    lambda: paddle.bernoulli(paddle.full([50], 0.3)),
    lambda: paddle.poisson(paddle.full([50], 2.0)),
    lambda: paddle.multinomial(paddle.to_tensor([0.1, 0.2, 0.7]), 20, True),
    lambda: paddle.ones([20]).normal_(),
    lambda: paddle.ones([20]).exponential_(),
    lambda: paddle.ones([20]).cauchy_(),
])
def test_draws_follow_paddle_seed(draw):
    paddle.seed(123)
    a = draw().numpy()
    paddle.seed(123)
    np.testing.assert_array_equal(draw().numpy(), a)


def test_draw_distributions():
    paddle.seed(7)
    counts = np.bincount(paddle.multinomial(paddle.to_tensor([1.0, 0.0, 3.0]), 4000, True)
                         .numpy(), minlength=3)
    assert counts[1] == 0 and abs(counts[2] / 4000 - 0.75) < 0.03
    rows = paddle.multinomial(paddle.to_tensor([[1.0, 1.0, 1.0, 0.0]] * 50), 3).numpy()
    assert all(sorted(r) == [0, 1, 2] for r in rows.tolist())
    assert abs(float(paddle.poisson(paddle.full([4000], 3.0)).mean()) - 3.0) < 0.1
    assert abs(float(paddle.bernoulli(paddle.full([4000], 0.25)).mean()) - 0.25) < 0.03
    e = paddle.zeros([4000]).exponential_(4.0).numpy()
    assert e.min() >= 0 and abs(e.mean() - 0.25) < 0.02
    n = paddle.zeros([4000], "float64").normal_(2.0, 0.5).numpy()
    assert abs(n.mean() - 2.0) < 0.03 and abs(n.std() - 0.5) < 0.03
    c = paddle.zeros([4000]).cauchy_(1.0, 2.0).numpy()
    assert abs(np.median(c) - 1.0) < 0.2          # Cauchy: the median is loc


def test_bernoulli_and_multinomial_stop_gradients_poisson_passes_zero():
    p = paddle.to_tensor([0.2, 0.6], stop_gradient=False)
    assert paddle.bernoulli(p).stop_gradient
    assert paddle.multinomial(p, 1).stop_gradient
    paddle.poisson(p * 2.0).sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), [0.0, 0.0])


# ------------------------------------------------------------------ FLAGS_check_nan_inf
def test_check_nan_inf_eager_forward_and_backward(nan_check, capfd):
    with pytest.raises(RuntimeError, match="NAN or INF .* op=log"):
        paddle.log(paddle.to_tensor([-1.0, 1.0]))
    assert "[PRECISION] [ERROR]" in capfd.readouterr().err
    a = paddle.to_tensor([0.0], stop_gradient=False)
    y = paddle.sqrt(a)
    with pytest.raises(RuntimeError, match="op=sqrt_grad"):
        y.backward()
    paddle.to_tensor([1, 2]) // paddle.to_tensor([1, 1])      # integers are not checked


def test_check_nan_inf_level_1_reports_and_goes_on(nan_check, capfd):
    paddle.set_flags({"FLAGS_check_nan_inf_level": 1})
    out = paddle.log(paddle.to_tensor([-1.0]))
    assert np.isnan(out.numpy()[0])
    assert "op=log" in capfd.readouterr().err


def test_check_nan_inf_in_the_executor_names_the_variable():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [2], "float32")
            y = paddle.log(x) * 2.0
        exe = paddle.static.Executor()
        feed = {"x": np.array([1.0, -1.0], "float32")}
        exe.run(main, feed=feed, fetch_list=[y])         # planned and cached, flag off
        paddle.set_flags({"FLAGS_check_nan_inf": True})
        try:
            with pytest.raises(RuntimeError, match=r"op=log, tensor=log_\d+\.tmp_0"):
                exe.run(main, feed=feed, fetch_list=[y])
        finally:
            paddle.set_flags({"FLAGS_check_nan_inf": False})
        out, = exe.run(main, feed=feed, fetch_list=[y])
        assert np.isnan(out[1])
    finally:
        paddle.disable_static()


def test_check_nan_inf_under_to_static(nan_check):
    f = paddle.jit.to_static(lambda x: paddle.log(x) + 1.0)
    with pytest.raises(RuntimeError, match="NAN or INF"):
        f(paddle.to_tensor([-2.0, 1.0]))


def test_flags_come_from_the_environment():
    code = ("import sampan as paddle\n"
            "assert paddle.get_flags('FLAGS_check_nan_inf')['FLAGS_check_nan_inf']\n"
            "try:\n    paddle.log(paddle.to_tensor([-1.0]))\nexcept RuntimeError:\n"
            "    print('raised')\n")
    env = dict(os.environ, FLAGS_check_nan_inf="1",
               PYTHONPATH=os.path.dirname(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         cwd=os.path.dirname(ROOT))
    assert "raised" in out.stdout, out.stderr


def test_flags_table():
    assert F.FLAGS["FLAGS_check_nan_inf"] is False
    assert set(F.HONOURED) <= set(F.FLAGS)
    paddle.set_flags({"FLAGS_paddle_num_threads": 4})
    try:
        assert paddle.get_flags(("FLAGS_paddle_num_threads",)) == {"FLAGS_paddle_num_threads": 4}
    finally:
        paddle.set_flags({"FLAGS_paddle_num_threads": 1})
    with pytest.raises(ValueError, match="cannot set"):
        paddle.set_flags({"FLAGS_cudnn_deterministic": True})      # a GPU build's flag


# ------------------------------------------------------------------ LazyGuard
def test_lazy_guard_defers_initialization():
    with paddle.LazyGuard():
        fc = paddle.nn.Linear(4, 3)
    w = fc.weight
    assert not w._is_initialized() and w.shape == [4, 3] and w.dtype == paddle.float32
    assert str(w) == "Parameter containing:\nTensor(Not initialized)"
    with pytest.raises(RuntimeError, match="LazyGuard.*initialize"):
        fc(paddle.ones([2, 4]))
    for p in fc.parameters():
        p.initialize()
    assert w._is_initialized() and float(w.numpy().std()) > 0
    assert fc(paddle.ones([2, 4])).shape == [2, 3]
    with pytest.raises(AssertionError):
        w.initialize()
    fc2 = paddle.nn.Linear(2, 2)                  # outside the guard: initialized at once
    assert fc2.weight._is_initialized()


def test_lazy_guard_needs_dygraph_mode():
    paddle.enable_static()
    try:
        with pytest.raises(AssertionError, match="dygraph"):
            with paddle.LazyGuard():
                pass
    finally:
        paddle.disable_static()


# ------------------------------------------------------------------ printing and limits
def test_printoptions_apply_and_restore():
    x = paddle.to_tensor([1.23456789, 2.0])
    paddle.set_printoptions(precision=2, sci_mode=True)
    try:
        assert str(x).endswith("[1.23e+00, 2.00e+00])")
    finally:
        paddle.set_printoptions(precision=8, sci_mode=False)
    assert str(x).endswith("[1.23456788, 2.        ])")
    p = paddle.create_parameter([2], "float32")
    assert repr(p).startswith("Parameter containing:\nTensor(shape=[2], dtype=float32")


def test_finfo_iinfo_bfloat16():
    f = paddle.finfo(paddle.bfloat16)
    assert (f.bits, f.eps, f.dtype) == (16, 0.0078125, "bfloat16")
    assert repr(paddle.iinfo(paddle.uint8)) == "paddle.iinfo(min=0, max=255, bits=8, dtype=uint8)"
    with pytest.raises(TypeError, match="bfloat16 tensors are not supported by sampan"):
        paddle.to_tensor([1.0], dtype="bfloat16")
    with pytest.raises(TypeError, match="bfloat16"):
        paddle.ones([2]).astype(paddle.bfloat16)


# ------------------------------------------------------------------ the Tensor's attributes
def test_memory_facts_of_views():
    x = paddle.arange(12, dtype="float32").reshape([3, 4])
    assert x.strides == [4, 1] and x.offset == 0 and x.is_contiguous()
    t = x.T
    if not t.is_contiguous():                     # a view: contiguous() copies it
        c = t.contiguous()
        assert c.is_contiguous() and c.numpy().tolist() == t.numpy().tolist()
    assert x.data_ptr() == x.get_tensor().__array__().__array_interface__["data"][0]


def test_to_converts_in_place_and_get_tensor_sets_values():
    x = paddle.to_tensor([1.5, 2.5])
    assert x.to("float64") is x and x.dtype == paddle.float64
    t = x.get_tensor()
    t.set(np.array([3.0, 4.0, 5.0]), paddle.CPUPlace())
    assert x.numpy().tolist() == [3.0, 4.0, 5.0] and t.shape() == [3]
    assert x.type == 7 and x.layout == "NCHW" and x.is_dense()


def test_unsupported_tensor_kinds_say_so():
    x = paddle.ones([2, 2])
    assert not x.is_sparse() and not x.is_dist() and x.dist_attr is None
    for call in (lambda: x.to_sparse_coo(1), lambda: x.to_sparse_csr(), lambda: x.values()):
        with pytest.raises(NotImplementedError, match="sparse tensors are not supported"):
            call()
    for call in (lambda: x.indices(), lambda: x.rows(), lambda: x.set_string_list(["a"]),
                 lambda: x.set_vocab({"a": 1})):
        with pytest.raises(NotImplementedError, match="not supported by sampan"):
            call()


def test_small_utilities():
    assert paddle.disable_signal_handler() is None
    assert paddle.check_shape([2.5], "op") is None          # eagerly nothing is checked
    paddle.enable_static()
    try:
        with pytest.raises(TypeError, match="element of shape"):
            paddle.check_shape([2.5], "op")
        paddle.check_shape([2, paddle.static.data("n", [1], "int64")], "op")
        with pytest.raises(TypeError, match="data type"):
            paddle.check_shape(paddle.static.data("f", [2], "float32"), "op")
    finally:
        paddle.disable_static()
    reader = paddle.batch(lambda: iter(range(5)), 2)
    assert list(reader()) == [[0, 1], [2, 3], [4]]
