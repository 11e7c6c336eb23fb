"""Shape manipulation and search functions: reshape/transpose/concat/stack/
split/squeeze/flatten/flip/roll/tile/expand/broadcast, gather/scatter and
friends, where/nonzero/masked_*, topk, slice/strided_slice, moveaxis,
index_put, cast/astype, clip, numel.  Each as ``paddle.<fn>`` and as the
Tensor method where Paddle has one, over float32/float64/int32/int64/bool
where the op takes them, with 0-d and empty inputs, negative axes, shapes
and axes given as tensors, and the bad inputs Paddle rejects.
"""
from spec import C

DTYPES = ("float32", "float64", "int32", "int64", "bool")
NUM = ("float32", "float64", "int32", "int64")
FLOAT = ("float32", "float64")

CASES = []

# Paddle 2.6.2 bugs (README, "Where sampan deliberately differs")
NOT_PERM = ("Paddle 2.6.2's eager transpose takes a perm shorter than the rank and permutes "
            "the leading dims; a perm must be a permutation of all dims (numpy, and Paddle's "
            "own static mode, raise)")
TUPLE_AXES = "Paddle 2.6.2's moveaxis raises TypeError on tuples (it assigns into them)"
EMPTY_CONCAT = "Paddle 2.6.2 crashes (SIGSEGV) concatenating two empty tensors"
EMPTY_STACK = "Paddle 2.6.2 raises stacking empty tensors (a valid stack of 0-size inputs)"
NEG_GATHER_AXIS = ("Paddle 2.6.2's gather reads a negative axis as axis 0 in its index check "
                   "and raises on valid indices")
EMPTY_INDEX_SELECT = ("Paddle 2.6.2's index_select rejects an empty index (gather takes it): "
                      "the result is empty")
FLOAT_INDEX = ("Paddle 2.6.2's eager take_along_axis reads a float32 index as integers and "
               "returns garbage; an index must be an integer tensor")
EMPTY_SLICE = ("Paddle 2.6.2's slice raises when end < start; Python slicing gives an empty "
               "result")
SLICE_AXIS = "Paddle 2.6.2's slice ignores an out-of-range axis and returns a wrong shape"
STRIDE_CLAMP = ("Paddle 2.6.2's strided_slice clamps a negative-stride end below -dim to 0 "
                "(dropping element 0); Python slicing runs to the start")
F16_ROUND = ("Paddle 2.6.2's CPU cast to float16 truncates instead of rounding to nearest "
             "(numpy's and IEEE's rule)")


def add(id, code, *args, **kw):
    CASES.append(C(id, code, *args, **kw))


def grid(name, code, shapes, dtypes=DTYPES, **kw):
    """One case per dtype: every argument whose spec starts with ``@`` takes it."""
    for dt in dtypes:
        args = [s.replace("@", dt) for s in shapes]
        add(f"{name}.{dt}", code, *args, **kw)


# ------------------------------------------------------------ reshape
grid("reshape.list", "paddle.reshape(x, [3, 2])", ["@[2,3]"])
add("reshape.tuple", "paddle.reshape(x, (6,))", "float32[2,3]")
add("reshape.neg1", "paddle.reshape(x, [-1, 2])", "float32[2,3]", grad=True)
add("reshape.zero_copy", "paddle.reshape(x, [0, -1])", "int64[2,3,4]")
add("reshape.zero_copy_mid", "paddle.reshape(x, [-1, 0, 2])", "float32[2,3,4]")
add("reshape.to_0d", "paddle.reshape(x, [])", "float32[1,1]")
add("reshape.from_0d", "paddle.reshape(x, [1, 1])", "int32[]")
add("reshape.from_0d_neg1", "paddle.reshape(x, [-1])", "float64[]")
add("reshape.empty", "paddle.reshape(x, [3, 0])", "float32[0,3]")
add("reshape.empty_neg1", "paddle.reshape(x, [-1, 3])", "float32[0,3]")
add("reshape.shape_tensor", "paddle.reshape(x, paddle.shape(y))", "float32[2,3]",
    "float32[3,2]")
add("reshape.shape_list_tensor", "paddle.reshape(x, [paddle.full([], 3, 'int32'), 2])",
    "float32[2,3]")
add("reshape.shape_list_tensor_neg1",
    "paddle.reshape(x, [paddle.full([1], 2, 'int64'), -1])", "int64[2,3]")
add("reshape.shape_from_other", "paddle.reshape(x, [y.shape[0], -1])", "float32[2,3]",
    "float32[3,5]")
add("reshape.method", "x.reshape([3, 2])", "float32[2,3]")
add("reshape.method_tuple", "x.reshape((-1,))", "bool[2,3]")
add("reshape.method_varargs_list", "x.reshape([1, -1, 3])", "int32[2,3]")
add("reshape.bad_numel", "paddle.reshape(x, [4, 2])", "float32[2,3]")
add("reshape.bad_two_neg1", "paddle.reshape(x, [-1, -1])", "float32[2,3]")
add("reshape.bad_neg2", "paddle.reshape(x, [-2, 3])", "float32[2,3]")
add("reshape_.fn", "y = paddle.reshape_(x, [3, 2])\nreturn y", "float32[2,3]")
add("reshape_.method_returns_x", "x.reshape_([3, 2])\nreturn x", "float32[2,3]")
add("reshape_.method_int", "x.reshape_([-1])\nreturn x", "int64[2,3]")

# ------------------------------------------------------------ transpose / moveaxis
grid("transpose.2d", "paddle.transpose(x, [1, 0])", ["@[2,3]"])
add("transpose.3d", "paddle.transpose(x, [2, 0, 1])", "float32[2,3,4]", grad=True)
add("transpose.neg_perm", "paddle.transpose(x, [-1, 0, 1])", "float32[2,3,4]")
add("transpose.tuple_perm", "paddle.transpose(x, (1, 0, 2))", "int64[2,3,4]")
add("transpose.0d", "paddle.transpose(x, [])", "float32[]")
add("transpose.empty", "paddle.transpose(x, [1, 0])", "float32[0,3]")
add("transpose.method", "x.transpose([1, 0])", "float32[2,3]")
add("transpose.T", "x.T", "float32[2,3,4]")
add("transpose.bad_repeat", "paddle.transpose(x, [0, 0, 1])", "float32[2,3,4]")
add("transpose.bad_len", "paddle.transpose(x, [1, 0])", "float32[2,3,4]",
    paddle_bug=NOT_PERM, want="error")
