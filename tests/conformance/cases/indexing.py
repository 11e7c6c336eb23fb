"""``Tensor.__getitem__`` and ``Tensor.__setitem__`` with every index kind:
ints (negative too), slices with steps (negative too), None, Ellipsis, bool
mask tensors, int64/int32 index tensors, lists of ints and of bools, numpy
arrays, 0-d tensor indices, and their combinations; assignment of Python
scalars (int/float/bool into every dtype), of tensors (broadcast, another
dtype) and of numpy arrays.  The static cases pin down which ops Paddle
appends for each index (slice / strided_slice / unsqueeze2 / gather_nd /
where_index / set_value / index_put ...).
"""
from spec import C

DTYPES = ("float32", "float64", "int32", "int64", "bool")

CASES = []

# Paddle 2.6.2 bugs (README, "Where sampan deliberately differs")
EMPTY_SLICE = ("Paddle 2.6.2 raises on a slice whose stop is before its start (x[2:1]); "
               "Python gives an empty slice")
NEG_LIST = "Paddle 2.6.2 rejects negative entries of an index list (x[[-1, 0]])"
NONE_FIRST = ("Paddle 2.6.2 misplaces an advanced index that follows None (x[None, [0, 1]] "
              "indexes the new axis and raises)")
MASK_0D_CRASH = "Paddle 2.6.2 crashes (SIGSEGV) indexing a 0-D tensor with a 0-D bool tensor"
NP_SCALAR = ("Paddle 2.6.2 rejects numpy scalars (np.float32(2.5), np.int64(4)) as assigned "
             "values; numpy and Python numbers are accepted alike")
BOOL_MASK_SET = ("Paddle 2.6.2's eager x[mask] = v on a bool x needs a bool `where` kernel "
                 "it lacks")
MASK_VALUES = ("Paddle 2.6.2's eager x[mask] = values expands the values to x's shape instead "
               "of writing them in mask order: wrong values when len(values) equals the last "
               "dim, an error otherwise")


def add(id, code, *args, **kw):
    CASES.append(C(id, code, *args, **kw))


BUGS = {"get.slice_empty.float32": (EMPTY_SLICE, "x[2:1]"),
        "get.list_neg.float32": (NEG_LIST, "x[[-1, 0]]"),
        "get.none_list.float32": (NONE_FIRST, "x[None, [0, 1]]"),
        "get.slice_rev_past_start.float32": (
            "Paddle 2.6.2 clamps a negative-step stop below -dim to 0, dropping element 0 "
            "(x[-1:-5:-1] on 3 rows gives 2)", "x[-1:-5:-1]")}


# ================================================================= __getitem__
GET_2D = {
    # ints
    "int": "x[1]", "int_neg": "x[-1]", "int_int": "x[0, 1]", "int_int_neg": "x[-1, -2]",
    "int_tuple": "x[(2, 3)]",
    # slices
    "slice_start": "x[1:]", "slice_stop": "x[:2]", "slice_both": "x[1:2]",
    "slice_neg_start": "x[-2:]", "slice_neg_stop": "x[:-1]", "slice_step2": "x[::2]",
    "slice_rev": "x[::-1]", "slice_rev_bounds": "x[2:0:-1]", "slice_rev_step2": "x[::-2]",
    "slice_col": "x[:, 1:3]", "slice_col_step": "x[:, ::3]", "slice_col_rev": "x[:, ::-1]",
    "slice_both_dims": "x[1:, 1:3]", "slice_both_step": "x[::2, 1::2]",
    "slice_beyond": "x[1:100]", "slice_empty": "x[2:1]", "slice_far_empty": "x[10:]",
    "slice_full": "x[:]", "slice_full_both": "x[:, :]", "slice_neg_beyond": "x[-100:1]",
    "slice_rev_neg": "x[-1:-3:-1]", "slice_rev_past_start": "x[-1:-5:-1]",
    # int and slice
    "int_slice": "x[0, 1:]", "slice_int": "x[1:, 0]", "int_slice_step": "x[1, ::2]",
    "slice_step_int": "x[::2, -1]", "int_slice_rev": "x[-1, ::-1]",
    # None
    "none": "x[None]", "none_mid": "x[:, None]", "none_end": "x[:, :, None]",
    "none_both": "x[None, :, None]", "int_none": "x[0, None]", "none_int": "x[None, 0]",
    "none_slice_int": "x[None, 1:, 0]", "none_two": "x[None, None]",
    # Ellipsis
    "ellipsis": "x[...]", "ellipsis_int": "x[..., 0]", "int_ellipsis": "x[0, ...]",
    "ellipsis_slice": "x[..., 1:]", "ellipsis_none": "x[..., None]",
    "none_ellipsis": "x[None, ...]", "ellipsis_step": "x[..., ::-2]",
    "int_ellipsis_int": "x[1, ..., 2]",
    # lists
    "list": "x[[0, 2]]", "list_neg": "x[[-1, 0]]", "list_one": "x[[1]]",
    "list_repeat": "x[[1, 1, 0]]", "list_col": "x[:, [0, 2]]", "list_list": "x[[0, 2], [1, 3]]",
    "list_nested": "x[[[0, 1], [2, 0]]]", "int_list": "x[1, [0, 2]]",
    "list_int": "x[[0, 2], 1]", "list_slice": "x[[0, 2], 1:]", "slice_list": "x[1:, [0, 3]]",
    "list_bool": "x[[True, False, True]]", "list_bool_col": "x[:, [True, False, True, False]]",
    "list_ellipsis": "x[..., [0, 1]]", "list_none": "x[[0, 1], None]",
    "none_list": "x[None, [0, 1]]", "ndarray": "x[np.array([0, 2])]",
    "ndarray_bool": "x[np.array([True, False, True])]",
    "list_step_slice": "x[[2, 0], ::2]",
}
for name, code in GET_2D.items():
    bug, want = BUGS.get(f"get.{name}.float32", ("", ""))
    add(f"get.{name}.float32", code, "float32[3,4]", paddle_bug=bug, want=want)
