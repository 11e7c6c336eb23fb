"""Creation and random functions: Paddle's dtype defaults, shape arguments
(lists with tensors, shape tensors), assign/clone, and the seeded generator."""
import numpy as np
import pytest

import sampan as paddle
from sampan.ops import OpError


def test_full_family_defaults():
    assert paddle.zeros([2, 3]).dtype == paddle.float32
    assert paddle.ones([2], dtype="int32").numpy().tolist() == [1, 1]
    f = paddle.full([2, 2], 3.5)
    assert f.dtype == paddle.float32 and f.numpy().tolist() == [[3.5, 3.5]] * 2
    big = paddle.full([1], 2 ** 53 + 1, dtype="int64")
    assert int(big) == 2 ** 53 + 1                      # exact via str_value
    assert paddle.full([2], True, dtype="bool").numpy().tolist() == [True, True]
    assert paddle.empty([2, 1]).shape == [2, 1]


def test_shape_arguments():
    n = paddle.to_tensor(3)
    assert paddle.zeros([2, n]).shape == [2, 3]
    assert paddle.ones(paddle.to_tensor([4, 1])).shape == [4, 1]
    assert paddle.full((2,), 1.0, dtype="float64").dtype == paddle.float64
    assert paddle.full([2], paddle.to_tensor(2.5)).numpy().tolist() == [2.5, 2.5]


def test_like_functions():
    x = paddle.to_tensor([[1, 2], [3, 4]])
    assert paddle.zeros_like(x).dtype == paddle.int64
    assert paddle.ones_like(x, dtype="float32").dtype == paddle.float32
    assert paddle.full_like(x, 7).numpy().tolist() == [[7, 7], [7, 7]]
    assert paddle.empty_like(x).shape == [2, 2]


def test_arange_dtypes_and_values():
    a = paddle.arange(5)
    assert a.dtype == paddle.int64 and a.numpy().tolist() == [0, 1, 2, 3, 4]
    b = paddle.arange(1, 2, 0.25)
    assert b.dtype == paddle.float32
    np.testing.assert_allclose(b.numpy(), [1, 1.25, 1.5, 1.75])
    c = paddle.arange(10, 0, -3, dtype="float64")
    assert c.dtype == paddle.float64 and c.numpy().tolist() == [10, 7, 4, 1]
    d = paddle.arange(paddle.to_tensor(2), paddle.to_tensor(5))
    assert d.numpy().tolist() == [2, 3, 4]
    with pytest.raises(OpError, match="step must not be 0"):
        paddle.arange(0, 3, 0)


def test_linspace_eye():
    np.testing.assert_allclose(paddle.linspace(0, 1, 5).numpy(), np.linspace(0, 1, 5),
                               rtol=1e-6)
    assert paddle.linspace(0, 10, 3, dtype="int64").numpy().tolist() == [0, 5, 10]
    np.testing.assert_array_equal(paddle.eye(2, 3).numpy(), np.eye(2, 3))
    assert paddle.eye(3, dtype="int32").dtype == paddle.int32


def test_assign_and_clone():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    c = x.clone()
    (c * 3).sum().backward()
    assert x.grad.numpy().tolist() == [3.0, 3.0]
    a = paddle.assign(np.array([[1, 2]], "int32"))
    assert a.dtype == paddle.int32 and a.shape == [1, 2]
    b = paddle.assign([1.5, 2.5])
    assert b.dtype == paddle.float32
    out = paddle.zeros([2])
    r = paddle.assign(paddle.to_tensor([5.0, 6.0]), output=out)
    assert r is out and out.numpy().tolist() == [5.0, 6.0]


def test_one_hot():
    import sampan.nn.functional as F
    y = F.one_hot(paddle.to_tensor([0, 2]), 3)
    assert y.dtype == paddle.float32 and y.numpy().tolist() == [[1, 0, 0], [0, 0, 1]]
    with pytest.raises(OpError, match="label value 3 is out of range"):
        F.one_hot(paddle.to_tensor([3]), 3)


def test_seed_makes_random_ops_deterministic():
    def draw():
        return [paddle.rand([3]).numpy(), paddle.randn([2, 2]).numpy(),
                paddle.uniform([4], min=-2, max=2).numpy(), paddle.randint(0, 9, [5]).numpy(),
                paddle.randperm(6).numpy(), paddle.normal(1.0, 2.0, [3]).numpy(),
                paddle.standard_normal([2]).numpy()]
    paddle.seed(123)
    a = draw()
    paddle.seed(123)
    b = draw()
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(draw()[0], a[0])


def test_random_properties():
    paddle.seed(5)
    u = paddle.uniform([1000], dtype="float64", min=2.0, max=4.0)
    assert u.dtype == paddle.float64 and 2.0 <= u.numpy().min() and u.numpy().max() < 4.0
    r = paddle.randint(5, shape=[200])
    assert r.dtype == paddle.int64 and set(r.numpy().tolist()) <= set(range(5))
    assert sorted(paddle.randperm(7).numpy().tolist()) == list(range(7))
    n = paddle.normal(paddle.to_tensor([0.0, 100.0]), 0.001)
    assert abs(float(n[1]) - 100) < 0.1
    assert paddle.rand([2, 3]).dtype == paddle.float32
    same = [paddle.uniform([3], seed=9).numpy() for _ in range(2)]
    np.testing.assert_array_equal(same[0], same[1])        # an op seed fixes its stream
    st = paddle.get_rng_state()
    first = paddle.rand([2]).numpy()
    paddle.set_rng_state(st)
    np.testing.assert_array_equal(paddle.rand([2]).numpy(), first)
    with pytest.raises(OpError, match="low"):
        paddle.randint(3, 3)


def test_uniform_inplace_method():
    w = paddle.zeros([50])
    w.uniform_(0.0, 1.0)
    assert w.numpy().min() >= 0 and w.numpy().max() < 1 and w.numpy().std() > 0


def test_to_tensor_casts_python_floats_from_their_full_value():
    """Eagerly, Python floats cast to an asked-for float64 keep their double value (Paddle's
    eager to_tensor casts from the float64 array); without a dtype they are float32."""
    t = paddle.to_tensor([[0.3, 1.1]], dtype="float64")
    assert t.dtype == paddle.float64 and t.numpy()[0, 0] == 0.3 and t.numpy()[0, 1] == 1.1
    assert paddle.to_tensor(0.1, dtype="float64").item() == 0.1
    assert paddle.to_tensor([0.3]).dtype == paddle.float32
    assert paddle.to_tensor(1 + 0.1j, dtype="complex128").numpy() == 1 + 0.1j
