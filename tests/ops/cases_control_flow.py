"""Op-spec cases: the kernel-run control-flow helpers (select_input, select_output,
print, assert, fill_zeros_like, increment; a failing assert is in
tests/jit/test_to_static_raise_assert.py).  conditional_block, while and the tensor-array ops run through the
executor and are tested in tests/static/test_control_flow.py."""
import numpy as np

from .spec import Case, rand

A = rand(2, 3, seed=41)
B = rand(2, 3, seed=42)
_QUIET = {"print_phase": "BACKWARD"}      # no output in the forward pass

CASES = [
    Case("select_input", {"X": [A, B], "Mask": np.array(1, "int32")},
         ref=lambda X, Mask: X[1], grad=("X",)),
    Case("select_input", {"X": [A, B], "Mask": np.array([0], "int32")},
         ref=lambda X, Mask: X[0], grad=False, id="select_input_0"),
    Case("select_output", {"X": A, "Mask": np.array(0, "int32")},
         ref=lambda X, Mask: ([X, np.zeros_like(X)],), grad=False),
    Case("print", {"In": A}, _QUIET, ref=lambda In: In),
    Case("assert", {"Cond": np.array([True]), "Data": [A]}, ref=lambda Cond, Data: (),
         grad=False),
    Case("fill_zeros_like", {"X": A}, ref=lambda X: np.zeros_like(X), grad=False),
    Case("increment", {"X": np.array([2.5])}, {"step": -1.5}, ref=lambda X: X - 1.5,
         grad=False),
    Case("increment", {"X": np.array(7, "int64")}, ref=lambda X: X + 1, grad=False,
         id="increment_int64_0d"),
]