add("transpose.bad_range", "paddle.transpose(x, [0, 3])", "float32[2,3]")

grid("moveaxis.single", "paddle.moveaxis(x, 0, 2)", ["@[2,3,4]"], dtypes=("float32", "int64",
                                                                          "bool"))
add("moveaxis.neg", "paddle.moveaxis(x, -1, 0)", "float32[2,3,4]", grad=True)
add("moveaxis.lists", "paddle.moveaxis(x, [0, 1], [2, 0])", "float32[2,3,4]")
add("moveaxis.tuples", "paddle.moveaxis(x, (0, 2), (-1, -3))", "int32[2,3,4]",
    paddle_bug=TUPLE_AXES, want="np.moveaxis(x, (0, 2), (-1, -3))")
add("moveaxis.method", "x.moveaxis(1, 0)", "float32[2,3]")
add("moveaxis.noop", "paddle.moveaxis(x, 1, 1)", "float32[2,3]")
add("moveaxis.bad_len", "paddle.moveaxis(x, [0, 1], [1])", "float32[2,3]")
add("moveaxis.bad_range", "paddle.moveaxis(x, 2, 0)", "float32[2,3]")
add("moveaxis.bad_dst", "paddle.moveaxis(x, 0, 2)", "float32[2,3]")
add("moveaxis.bad_repeat", "paddle.moveaxis(x, [0, 0], [1, 2])", "float32[2,3,4]")

# ------------------------------------------------------------ concat / stack
grid("concat.axis0", "paddle.concat([x, y])", ["@[2,3]", "@[1,3]"])
grid("concat.axis_neg", "paddle.concat([x, y], axis=-1)", ["@[2,3]", "@[2,2]"],
     dtypes=("float32", "int64", "bool"))
add("concat.three", "paddle.concat([x, y, z], axis=1)", "float32[2,1]", "float32[2,2]",
    "float32[2,3]", grad=True)
add("concat.tuple", "paddle.concat((x, y), 0)", "int32[2]", "int32[3]")
add("concat.single", "paddle.concat([x], 0)", "float32[2,3]")
add("concat.axis_tensor", "paddle.concat([x, y], axis=paddle.full([], 1, 'int64'))",
    "float32[2,3]", "float32[2,2]")
add("concat.empty_part", "paddle.concat([x, y])", "float32[0,3]", "float32[2,3]")
add("concat.both_empty", "paddle.concat([x, y], axis=1)", "float32[0,3]", "float32[0,2]",
    paddle_bug=EMPTY_CONCAT, want="np.concatenate([x, y], axis=1)")
add("concat.3d_axis1", "paddle.concat([x, y], 1)", "float64[2,1,3]", "float64[2,2,3]")
for a, b in (("float32", "float64"), ("int32", "int64"), ("float32", "int64"),
             ("int64", "float32"), ("bool", "int64"), ("float64", "float32")):
    add(f"concat.mixed.{a}.{b}", "paddle.concat([x, y])", f"{a}[2,3]", f"{b}[1,3]")
add("concat.bad_rank", "paddle.concat([x, y])", "float32[2,3]", "float32[3]")
add("concat.bad_shape", "paddle.concat([x, y])", "float32[2,3]", "float32[2,4]")
add("concat.bad_axis", "paddle.concat([x, y], axis=2)", "float32[2,3]", "float32[2,3]")
add("concat.bad_0d", "paddle.concat([x, y])", "float32[]", "float32[]")

grid("stack.axis0", "paddle.stack([x, y])", ["@[2,3]", "@[2,3]"])
add("stack.axis1", "paddle.stack([x, y, z], axis=1)", "float32[2,3]", "float32[2,3]",
    "float32[2,3]", grad=True)
add("stack.axis_neg", "paddle.stack([x, y], axis=-1)", "int64[2,3]", "int64[2,3]")
add("stack.0d", "paddle.stack([x, y])", "float32[]", "float32[]")
add("stack.single", "paddle.stack([x])", "int32[3]")
add("stack.tuple", "paddle.stack((x, y), 0)", "float64[3]", "float64[3]")
add("stack.empty", "paddle.stack([x, y])", "float32[0,3]", "float32[0,3]",
    paddle_bug=EMPTY_STACK, want="np.stack([x, y])")
add("stack.bad_shape", "paddle.stack([x, y])", "float32[2,3]", "float32[3,2]")
add("stack.bad_axis", "paddle.stack([x, y], axis=3)", "float32[2,3]", "float32[2,3]")
add("stack.mixed", "paddle.stack([x, y])", "float32[2,3]", "float64[2,3]")

# ------------------------------------------------------------ split / chunk / unbind / unstack
grid("split.num", "paddle.split(x, 2, axis=1)", ["@[3,4]"])
add("split.num_axis0", "paddle.split(x, 3)", "float32[3,4]", grad=True)
add("split.sections", "paddle.split(x, [1, 3], axis=1)", "float32[3,4]")
add("split.sections_neg1", "paddle.split(x, [1, -1], axis=-1)", "int64[3,4]")
add("split.sections_neg1_first", "paddle.split(x, [-1, 2, 1])", "float64[6,2]")
add("split.sections_tuple", "paddle.split(x, (2, 2), axis=1)", "float32[3,4]")
add("split.sections_tensor", "paddle.split(x, [paddle.full([], 1, 'int32'), 3], axis=1)",
    "float32[3,4]")
add("split.axis_tensor", "paddle.split(x, 2, axis=paddle.full([], 1, 'int32'))",
    "float32[3,4]")
add("split.axis_neg", "paddle.split(x, 2, axis=-1)", "bool[3,4]")
add("split.num1", "paddle.split(x, 1)", "float32[3,4]")
add("split.zero_section", "paddle.split(x, [0, 4], axis=1)", "float32[3,4]")
add("split.method", "x.split(2, axis=1)", "float32[3,4]")
add("split.method_sections", "x.split([3, 1], 1)", "int32[3,4]")
add("split.bad_indivisible", "paddle.split(x, 3, axis=1)", "float32[3,4]")
add("split.bad_sum", "paddle.split(x, [1, 2], axis=1)", "float32[3,4]")
add("split.bad_two_neg1", "paddle.split(x, [-1, -1], axis=1)", "float32[3,4]")
add("split.bad_axis", "paddle.split(x, 2, axis=2)", "float32[3,4]")
add("split.bad_axis_neg", "paddle.split(x, 2, axis=-3)", "float32[3,4]")

