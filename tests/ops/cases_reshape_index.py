"""Op-spec cases: tril_triu and the index generators, diag_v2, diag_embed,
diagonal, fill_diagonal(_tensor), kron, repeat_interleave, put_along_axis (every
reduce), index_add, scatter_nd_add, multiplex, crop_tensor, meshgrid,
shard_index, view_shape/view_dtype, tensor_unfold and as_strided."""
import numpy as np

from .spec import Case, rand

A = rand(3, 4, seed=61)
B = rand(2, 3, 4, seed=62)
V = rand(3, seed=63)
I64 = lambda *v: np.array(v, "int64")  # noqa: E731
I32 = lambda *v: np.array(v, "int32")  # noqa: E731
PUT_IDX = I64([0, 0, 2, 0], [0, 1, 2, 0])
# distinct values far apart: no ties for amin / amax, no zero for mul
PUT_X = np.array([[0.5, -1.5, 2.5, 1.0], [3.0, -2.0, 0.7, -0.4], [1.2, 2.2, -3.3, 0.9]])
PUT_V = np.array([[1.7, -0.6, 2.9, -2.4], [-1.1, 0.3, -1.8, 1.4]])


def _diag_ref(offset):
    def ref(X):
        return np.diag(X.reshape(-1) if X.ndim == 0 else X, offset)
    return ref


def _diag_embed_ref(offset, d1, d2):
    def ref(Input):
        n = Input.shape[-1] + abs(offset)
        out = np.zeros(Input.shape[:-1] + (n, n), Input.dtype)
        for idx in np.ndindex(Input.shape[:-1]):
            out[idx] = np.diag(Input[idx], offset)
        return np.moveaxis(out, (-2, -1), (d1, d2))
    return ref


def _put_ref(reduce, include_self):
    """put_along_axis along axis 0 written as loops over the index."""
    def ref(Input, Index, Value):
        out = Input.copy()
        contrib = {}
        for (i, j), k in np.ndenumerate(Index):
            contrib.setdefault((k, j), []).append(Value[i, j])
        for pos, vals in contrib.items():
            own = [Input[pos]] if include_self else []
            if reduce == "assign":
                out[pos] = vals[-1]
            elif reduce == "add":
                out[pos] = sum(own + vals)
            elif reduce == "mul":
                out[pos] = np.prod(own + vals)
            elif reduce == "mean":
                out[pos] = np.mean(own + vals)
            elif reduce == "amax":
                out[pos] = max(own + vals)
            else:
                out[pos] = min(own + vals)
        return out
    return ref


def _put_case(reduce, include_self, order2=False):
    return Case("put_along_axis", {"Input": PUT_X, "Index": PUT_IDX, "Value": PUT_V},
                {"Axis": 0, "Reduce": reduce, "Include_self": include_self},
                ref=_put_ref("mul" if reduce == "multiply" else reduce, include_self),
                id=f"put_along_axis_{reduce}_{'self' if include_self else 'noself'}")


def _index_add_ref(axis):
    def ref(X, Index, AddValue):
        out = X.copy()
        np.add.at(np.moveaxis(out, axis, 0), Index, np.moveaxis(AddValue, axis, 0))
        return out
    return ref


def _scatter_nd_ref(X, Index, Updates):
    out = X.copy()
    np.add.at(out, tuple(Index[..., k] for k in range(Index.shape[-1])), Updates)
    return out


def _fill_diag_ref(value, wrap=False, at=None):
    """numpy's fill_diagonal (offset 0), or ``value`` at the (row, col) pairs ``at``."""
    def ref(X):
        out = X.copy()
        if at is None:
            np.fill_diagonal(out, value, wrap=wrap)
        else:
            out[tuple(np.array(at).T)] = value
        return out
    return ref


def _fill_diag_tensor_ref(X, Y):
    out = X.copy()
    r = np.arange(3)
    out[r, r + 1] = Y[0]
    return out


def _fill_diag_tensor_batch_ref(X, Y):
    out = X.copy()
    for k in range(2):
        out[k, k, :] = Y[:, k]
    return out


def _unfold_ref(axis, size, step):
    def ref(input):
        n = (input.shape[axis] - size) // step + 1
        wins = [np.take(input, range(w * step, w * step + size), axis=axis) for w in range(n)]
        return np.moveaxis(np.stack(wins, axis=axis), axis + 1, -1)
    return ref


