"""Op-spec cases: assign, constants, sequences, eye, one_hot_v2, shape, and the
random ops (``random_op=True``: the reference checks properties)."""
import numpy as np

from .spec import Case, rand

A = rand(2, 3, seed=61)
I64 = lambda *v: np.array(v, "int64")  # noqa: E731


def _is(shape, dtype, lo=None, hi=None, mean=None, tol=0.1):
    """A property check: shape, dtype, range and (roughly) mean."""
    def check(a):
        ok = a.shape == tuple(shape) and a.dtype == np.dtype(dtype)
        if lo is not None:
            ok = ok and a.min() >= lo
        if hi is not None:
            ok = ok and a.max() < hi
        if mean is not None:
            ok = ok and abs(float(a.mean()) - mean) < tol
        return bool(ok)
    return check


def _perm(n):
    return lambda a: a.dtype == np.int64 and sorted(a.tolist()) == list(range(n))


def _truncated(a):
    return a.shape == (50, 40) and np.abs(a - 1.0).max() <= 2 * 0.5 + 1e-6 \
        and abs(a.mean() - 1.0) < 0.05


CASES = [
    Case("assign", {"X": A}, ref=lambda X: X),
    Case("share_data", {"X": A}, ref=lambda X: X),      # Variable.detach: no gradient
    Case("assign_value", {}, {"shape": [2, 2], "dtype": 5, "fp32_values": [1, 2, 3, 4]},
         ref=lambda: np.array([[1, 2], [3, 4]], "float32")),
    Case("assign_value", {}, {"shape": [3], "dtype": 0, "bool_values": [1, 0, 1]},
         ref=lambda: np.array([True, False, True]), id="assign_value_bool"),
    Case("assign_value", {}, {"shape": [2], "dtype": 3, "int64_values": [2 ** 40, -3]},
         ref=lambda: np.array([2 ** 40, -3], "int64"), id="assign_value_int64"),
    Case("fill_constant", {}, {"shape": [2, 3], "dtype": 5, "value": 1.5},
         ref=lambda: np.full((2, 3), 1.5, "float32")),
    Case("fill_constant", {}, {"shape": [2], "dtype": 3, "str_value": "9007199254740993"},
         ref=lambda: np.array([9007199254740993] * 2, "int64"), id="fill_constant_str"),
    Case("fill_constant", {"ShapeTensor": I64(3, 1), "ValueTensor": np.array([2.0], "float32")},
         {"dtype": 6}, ref=lambda: np.full((3, 1), 2.0), id="fill_constant_tensors"),
    Case("fill_constant", {"ShapeTensorList": [I64(2), I64(2)]},
         {"dtype": 0, "value": 1.0}, ref=lambda: np.ones((2, 2), bool),
         id="fill_constant_shape_list"),
    Case("fill_any_like", {"X": A}, {"value": 3.0}, ref=lambda X: np.full_like(X, 3.0)),
    Case("fill_any_like", {"X": A}, {"value": 1.0, "dtype": 3},
         ref=lambda X: np.ones((2, 3), "int64"), id="fill_any_like_dtype"),
    Case("empty", {}, {"shape": [2, 3], "dtype": 3}, ref=lambda: np.zeros((2, 3), "int64")),
    Case("fill_constant_batch_size_like", {"Input": A},
         {"shape": [-1, 4], "value": 2.0, "dtype": 5},
         ref=lambda Input: np.full((2, 4), 2.0, "float32")),
    Case("fill_constant_batch_size_like", {"Input": A},
         {"shape": [5, -1], "value": 7.0, "str_value": "7", "dtype": 3, "input_dim_idx": 1,
          "output_dim_idx": 1},
         ref=lambda Input: np.full((5, 3), 7, "int64"), id="fill_constant_batch_size_like_dims"),
    Case("range", {"Start": I64(1), "End": I64(10), "Step": I64(3)},
         ref=lambda Start, End, Step: np.array([1, 4, 7], "int64")),
    Case("range", {"Start": np.array([0.5], "float32"), "End": np.array([2.0], "float32"),
                   "Step": np.array([0.5], "float32")},
         ref=lambda Start, End, Step: np.array([0.5, 1.0, 1.5], "float32"), id="range_float"),
    Case("range", {"Start": I64(5), "End": I64(0), "Step": I64(-2)},
         ref=lambda Start, End, Step: np.array([5, 3, 1], "int64"), id="range_neg"),
    Case("linspace", {"Start": np.array([0.0], "float32"), "Stop": np.array([1.0], "float32"),
                      "Num": np.array([5], "int32")}, {"dtype": 5},
         ref=lambda Start, Stop, Num: np.linspace(0, 1, 5).astype("float32")),
    Case("eye", {}, {"num_rows": 2, "num_columns": 3, "dtype": 6}, ref=lambda: np.eye(2, 3)),
    Case("eye", {}, {"num_rows": 3, "dtype": 3}, ref=lambda: np.eye(3, dtype="int64"),
         id="eye_square"),
    Case("one_hot_v2", {"X": I64([0, 2], [1, 1])}, {"depth": 3},
         ref=lambda X: np.eye(3, dtype="float32")[X]),
    Case("one_hot_v2", {"X": I64(0, 5), "depth_tensor": np.array([4], "int32")},
         {"allow_out_of_range": True},
         ref=lambda X: np.array([[1, 0, 0, 0], [0, 0, 0, 0]], "float32"), id="one_hot_oor"),
    # random ops
    Case("uniform_random", {}, {"shape": [40, 50], "min": -2.0, "max": 3.0, "seed": 7},
         ref=lambda: _is((40, 50), "float32", -2.0, 3.0, 0.5), random_op=True),
    Case("uniform_random", {}, {"shape": [3, 3], "dtype": 6, "diag_num": 3, "diag_step": 3,
                                "diag_val": 9.0},
         ref=lambda: (lambda a: _is((3, 3), "float64")(a) and a[0, 0] == a[1, 1] == 9.0),
         random_op=True, id="uniform_random_diag"),
    Case("gaussian_random", {"ShapeTensor": I64(50, 40)}, {"mean": 1.0, "std": 2.0, "dtype": 6},
         ref=lambda: _is((50, 40), "float64", mean=1.0, tol=0.2), random_op=True),
    Case("truncated_gaussian_random", {}, {"shape": [50, 40], "mean": 1.0, "std": 0.5},
         ref=lambda: _truncated, random_op=True),
    Case("randint", {}, {"shape": [30, 30], "low": -3, "high": 4},
         ref=lambda: _is((30, 30), "int64", -3, 4, 0.0, 0.3), random_op=True),
    Case("randint", {"ShapeTensorList": [I64(5), I64(4)]}, {"low": 0, "high": 2, "dtype": 2},
         ref=lambda: _is((5, 4), "int32", 0, 2), random_op=True, id="randint_int32"),
    Case("randperm", {}, {"n": 17}, ref=lambda: _perm(17), random_op=True),
]

for _c in CASES:      # only assign is differentiable here
    if _c.op != "assign":
        _c.grad = False
