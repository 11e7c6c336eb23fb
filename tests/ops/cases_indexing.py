"""Op-spec cases: slice, strided_slice, gathers, scatter, where, masks,
set_value, index_put."""
import numpy as np

from .spec import Case, rand

X = rand(3, 4, seed=41)
X3 = rand(2, 3, 4, seed=42)
I64 = lambda *v: np.array(v, "int64")  # noqa: E731
I32 = lambda *v: np.array(v, "int32")  # noqa: E731
MASK = np.array([[True, False, True, False], [False, False, True, True],
                 [True, True, False, False]])


def _set_value_ref(idx, value):
    def ref(Input, ValueTensor=None):
        out = Input.copy()
        out[idx] = value if ValueTensor is None else ValueTensor
        return out
    return ref


CASES = [
    # slice / strided_slice
    Case("slice", {"Input": X3}, {"axes": [0, 2], "starts": [1, -3], "ends": [2, 100]},
         ref=lambda Input: Input[1:2, :, -3:], order2=True),
    Case("slice", {"Input": X3}, {"axes": [0, 1], "starts": [1, 0], "ends": [2, 2],
                                  "decrease_axis": [0]},
         ref=lambda Input: Input[1, 0:2], id="slice_decrease"),
    Case("slice", {"Input": X3}, {"axes": [0, 1, 2], "starts": [1, 2, 3], "ends": [2, 3, 4],
                                  "decrease_axis": [0, 1, 2]},
         ref=lambda Input: Input[1, 2, 3], id="slice_to_0d"),
    Case("slice", {"Input": X3, "StartsTensor": I64(0, 1), "EndsTensorList": [I32(1), I32(3)]},
         {"axes": [1, 2], "starts": [-1, -1], "ends": [-1, -1]},
         ref=lambda Input: Input[:, 0:1, 1:3], id="slice_tensors", grad=("Input",)),
    # Paddle's bounds going down: an end of -1 is the open stop (through index 0), an
    # end below -dim stops before index 0
    Case("strided_slice", {"Input": X3},
         {"axes": [1, 2], "starts": [2, 0], "ends": [-1, 4], "strides": [-1, 2]},
         ref=lambda Input: Input[:, 2::-1, 0:4:2], order2=True),
    Case("strided_slice", {"Input": X3},
         {"axes": [1], "starts": [2], "ends": [-2 ** 31], "strides": [-1]},
         ref=lambda Input: Input[:, 2:0:-1], id="strided_slice_below_dim"),
    Case("strided_slice", {"Input": X3},
         {"axes": [0, 2], "starts": [-1, 3], "ends": [-3, 0], "strides": [-1, -2],
          "decrease_axis": []}, ref=lambda Input: Input[-1:0:-1, :, 3:0:-2],   # as Paddle
         id="strided_slice_neg"),
    # gathers
    Case("gather", {"X": X, "Index": I64(2, 0, 2)}, ref=lambda X, Index: X[Index],
         order2=True),
    Case("gather", {"X": X, "Index": I32(3, 1)}, {"axis": 1},
         ref=lambda X, Index: X[:, Index], id="gather_axis1"),
    Case("gather", {"X": X, "Index": I64(1), "Axis": I64(1)},
         ref=lambda X, Index: X[:, [1]], id="gather_axis_tensor", grad=("X",)),
    Case("gather", {"X": X, "Index": np.array(2, "int64")}, ref=lambda X, Index: X[2],
         id="gather_0d_index"),
    Case("gather_nd", {"X": X3, "Index": I64([1, 2], [0, 0], [1, 2])},
         ref=lambda X, Index: X[Index[:, 0], Index[:, 1]], order2=True),
    Case("gather_nd", {"X": X3, "Index": I64([[1]], [[0]])},
         ref=lambda X, Index: X[Index[..., 0]], id="gather_nd_partial"),
    Case("index_select", {"X": X, "Index": I64(3, 3, 0)}, {"dim": 1},
         ref=lambda X, Index: X[:, Index]),
    Case("index_sample", {"X": X, "Index": I64([0, 3], [2, 2], [1, 0])},
         ref=lambda X, Index: np.take_along_axis(X, Index, 1)),
    Case("take_along_axis", {"Input": X, "Index": I64([0, 3, 3], [2, 2, 1], [1, 0, 0])},
         {"Axis": 1}, ref=lambda Input, Index: np.take_along_axis(Input, Index, 1)),
    # scatter
    Case("scatter", {"X": X, "Ids": I64(2, 0), "Updates": rand(2, 4, seed=43)},
         ref=lambda X, Ids, Updates: np.concatenate([Updates[1:2], X[1:2], Updates[0:1]])),
    Case("scatter", {"X": X, "Ids": I64(2, 0, 2), "Updates": rand(3, 4, seed=44)},
         {"overwrite": False},
         ref=lambda X, Ids, Updates: np.stack([Updates[1], X[1], Updates[0] + Updates[2]]),
         id="scatter_add"),
    # where / masks
    Case("where", {"Condition": MASK, "X": X, "Y": rand(3, 4, seed=45)},
         ref=lambda Condition, X, Y: np.where(Condition, X, Y)),
    Case("where", {"Condition": MASK[:, :1], "X": rand(1, 4, seed=46), "Y": X},
         ref=lambda Condition, X, Y: np.where(Condition, X, Y), id="where_broadcast"),
    Case("where_index", {"Condition": MASK}, ref=lambda Condition: np.argwhere(Condition),
         grad=False),
    Case("masked_select", {"X": X, "Mask": MASK}, ref=lambda X, Mask: X[Mask]),
    Case("masked_select", {"X": X, "Mask": MASK[:1]}, ref=lambda X, Mask:
         X[np.broadcast_to(Mask, X.shape)], id="masked_select_broadcast"),
    # writes
    Case("set_value", {"Input": X3, "ValueTensor": rand(2, 2, seed=47)},
         {"axes": [1, 2], "starts": [0, 3], "ends": [2, -5], "steps": [1, -2]},
         ref=_set_value_ref((slice(None), slice(0, 2), slice(3, -5, -2)), None)),
    Case("set_value", {"Input": X3, "ValueTensor": rand(4, seed=48)},
         {"axes": [0, 1], "starts": [1, 2], "ends": [2, 3], "steps": [1, 1],
          "decrease_axes": [0, 1]},
         ref=_set_value_ref((1, 2), None), id="set_value_decrease"),
    Case("set_value", {"Input": X3, "ValueTensor": rand(1, 1, 3, seed=49)},
         {"axes": [2], "starts": [1], "ends": [2], "steps": [1], "decrease_axes": [2],
          "none_axes": [0]},
         ref=lambda Input, ValueTensor: _set_value_ref((slice(None), slice(None), 1),
                                                       ValueTensor[0])(Input),
         id="set_value_none_axes"),
    Case("set_value", {"Input": X3}, {"axes": [0], "starts": [0], "ends": [1], "steps": [1],
                                      "values": [2.5], "shape": [1], "dtype": 6},
         ref=_set_value_ref(slice(0, 1), 2.5), id="set_value_scalar"),
    Case("index_put", {"x": X, "indices": [MASK], "value": np.array([0.5])},
         ref=lambda x, value: np.where(MASK, 0.5, x), grad=("x",)),
    Case("index_put", {"x": X, "indices": [I64(2, 0), I64(1, 3)], "value": rand(2, seed=50)},
         {"accumulate": True},
         ref=lambda x, indices, value: x + np.array(
             [[0, 0, 0, value[1]], [0] * 4, [0, value[0], 0, 0]]), id="index_put_accumulate"),
    Case("index_put", {"x": X, "indices": [I64(2, 0)], "value": rand(4, seed=51)},
         ref=lambda x, value: np.stack([value, x[1], value]), id="index_put_rows"),
]
