"""The eager Tensor's own surface (dtype, shape, place, name, conversions to
Python and numpy, repr) and Python-scalar operator rules as Paddle 2.6 has them."""
import numpy as np
import pytest

import sampan as paddle
from sampan.dygraph.tensor import wrap


# ------------------------------------------------------------------ dtype / shape
@pytest.mark.parametrize("data, dtype", [
    ([1.0, 2.0], "float32"),          # Python floats: the default float dtype
    ([1, 2], "int64"),                # Python ints: int64
    ([True, False], "bool"),
    (np.array([1.0], np.float64), "float64"),   # numpy arrays keep their dtype
    (np.array([1], np.int32), "int32"),
    (np.array([1.0], np.float16), "float16"),
    (3.5, "float32"),
    (7, "int64"),
])
def test_to_tensor_dtype(data, dtype):
    t = paddle.to_tensor(data)
    assert t.dtype == getattr(paddle, dtype)
    assert str(t.dtype) == f"paddle.{dtype}"
    assert t.numpy().dtype == np.dtype(dtype)


def test_to_tensor_explicit_dtype_and_copy():
    a = np.array([1.0, 2.0])
    t = paddle.to_tensor(a, dtype="float32")
    assert t.dtype == paddle.float32
    t2 = paddle.to_tensor(a)
    a[0] = 100.0
    assert t2.numpy()[0] == 1.0       # to_tensor copies


def test_shape_ndim_size():
    t = paddle.to_tensor(np.zeros((2, 3, 4), np.float32))
    assert t.shape == [2, 3, 4] and isinstance(t.shape, list)
    assert t.ndim == 3 and t.dim() == 3
    assert t.size == 24 and t.numel() == 24
    s = paddle.to_tensor(1.5)
    assert s.shape == [] and s.ndim == 0


def test_place_is_cpu():
    t = paddle.to_tensor([1.0])
    assert t.place.is_cpu_place()
    assert repr(t.place) == "Place(cpu)"
    assert isinstance(paddle.CPUPlace(), type(t.place)) or t.place == paddle.CPUPlace()


def test_name_is_unique_and_settable():
    a, b = paddle.to_tensor([1.0]), paddle.to_tensor([1.0])
    assert isinstance(a.name, str) and a.name and a.name != b.name
    a.name = "my_tensor"
    assert a.name == "my_tensor"


# ------------------------------------------------------------------ conversions
def test_numpy_item_tolist_array():
    t = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    n = t.numpy()
    assert isinstance(n, np.ndarray) and n.dtype == np.float32
    np.testing.assert_array_equal(n, [[1, 2], [3, 4]])
    assert t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    np.testing.assert_array_equal(np.asarray(t), n)
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert t.item(1, 0) == 3.0
    one = paddle.to_tensor([2.5])
    assert one.item() == 2.5 and isinstance(one.item(), float)
    assert isinstance(paddle.to_tensor(3).item(), int)


def test_len_bool_float_int():
    t = paddle.to_tensor([1.0, 2.0, 3.0])
    assert len(t) == 3
    with pytest.raises(TypeError):
        len(paddle.to_tensor(1.0))
    assert bool(paddle.to_tensor([1.0])) is True
    assert bool(paddle.to_tensor(0.0)) is False
    with pytest.raises(ValueError):
        bool(t)
    assert float(paddle.to_tensor([2.5])) == 2.5
    assert int(paddle.to_tensor([7])) == 7
    assert int(paddle.to_tensor(7.9)) == 7


def test_repr_follows_paddle():
    t = paddle.to_tensor([1.0, 2.0])
    r = repr(t)
    assert r.startswith("Tensor(shape=[2], dtype=float32, place=Place(cpu), "
                        "stop_gradient=True,")
    assert "[1., 2.]" in r
    assert "stop_gradient=False" in repr(paddle.to_tensor([1.0], stop_gradient=False))
    assert str(t) == r


# ------------------------------------------------------------------ scalar operator rules
def _t(values, dtype):
    return paddle.to_tensor(np.array(values, dtype=dtype))


SCALAR_RULES = [   # (expression in x, x's dtype, result dtype, result for x = [1, 2])
    ("x + 1", "float32", "float32", [2.0, 3.0]),
    ("x * 2.5", "float32", "float32", [2.5, 5.0]),      # float32 stays float32
    ("x * 2.5", "float64", "float64", [2.5, 5.0]),
    ("x + 1", "int64", "int64", [2, 3]),
    ("x * 3", "int32", "int32", [3, 6]),
    ("x * 1.5", "int64", "float32", [1.5, 3.0]),        # int tensor, float scalar -> float32
    ("x + 0.5", "int64", "float32", [1.5, 2.5]),
    ("x - 0.5", "int32", "float32", [0.5, 1.5]),
    ("x / 2", "int64", "float32", [0.5, 1.0]),          # true division -> float32
    ("x / 2", "float32", "float32", [0.5, 1.0]),
    ("1 - x", "float32", "float32", [0.0, -1.0]),
    ("2 * x", "int64", "int64", [2, 4]),
    ("2.0 / x", "float32", "float32", [2.0, 1.0]),
    ("x ** 2", "float32", "float32", [1.0, 4.0]),
    ("2 ** x", "float32", "float32", [2.0, 4.0]),
    ("x // 2", "int64", "int64", [0, 1]),
    ("x % 2", "int64", "int64", [1, 0]),
    ("-x", "float32", "float32", [-1.0, -2.0]),
]


