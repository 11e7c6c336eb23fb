"""Op-spec cases: binary elementwise ops (with double and triple grads)."""
import numpy as np

from .spec import Case, rand, away_from

A = rand(2, 3, seed=1)
B = rand(2, 3, seed=2)
ROW = rand(3, seed=3)
COL = rand(2, seed=4)
POS = rand(2, 3, low=0.5, high=2.0, seed=5)

CASES = [
    Case("elementwise_add", {"X": A, "Y": B}, ref=lambda X, Y: X + Y, order3=True),
    Case("elementwise_add", {"X": A, "Y": ROW}, ref=lambda X, Y: X + Y, id="add_bcast"),
    Case("elementwise_add", {"X": A, "Y": COL}, {"axis": 0},
         ref=lambda X, Y: X + Y[:, None], id="add_axis0"),
    Case("elementwise_sub", {"X": A, "Y": ROW}, ref=lambda X, Y: X - Y, order3=True),
    Case("elementwise_mul", {"X": A, "Y": B}, ref=lambda X, Y: X * Y, order3=True),
    Case("elementwise_mul", {"X": A, "Y": COL}, {"axis": 0},
         ref=lambda X, Y: X * Y[:, None], id="mul_axis0", order3=True),
    Case("elementwise_mul", {"X": ROW, "Y": A}, ref=lambda X, Y: X * Y, id="mul_bcast_x",
         order3=True),
    Case("elementwise_add", {"X": A, "Y": COL}, {"axis": 0},
         ref=lambda X, Y: X + Y[:, None], id="add_axis0_higher", order3=True),
    Case("elementwise_sub", {"X": ROW, "Y": A}, ref=lambda X, Y: X - Y, id="sub_bcast_x",
         order3=True),
    Case("elementwise_div", {"X": A, "Y": POS}, ref=lambda X, Y: X / Y, order2=True),
    Case("elementwise_div", {"X": A, "Y": POS[0]}, ref=lambda X, Y: X / Y, order2=True,
         id="div_bcast_y"),
    Case("elementwise_pow", {"X": POS, "Y": B}, ref=lambda X, Y: X ** Y, order2=True),
    Case("elementwise_pow", {"X": POS, "Y": np.array([3.0])}, ref=lambda X, Y: X ** 3,
         order2=True, id="pow_scalar_y"),
    Case("elementwise_pow", {"X": POS, "Y": COL}, {"axis": 0},
         ref=lambda X, Y: X ** Y[:, None], order2=True, id="pow_axis0"),
    Case("elementwise_max", {"X": A, "Y": away_from(B, [0]) + 0.3},
         ref=lambda X, Y: np.maximum(X, Y)),
    Case("elementwise_min", {"X": A, "Y": B + 0.3}, ref=lambda X, Y: np.minimum(X, Y)),
    Case("elementwise_mod", {"X": np.array([5, -5, 7], "int64"),
                             "Y": np.array([3, 3, -2], "int64")},
         ref=lambda X, Y: np.mod(X, Y), grad=False),
    Case("elementwise_floordiv", {"X": np.array([5, -5, 7], "int64"),
                                  "Y": np.array([3, 3, -2], "int64")},
         ref=lambda X, Y: np.floor_divide(X, Y), grad=False),
]
