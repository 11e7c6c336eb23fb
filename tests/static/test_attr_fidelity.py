"""The attributes sampan's public functions write in a static Program are the
ones Paddle 2.6.2's write (so a saved file runs the same in real Paddle), and
the numbers they carry are exact: float64 and int64 constants travel in
``fill_constant``'s ``str_value`` (its ``value`` attribute is a float32)."""
import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F
from sampan import static


def _ops(build, *specs):
    """[(type, {attr: value})] of the ops ``build(*vars)`` appends."""
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, startup):
            args = [static.data(f"a{i}", shape, dt) for i, (shape, dt) in enumerate(specs)]
            build(*args)
        return [(op.type, {n: op.attr(n) for n in op.attr_names})
                for op in main.global_block().ops]
    finally:
        paddle.disable_static()


def _run(build, *arrays):
    """The result of ``build(*vars)`` run by the Executor on ``arrays``."""
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, startup):
            args = [static.data(f"a{i}", list(a.shape), a.dtype.name) for i, a in enumerate(arrays)]
            out = build(*args)
        exe = static.Executor()
        exe.run(startup)
        return exe.run(main, feed={f"a{i}": a for i, a in enumerate(arrays)}, fetch_list=[out])[0]
    finally:
        paddle.disable_static()


def _only(ops, typ):
    found = [a for t, a in ops if t == typ]
    assert len(found) == 1, [t for t, _ in ops]
    return found[0]


# ------------------------------------------------------------ fill_constant
@pytest.mark.parametrize("value, dtype, str_value, attr_value", [
    (1.5, "float32", "1.5", 1.5), (0.1, "float64", "0.1", np.float32(0.1)),
    (1.5, "int32", "1", 1.0), (-3, "bool", "-3.0", -3.0), (2 ** 40 + 1, "int64",
                                                            str(2 ** 40 + 1), float(2 ** 40)),
    (float("inf"), "float32", "inf", float("inf"))])
def test_full_writes_str_value_as_paddle(value, dtype, str_value, attr_value):
    a = _only(_ops(lambda: paddle.full([2], value, dtype)), "fill_constant")
    assert a["str_value"] == str_value
    assert a["value"] == pytest.approx(attr_value, rel=1e-6)


def test_float64_constants_are_exact_in_a_static_program():
    x = np.zeros(2)
    got = _run(lambda v: v + paddle.full([2], 0.1, "float64"), x)
    np.testing.assert_array_equal(got, [0.1, 0.1])
    # the operator path (Paddle writes no str_value) adds one only where float32 rounds
    got = _run(lambda v: v > 0.1, x + 0.1 + 1e-12)     # float32(0.1) would be above v
    np.testing.assert_array_equal(got, [True, True])
    ops = _ops(lambda v: (v > 0.1, v > 0.5), ([2], "float64"))
    assert [a["str_value"] for t, a in ops if t == "fill_constant"] == ["0.1", ""]


def test_operator_constants_write_no_str_value():
    ops = _ops(lambda v: v > 0, ([2], "int64"))
    assert _only(ops, "fill_constant")["str_value"] == ""


def test_creation_shape_list_numbers_are_0d():
    ops = _ops(lambda n: paddle.full([n, 3], 1.0), ([], "int32"))
    fills = [a for t, a in ops if t == "fill_constant"]
    assert (fills[0]["shape"], fills[0]["str_value"]) == ([], "3")
    # a manipulation function's numbers are [1] (Paddle's _convert_to_tensor_list)
    ops = _ops(lambda x, n: paddle.reshape(x, [n, 3]), ([6], "float32"), ([], "int32"))
    assert [a["shape"] for t, a in ops if t == "fill_constant"] == [[1]]


def test_full_int_dtype_truncates_and_nan_keeps_eager_cast():
    np.testing.assert_array_equal(paddle.full([2], 2.7, "int64").numpy(), [2, 2])
    assert paddle.full([1], float("nan"), "int32").numpy()[0] == np.iinfo(np.int32).min


# ------------------------------------------------------------ other attributes
def test_linspace_integer_dtype_truncates_numbers_first():
    # Paddle: fill_constant of the int dtype for start/stop, so -0.5 -> 0
    np.testing.assert_array_equal(paddle.linspace(-0.5, 9, 4, "int32").numpy(), [0, 3, 6, 9])
    ops = _ops(lambda: paddle.linspace(0, 10, 5, "int64"))
    assert [a["dtype"] for t, a in ops if t == "fill_constant"][:2] == [3, 3]


def test_full_like_writes_the_dtype():
    a = _only(_ops(lambda x: paddle.zeros_like(x), ([2], "int32")), "fill_any_like")
    assert a["dtype"] == 2