grid("chunk.axis1", "paddle.chunk(x, 2, axis=1)", ["@[3,4]"], dtypes=("float32", "int64",
                                                                       "bool"))
add("chunk.axis0", "paddle.chunk(x, 3)", "float32[3,4]")
add("chunk.axis_neg", "paddle.chunk(x, 4, axis=-1)", "float64[3,4]")
add("chunk.method", "x.chunk(2, axis=1)", "float32[3,4]")
add("chunk.bad_indivisible", "paddle.chunk(x, 3, axis=1)", "float32[3,4]")
add("chunk.bad_axis", "paddle.chunk(x, 2, axis=2)", "float32[3,4]")

grid("unbind.axis0", "paddle.unbind(x)", ["@[3,4]"])
add("unbind.axis1", "paddle.unbind(x, axis=1)", "float32[3,4]", grad=True)
add("unbind.axis_neg", "paddle.unbind(x, -1)", "int64[2,3,2]")
add("unbind.1d", "paddle.unbind(x)", "float32[3]")
add("unbind.method", "x.unbind(1)", "float32[3,2]")
add("unbind.bad_axis", "paddle.unbind(x, 2)", "float32[3,4]")

grid("unstack.axis0", "paddle.unstack(x)", ["@[3,4]"], dtypes=("float32", "int64", "bool"))
add("unstack.axis1", "paddle.unstack(x, axis=1)", "float32[3,4]", grad=True)
add("unstack.axis_neg", "paddle.unstack(x, axis=-1)", "float64[2,3]")
add("unstack.num", "paddle.unstack(x, axis=0, num=3)", "float32[3,4]")
add("unstack.method", "x.unstack(1)", "int32[2,3]")
add("unstack.bad_axis", "paddle.unstack(x, 2)", "float32[3,4]")
add("unstack.bad_axis_neg", "paddle.unstack(x, -3)", "float32[3,4]")

# ------------------------------------------------------------ squeeze / unsqueeze / flatten
grid("squeeze.all", "paddle.squeeze(x)", ["@[1,3,1]"])
add("squeeze.axis", "paddle.squeeze(x, axis=0)", "float32[1,3,1]", grad=True)
add("squeeze.axis_neg", "paddle.squeeze(x, axis=-1)", "int64[1,3,1]")
add("squeeze.axis_list", "paddle.squeeze(x, axis=[0, 2])", "float32[1,3,1]")
add("squeeze.axis_tuple", "paddle.squeeze(x, axis=(0, -1))", "float32[1,3,1]")
add("squeeze.not_one", "paddle.squeeze(x, axis=1)", "float32[1,3,1]")
add("squeeze.0d", "paddle.squeeze(x)", "float32[]")
add("squeeze.0d_axis0", "paddle.squeeze(x, 0)", "float32[]")
add("squeeze.to_0d", "paddle.squeeze(x)", "int32[1,1]")
add("squeeze.empty", "paddle.squeeze(x, 1)", "float32[0,1,2]")
add("squeeze.method", "x.squeeze(0)", "float32[1,3]")
add("squeeze.bad_axis", "paddle.squeeze(x, 3)", "float32[1,3,1]")
add("squeeze_.fn", "y = paddle.squeeze_(x, 0)\nreturn y", "float32[1,3]")
add("squeeze_.method_returns_x", "x.squeeze_()\nreturn x", "int64[1,3,1]")

grid("unsqueeze.int", "paddle.unsqueeze(x, 0)", ["@[2,3]"])
add("unsqueeze.neg", "paddle.unsqueeze(x, -1)", "float32[2,3]", grad=True)
add("unsqueeze.list", "paddle.unsqueeze(x, [0, 2])", "float32[2,3]")
add("unsqueeze.list_neg", "paddle.unsqueeze(x, [-1, 0])", "int64[2,3]")
add("unsqueeze.tuple", "paddle.unsqueeze(x, (1,))", "float32[2,3]")
add("unsqueeze.0d", "paddle.unsqueeze(x, 0)", "float32[]")
add("unsqueeze.0d_list", "paddle.unsqueeze(x, [0, 1])", "bool[]")
add("unsqueeze.empty", "paddle.unsqueeze(x, 1)", "float32[0,3]")
add("unsqueeze.axis_tensor", "paddle.unsqueeze(x, paddle.full([1], 1, 'int32'))",
    "float32[2,3]")
add("unsqueeze.axis_tensor_list", "paddle.unsqueeze(x, [paddle.full([], 0, 'int32'), 2])",
    "float32[2,3]")
add("unsqueeze.method", "x.unsqueeze(1)", "float32[2,3]")
add("unsqueeze.bad_axis", "paddle.unsqueeze(x, 4)", "float32[2,3]")
add("unsqueeze.bad_axis_neg", "paddle.unsqueeze(x, -4)", "float32[2,3]")
add("unsqueeze_.fn", "y = paddle.unsqueeze_(x, 0)\nreturn y", "float32[2,3]")
add("unsqueeze_.method_returns_x", "x.unsqueeze_(-1)\nreturn x", "int32[2,3]")

grid("flatten.all", "paddle.flatten(x)", ["@[2,3,4]"])
add("flatten.range", "paddle.flatten(x, start_axis=1, stop_axis=2)", "float32[2,3,4,5]",
    grad=True)
add("flatten.neg", "paddle.flatten(x, 0, -2)", "int64[2,3,4]")
add("flatten.same", "paddle.flatten(x, 1, 1)", "float32[2,3,4]")
add("flatten.0d", "paddle.flatten(x)", "float32[]")
add("flatten.1d", "paddle.flatten(x)", "float32[5]")
add("flatten.empty", "paddle.flatten(x, 1)", "float32[2,0,3]")
add("flatten.method", "x.flatten(1)", "float32[2,3,4]")
add("flatten.bad_order", "paddle.flatten(x, 2, 1)", "float32[2,3,4]")
add("flatten.bad_axis", "paddle.flatten(x, 0, 3)", "float32[2,3,4]")
add("flatten_.method_returns_x", "x.flatten_(1)\nreturn x", "float32[2,3,4]")
add("flatten_.method_result", "return x.flatten_()", "int64[2,3]")