for name in ("int", "int_int", "slice_rev", "slice_int", "none_mid", "ellipsis_int", "list",
             "list_col", "list_bool", "int_list"):
    for dt in DTYPES[1:]:
        add(f"get.{name}.{dt}", GET_2D[name], f"{dt}[3,4]")

GET_3D = {
    "int": "x[1]", "int_int_int": "x[1, 2, 3]", "slice_int_slice": "x[:, 1, 1:]",
    "int_none_int": "x[0, None, 1]", "ellipsis_int": "x[..., 1]",
    "int_ellipsis": "x[1, ...]", "none_ellipsis_none": "x[None, ..., None]",
    "steps": "x[::-1, 1::2, ::3]", "list_mid": "x[:, [0, 2]]",
    "list_last": "x[..., [3, 0]]", "lists_adjacent": "x[:, [0, 1], [1, 2]]",
    "lists_apart": "x[[0, 1], :, [1, 2]]", "lists_all": "x[[0, 1], [1, 2], [2, 3]]",
    "int_list_int": "x[1, [0, 2], 3]", "int_slice_list": "x[0, 1:, [0, 3]]",
    "list_int_slice": "x[[1, 0], 2, 1:]", "list_bcast": "x[[[0], [1]], [0, 2]]",
}
for name, code in GET_3D.items():
    add(f"get3d.{name}", code, "float32[2,3,4]")

# index tensors
for dt in ("int64", "int32"):
    add(f"get.tensor.{dt}", "x[y]", "float32[3,4]", f"{dt}[2]|idx3")
    add(f"get.tensor_2d.{dt}", "x[y]", "float32[3,4]", f"{dt}[2,2]|idx3")
    add(f"get.tensor_col.{dt}", "x[:, y]", "float32[3,4]", f"{dt}[3]|idx4")
    add(f"get.tensor_0d.{dt}", "x[y]", "float32[3,4]", f"{dt}[]|idx3")
    add(f"get.tensor_0d_col.{dt}", "x[:, y]", "float32[3,4]", f"{dt}[]|idx4")