def test_sum_writes_reduce_all_false():
    a = _only(_ops(lambda x: paddle.sum(x), ([2, 3], "float32")), "reduce_sum")
    assert a["reduce_all"] is False and list(a["dim"]) == []
    np.testing.assert_allclose(_run(lambda x: paddle.sum(x, [0, 1]), np.ones((2, 3))), 6.0)


def test_normalized_axes():
    assert _only(_ops(lambda x: paddle.flatten(x), ([2, 3, 4], "float32")),
                 "flatten_contiguous_range")["stop_axis"] == 2
    assert _only(_ops(lambda x: paddle.slice(x, [-1], [0], [2]), ([2, 3], "float32")),
                 "slice")["axes"] == [1]
    ops = _ops(lambda x, i: paddle.take_along_axis(x, i, -1), ([2, 3], "float32"),
               ([2, 1], "int64"))
    assert _only(ops, "take_along_axis")["Axis"] == 1
    # diagflat appends Paddle's own flatten: stop_axis as written
    assert _only(_ops(lambda x: paddle.diagflat(x), ([2, 2], "float32")),
                 "flatten_contiguous_range")["stop_axis"] == -1


def test_eye_writes_num_columns():
    assert _only(_ops(lambda: paddle.eye(3)), "eye")["num_columns"] == 3


def test_tensor_entries_of_int_lists():
    n = ([], "int32")
    assert _only(_ops(lambda x, k: paddle.expand(x, [k, 3]), ([1, 3], "float32"), n),
                 "expand_v2")["shape"] == [-2, 3]
    assert _only(_ops(lambda x, k: paddle.broadcast_to(x, [k, 3]), ([1, 3], "float32"), n),
                 "expand_v2")["shape"] == [-1, 3]
    assert _only(_ops(lambda x, r: paddle.tile(x, r), ([2], "float32"), ([1], "int32")),
                 "tile")["repeat_times"] == [-1]
    a = _only(_ops(lambda x, s: paddle.slice(x, [0, 1], [s, 0], [2, 2]), ([3, 3], "float32"),
                   ([1], "int32")), "slice")
    assert a["infer_flags"] == [-1, 1] and a["starts"] == [-1, 0]
    a = _only(_ops(lambda x, s, e: paddle.slice(x, [0], s, e), ([3, 3], "float32"),
                   ([1], "int32"), ([1], "int32")), "slice")
    assert a["infer_flags"] == [-1] and a["starts"] == [] and a["ends"] == []
    a = _only(_ops(lambda x, p: paddle.strided_slice(x, [0], [0], [3], [p]), ([3], "float32"),
                   n), "strided_slice")
    assert a["infer_flags"] == [-1] and a["strides"] == [-1]


def test_negative_step_stop_kept_where_paddle_reads_it_alike():
    a = _only(_ops(lambda x: x[-1:-3:-1], ([3, 4], "float32")), "strided_slice")
    assert a["ends"] == [-3]
    x = np.arange(5.0)
    for s in (slice(-1, -3, -1), slice(3, -1, -1), slice(-1, -7, -1), slice(3, -5, -1)):
        np.testing.assert_array_equal(paddle.to_tensor(x)[s].numpy(), x[s])
        np.testing.assert_array_equal(_run(lambda v: v[s], x), x[s])


def test_cond_and_pinv_reductions_write_reduce_all_false():
    ops = _ops(lambda x: paddle.linalg.cond(x), ([3, 3], "float64"))
    assert [a["reduce_all"] for t, a in ops if t in ("reduce_max", "reduce_min")] == [False] * 2
    a = _only(_ops(lambda x: paddle.linalg.norm(x, p=3, axis=[0, 1]), ([2, 3], "float32")),
              "reduce_sum")
    assert a["reduce_all"] is True


def test_margin_ranking_loss_sum_attributes():
    a = _only(_ops(lambda x, y, z: F.margin_ranking_loss(x, y, z, reduction="sum"),
                   *[([3], "float32")] * 3), "reduce_sum")
    assert list(a["dim"]) == [0] and a["reduce_all"] is True


def test_nlc_pad_goes_through_depth_as_paddle():
    ops = _ops(lambda x: paddle.signal.stft(x, 8, hop_length=2), ([16], "float32"))
    assert _only(ops, "pad3d")["paddings"] == [0, 0, 0, 0, 4, 4]
    x = np.random.default_rng(0).standard_normal(16).astype("float32")
    np.testing.assert_allclose(_run(lambda v: paddle.signal.stft(v, 8, hop_length=2), x),
                               paddle.signal.stft(paddle.to_tensor(x), 8, hop_length=2).numpy(),
                               rtol=1e-5, atol=1e-5)