# ------------------------------------------------------------ flip / roll / tile
grid("flip.axis0", "paddle.flip(x, 0)", ["@[2,3]"])
add("flip.list", "paddle.flip(x, [0, 1])", "float32[2,3]", grad=True)
add("flip.neg", "paddle.flip(x, -1)", "int64[2,3,2]")
add("flip.tuple", "paddle.flip(x, (0, 2))", "float64[2,3,2]")
add("flip.empty", "paddle.flip(x, 0)", "float32[0,3]")
add("flip.method", "x.flip([1])", "float32[2,3]")
add("flip.bad_axis", "paddle.flip(x, 2)", "float32[2,3]")

grid("roll.flat", "paddle.roll(x, 2)", ["@[2,3]"])
add("roll.axis", "paddle.roll(x, 1, axis=1)", "float32[2,3]", grad=True)
add("roll.neg_shift", "paddle.roll(x, -1, axis=0)", "int64[3,2]")
add("roll.neg_axis", "paddle.roll(x, 1, axis=-1)", "float32[2,3]")
add("roll.lists", "paddle.roll(x, [1, 2], axis=[0, 1])", "float32[2,3]")
add("roll.big_shift", "paddle.roll(x, 7, axis=1)", "float32[2,3]")
add("roll.0d", "paddle.roll(x, 1)", "float32[]")
add("roll.shift_tensor", "paddle.roll(x, paddle.full([1], 1, 'int64'), axis=1)",
    "float32[2,3]")
add("roll.method", "x.roll(1, 0)", "float32[2,3]")
add("roll.bad_axis", "paddle.roll(x, 1, axis=2)", "float32[2,3]")
add("roll.bad_len", "paddle.roll(x, [1, 2], axis=[0])", "float32[2,3]")

grid("tile.list", "paddle.tile(x, [2, 1])", ["@[2,3]"])
add("tile.more_dims", "paddle.tile(x, [2, 1, 2])", "float32[2,3]", grad=True)
add("tile.fewer_dims", "paddle.tile(x, [2])", "float32[2,3]")
add("tile.tuple", "paddle.tile(x, (1, 3))", "int64[2,3]")
add("tile.0d", "paddle.tile(x, [3])", "float32[]")
add("tile.tensor", "paddle.tile(x, paddle.full([2], 2, 'int32'))", "float32[2,3]")
add("tile.tensor_list", "paddle.tile(x, [paddle.full([], 2, 'int32'), 1])", "float32[2,3]")
add("tile.method", "x.tile([1, 2])", "float32[2,3]")
add("tile.bad_zero", "paddle.tile(x, [0, 1])", "float32[2,3]")
add("tile.bad_neg", "paddle.tile(x, [-1, 1])", "float32[2,3]")

# ------------------------------------------------------------ expand / broadcast
grid("expand.basic", "paddle.expand(x, [2, 3])", ["@[1,3]"])
add("expand.new_dims", "paddle.expand(x, [2, 2, 3])", "float32[3]", grad=True)
add("expand.neg1", "paddle.expand(x, [2, -1])", "float32[1,3]")
add("expand.tuple", "paddle.expand(x, (4, 3))", "int64[1,3]")
add("expand.0d", "paddle.expand(x, [2, 2])", "float32[]")
add("expand.same", "paddle.expand(x, [2, 3])", "float32[2,3]")
add("expand.tensor", "paddle.expand(x, paddle.full([2], 3, 'int32'))", "float32[1,3]")
add("expand.tensor_list", "paddle.expand(x, [paddle.full([], 2, 'int32'), 3])",
    "float32[1,3]")
add("expand.method", "x.expand([2, 3])", "float32[3]")
add("expand.bad", "paddle.expand(x, [2, 4])", "float32[1,3]")
add("expand.bad_rank", "paddle.expand(x, [3])", "float32[2,3]")

grid("broadcast_to.basic", "paddle.broadcast_to(x, [2, 3])", ["@[1,3]"],
     dtypes=("float32", "int64", "bool"))
add("broadcast_to.new_dims", "paddle.broadcast_to(x, shape=[2, 2, 3])", "float32[3]",
    grad=True)
add("broadcast_to.method", "x.broadcast_to([2, 3])", "int32[3]")
add("broadcast_to.bad", "paddle.broadcast_to(x, [2, 4])", "float32[1,3]")

grid("expand_as.basic", "paddle.expand_as(x, y)", ["@[1,3]", "@[2,3]"])
add("expand_as.other_dtype", "paddle.expand_as(x, y)", "float32[3]", "int64[2,3]", grad=True)
add("expand_as.method", "x.expand_as(y)", "float32[3]", "float32[2,3]")
add("expand_as.bad", "paddle.expand_as(x, y)", "float32[2]", "float32[2,3]")

grid("broadcast_tensors.basic", "paddle.broadcast_tensors([x, y])", ["@[2,1]", "@[1,3]"],
     dtypes=("float32", "int64", "bool"))
add("broadcast_tensors.three", "paddle.broadcast_tensors([x, y, z])", "float32[3]",
    "float32[2,1]", "float32[1,1,1]", grad=True)
add("broadcast_tensors.mixed", "paddle.broadcast_tensors([x, y])", "float32[3]",
    "int64[2,3]")
add("broadcast_tensors.same", "paddle.broadcast_tensors([x, y])", "float32[2,3]",
    "float32[2,3]")
add("broadcast_tensors.0d", "paddle.broadcast_tensors([x, y])", "float32[]", "float32[2]")
add("broadcast_tensors.bad", "paddle.broadcast_tensors([x, y])", "float32[2]", "float32[3]")

# ------------------------------------------------------------ gather family
grid("gather.axis0", "paddle.gather(x, y)", ["@[4,3]", "int64[3]|idx4"])
add("gather.int32_index", "paddle.gather(x, y)", "float32[4,3]", "int32[2]|idx4")
add("gather.axis1", "paddle.gather(x, y, axis=1)", "float32[4,3]", "int64[5]|idx3",
    grad=True)
add("gather.axis_neg", "paddle.gather(x, y, axis=-1)", "int64[4,3]", "int64[2]|idx3",
    paddle_bug=NEG_GATHER_AXIS, want="np.take(x, y, axis=-1)")
add("gather.axis_tensor", "paddle.gather(x, y, axis=paddle.full([], 1, 'int64'))",
    "float32[4,3]", "int64[2]|idx3")