add("get.tensor_two", "x[y, z]", "float32[3,4]", "int64[2]|idx3", "int64[2]|idx4")
add("get.tensor_bcast", "x[y, z]", "float32[3,4]", "int64[2,1]|idx3", "int64[3]|idx4")
add("get.tensor_int", "x[y, 1]", "float32[3,4]", "int64[2]|idx3")
add("get.int_tensor", "x[1, y]", "float32[3,4]", "int64[2]|idx4")
add("get.tensor_slice", "x[y, 1:]", "float32[3,4]", "int64[2]|idx3")
add("get.slice_tensor", "x[::2, y]", "float32[3,4]", "int64[2]|idx4")
add("get.tensor_none", "x[y, None]", "float32[3,4]", "int64[2]|idx3")
add("get.tensor_ellipsis", "x[..., y]", "float32[2,3,4]", "int64[2]|idx4")
add("get.tensor_apart", "x[y, :, z]", "float32[2,3,4]", "int64[2]|idx2", "int64[2]|idx4")
add("get.tensor_list", "x[y, [0, 3]]", "float32[3,4]", "int64[2]|idx3")
add("get.tensor_0d_0d", "x[y, z]", "float32[3,4]", "int64[]|idx3", "int64[]|idx4")
add("get.tensor_0d_slice", "x[y, 1:]", "float32[3,4]", "int64[]|idx3")
add("get.tensor_empty", "x[y]", "float32[3,4]", "int64[0]")
# slice bounds: a one-valued integer tensor is read at run time; a float or a
# many-valued tensor is refused
add("get.slice_tensor_stop", "x[:y]", "float32[3,4]", "int64[1]|idx3")
add("get.slice_tensor_start_0d", "x[y:, 1:]", "float32[3,4]", "int64[]|idx3")
add("get.slice_float_stop", "x[:2.0]", "float32[3,4]")
add("get.slice_tensor_two_values", "x[:y]", "float32[3,4]", "int64[2]|idx3")
add("get.tensor_1d_input", "x[y]", "int64[5]", "int64[4]|idx5")
add("get.tensor_grad", "x[y]", "float32[3,4]", "int64[3]|idx3", grad=True)
for dt in DTYPES[1:]:
    add(f"get.tensor.x_{dt}", "x[y]", f"{dt}[3,4]", "int64[2]|idx3")

# bool masks
for dt in DTYPES:
    add(f"get.mask.{dt}", "x[y]", f"{dt}[3,4]", "bool[3,4]")
add("get.mask_rows", "x[y]", "float32[3,4]", "bool[3]")
add("get.mask_cols", "x[:, y]", "float32[3,4]", "bool[4]")
add("get.mask_3d_2d", "x[y]", "float32[2,3,4]", "bool[2,3]")
add("get.mask_3d_full", "x[y]", "int64[2,3,4]", "bool[2,3,4]")
add("get.mask_compare", "x[x > 0]", "float32[3,4]")
add("get.mask_none", "x[x > 100]", "float32[3,4]")
add("get.mask_1d", "x[y]", "float32[5]", "bool[5]")
add("get.mask_0d", "x[y]", "float32[3,4]", "bool[]")
add("get.mask_0d_on_0d", "x[y]", "float32[]", "bool[]", paddle_bug=MASK_0D_CRASH, want="x[y]")
add("get.mask_ellipsis", "x[..., y]", "float32[2,3,4]", "bool[4]")
add("get.mask_grad", "x[y]", "float32[3,4]", "bool[3,4]", grad=True)
add("get.mask_bad_shape", "x[y]", "float32[3,4]", "bool[4]")
add("get.mask_bad_shape_2d", "x[y]", "float32[3,4]", "bool[3,3]")

# 0-d and empty tensors
add("get.0d_ellipsis", "x[...]", "float32[]")
add("get.0d_none", "x[None]", "float32[]")
add("get.0d_ellipsis_none", "x[..., None]", "int64[]")
add("get.0d_int_error", "x[0]", "float32[]")
add("get.empty_slice", "x[0:0]", "float32[3,4]")
add("get.empty_input_slice", "x[1:]", "float32[0,4]")
add("get.empty_input_col", "x[:, 1]", "float32[0,4]")
add("get.1d_int", "x[2]", "float32[5]")
add("get.1d_neg_step", "x[-2::-2]", "int32[5]")

# gradients through basic indices
add("get.grad_slice_int", "x[1:, 0]", "float32[3,4]", grad=True)
add("get.grad_steps", "x[::-1, ::2]", "float32[3,4]", grad=True)
add("get.grad_int", "x[1]", "float32[3,4]", grad=True)
add("get.grad_list", "x[[0, 0, 2]]", "float32[3,4]", grad=True)
add("get.grad_list_col", "x[:, [1, 1]]", "float32[3,4]", grad=True)

