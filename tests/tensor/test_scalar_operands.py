"""A tensor and a Python number under ``+ - * /``: the operators' direct lane
to the scale op (tensor/operators.py) and the scale kernel's table of typed
constants (kernels/cpu/math.py) give what Paddle's rules give, call after call
(the table is keyed so that 0.0 and -0.0 stay apart)."""
import numpy as np
import pytest

import sampan as paddle


def _bits(t):
    a = t.numpy()
    return a.dtype, a.tobytes()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_signed_zero_survives_the_constant_table(dtype):
    x = paddle.to_tensor(np.array([-0.0, 0.0, 1.5, -2.0], dtype))
    for _ in range(3):                       # first call fills the table, later ones read it
        np.testing.assert_array_equal(np.signbit((x - 0.0).numpy()), [True, False, False, True])
        np.testing.assert_array_equal(np.signbit((x + 0.0).numpy()), [False, False, False, True])
        np.testing.assert_array_equal(np.signbit((x + -0.0).numpy()), [True, False, False, True])
    # scale is x * s + bias with the bias added: -0.0 * 2 + 0.0 is +0.0, as Paddle's kernel
    np.testing.assert_array_equal(np.signbit((x * 2.0).numpy()), [False, False, False, True])


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "int64", "uint8"])
def test_number_operands_follow_the_rules(dtype):
    a = np.array([3, 0, 1, 7], dtype)
    x = paddle.to_tensor(a)
    f = a.dtype.kind == "f"
    t = a.dtype.type
    cases = {
        "x + 2": (x + 2, (a * t(1) + t(2)) if f else (a * 1.0 + 2.0).astype(a.dtype)),
        "x * 3": (x * 3, (a * t(3) + t(0)) if f else (a * 3.0 + 0.0).astype(a.dtype)),
        "5 - x": (5 - x, (a * t(-1) + t(5)) if f else (a * -1.0 + 5.0).astype(a.dtype)),
        # an integer tensor and a float: cast to float32 first (rule 1)
        "x * 0.5": (x * 0.5, (a * t(0.5) + t(0)) if f else
                    a.astype("float32") * np.float32(0.5) + np.float32(0)),
        "x / 2": (x / 2, (a * t(0.5) + t(0)) if f else a.astype("float32") * np.float32(0.5)
                  + np.float32(0)),
    }
    for name, (got, want) in cases.items():
        want = np.asarray(want)
        assert got.numpy().dtype == want.dtype, name
        np.testing.assert_array_equal(got.numpy(), want, err_msg=name)
        assert _bits(got) == _bits(paddle.to_tensor(want)), name


def test_bool_tensor_and_division_by_zero_keep_their_paths():
    b = paddle.to_tensor(np.array([True, False]))
    with pytest.raises(Exception):
        b + True                          # Paddle has no bool add kernel
    x = paddle.to_tensor(np.array([1.0, -1.0, 0.0], "float32"))
    got = (x / 0.0).numpy()               # not a scale: inf, -inf, nan
    assert np.isposinf(got[0]) and np.isneginf(got[1]) and np.isnan(got[2])
    assert (x * 2.0).stop_gradient and not (paddle.to_tensor(
        np.ones(2, "float32"), stop_gradient=False) * 2.0).stop_gradient