add("gather.index_0d", "paddle.gather(x, y)", "float32[4,3]", "int64[]|idx4")
add("gather.index_2d_col", "paddle.gather(x, y)", "float32[4,3]", "int64[2,1]|idx4")
add("gather.empty_index", "paddle.gather(x, y)", "float32[4,3]", "int64[0]")
add("gather.1d", "paddle.gather(x, y)", "float32[5]", "int64[3]|idx5")
add("gather.method", "x.gather(y)", "float32[4,3]", "int64[2]|idx4")
add("gather.bad_index_dtype", "paddle.gather(x, y)", "float32[4,3]", "float32[2]")
add("gather.bad_index_2d", "paddle.gather(x, y)", "float32[4,3]", "int64[2,2]|idx3")
add("gather.bad_axis", "paddle.gather(x, y, axis=2)", "float32[4,3]", "int64[2]|idx3")
add("gather.bad_axis_neg", "paddle.gather(x, y, axis=-3)", "float32[4,3]", "int64[2]|idx3")
add("gather.bad_index_axis1", "paddle.gather(x, paddle.to_tensor([0, 5]), axis=1)",
    "float32[4,3]")

grid("gather_nd.full", "paddle.gather_nd(x, y)", ["@[3,4]", "int64[2,2]|idx3"])
add("gather_nd.partial", "paddle.gather_nd(x, y)", "float32[3,4]", "int64[2,1]|idx3",
    grad=True)
add("gather_nd.int32", "paddle.gather_nd(x, y)", "float32[3,4,2]", "int32[2,2]|idx3")
add("gather_nd.batch", "paddle.gather_nd(x, y)", "int64[3,4,2]", "int64[2,2,1]|idx3")
add("gather_nd.1d", "paddle.gather_nd(x, y)", "float32[5]", "int64[3,1]|idx5")
add("gather_nd.method", "x.gather_nd(y)", "float32[3,4]", "int64[2,2]|idx3")
add("gather_nd.bad_depth", "paddle.gather_nd(x, y)", "float32[3,4]", "int64[2,3]|idx3")
add("gather_nd.bad_dtype", "paddle.gather_nd(x, y)", "float32[3,4]", "float32[2,2]")

grid("index_select.axis0", "paddle.index_select(x, y)", ["@[4,3]", "int64[3]|idx4"])
add("index_select.axis1", "paddle.index_select(x, y, axis=1)", "float32[4,3]",
    "int64[4]|idx3", grad=True)
add("index_select.axis_neg", "paddle.index_select(x, y, axis=-1)", "float64[4,3]",
    "int32[2]|idx3")
add("index_select.empty", "paddle.index_select(x, y)", "float32[4,3]", "int64[0]",
    paddle_bug=EMPTY_INDEX_SELECT, want="np.take(x, y, axis=0)")
add("index_select.method", "x.index_select(y, 1)", "float32[4,3]", "int64[2]|idx3")
add("index_select.bad_dtype", "paddle.index_select(x, y)", "float32[4,3]", "float32[2]")
add("index_select.bad_axis", "paddle.index_select(x, y, axis=2)", "float32[4,3]",
    "int64[2]|idx3")
add("index_select.bad_axis_neg", "paddle.index_select(x, y, axis=-3)", "float32[4,3]",
    "int64[2]|idx3")
add("index_select.bad_2d", "paddle.index_select(x, y)", "float32[4,3]", "int64[2,2]|idx3")

grid("index_sample.basic", "paddle.index_sample(x, y)", ["@[3,4]", "int64[3,2]|idx4"],
     dtypes=NUM)
add("index_sample.int32", "paddle.index_sample(x, y)", "float32[3,4]", "int32[3,5]|idx4",
    grad=True)
add("index_sample.method", "x.index_sample(y)", "float32[3,4]", "int64[3,2]|idx4")
add("index_sample.bad_rows", "paddle.index_sample(x, y)", "float32[3,4]", "int64[2,2]|idx4")
add("index_sample.bad_rank", "paddle.index_sample(x, y)", "float32[3,4,2]",
    "int64[3,2]|idx4")

grid("take_along_axis.axis0", "paddle.take_along_axis(x, y, 0)",
     ["@[3,4]", "int64[2,4]|idx3"])
add("take_along_axis.axis1", "paddle.take_along_axis(x, y, axis=1)", "float32[3,4]",
    "int64[3,2]|idx4", grad=True)
add("take_along_axis.axis_neg", "paddle.take_along_axis(x, y, -1)", "float32[3,4]",
    "int32[3,2]|idx4")
add("take_along_axis.broadcast", "paddle.take_along_axis(x, y, 1)", "float32[3,4]",
    "int64[1,2]|idx4")
add("take_along_axis.3d", "paddle.take_along_axis(x, y, 1)", "int64[2,3,4]",
    "int64[2,2,4]|idx3")
add("take_along_axis.method", "x.take_along_axis(y, 0)", "float32[3,4]", "int64[1,4]|idx3")
add("take_along_axis.bad_axis", "paddle.take_along_axis(x, y, 2)", "float32[3,4]",
    "int64[3,4]|idx3")
add("take_along_axis.bad_rank", "paddle.take_along_axis(x, y, 0)", "float32[3,4]",
    "int64[2]|idx3")
add("take_along_axis.bad_dtype", "paddle.take_along_axis(x, y, 0)", "float32[3,4]",
    "float32[2,4]", paddle_bug=FLOAT_INDEX, want="error")

# ------------------------------------------------------------ scatter
grid("scatter.overwrite", "paddle.scatter(x, paddle.to_tensor([2, 0]), y)",
     ["@[4,3]", "@[2,3]"], dtypes=NUM)
add("scatter.overwrite_grad", "paddle.scatter(x, paddle.to_tensor([2, 0]), y)",
    "float32[4,3]", "float32[2,3]", grad=True)
add("scatter.index_arg", "paddle.scatter(x, z, y)", "float32[4,3]", "float32[1,3]",
    "int64[1]|idx4")
add("scatter.int32_index", "paddle.scatter(x, paddle.to_tensor([1, 3], 'int32'), y)",
    "float64[4,3]", "float64[2,3]")
grid("scatter.accumulate", "paddle.scatter(x, paddle.to_tensor([1, 1, 3]), y, "
     "overwrite=False)", ["@[4,3]", "@[3,3]"], dtypes=NUM)
add("scatter.overwrite_dup", "paddle.scatter(x, paddle.to_tensor([1, 1]), y)",
    "float32[4,3]", "float32[2,3]")