# bad indices
add("get.bad_int", "x[3]", "float32[3,4]")
add("get.bad_int_neg", "x[-4]", "float32[3,4]")
add("get.bad_int_col", "x[0, 4]", "float32[3,4]")
add("get.bad_too_many", "x[0, 0, 0]", "float32[3,4]")
add("get.bad_two_ellipsis", "x[..., 0, ...]", "float32[3,4]")
add("get.bad_step0", "x[::0]", "float32[3,4]")
add("get.bad_float", "x[1.5]", "float32[3,4]")
add("get.bad_float_tensor", "x[y]", "float32[3,4]", "float32[2]")
add("get.bad_float_list", "x[[1.5]]", "float32[3,4]")
add("get.bad_float_array", "x[np.array([1.5])]", "float32[3,4]")
add("get.bad_str", "x['a']", "float32[3,4]")
add("get.bad_list_bool_len", "x[[True, False]]", "float32[3,4]")
add("get.bad_tensor_range", "x[y + 3]", "float32[3,4]", "int64[2]|idx3")

# ================================================================= __setitem__
SCALARS = {"int": "5", "negint": "-2", "float": "2.5", "negfloat": "-1.5", "true": "True",
           "false": "False", "zero": "0"}
for dt in DTYPES:
    for sname, s in SCALARS.items():
        add(f"set.row.{sname}.{dt}", f"x[0] = {s}\nreturn x", f"{dt}[3,4]")

SET_POS = {
    "int_neg": "x[-1]", "int_int": "x[1, 2]", "slice": "x[1:]", "slice_step": "x[::2]",
    "slice_rev": "x[::-1]", "slice_rev_bounds": "x[2:0:-1]", "col": "x[:, 1]",
    "col_slice": "x[:, 1:3]", "col_step": "x[:, ::3]", "col_rev_step": "x[:, ::-2]",
    "int_slice": "x[0, 1:]", "slice_int": "x[1:, 0]", "ellipsis": "x[...]",
    "ellipsis_int": "x[..., 0]", "int_ellipsis": "x[1, ...]", "full": "x[:]",
    "none": "x[None]", "none_int": "x[None, 1]", "int_none": "x[1, None]",
    "empty": "x[2:1]", "beyond": "x[1:100]", "both": "x[1:, 1:3]",
}
for name, lhs in SET_POS.items():
    bug, want = (EMPTY_SLICE, "x") if name == "empty" else ("", "")
    add(f"set.{name}.float", f"{lhs} = 7.5\nreturn x", "float32[3,4]", paddle_bug=bug,
        want=want)
    add(f"set.{name}.int", f"{lhs} = 7\nreturn x", "int64[3,4]", paddle_bug=bug, want=want)
add("set.3d.int_slice_step", "x[1, ::2, 1:] = 0.0\nreturn x", "float32[2,3,4]")
add("set.3d.ellipsis_int", "x[..., 1] = -1.0\nreturn x", "float32[2,3,4]")
add("set.3d.none_mid", "x[:, None, 1] = 3.0\nreturn x", "float32[2,3,4]")
add("set.0d", "x[...] = 3.0\nreturn x", "float32[]")
add("set.0d_none", "x[None] = 3\nreturn x", "int32[]")
add("set.1d", "x[2] = 1.5\nreturn x", "float64[5]")
add("set.1d_steps", "x[::-2] = 0\nreturn x", "int64[5]")

# tensor values
add("set.tensor.row", "x[0] = y\nreturn x", "float32[3,4]", "float32[4]")
add("set.tensor.0d", "x[0] = y\nreturn x", "float32[3,4]", "float32[]")
add("set.tensor.one", "x[1:] = y\nreturn x", "float32[3,4]", "float32[1]")
add("set.tensor.bcast_row", "x[1:] = y\nreturn x", "float32[3,4]", "float32[4]")
add("set.tensor.bcast_2d", "x[1:] = y\nreturn x", "float32[3,4]", "float32[1,4]")
add("set.tensor.col", "x[:, 0] = y\nreturn x", "float32[3,4]", "float32[3]")
add("set.tensor.col_2d", "x[:, 1:3] = y\nreturn x", "float32[3,4]", "float32[3,1]")
add("set.tensor.block", "x[1:, 1:3] = y\nreturn x", "int64[3,4]", "int64[2,2]")
add("set.tensor.steps", "x[::-1, ::2] = y\nreturn x", "float32[3,4]", "float32[3,2]")
add("set.tensor.full", "x[...] = y\nreturn x", "float32[3,4]", "float32[3,4]")
add("set.tensor.none", "x[None, 0] = y\nreturn x", "float32[3,4]", "float32[1,4]")
add("set.tensor.same_elem", "x[0, 1] = y\nreturn x", "float32[3,4]", "float32[]")
add("set.tensor.elem_1", "x[0, 1] = y\nreturn x", "float32[3,4]", "float32[1]")
for a, b in (("float32", "float64"), ("float64", "float32"), ("float32", "int64"),
             ("int64", "float32"), ("int32", "int64"), ("bool", "float32"),
             ("float32", "bool"), ("int64", "bool")):
    add(f"set.tensor.dtype.{a}.{b}", "x[0] = y\nreturn x", f"{a}[3,4]", f"{b}[4]")