CASES = [
    # triangles (linear: the grad op's gradient is the forward op again)
    Case("tril_triu", {"X": A}, {"diagonal": 1, "lower": True}, ref=lambda X: np.tril(X, 1),
         order2=True),
    Case("tril_triu", {"X": B}, {"diagonal": -1, "lower": False},
         ref=lambda X: np.triu(X, -1), id="triu_batched"),
    Case("tril_triu", {"X": np.arange(6).reshape(2, 3).astype("int32")},
         {"diagonal": 0, "lower": True}, ref=lambda X: np.tril(X), id="tril_int", grad=False),
    Case("tril_indices", {}, {"rows": 4, "cols": 3, "offset": 1, "dtype": 3},
         ref=lambda: np.stack(np.tril_indices(4, 1, 3)), grad=False),
    Case("tril_indices", {}, {"rows": 3, "cols": 5, "offset": -1, "dtype": 2},
         ref=lambda: np.stack(np.tril_indices(3, -1, 5)).astype("int32"), grad=False,
         id="tril_indices_i32"),
    Case("triu_indices", {}, {"row": 3, "col": 4, "offset": -1, "dtype": 3},
         ref=lambda: np.stack(np.triu_indices(3, -1, 4)), grad=False),
    Case("triu_indices", {}, {"row": 2, "col": 2, "offset": 5, "dtype": 3},
         ref=lambda: np.zeros((2, 0), "int64"), grad=False, id="triu_indices_empty"),
    # diagonals
    Case("diag_v2", {"X": V}, {"offset": 1, "padding_value": 0.0}, ref=_diag_ref(1)),
    Case("diag_v2", {"X": V}, {"offset": -1, "padding_value": 2.5},
         ref=lambda X: np.diag(X, -1) + 2.5 * (1 - np.eye(4, k=-1)), id="diag_v2_padding"),
    Case("diag_v2", {"X": A}, {"offset": -1}, ref=_diag_ref(-1), id="diag_v2_matrix"),
    Case("diag_v2", {"X": np.array(2.0)}, ref=_diag_ref(0), id="diag_v2_0d"),
    Case("diag_embed", {"Input": rand(2, 3, seed=64)}, ref=_diag_embed_ref(0, -2, -1),
         grad=False),
    Case("diag_embed", {"Input": rand(2, 3, seed=64)}, {"offset": 1, "dim1": 0, "dim2": 2},
         ref=_diag_embed_ref(1, 0, 2), grad=False, id="diag_embed_dims"),
    Case("diag_embed", {"Input": rand(2, 3, seed=64)}, {"offset": -2, "dim1": -1, "dim2": 0},
         ref=_diag_embed_ref(-2, -1, 0), grad=False, id="diag_embed_swapped"),
    Case("diagonal", {"Input": B}, {"offset": 1, "axis1": 2, "axis2": 0},
         ref=lambda Input: np.diagonal(Input, 1, 2, 0), order2=True),
    Case("diagonal", {"Input": A}, {"offset": -1},
         ref=lambda Input: np.diagonal(Input, -1), id="diagonal_neg"),
    Case("fill_diagonal", {"X": A}, {"value": 5.0, "offset": 1},
         ref=_fill_diag_ref(5.0, at=[(0, 1), (1, 2), (2, 3)])),
    Case("fill_diagonal", {"X": A}, {"value": 5.0, "offset": -1},
         ref=_fill_diag_ref(5.0, at=[(1, 0), (2, 1)]), id="fill_diagonal_neg"),
    Case("fill_diagonal", {"X": rand(7, 3, seed=65)}, {"value": -1.0, "wrap": True},
         ref=_fill_diag_ref(-1.0, wrap=True), id="fill_diagonal_wrap"),
    Case("fill_diagonal", {"X": rand(7, 3, seed=65)}, {"value": -1.0},
         ref=_fill_diag_ref(-1.0), id="fill_diagonal_nowrap"),
    Case("fill_diagonal", {"X": rand(3, 3, 3, seed=66)}, {"value": 2.0, "wrap": True},
         ref=_fill_diag_ref(2.0), id="fill_diagonal_cube"),
    Case("fill_diagonal_tensor", {"X": A, "Y": rand(1, 3, seed=67)}, {"offset": 1},
         ref=_fill_diag_tensor_ref),
    Case("fill_diagonal_tensor", {"X": B, "Y": rand(4, 2, seed=68)},
         {"offset": 0, "dim1": 0, "dim2": 1}, ref=_fill_diag_tensor_batch_ref,
         id="fill_diagonal_tensor_batch"),
    # kron / repeat_interleave
    Case("kron", {"X": rand(2, 2, seed=69), "Y": rand(2, 3, seed=70)},
         ref=lambda X, Y: np.kron(X, Y)),
    Case("kron", {"X": V, "Y": rand(2, 2, seed=71)}, ref=lambda X, Y: np.kron(X, Y),
         id="kron_ranks"),
    Case("repeat_interleave", {"X": A}, {"Repeats": 2, "dim": 1},
         ref=lambda X: np.repeat(X, 2, 1)),
    Case("repeat_interleave", {"X": A, "RepeatsTensor": I64(1, 0, 3)}, {"dim": 0},
         ref=lambda X: np.repeat(X, [1, 0, 3], 0), id="repeat_interleave_tensor",
         grad=("X",)),
    Case("repeat_interleave", {"X": A, "RepeatsTensor": I32(2, 1, 1, 0)}, {"dim": -1},
         ref=lambda X: np.repeat(X, [2, 1, 1, 0], -1), id="repeat_interleave_neg_dim",
         grad=("X",)),
    # put_along_axis: every reduce, with and without the input's own values
    *[_put_case(r, s) for r in ("assign", "add", "mul", "multiply", "mean", "amin", "amax")
      for s in (True, False)],
    Case("put_along_axis", {"Input": PUT_X, "Index": PUT_IDX, "Value": PUT_V * [[1, 1, 0, 1],
                                                                                [1, 1, 1, 1]]},
         {"Axis": 0, "Reduce": "mul"}, ref=_put_ref("mul", True), id="put_along_axis_mul_zero"),
    Case("put_along_axis", {"Input": A, "Index": I64([1], [3], [0]), "Value": rand(3, 1)},
         {"Axis": 1}, id="put_along_axis_axis1",
         ref=lambda Input, Index, Value: _put_axis1(Input, Index, Value)),
    # index_add / scatter_nd_add (repeated indices add up)
    Case("index_add", {"X": A, "Index": I64(2, 0, 2), "AddValue": rand(3, 4, seed=72)},
         {"axis": 0}, ref=_index_add_ref(0)),
    Case("index_add", {"X": A, "Index": I32(3, 1), "AddValue": rand(3, 2, seed=73)},
         {"axis": -1}, ref=_index_add_ref(1), id="index_add_axis1"),
    Case("scatter_nd_add", {"X": A, "Index": I64([1, 1], [0, 3], [1, 1]),
                            "Updates": rand(3, seed=74)}, ref=_scatter_nd_ref),
    Case("scatter_nd_add", {"X": B, "Index": I64([[1], [0]], [[1], [1]]),
                            "Updates": rand(2, 2, 3, 4, seed=75)}, ref=_scatter_nd_ref,
         id="scatter_nd_add_slices"),
    Case("scatter_nd_add", {"X": A, "Index": np.zeros((2, 0), "int64"),
                            "Updates": rand(2, 3, 4, seed=76)},
         ref=lambda X, Index, Updates: X + Updates.sum(0), id="scatter_nd_add_whole"),
    # multiplex
    Case("multiplex", {"X": [A, rand(3, 4, seed=77), rand(3, 4, seed=78)],
                       "Ids": I32([2], [0], [1])},
         ref=lambda X, Ids: np.stack(X)[Ids[:, 0], np.arange(3)]),
    # crop_tensor
    Case("crop_tensor", {"X": B}, {"shape": [1, -1, 2], "offsets": [1, 1, 2]},
         ref=lambda X: X[1:2, 1:, 2:4]),
    Case("crop_tensor", {"X": A, "Shape": I32(2, 2), "Offsets": I32(1, 1)},
         ref=lambda X: X[1:3, 1:3], id="crop_tensor_tensors", grad=("X",)),
    Case("crop_tensor", {"X": A, "ShapeTensor": [I32(2), I32(3)],
                         "OffsetsTensor": [I32(0), I32(1)]}, {"shape": [0, 0]},
         ref=lambda X: X[0:2, 1:4], id="crop_tensor_lists", grad=("X",)),
    # meshgrid
    Case("meshgrid", {"X": [V, rand(2, seed=79), np.array(1.5)]},
         ref=lambda X: tuple([np.meshgrid(*[x.reshape(-1) for x in X], indexing="ij")])),
    # shard_index
    Case("shard_index", {"X": I64([16], [1], [19], [10])},
         {"index_num": 20, "nshards": 3, "shard_id": 1, "ignore_value": -7},
         ref=lambda X: np.where(X // 7 == 1, X - 7, -7), grad=False),
    # views
    Case("view_shape", {"input": A}, {"dims": [2, 6]}, ref=lambda input: input.reshape(2, 6)),
    Case("view_dtype", {"input": A.astype("float32")}, {"dtype": 2},
         ref=lambda input: input.view("int32"), grad=False),
    Case("view_dtype", {"input": A.astype("float32")}, {"dtype": 20},
         ref=lambda input: input.view("uint8"), grad=False, id="view_dtype_bytes"),
    Case("view_dtype", {"input": np.arange(8, dtype="int16").reshape(2, 4)}, {"dtype": 6},
         ref=lambda input: input.view("float64"), grad=False, id="view_dtype_wider"),
    Case("tensor_unfold", {"input": A}, {"axis": 1, "size": 2, "step": 1},
         ref=_unfold_ref(1, 2, 1)),
    Case("tensor_unfold", {"input": B}, {"axis": -3, "size": 1, "step": 1},
         ref=_unfold_ref(0, 1, 1), id="tensor_unfold_axis0"),
    Case("tensor_unfold", {"input": rand(9, seed=80)}, {"axis": 0, "size": 3, "step": 2},
         ref=_unfold_ref(0, 3, 2), id="tensor_unfold_step"),
    Case("as_strided", {"input": A}, {"dims": [2, 2], "stride": [1, 1], "offset": 8},
         ref=lambda input: np.lib.stride_tricks.as_strided(
             input.reshape(-1)[1:], (2, 2), (8, 8)).copy()),
    Case("as_strided", {"input": A}, {"dims": [4, 3], "stride": [1, 4]},
         ref=lambda input: input.T.copy(), id="as_strided_transpose"),
]


def _put_axis1(Input, Index, Value):
    out = Input.copy()
    for i in range(3):
        out[i, Index[i, 0]] = Value[i, 0]
    return out