add("scatter.1d", "paddle.scatter(x, paddle.to_tensor([0, 4]), y)", "float32[5]",
    "float32[2]")
add("scatter.method", "x.scatter(paddle.to_tensor([1]), y)", "float32[4,3]",
    "float32[1,3]")
add("scatter.bad_updates", "paddle.scatter(x, paddle.to_tensor([1, 2]), y)",
    "float32[4,3]", "float32[2,4]")
add("scatter.bad_index_dtype", "paddle.scatter(x, z, y)", "float32[4,3]", "float32[2,3]",
    "float32[2]")
add("scatter.bad_index", "paddle.scatter(x, paddle.to_tensor([7]), y)", "float32[4,3]",
    "float32[1,3]")
add("scatter.mixed_dtype", "paddle.scatter(x, paddle.to_tensor([1, 2]), y)", "float32[4,3]",
    "float64[2,3]")
add("scatter_.fn", "y2 = paddle.scatter_(x, paddle.to_tensor([0]), y)\nreturn y2",
    "float32[4,3]", "float32[1,3]")
add("scatter_.method_returns_x", "x.scatter_(paddle.to_tensor([2, 1]), y, overwrite=False)"
    "\nreturn x", "float32[4,3]", "float32[2,3]")

# ------------------------------------------------------------ masks / where / nonzero
grid("masked_select.same_shape", "paddle.masked_select(x, y)", ["@[3,4]", "bool[3,4]"])
add("masked_select.grad", "paddle.masked_select(x, y)", "float32[3,4]", "bool[3,4]",
    grad=True)
add("masked_select.bcast_mask", "paddle.masked_select(x, y)", "float32[3,4]", "bool[4]")
add("masked_select.bcast_x", "paddle.masked_select(x, y)", "float32[4]", "bool[3,4]")
add("masked_select.0d", "paddle.masked_select(x, y)", "float32[]", "bool[]")
add("masked_select.none", "paddle.masked_select(x, y < -10)", "float32[3,4]",
    "float32[3,4]")
add("masked_select.empty", "paddle.masked_select(x, y)", "float32[0,4]", "bool[0,4]")
add("masked_select.method", "x.masked_select(y)", "int64[3,4]", "bool[3,4]")
add("masked_select.bad_mask_dtype", "paddle.masked_select(x, y)", "float32[3,4]",
    "int32[3,4]")
add("masked_select.bad_shape", "paddle.masked_select(x, y)", "float32[3,4]", "bool[3]")

for dt, v in (("float32", "2.5"), ("float64", "-1.0"), ("int32", "7"), ("int64", "-3"),
              ("bool", "True")):
    add(f"masked_fill.scalar.{dt}", f"paddle.masked_fill(x, y, {v})", f"{dt}[3,4]",
        "bool[3,4]")
add("masked_fill.int_into_float", "paddle.masked_fill(x, y, 2)", "float32[3,4]", "bool[3,4]")
add("masked_fill.float_into_int", "paddle.masked_fill(x, y, 2.5)", "int64[3,4]", "bool[3,4]")
add("masked_fill.tensor_value", "paddle.masked_fill(x, y, z)", "float32[3,4]", "bool[3,4]",
    "float32[]")
add("masked_fill.tensor_value_1", "paddle.masked_fill(x, y, z)", "float32[3,4]", "bool[3,4]",
    "float32[1]")
add("masked_fill.bcast_mask", "paddle.masked_fill(x, y, 0.0)", "float32[3,4]", "bool[4]",
    grad=True)
add("masked_fill.method", "x.masked_fill(y, -1.0)", "float32[3,4]", "bool[3,4]")
add("masked_fill.0d", "paddle.masked_fill(x, y, 1.0)", "float32[]", "bool[]")
add("masked_fill.bad_mask_dtype", "paddle.masked_fill(x, y, 1.0)", "float32[3,4]",
    "int32[3,4]")
add("masked_fill_.fn", "z = paddle.masked_fill_(x, y, 2.0)\nreturn z", "float32[3,4]",
    "bool[3,4]")
add("masked_fill_.method_returns_x", "x.masked_fill_(y, -1)\nreturn x", "int64[3,4]",
    "bool[4]")

grid("where.same", "paddle.where(z, x, y)", ["@[2,3]", "@[2,3]", "bool[2,3]"])
add("where.grad", "paddle.where(z, x, y)", "float32[2,3]", "float32[2,3]", "bool[2,3]",
    grad=True)
add("where.bcast", "paddle.where(z, x, y)", "float32[2,3]", "float32[3]", "bool[2,1]")
add("where.bcast_grad", "paddle.where(z, x, y)", "float32[1,3]", "float32[2,1]", "bool[3]",
    grad=True)
add("where.cond_from_compare", "paddle.where(x > 0, x, y)", "float32[2,3]", "float32[2,3]")
for a, b in (("float32", "float64"), ("float64", "float32"), ("int32", "int64"),
             ("int64", "float32"), ("float32", "int32"), ("bool", "int64")):
    add(f"where.mixed.{a}.{b}", "paddle.where(z, x, y)", f"{a}[2,3]", f"{b}[2,3]",
        "bool[2,3]")
for name, xs, ys, args in (
        ("scalar_y_float", "x", "0.0", ("float32[2,3]",)),
        ("scalar_y_int", "x", "0", ("float32[2,3]",)),
        ("scalar_x_float", "1.5", "x", ("float32[2,3]",)),
        ("scalar_int_into_int", "x", "-1", ("int64[2,3]",)),
        ("scalar_float_into_int", "x", "0.5", ("int64[2,3]",)),
        ("scalar_into_int32", "x", "7", ("int32[2,3]",)),
        ("scalars_both_float", "1.0", "0.0", ()),
        ("scalars_both_int", "1", "0", ()),
        ("scalars_mixed", "1", "0.5", ())):
    cond = "x > 0" if args else "x"
    add(f"where.{name}", f"paddle.where({cond}, {xs}, {ys})", *(args or ("bool[2,3]",)),
        note="python numbers as x/y")
add("where.method", "z.where(x, y)", "float32[2,3]", "float32[2,3]", "bool[2,3]")
add("where.0d", "paddle.where(z, x, y)", "float32[]", "float32[]", "bool[]")
add("where.empty", "paddle.where(z, x, y)", "float32[0,3]", "float32[0,3]", "bool[0,3]")
add("where.bad_cond_dtype", "paddle.where(z, x, y)", "float32[2,3]", "float32[2,3]",
    "float32[2,3]")