add("set.tensor.bad_shape", "x[0] = y\nreturn x", "float32[3,4]", "float32[3]")
add("set.tensor.bad_bcast", "x[1:] = y\nreturn x", "float32[3,4]", "float32[3,4]")

# numpy values
add("set.np.row", "x[0] = np.array([1.0, 2.0, 3.0, 4.0])\nreturn x", "float32[3,4]")
add("set.np.row_float32", "x[0] = np.array([1, 2, 3, 4], 'float32')\nreturn x",
    "float32[3,4]")
add("set.np.col_int", "x[:, 0] = np.array([1, 2, 3])\nreturn x", "float32[3,4]")
add("set.np.into_int", "x[1] = np.array([1.5, -2.5, 3.0, 0.0])\nreturn x", "int64[3,4]")
add("set.np.bcast", "x[1:] = np.array([[9, 8, 7, 6]])\nreturn x", "int32[3,4]")
add("set.np.scalar_array", "x[0, 0] = np.array(3.5)\nreturn x", "float64[3,4]")
add("set.np.np_float", "x[0] = np.float32(2.5)\nreturn x", "float32[3,4]",
    paddle_bug=NP_SCALAR, want="np.where(np.arange(3)[:, None] == 0, np.float32(2.5), x)")
add("set.np.np_int", "x[0] = np.int64(4)\nreturn x", "int64[3,4]",
    paddle_bug=NP_SCALAR, want="np.where(np.arange(3)[:, None] == 0, np.int64(4), x)")
add("set.np.bool", "x[0] = np.array([True, False, True, False])\nreturn x", "bool[3,4]")
add("set.np.bad_shape", "x[0] = np.array([1.0, 2.0])\nreturn x", "float32[3,4]")

# advanced indices
for dt in DTYPES:
    v = "True" if dt == "bool" else "0"
    bug, want = (BOOL_MASK_SET, "np.where(y, True, x)") if dt == "bool" else ("", "")
    add(f"set.mask.{dt}", f"x[y] = {v}\nreturn x", f"{dt}[3,4]", "bool[3,4]", paddle_bug=bug,
        want=want)
add("set.mask.float_value", "x[y] = 2.5\nreturn x", "float32[3,4]", "bool[3,4]")
add("set.mask.compare", "x[x > 0] = 0.0\nreturn x", "float32[3,4]")
add("set.mask.compare_int", "x[x < 0] = -x[x < 0]\nreturn x", "int64[3,4]",
    paddle_bug=MASK_VALUES, want="np.where(x < 0, -x, x)")
add("set.mask.values_in_order", "x[y] = x[y] * 2.0\nreturn x", "float32[3,4]", "bool[3,4]",
    paddle_bug=MASK_VALUES, want="np.where(y, x * 2.0, x)")
add("set.mask.rows", "x[y] = 1.0\nreturn x", "float32[3,4]", "bool[3]")
add("set.mask.rows_tensor", "x[y] = z\nreturn x", "float32[3,4]", "bool[3]", "float32[4]")
add("set.mask.tensor_1", "x[y] = z\nreturn x", "float32[3,4]", "bool[3,4]", "float32[1]")
add("set.mask.tensor_0d", "x[y] = z\nreturn x", "float32[3,4]", "bool[3,4]", "float32[]")
add("set.mask.cols", "x[:, y] = -1.0\nreturn x", "float32[3,4]", "bool[4]")
add("set.mask.3d_2d", "x[y] = 0.5\nreturn x", "float32[2,3,4]", "bool[2,3]")
add("set.mask.none", "x[x > 100] = 1.0\nreturn x", "float32[3,4]")
add("set.mask.0d", "x[y] = 1.0\nreturn x", "float32[3,4]", "bool[]")
add("set.mask.bad_shape", "x[y] = 1.0\nreturn x", "float32[3,4]", "bool[4]")

for dt in ("int64", "int32"):
    add(f"set.index.{dt}", "x[y] = 1.0\nreturn x", "float32[3,4]", f"{dt}[2]|idx3")
    add(f"set.index_col.{dt}", "x[:, y] = 1.0\nreturn x", "float32[3,4]", f"{dt}[2]|idx4")
    add(f"set.index_0d.{dt}", "x[y] = 1.0\nreturn x", "float32[3,4]", f"{dt}[]|idx3")
