"""Slices whose bounds come from a dynamic dim (``x[: x.shape[0] // 2]``,
``len(x) - 1``) inside to_static: the bound is a static integer Variable and
the slice op reads it at run time (tensor/indexing.py ``_bound``), as Paddle's
slice with tensor bounds, instead of asking for its value while the program
is built (a graph break, an error under full_graph=True)."""
import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec

CASES = {
    "half": lambda x: x[: x.shape[0] // 2],
    "len": lambda x: x[: len(x) - 1],
    "start": lambda x: x[x.shape[0] - 3:],
    "both_axes": lambda x: x[1: x.shape[0] - 1, : x.shape[1] // 2],
    "negative_step": lambda x: x[x.shape[0] - 2::-1],
    "step_two": lambda x: x[: x.shape[0]:2],
    "one_value_tensor": lambda x: x[: paddle.to_tensor([2])],
    "in_a_branch": lambda x: x[: x.shape[0] - 1] if x.shape[0] > 2 else x,
}


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("rows", [4, 7])
def test_dynamic_bounds_match_eager(name, rows):
    fn = CASES[name]
    x = paddle.to_tensor(np.arange(rows * 5, dtype="float32").reshape(rows, 5))
    static = paddle.jit.to_static(fn, input_spec=[InputSpec([None, None], "float32")],
                                  full_graph=True)
    got, want = static(x).numpy(), fn(x).numpy()
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_a_float_or_many_valued_bound_is_refused():
    x = paddle.to_tensor(np.ones((4, 5), "float32"))
    with pytest.raises(ValueError, match="slice bound .* float"):      # eager, as Paddle
        x[:2.0]

    def float_bound(x):
        return x[: x.shape[0] / 2]

    def two_values(x):
        return x[: paddle.shape(x)]
    for fn, what in ((float_bound, "dtype float"), (two_values, r"shape \[2\]")):
        with pytest.raises(ValueError, match=f"slice bound .*{what}"):
            paddle.jit.to_static(fn, input_spec=[InputSpec([None, 5], "float32")],
                                 full_graph=True)(x)