@pytest.mark.parametrize("expr, dtype, result_dtype, expected", SCALAR_RULES,
                         ids=[f"{e} ({d})" for e, d, _, _ in SCALAR_RULES])
def test_python_scalar_operators(expr, dtype, result_dtype, expected):
    r = eval(expr, {"x": _t([1, 2], dtype)})
    assert r.dtype == getattr(paddle, result_dtype)
    np.testing.assert_allclose(r.numpy(), expected, rtol=1e-6)


def test_int_tensor_true_division_by_int_tensor_is_float():
    r = _t([1, 3], "int64") / _t([2, 2], "int64")
    assert r.dtype == paddle.float32
    np.testing.assert_allclose(r.numpy(), [0.5, 1.5])


def test_comparison_with_scalar_gives_bool():
    r = _t([1.0, 2.0, 3.0], "float32") > 1.5
    assert r.dtype == paddle.bool
    assert r.tolist() == [False, True, True]


def test_tensor_tensor_operators_and_broadcast():
    a = _t([[1.0, 2.0], [3.0, 4.0]], "float32")
    b = _t([10.0, 20.0], "float32")
    np.testing.assert_allclose((a + b).numpy(), [[11, 22], [13, 24]])
    np.testing.assert_allclose((a * b).numpy(), [[10, 40], [30, 80]])
    np.testing.assert_allclose((a @ a).numpy(), a.numpy() @ a.numpy())


def test_mismatched_dtypes_are_a_clear_error():
    # the functions do not cast integer operands (the operators do: Paddle's rules)
    with pytest.raises(Exception, match="dtype"):
        paddle.add(_t([1.0], "float32"), _t([1], "int64"))


def test_scalar_ops_keep_the_graph():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = 3.0 - x * 2.0 + 1
    assert not y.stop_gradient
    y.backward(paddle.to_tensor([1.0, 1.0]))
    np.testing.assert_allclose(x.grad.numpy(), [-2.0, -2.0])


def test_numpy_gives_a_copy_as_paddles_does():
    """Writing what numpy() or np.asarray returned leaves the tensor alone (Paddle
    2.6.2 copies); numpy 2's copy=False gets the tensor's own array."""
    t = paddle.to_tensor(np.ones(3, "float32"))
    a = t.numpy()
    a[0] = 5.0
    b = np.asarray(t)
    b[1] = 7.0
    np.testing.assert_array_equal(t.numpy(), [1.0, 1.0, 1.0])
    assert np.asarray(t, dtype="float64").dtype == np.float64
    if np.lib.NumpyVersion(np.__version__) >= "2.0.0":
        assert np.shares_memory(np.asarray(t, copy=False), t._data)


def test_get_tensor_set_copies_the_array_in():
    t = paddle.to_tensor(np.zeros(3, "float32"))
    a = np.ones(3, "float32")
    t.get_tensor().set(a)
    a[0] = 9.0
    np.testing.assert_array_equal(t.numpy(), [1.0, 1.0, 1.0])


def test_public_constructor_copies_and_internal_wrap_does_not():
    a = np.arange(4, dtype="float32")
    copied, shared, wrapped = paddle.Tensor(a), paddle.Tensor(a, zero_copy=True), wrap(a)
    a[0] = 9
    assert copied.numpy()[0] == 0 and shared.numpy()[0] == 9 and wrapped._data is a
    assert copied.stop_gradient and not copied.persistable and copied.place.is_cpu_place()


def test_legacy_constructor_is_uninitialized_and_refuses_to_compute():
    t = paddle.Tensor(paddle.float64, [2, 3], "w0", None, True)
    assert (t.shape, t.dtype, t.name, t.persistable) == ([2, 3], paddle.float64, "w0", True)
    assert not t._is_initialized()
    with pytest.raises(RuntimeError, match="'w0' was created without a value"):
        t + 1
    kw = paddle.Tensor(dtype="int32", dims=[4], name="k")
    assert (kw.shape, kw.dtype, kw.persistable) == ([4], paddle.int32, False)


@pytest.mark.parametrize("value", [[1, 2], 3.0, np.float32(3), "abc", {"a": 1}])
def test_public_constructor_rejects_what_is_not_an_array(value):
    with pytest.raises(ValueError, match="must be a numpy array or a Tensor, got"):
        paddle.Tensor(value)