add("set.index.tensor_value", "x[y] = z\nreturn x", "float32[3,4]", "int64[2]|idx3",
    "float32[4]")
add("set.index.tensor_value_rows", "x[y] = z\nreturn x", "float32[3,4]",
    "int64[2]|idx3", "float32[2,4]")
add("set.index.two", "x[y, z] = 0.0\nreturn x", "float32[3,4]", "int64[2]|idx3",
    "int64[2]|idx4")
add("set.index.int_value", "x[y] = 9\nreturn x", "int64[3,4]", "int64[2]|idx3")
add("set.index.bool_x", "x[y] = False\nreturn x", "bool[3,4]", "int64[2]|idx3")
add("set.index.3d_mid", "x[:, y] = 0.0\nreturn x", "float32[2,3,4]", "int64[2]|idx3")
add("set.index.3d_last", "x[..., y] = 0.0\nreturn x", "float32[2,3,4]", "int64[2]|idx4")
add("set.index.3d_mid_tensor", "x[:, y] = z\nreturn x", "float32[2,3,4]",
    "int64[2]|idx3", "float32[4]")
add("set.index.3d_apart", "x[y, :, z] = 0.0\nreturn x", "float32[2,3,4]",
    "int64[2]|idx2", "int64[2]|idx4")
add("set.index.int_and_tensor", "x[1, y] = 0.0\nreturn x", "float32[3,4]", "int64[2]|idx4")
add("set.index.tensor_and_slice", "x[y, 1:] = 0.0\nreturn x", "float32[3,4]",
    "int64[2]|idx3")
add("set.index.bad_range", "x[y + 3] = 0.0\nreturn x", "float32[3,4]", "int64[2]|idx3",
    paddle_bug="Paddle 2.6.2 aborts (SIGABRT) writing at an out-of-range index tensor",
    want="error")

LISTS = {"list": "x[[0, 2]]", "list_neg": "x[[-1, 0]]", "list_col": "x[:, [0, 2]]",
         "list_list": "x[[0, 2], [1, 3]]", "list_bool": "x[[True, False, True]]",
         "int_list": "x[1, [0, 2]]", "list_slice": "x[[0, 2], 1:]",
         "list_ellipsis": "x[..., [1, 3]]", "ndarray": "x[np.array([1, 2])]"}
for name, lhs in LISTS.items():
    add(f"set.{name}.float", f"{lhs} = 7.5\nreturn x", "float32[3,4]")
add("set.list.int", "x[[0, 2]] = 7\nreturn x", "int64[3,4]")
add("set.list.tensor_value", "x[[0, 2]] = y\nreturn x", "float32[3,4]", "float32[4]")
add("set.list_col.tensor_value", "x[:, [0, 2]] = y\nreturn x", "float32[3,4]",
    "float32[3,1]")
add("set.list.np_value", "x[[0, 2]] = np.array([1.0, 2.0, 3.0, 4.0])\nreturn x",
    "float32[3,4]")

# gradients through writes (on a non-leaf copy)
add("set.grad.scalar", "y = x * 1.0\ny[0] = 5.0\nreturn y", "float32[3,4]", grad=True)
add("set.grad.tensor", "w = x * 1.0\nw[1:, 1] = y\nreturn w", "float32[3,4]",
    "float32[2]", grad=True)
add("set.grad.tensor_bcast", "w = x * 1.0\nw[:, 0] = y\nreturn w", "float32[3,4]",
    "float32[1]", grad=True)
add("set.grad.mask", "w = x * 1.0\nw[w > 0] = 0.0\nreturn w", "float32[3,4]", grad=True)

# reads after writes: the write is visible to later reads
add("set.then_get", "x[0] = 1.0\nreturn x[0] + x[1]", "float32[3,4]")
add("set.twice", "x[0] = 1.0\nx[:, 0] = 2.0\nreturn x", "float32[3,4]")

# bad writes
add("set.bad_int", "x[3] = 1.0\nreturn x", "float32[3,4]")
add("set.bad_too_many", "x[0, 0, 0] = 1.0\nreturn x", "float32[3,4]")
add("set.bad_value_type", "x[0] = 'a'\nreturn x", "float32[3,4]")
add("set.bad_value_none", "x[0] = None\nreturn x", "float32[3,4]")