add("where.bad_bcast", "paddle.where(z, x, y)", "float32[2,3]", "float32[4]", "bool[2,3]")
add("where_.fn", "paddle.where_(z, x, y)\nreturn x", "float32[2,3]", "float32[2,3]",
    "bool[2,3]")
add("where_.method", "z.where_(x, y)\nreturn x", "int64[2,3]", "int64[2,3]", "bool[2,3]")
add("where_.scalar", "paddle.where_(y, x, 0.0)\nreturn x", "float32[2,3]", "bool[2,3]")
for dt in DTYPES:
    add(f"where.one_arg.{dt}", "paddle.where(x)", f"{dt}[3,4]|any")
add("where.one_arg.1d", "paddle.where(x)", "bool[5]")
add("where.one_arg.0d", "paddle.where(x)", "bool[]")

for dt in DTYPES:
    add(f"nonzero.{dt}", "paddle.nonzero(x)", f"{dt}[3,4]|any")
add("nonzero.as_tuple", "paddle.nonzero(x, as_tuple=True)", "float32[3,4]|any")
add("nonzero.as_tuple_1d", "paddle.nonzero(x, as_tuple=True)", "int64[6]|any")
add("nonzero.as_tuple_3d", "paddle.nonzero(x, as_tuple=True)", "bool[2,3,2]")
add("nonzero.1d", "paddle.nonzero(x)", "int32[7]|any")
add("nonzero.0d", "paddle.nonzero(x)", "float32[]")
add("nonzero.0d_as_tuple", "paddle.nonzero(x, as_tuple=True)", "float32[]")
add("nonzero.none", "paddle.nonzero(x * 0)", "float32[3,4]")
add("nonzero.empty", "paddle.nonzero(x)", "float32[0,3]")
add("nonzero.method", "x.nonzero()", "bool[3,4]")

# ------------------------------------------------------------ topk
for dt in FLOAT:
    add(f"topk.{dt}", "paddle.topk(x, 2)", f"{dt}[3,5]|unit")
for dt in ("int32", "int64"):
    add(f"topk.{dt}", "paddle.topk(x, 2)[0]", f"{dt}[3,5]", note="values only: ties in ints")
add("topk.axis0", "paddle.topk(x, 2, axis=0)", "float32[4,3]|unit", grad=True)
add("topk.axis_neg", "paddle.topk(x, 1, axis=-2)", "float32[4,3]|unit")
add("topk.smallest", "paddle.topk(x, 3, largest=False)", "float64[2,6]|unit")
add("topk.1d", "paddle.topk(x, 3)", "float32[7]|unit")
add("topk.k_all", "paddle.topk(x, 4)", "float32[2,4]|unit")
add("topk.k_tensor", "paddle.topk(x, paddle.full([1], 2, 'int32'))", "float32[3,5]|unit")
add("topk.method", "x.topk(2)", "float32[3,5]|unit")
add("topk.0d", "paddle.topk(x, 1)", "float32[]")
add("topk.bad_k", "paddle.topk(x, 6)", "float32[3,5]|unit")
add("topk.bad_axis", "paddle.topk(x, 1, axis=2)", "float32[3,5]|unit")

# ------------------------------------------------------------ slice / strided_slice
grid("slice.basic", "paddle.slice(x, [0, 1], [0, 1], [2, 3])", ["@[3,4]"])
add("slice.grad", "paddle.slice(x, axes=[1], starts=[1], ends=[3])", "float32[3,4]",
    grad=True)
add("slice.neg", "paddle.slice(x, [1], [-3], [-1])", "float32[3,4]")
add("slice.neg_axis", "paddle.slice(x, [-1], [1], [3])", "int64[3,4]")
add("slice.beyond", "paddle.slice(x, [0], [1], [100])", "float32[3,4]")
add("slice.empty_result", "paddle.slice(x, [0], [2], [1])", "float32[3,4]",
    paddle_bug=EMPTY_SLICE, want="x[2:1]")
add("slice.tuple", "paddle.slice(x, (0,), (1,), (2,))", "float32[3,4]")
add("slice.start_tensor", "paddle.slice(x, [1], [paddle.full([], 1, 'int32')], [3])",
    "float32[3,4]")
add("slice.tensors", "paddle.slice(x, [0], paddle.full([1], 1, 'int32'), "
    "paddle.full([1], 3, 'int32'))", "float32[3,4]")
add("slice.method", "x.slice([1], [0], [2])", "float32[3,4]")
add("slice.bad_axis", "paddle.slice(x, [2], [0], [1])", "float32[3,4]",
    paddle_bug=SLICE_AXIS, want="error")
add("slice.bad_len", "paddle.slice(x, [0, 1], [0], [1])", "float32[3,4]")

grid("strided_slice.basic", "paddle.strided_slice(x, [1], [0], [4], [2])", ["@[3,4]"])
add("strided_slice.grad", "paddle.strided_slice(x, [0, 1], [0, 0], [3, 4], [2, 3])",
    "float32[3,4]", grad=True)
add("strided_slice.neg_stride", "paddle.strided_slice(x, [1], [-1], [-5], [-1])",
    "float32[3,4]", paddle_bug=STRIDE_CLAMP, want="x[:, -1:-5:-1]")
add("strided_slice.neg_stride2", "paddle.strided_slice(x, [0], [2], [-4], [-2])",
    "int64[3,4]", paddle_bug=STRIDE_CLAMP, want="x[2:-4:-2]")
add("strided_slice.neg_stride_in_range", "paddle.strided_slice(x, [1], [-1], [-4], [-1])",
    "float32[3,4]")
add("strided_slice.neg_axis", "paddle.strided_slice(x, [-1], [0], [4], [3])",
    "float32[3,4]")
add("strided_slice.method", "x.strided_slice([1], [1], [4], [2])", "float32[3,4]")
add("strided_slice.tensor_stride", "paddle.strided_slice(x, [1], [0], [4], "
    "[paddle.full([], 2, 'int32')])", "float32[3,4]")
add("strided_slice.bad_axis", "paddle.strided_slice(x, [2], [0], [1], [1])", "float32[3,4]")

# ------------------------------------------------------------ index_put
grid("index_put.ints", "paddle.index_put(x, (paddle.to_tensor([0, 2]),), y)",
     ["@[3,4]", "@[2,4]"])
