"""Op-spec cases: reshape/transpose/flatten/squeeze/unsqueeze, concat/split,
stack/unstack/unbind, expand/broadcast_tensors/tile, flip/roll, pad/pad3d, shape/size."""
import numpy as np

from .spec import Case, rand

A = rand(2, 3, seed=21)
B = rand(2, 3, 2, seed=22)
C = rand(1, 3, 1, seed=23)
V = rand(2, 1, 3, seed=24)
I32 = lambda *v: np.array(v, "int32")  # noqa: E731


def _pad3d_ref(mode, pairs, value=0.0):
    np_mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}

    def ref(X):
        if mode == "constant":
            return np.pad(X, pairs, constant_values=value)
        return np.pad(X, pairs, mode=np_mode[mode])
    return ref


P5 = rand(1, 2, 2, 3, 3, seed=25)
P5_PAIRS = [(0, 0), (0, 0), (1, 0), (1, 1), (2, 1)]   # paddings [2,1, 1,1, 1,0] (W, H, D)
P5_ATTR = [2, 1, 1, 1, 1, 0]

CASES = [
    # reshape family (XShape outputs are intermediate: compared by shape only below)
    Case("reshape2", {"X": B}, {"shape": [0, -1]}, ref=lambda X: X.reshape(2, 6), order3=True),
    Case("reshape2", {"X": B, "Shape": I32(3, 4)}, ref=lambda X: X.reshape(3, 4),
         id="reshape2_shape_tensor", grad=("X",)),
    Case("reshape2", {"X": B, "ShapeTensor": [I32(4), I32(-1)]}, ref=lambda X: X.reshape(4, 3),
         id="reshape2_shape_list", grad=("X",)),
    Case("reshape2", {"X": B}, {"shape": [3, 4]}, ref=lambda X: (X.reshape(3, 4),
                                                              np.empty((0, 2, 3, 2))),
         outputs=("Out", "XShape"), grad=False, id="reshape2_xshape"),
    Case("transpose2", {"X": B}, {"axis": [2, 0, 1]}, ref=lambda X: X.transpose(2, 0, 1),
         order2=True),
    Case("transpose2", {"X": A}, {"axis": [-1, 0]}, ref=lambda X: X.T, id="transpose2_neg"),
    Case("flatten_contiguous_range", {"X": B}, {"start_axis": 1, "stop_axis": -1},
         ref=lambda X: X.reshape(2, 6), order2=True),
    Case("flatten_contiguous_range", {"X": B}, {"start_axis": 0, "stop_axis": 1},
         ref=lambda X: X.reshape(6, 2), id="flatten_01"),
    Case("squeeze2", {"X": C}, {"axes": [0, 2]}, ref=lambda X: X.reshape(3), order2=True),
    Case("squeeze2", {"X": C}, {"axes": [1]}, ref=lambda X: X, id="squeeze2_keep_non1"),
    Case("squeeze2", {"X": C}, ref=lambda X: X.reshape(3), id="squeeze2_all"),
    Case("unsqueeze2", {"X": A}, {"axes": [0, -1]}, ref=lambda X: X.reshape(1, 2, 3, 1),
         order2=True),
    Case("unsqueeze2", {"X": A, "AxesTensor": I32(1)}, ref=lambda X: X.reshape(2, 1, 3),
         id="unsqueeze2_tensor", grad=("X",)),
    # concat / split
    Case("concat", {"X": [A, rand(2, 2, seed=26)]}, {"axis": 1},
         ref=lambda X: np.concatenate(X, 1), order2=True),
    Case("concat", {"X": [A, rand(1, 3, seed=27)], "AxisTensor": I32(0)},
         ref=lambda X: np.concatenate(X, 0), id="concat_axis_tensor", grad=("X",)),
    Case("split", {"X": rand(2, 6, seed=28)}, {"num": 3, "axis": 1},
         ref=lambda X: tuple([np.split(X, 3, 1)]), order2=True),
    Case("split", {"X": rand(2, 6, seed=28)}, {"sections": [1, -1, 2], "axis": -1},
         ref=lambda X: tuple([np.split(X, [1, 4], 1)]), id="split_sections_infer"),
    Case("split", {"X": rand(4, 2, seed=29), "SectionsTensorList": [I32(1), I32(3)]},
         ref=lambda X: tuple([np.split(X, [1], 0)]), id="split_sections_tensor", grad=("X",)),
    # stack / unstack / unbind
    Case("stack", {"X": [A, rand(2, 3, seed=30)]}, {"axis": 1},
         ref=lambda X: np.stack(X, 1), order2=True),
    Case("stack", {"X": [A, A]}, {"axis": -1}, ref=lambda X: np.stack(X, -1), id="stack_last"),
    Case("unstack", {"X": B}, {"axis": 1, "num": 3},
         ref=lambda X: tuple([list(np.moveaxis(X, 1, 0))]), order2=True),
    Case("unbind", {"X": B}, {"axis": -1}, ref=lambda X: tuple([list(np.moveaxis(X, -1, 0))]),
         order2=True),
    # expand / tile
    Case("expand_v2", {"X": V}, {"shape": [2, 2, 4, 3]},
         ref=lambda X: np.broadcast_to(X, (2, 2, 4, 3)), order2=True),
    Case("expand_v2", {"X": V}, {"shape": [-1, 5, -1]},
         ref=lambda X: np.broadcast_to(X, (2, 5, 3)), id="expand_v2_keep"),
    Case("expand_v2", {"X": V, "Shape": I32(2, 2, 3)},
         ref=lambda X: np.broadcast_to(X, (2, 2, 3)), id="expand_v2_tensor", grad=("X",)),
    Case("expand_as_v2", {"X": V, "Y": rand(2, 4, 3, seed=31)},
         ref=lambda X: np.broadcast_to(X, (2, 4, 3)), grad=("X",)),
    Case("expand_as_v2", {"X": V}, {"target_shape": [3, 2, 2, 3]},
         ref=lambda X: np.broadcast_to(X, (3, 2, 2, 3)), id="expand_as_v2_attr"),
    Case("broadcast_tensors", {"X": [rand(2, 1, seed=32), rand(3, seed=33), V]},
         ref=lambda X: tuple([[np.array(a) for a in np.broadcast_arrays(*X)]])),
    Case("tile", {"X": A}, {"repeat_times": [2, 1, 2]}, ref=lambda X: np.tile(X, (2, 1, 2)),
         order2=True),
    Case("tile", {"X": B}, {"repeat_times": [2]}, ref=lambda X: np.tile(X, 2), id="tile_short"),
    # flip / roll
    Case("flip", {"X": B}, {"axis": [0, -1]}, ref=lambda X: X[::-1, :, ::-1]),
    Case("roll", {"X": B}, {"shifts": [1, -1], "axis": [0, 1]},
         ref=lambda X: np.roll(X, (1, -1), (0, 1))),
    Case("roll", {"X": A}, {"shifts": [2]}, ref=lambda X: np.roll(X, 2), id="roll_flat"),
    # pad
    Case("pad", {"X": A}, {"paddings": [1, 0, 2, 1], "pad_value": 0.5},
         ref=lambda X: np.pad(X, [(1, 0), (2, 1)], constant_values=0.5), order2=True),
    Case("pad3d", {"X": P5}, {"paddings": P5_ATTR, "mode": "constant", "value": 1.5},
         ref=_pad3d_ref("constant", P5_PAIRS, 1.5), order2=True),
    Case("pad3d", {"X": P5}, {"paddings": [1, 1, 1, 0, 1, 1], "mode": "reflect"},
         ref=_pad3d_ref("reflect", [(0, 0), (0, 0), (1, 1), (1, 0), (1, 1)]),
         id="pad3d_reflect", order2=True),
    Case("pad3d", {"X": P5}, {"paddings": P5_ATTR, "mode": "replicate"},
         ref=_pad3d_ref("replicate", P5_PAIRS), id="pad3d_replicate"),
    Case("pad3d", {"X": P5}, {"paddings": P5_ATTR, "mode": "circular"},
         ref=_pad3d_ref("circular", P5_PAIRS), id="pad3d_circular"),
    Case("pad3d", {"X": rand(1, 2, 2, 2, 1, seed=32)},
         {"paddings": [0, 0, 1, 0, 0, 1], "mode": "replicate", "data_format": "NDHWC"},
         ref=_pad3d_ref("replicate", [(0, 0), (0, 1), (1, 0), (0, 0), (0, 0)]),
         id="pad3d_ndhwc"),
    # shape / size
    Case("shape", {"Input": B}, ref=lambda Input: np.array([2, 3, 2], "int32"), grad=False),
    Case("size", {"Input": B}, ref=lambda Input: np.array(12, "int64"), grad=False),
]