add("index_put.grad", "paddle.index_put(x, (paddle.to_tensor([0, 2]),), y)",
    "float32[3,4]", "float32[2,4]", grad=True)
add("index_put.two_indices", "paddle.index_put(x, (z, w), y)", "float32[3,4]", "float32[2]",
    "int64[2]|idx3", "int64[2]|idx4")
add("index_put.bcast_value", "paddle.index_put(x, (paddle.to_tensor([1]),), y)",
    "float32[3,4]", "float32[4]")
add("index_put.scalar_value", "paddle.index_put(x, (z,), y)", "float32[3,4]", "float32[1]",
    "int64[2]|idx3")
add("index_put.bool", "paddle.index_put(x, (z,), y)", "float32[3,4]", "float32[1]",
    "bool[3,4]")
add("index_put.bool_rows", "paddle.index_put(x, (z,), y)", "float32[3,4]", "float32[4]",
    "bool[3]")
add("index_put.accumulate", "paddle.index_put(x, (paddle.to_tensor([1, 1, 0]),), y, "
    "accumulate=True)", "float32[3,4]", "float32[3,4]")
add("index_put.accumulate_int", "paddle.index_put(x, (paddle.to_tensor([2, 2]),), y, True)",
    "int64[3,4]", "int64[2,4]")
add("index_put.int32_index", "paddle.index_put(x, (z,), y)", "float32[3,4]", "float32[4]",
    "int32[2]|idx3")
add("index_put.list_indices", "paddle.index_put(x, [z], y)", "float32[3,4]", "float32[4]",
    "int64[2]|idx3")
add("index_put.method", "x.index_put((z,), y)", "float32[3,4]", "float32[4]",
    "int64[2]|idx3")
add("index_put.bad_value_dtype", "paddle.index_put(x, (z,), y)", "float32[3,4]",
    "float64[4]", "int64[2]|idx3")
add("index_put.bad_value_shape", "paddle.index_put(x, (z,), y)", "float32[3,4]",
    "float32[3]", "int64[2]|idx3")
add("index_put_.fn", "y2 = paddle.index_put_(x, (z,), y)\nreturn y2", "float32[3,4]",
    "float32[4]", "int64[2]|idx3")
add("index_put_.method_returns_x", "x.index_put_((z,), y)\nreturn x", "float32[3,4]",
    "float32[4]", "int64[2]|idx3")

# ------------------------------------------------------------ cast / astype
CAST_TO = DTYPES + ("float16", "uint8", "int8", "int16")
for a in DTYPES:
    for b in CAST_TO:
        kind = "|pos" if b == "uint8" and a != "bool" else ""
        bug = b == "float16" and a in FLOAT
        add(f"cast.{a}.{b}", f"paddle.cast(x, '{b}')", f"{a}[2,3]{kind}",
            paddle_bug=F16_ROUND if bug else "", want="x.astype('float16')" if bug else "")
    add(f"astype.{a}", f"x.astype('float64')", f"{a}[2,3]")
add("cast.dtype_object", "paddle.cast(x, paddle.int32)", "float32[2,3]")
add("cast.np_dtype", "paddle.cast(x, np.float64)", "float32[2,3]")
add("cast.grad", "paddle.cast(x, 'float64')", "float32[2,3]", grad=True)
add("cast.0d", "paddle.cast(x, 'int64')", "float32[]")
add("cast.empty", "paddle.cast(x, 'int32')", "float32[0,3]")
add("cast.same", "paddle.cast(x, 'float32')", "float32[2,3]")
add("cast.trunc_neg", "paddle.cast(x, 'int32')", "float32[2,3]|any",
    note="float -> int truncates toward zero")
add("astype.dtype_object", "x.astype(paddle.bool)", "float32[2,3]|any")
add("astype.int", "x.astype('int32')", "float64[2,3]")
add("cast.bad_dtype", "paddle.cast(x, 'float99')", "float32[2,3]")

# ------------------------------------------------------------ clip
for dt in NUM:
    lo, hi = ("-1", "2") if dt.startswith("int") else ("-0.5", "1.0")
    add(f"clip.both.{dt}", f"paddle.clip(x, {lo}, {hi})", f"{dt}[3,4]")
    add(f"clip.min.{dt}", f"paddle.clip(x, min={lo})", f"{dt}[3,4]")
    add(f"clip.max.{dt}", f"paddle.clip(x, max={hi})", f"{dt}[3,4]")
    add(f"clip.tensor.{dt}", "paddle.clip(x, y, y + z)", f"{dt}[3,4]", f"{dt}[]",
        f"{dt}[]|pos")
    add(f"clip.method.{dt}", f"x.clip({lo}, {hi})", f"{dt}[3,4]")
add("clip.grad", "paddle.clip(x, -0.5, 0.5)", "float32[3,4]", grad=True)
add("clip.none", "paddle.clip(x)", "float32[3,4]")
add("clip.float_bounds_int", "paddle.clip(x, -1.5, 2.5)", "int64[3,4]")
add("clip.int_bounds_float", "paddle.clip(x, -1, 1)", "float32[3,4]")
add("clip.tensor_min_only", "paddle.clip(x, min=y)", "float32[3,4]", "float32[1]")
add("clip.tensor_max_only", "paddle.clip(x, max=y)", "float32[3,4]", "float32[1]|pos")
add("clip.tensor_mixed", "paddle.clip(x, y, 1.0)", "float32[3,4]", "float32[]")
add("clip.0d", "paddle.clip(x, -1.0, 1.0)", "float32[]")
add("clip.empty", "paddle.clip(x, -1.0, 1.0)", "float32[0,3]")
add("clip.min_gt_max", "paddle.clip(x, 2.0, 1.0)", "float32[3,4]")
add("clip.tensor_min_gt_max", "paddle.clip(x, y + z, y)", "float32[3,4]", "float32[]",
    "float32[]|pos")
add("clip.bool", "paddle.clip(x, 0, 1)", "bool[3,4]")

# ------------------------------------------------------------ numel / shape
for dt in DTYPES:
    add(f"numel.{dt}", "paddle.numel(x)", f"{dt}[2,3]")
add("numel.0d", "paddle.numel(x)", "float32[]")
add("numel.empty", "paddle.numel(x)", "float32[0,3]")
add("numel.method", "x.numel()", "float32[2,3,4]")
add("shape.basic", "paddle.shape(x)", "float32[2,3]")
add("shape.0d", "paddle.shape(x)", "int64[]")
