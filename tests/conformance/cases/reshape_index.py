"""Triangles, diagonals, index writes and strided views: tril/triu (and their
index generators), diag/diag_embed/diagflat/diagonal and the diagonal writers,
select_scatter, rot90/reverse/t/transpose_, view/view_as/unflatten/unfold/
as_strided, vsplit, atleast_*, meshgrid, combinations, kron, repeat_interleave,
vander, take, put_along_axis (every reduce), index_add, index_fill, scatter_nd(_add),
multiplex, crop, shard_index, broadcast_shape, is_same_shape.  Over the dtypes
each op takes, with negative axes, offsets, tensor arguments, gradients and
the bad inputs Paddle rejects.

Paddle's dygraph-only functions (view, view_as, unfold, as_strided, the
Tensor-only in-place writers) raise in Paddle's static mode; sampan builds
their ops there too, and those modes are held to eager Paddle's answer.
"""
from spec import C

DTYPES = ("float32", "float64", "int32", "int64", "bool")
NUM = ("float32", "float64", "int32", "int64")
FLOAT = ("float32", "float64")

CASES = []

# Paddle 2.6.2 bugs (README, "Where sampan deliberately differs")
INDEX_FILL_INPLACE = ("Paddle 2.6.2's index_fill_ discards its transpose and fills along axis "
                      "0 whatever the axis")
MULTIPLEX_INT64 = ("Paddle 2.6.2's eager multiplex reads an int64 index as int32 and raises; "
                   "its documentation (and static mode) take int64")
INDEX_ADD_SHAPE = ("Paddle 2.6.2's index_add ignores extra rows of a value whose shape does "
                   "not match x's with the index length along axis")
AS_STRIDED_OOB = "Paddle 2.6.2's as_strided reads past the end of the input's memory"
FILL_DIAG_DTYPE = ("Paddle 2.6.2's fill_diagonal_tensor reads a float64 y's bytes as float32 "
                   "(garbage)")
VIEW_DTYPE_CRASH = "Paddle 2.6.2 crashes (SIGFPE) viewing float32 as float64"
MESHGRID_ONE_GRAD = ("Paddle 2.6.2 crashes (SIGSEGV) in backward when only one output of "
                     "meshgrid is used")
REPEAT_NEG_AXIS = "Paddle 2.6.2 crashes (SIGABRT) in repeat_interleave with int repeats and axis -1"


def add(id, code, *args, **kw):
    CASES.append(C(id, code, *args, **kw))


def grid(name, code, shapes, dtypes=DTYPES, **kw):
    """One case per dtype: every argument whose spec starts with ``@`` takes it."""
    for dt in dtypes:
        add(f"{name}.{dt}", code, *[s.replace("@", dt) for s in shapes], **kw)


# ------------------------------------------------------------ tril / triu
grid("tril.2d", "paddle.tril(x)", ["@[3,4]"])
grid("triu.2d", "paddle.triu(x)", ["@[3,4]"])
add("tril.diag_pos", "paddle.tril(x, 1)", "float32[3,4]", grad=True)
add("tril.diag_neg", "paddle.tril(x, diagonal=-1)", "float32[4,3]", grad=True)
add("triu.diag_pos", "paddle.triu(x, 2)", "float64[3,4]", grad=True)
add("triu.batch", "paddle.triu(x, -1)", "float32[2,3,4]")
add("tril.method", "x.tril(-2)", "int64[4,4]")
add("triu.method", "x.triu()", "float32[2,2]")
add("tril.empty", "paddle.tril(x)", "float32[0,3]")
add("tril.bad_rank", "paddle.tril(x)", "float32[3]")
add("tril_.fn", "paddle.tril_(x, 1)\nreturn x", "float32[3,4]")
add("triu_.method", "x.triu_(-1)\nreturn x", "int32[3,3]")
add("tril_indices.basic", "paddle.tril_indices(4, 3, 1)")
add("tril_indices.neg_int32", "paddle.tril_indices(4, 3, -1, 'int32')")
add("tril_indices.square", "paddle.tril_indices(3, 3)")
add("tril_indices.zero_rows", "paddle.tril_indices(0, 3, 0)")
add("tril_indices.negative_rows", "paddle.tril_indices(-1, 3)")
add("tril_indices.far_offset", "paddle.tril_indices(2, 3, -5)")
add("triu_indices.basic", "paddle.triu_indices(4, None, 1)")
add("triu_indices.neg", "paddle.triu_indices(3, 4, -1)")
add("triu_indices.int32", "paddle.triu_indices(3, 3, 0, dtype='int32')")
add("triu_indices.far_offset", "paddle.triu_indices(3, 3, 7)")
add("tril_indices.bad_dtype", "paddle.tril_indices(3, 3, 0, 'float32')")

# ------------------------------------------------------------ diag / diagflat / diag_embed
grid("diag.vector", "paddle.diag(x)", ["@[3]"], dtypes=NUM)
grid("diag.matrix", "paddle.diag(x)", ["@[3,4]"], dtypes=NUM)
add("diag.vector_offset_pad", "paddle.diag(x, 1, 9)", "float32[2]")
add("diag.vector_neg_offset", "paddle.diag(x, offset=-2)", "int64[3]")
add("diag.int_float_pad", "paddle.diag(x, 0, 2.7)", "int64[2]")
add("diag.matrix_neg", "paddle.diag(x, -1)", "float32[3,4]")
add("diag.matrix_edge", "paddle.diag(x, 4)", "float32[3,4]")
add("diag.method", "x.diag(1)", "float64[3,3]")
add("diag.zero_d", "paddle.diag(x)", "float32[]")
add("diag.grad_vector", "paddle.diag(x, 1)", "float32[3]", grad=True)
add("diag.grad_matrix", "paddle.diag(x, -1)", "float32[3,4]", grad=True)
add("diag.bad_rank", "paddle.diag(x)", "float32[2,2,2]")
add("diag.bad_offset", "paddle.diag(x, 5)", "float32[3,4]")
add("diag.bad_dtype", "paddle.diag(x)", "bool[2]")
grid("diagflat.vector", "paddle.diagflat(x)", ["@[3]"], dtypes=NUM)
add("diagflat.matrix", "paddle.diagflat(x, -1)", "float32[2,2]")
add("diagflat.offset", "paddle.diagflat(x, offset=2)", "int32[2]")
add("diagflat.method", "x.diagflat()", "float64[2,3]")
grid("diag_embed.basic", "paddle.diag_embed(x)", ["@[2,3]"], dtypes=NUM)
add("diag_embed.offset_dims", "paddle.diag_embed(x, 1, 0, 2)", "float32[2,2]")
add("diag_embed.neg_offset", "paddle.diag_embed(x, -1)", "float64[2,2]")
add("diag_embed.dims_swapped", "paddle.diag_embed(x, 0, -1, -2)", "float32[2,3]")
add("diag_embed.vector", "paddle.diag_embed(x, 2)", "int64[3]")
add("diag_embed.method", "x.diag_embed()", "float32[3]")
add("diag_embed.same_dims", "paddle.diag_embed(x, 1, 1, -2)", "float32[2,2]")
add("diag_embed.dim_range", "paddle.diag_embed(x, 0, 0, 3)", "float32[2,2]")
add("diag_embed.bad_dtype", "paddle.diag_embed(x)", "bool[2]")

# ------------------------------------------------------------ diagonal and its writers
grid("diagonal.2d", "paddle.diagonal(x)", ["@[3,4]"])
add("diagonal.offset_axes", "paddle.diagonal(x, 1, 2, 0)", "float32[2,3,4]", grad=True)
add("diagonal.neg_offset", "paddle.diagonal(x, -1, axis1=-1, axis2=-2)", "float64[2,3,4]",
    grad=True)
add("diagonal.offset_out", "paddle.diagonal(x, -5, 2, 0)", "float32[2,3,4]")
add("diagonal.method", "x.diagonal(offset=1)", "int64[3,3]")
add("diagonal.same_axes", "paddle.diagonal(x, 0, 0, 0)", "float32[3,4]")
add("diagonal.axis_range", "paddle.diagonal(x, 0, 0, 2)", "float32[3,4]")
add("diagonal.rank1", "paddle.diagonal(x)", "float32[3]")
grid("diagonal_scatter.2d", "paddle.diagonal_scatter(x, y)", ["@[3,4]", "@[3]"])
add("diagonal_scatter.offset", "paddle.diagonal_scatter(x, y, 1)", "float32[3,4]",
    "float32[3]")
add("diagonal_scatter.neg_offset", "paddle.diagonal_scatter(x, y, -1)", "float32[3,4]",
    "float32[2]")
add("diagonal_scatter.3d_axes01", "paddle.diagonal_scatter(x, y, 0, 0, 1)", "float32[2,3,4]",
    "float32[4,2]")
add("diagonal_scatter.3d_axes12", "paddle.diagonal_scatter(x, y, 0, 1, 2)", "float64[2,3,4]",
    "float64[2,3]")
add("diagonal_scatter.grad", "paddle.diagonal_scatter(x, y, 1)", "float32[3,4]", "float32[3]",
    grad=True)
add("diagonal_scatter.method", "x.diagonal_scatter(y)", "int64[2,2]", "int64[2]")
add("diagonal_scatter.bad_shape", "paddle.diagonal_scatter(x, y)", "float32[3,4]",
    "float32[2]")
add("diagonal_scatter.bad_dtype", "paddle.diagonal_scatter(x, y)", "float32[3,4]",
    "float64[3]", paddle_bug=FILL_DIAG_DTYPE, want="error")
add("fill_diagonal_tensor.basic", "x.fill_diagonal_tensor(y, -1)", "float32[3,4]",
    "float32[2]")
add("fill_diagonal_tensor.dims", "x.fill_diagonal_tensor(y, 0, 2, 0)", "int32[2,3,4]",
    "int32[3,2]")
add("fill_diagonal_tensor.grad", "x.fill_diagonal_tensor(y)", "float64[3,3]", "float64[3]",
    grad=True)
add("fill_diagonal_tensor.bad_y", "x.fill_diagonal_tensor(y)", "float32[3,4]",
    "float32[1,3]")
add("fill_diagonal_tensor_.inplace", "x.fill_diagonal_tensor_(y)\nreturn x", "float32[3,4]",
    "float32[3]")
for dt in ("float32", "float64", "int32", "int64", "bool"):
    add(f"fill_diagonal_.basic.{dt}", "x.fill_diagonal_(1)\nreturn x", f"{dt}[3,4]")
add("fill_diagonal_.offset", "x.fill_diagonal_(5.0, 1)\nreturn x", "float32[3,4]")
add("fill_diagonal_.neg_offset", "x.fill_diagonal_(5.0, -1)\nreturn x", "float32[3,4]")
add("fill_diagonal_.wrap", "x.fill_diagonal_(5.0, 0, True)\nreturn x", "float32[7,3]")
add("fill_diagonal_.no_wrap", "x.fill_diagonal_(5.0, 0, False)\nreturn x", "float32[7,3]")
add("fill_diagonal_.cube", "x.fill_diagonal_(5.0)\nreturn x", "float32[3,3,3]")
add("fill_diagonal_.uneven", "x.fill_diagonal_(5.0)\nreturn x", "float32[3,2,3]")
add("fill_diagonal_.int_value", "x.fill_diagonal_(5.7)\nreturn x", "int64[3,3]")
add("fill_diagonal_.returns_x", "y = x.fill_diagonal_(2.0)\nreturn y", "float64[2,2]")
add("fill_diagonal_.grad", "y = x * 1.0\ny.fill_diagonal_(0.0, 1)\nreturn y", "float32[3,4]",
    grad=True)
grid("select_scatter.row", "paddle.select_scatter(x, y, 0, 1)", ["@[3,4]", "@[4]"])
add("select_scatter.neg", "paddle.select_scatter(x, y, -1, -1)", "float32[3,4]",
    "float32[3]")
add("select_scatter.cast", "paddle.select_scatter(x, y, 0, 1)", "float32[3,4]", "int64[4]")
add("select_scatter.3d", "paddle.select_scatter(x, y, 1, 2)", "float64[2,3,4]",
    "float64[2,4]")
add("select_scatter.grad", "paddle.select_scatter(x, y, 0, 1)", "float32[3,4]", "float32[4]",
    grad=True)
add("select_scatter.method", "x.select_scatter(y, 1, 0)", "int32[3,4]", "int32[3]")
add("select_scatter.bad_shape", "paddle.select_scatter(x, y, 0, 1)", "float32[3,4]",
    "float32[3]")

# ------------------------------------------------------------ rot90 / reverse / t / transpose_
grid("rot90.k1", "paddle.rot90(x)", ["@[3,4]"])
add("rot90.k2", "paddle.rot90(x, 2)", "float32[3,4]", grad=True)
add("rot90.k3", "paddle.rot90(x, 3, [1, 2])", "float32[2,3,4]", grad=True)
add("rot90.neg_k_axes", "paddle.rot90(x, -1, [1, 0])", "int64[3,4]")
add("rot90.k4", "paddle.rot90(x, 4)", "float32[3,4]")
add("rot90.method", "x.rot90(axes=[-1, -2])", "float64[2,3]")
add("rot90.same_axes", "paddle.rot90(x, 1, [0, 0])", "float32[3,4]")
add("rot90.one_axis", "paddle.rot90(x, 1, [0])", "float32[3,4]")
add("rot90.rank1", "paddle.rot90(x)", "float32[3]")
grid("reverse.axis0", "paddle.reverse(x, 0)", ["@[3,4]"])
add("reverse.list", "paddle.reverse(x, [0, 1])", "float32[3,4]", grad=True)
add("reverse.method", "x.reverse(-1)", "int64[2,3]")
grid("t.matrix", "paddle.t(x)", ["@[3,4]"], dtypes=NUM)
add("t.vector", "paddle.t(x)", "float32[3]")
add("t.zero_d", "paddle.t(x)", "float32[]")
add("t.grad", "paddle.t(x)", "float32[2,3]", grad=True)
add("t.method", "x.t()", "int32[2,3]")
add("t.rank3", "paddle.t(x)", "float32[2,2,2]")
add("t_.fn", "paddle.t_(x)\nreturn x", "float32[3,4]")
add("t_.method", "y = x.t_()\nreturn y", "int64[2,3]")
add("transpose_.fn", "paddle.transpose_(x, [1, 0])\nreturn x", "float32[3,4]")
add("transpose_.method", "x.transpose_([2, 0, 1])\nreturn x", "int32[2,3,4]")

# ------------------------------------------------------------ view / unflatten / unfold
add("view.shape", "paddle.view(x, [4, 3])", "float32[3,4]")
add("view.flat", "x.view([12])", "int64[3,4]")
add("view.tuple", "paddle.view(x, (2, 2, 3))", "bool[3,4]")
add("view.neg1", "paddle.view(x, [-1])", "float32[3,4]")
add("view.bad_numel", "paddle.view(x, [5, 2])", "float32[3,4]")
add("view.dtype_int32", "paddle.view(x, 'int32')", "float32[3,4]")
add("view.dtype_float16", "paddle.view(x, paddle.float16)", "float32[3,4]")
add("view.dtype_uint8", "x.view('uint8')", "float32[2,2]")
add("view.dtype_int16", "x.view('int16')", "int32[2,2]")
add("view.dtype_float64", "paddle.view(x, 'float64')", "float32[2,4]",
    paddle_bug=VIEW_DTYPE_CRASH, want="x.view('float64')")
add("view_as.basic", "paddle.view_as(x, y)", "float32[3,4]", "float32[6,2]")
add("view_as.method", "x.view_as(y)", "int64[2,3]", "int64[3,2]")
grid("unflatten.list", "paddle.unflatten(x, 1, [2, 2])", ["@[3,4]"])
add("unflatten.neg1", "paddle.unflatten(x, 1, [2, -1])", "float32[3,4]", grad=True)
add("unflatten.tuple_method", "x.unflatten(0, (3, 1))", "int64[3,4]")
add("unflatten.neg_axis", "paddle.unflatten(x, -1, [2, 1, 2])", "float32[2,4]")
add("unflatten.tensor_shape", "paddle.unflatten(x, -1, paddle.to_tensor([2, 2]))",
    "float32[3,4]")
add("unflatten.bad_axis", "x.unflatten(2, (3, 1))", "float32[3,4]")
add("unflatten.bad_shape_type", "x.unflatten(0, 3)", "float32[3,4]")
add("unfold.basic", "paddle.unfold(x, 0, 2, 3)", "float32[9]")
for dt in DTYPES:
    add(f"unfold.axis1.{dt}", "x.unfold(1, 2, 1)", f"{dt}[3,4]")
add("unfold.neg_axis", "x.unfold(-2, 2, 1)", "float32[3,4]")
add("unfold.step2", "x.unfold(1, 3, 2)", "float64[2,7]")
add("unfold.zero_d", "x.unfold(0, 1, 1)", "float32[]")
add("unfold.size0", "x.unfold(1, 0, 1)", "float32[3,4]")
add("unfold.grad", "x.unfold(1, 2, 2)", "float32[3,4]", grad=True)
add("unfold.zero_d_size0", "x.unfold(0, 0, 1)", "float32[]")
add("unfold.zero_d_any_axis", "x.unfold(1, 1, 2)", "float32[]")
add("unfold.zero_d_bad_size", "x.unfold(0, 2, 1)", "float32[]")
add("unfold.bad_size", "x.unfold(1, 5, 1)", "float32[3,4]")
add("unfold.bad_step", "x.unfold(1, 2, 0)", "float32[3,4]")
add("as_strided.overlap", "paddle.as_strided(x, [2, 2], [1, 1])", "float32[3,4]")
add("as_strided.columns", "x.as_strided([4, 3], [1, 4])", "int64[3,4]")
add("as_strided.offset", "paddle.as_strided(x, [2], [4], 8)", "float32[3,4]")
add("as_strided.grad", "paddle.as_strided(x, [2, 2], [4, 1])", "float32[3,4]", grad=True)
add("as_strided.out_of_bounds", "paddle.as_strided(x, [3, 3], [4, 4], 1)", "float32[3,4]",
    paddle_bug=AS_STRIDED_OOB, want="error")

# ------------------------------------------------------------ vsplit / atleast
grid("vsplit.num", "paddle.vsplit(x, 3)", ["@[3,4]"])
add("vsplit.sections", "paddle.vsplit(x, [1, 2])", "float32[3,4]", grad=True)
add("vsplit.neg_section", "x.vsplit([1, -1])", "int64[4,2]")
add("vsplit.rank1", "paddle.vsplit(x, 3)", "float32[3]")
add("atleast_1d.zero_d", "paddle.atleast_1d(x)", "float32[]")
add("atleast_1d.many", "paddle.atleast_1d(x, y)", "float32[]", "int64[2,3]")
add("atleast_1d.number", "paddle.atleast_1d(1.5)")
add("atleast_2d.zero_d", "paddle.atleast_2d(x)", "int32[]")
add("atleast_2d.vector", "paddle.atleast_2d(x)", "float32[3]", grad=True)
add("atleast_2d.list", "paddle.atleast_2d([1, 2])")
add("atleast_2d.method", "x.atleast_2d()", "float64[2,3]")
add("atleast_3d.all", "paddle.atleast_3d(x, y, z, w)", "float32[]", "float32[3]",
    "float32[2,3]", "float32[1,2,3]")
add("atleast_3d.method", "x.atleast_3d()", "bool[3,4]")

# ------------------------------------------------------------ meshgrid / combinations
grid("meshgrid.two", "paddle.meshgrid(x, y)", ["@[2]", "@[3]"], dtypes=NUM)
add("meshgrid.list", "paddle.meshgrid([x, y, z])", "float32[2]", "float32[3]", "float32[1]")
add("meshgrid.zero_d", "paddle.meshgrid(x, y)", "float32[]", "float32[3]")
add("meshgrid.grad", "paddle.meshgrid(x, y)", "float32[2]", "float32[3]", grad=True)
add("meshgrid.grad_one_output", "paddle.meshgrid(x, y)[1]", "float64[2]", "float64[3]",
    grad=True, paddle_bug=MESHGRID_ONE_GRAD, want="np.meshgrid(x, y, indexing='ij')[1]")
add("meshgrid.bad_rank", "paddle.meshgrid(x, y)", "float32[2,2]", "float32[2]")
add("meshgrid.bad_dtype", "paddle.meshgrid(x, y)", "int64[2]", "float32[3]")
add("meshgrid.bool", "paddle.meshgrid(x, y)", "bool[2]", "bool[1]")
grid("combinations.r2", "paddle.combinations(x)", ["@[4]"], dtypes=NUM)
add("combinations.r3", "paddle.combinations(x, 3)", "float32[4]")
add("combinations.replacement", "paddle.combinations(x, 2, True)", "float32[3]")
add("combinations.r1", "paddle.combinations(x, 1)", "int64[3]")
add("combinations.r0", "paddle.combinations(x, 0)", "float32[3]")
add("combinations.r_too_big", "paddle.combinations(x, 4)", "float32[3]")
add("combinations.grad", "paddle.combinations(x)", "float32[3]", grad=True)
add("combinations.method", "x.combinations(r=2, with_replacement=True)", "int32[2]")
add("combinations.bad_rank", "paddle.combinations(x)", "float32[2,2]")
add("combinations.bad_r", "paddle.combinations(x, -1)", "float32[3]")

# ------------------------------------------------------------ kron
grid("kron.2d", "paddle.kron(x, y)", ["@[2,2]", "@[2,3]"], dtypes=NUM)
add("kron.ranks", "paddle.kron(x, y)", "float32[2]", "float32[2,2]", grad=True)
add("kron.ranks_rev", "paddle.kron(x, y)", "float64[2,3,2]", "float64[3]", grad=True)
add("kron.zero_d", "paddle.kron(x, y)", "float32[]", "float32[2]")
add("kron.method", "x.kron(y)", "int64[3]", "int64[2]")
add("kron.bad_dtype", "paddle.kron(x, y)", "float32[2]", "float64[2]")

# ------------------------------------------------------------ vander
grid("vander.square", "paddle.vander(x)", ["@[3]"], dtypes=NUM)
add("vander.increasing", "paddle.vander(x, 4, True)", "float32[3]")
add("vander.narrow", "paddle.vander(x, 2)", "int64[3]")
add("vander.n0", "paddle.vander(x, 0)", "int64[3]")
add("vander.n1", "paddle.vander(x, 1)", "float64[3]")
add("vander.grad", "paddle.vander(x)", "float32[3]", grad=True)
add("vander.method", "x.vander(n=3, increasing=True)", "float32[2]")
add("vander.bad_rank", "paddle.vander(x)", "float32[2,2]")
add("vander.bad_n", "paddle.vander(x, -1)", "float32[3]")

# ------------------------------------------------------------ repeat_interleave
grid("repeat_interleave.int", "paddle.repeat_interleave(x, 2, 0)", ["@[3,4]"], dtypes=NUM)
add("repeat_interleave.flat", "paddle.repeat_interleave(x, 2)", "float32[2,3]", grad=True)
add("repeat_interleave.neg_axis", "paddle.repeat_interleave(x, 3, -1)", "float32[2,3]",
    paddle_bug=REPEAT_NEG_AXIS, want="np.repeat(x, 3, -1)")
add("repeat_interleave.neg_axis2", "paddle.repeat_interleave(x, 2, -2)", "float32[2,3]",
    grad=True)
add("repeat_interleave.tensor_neg_axis", "paddle.repeat_interleave(x, y, -1)", "float32[2,3]",
    "int64[3]|idx3")
add("repeat_interleave.tensor", "paddle.repeat_interleave(x, y, 0)", "float32[3,4]",
    "int64[3]|idx3", grad=True)
add("repeat_interleave.tensor_int32", "paddle.repeat_interleave(x, y, 1)", "float64[3,4]",
    "int32[4]|idx3")
add("repeat_interleave.tensor_flat",
    "paddle.repeat_interleave(x, paddle.to_tensor([1, 0, 2, 1]))", "int64[2,2]")
add("repeat_interleave.method", "x.repeat_interleave(2, axis=1)", "int32[2,2]")
add("repeat_interleave.tensor_0d", "paddle.repeat_interleave(x, paddle.to_tensor(2), 1)",
    "float32[1,1]")
add("repeat_interleave.bad_len", "paddle.repeat_interleave(x, paddle.to_tensor([1, 2]), 0)",
    "float32[3,4]")
add("repeat_interleave.bool", "paddle.repeat_interleave(x, 2)", "bool[2]")

# ------------------------------------------------------------ take
grid("take.raise", "paddle.take(x, y)", ["@[3,4]", "int64[2,2]|idx12"], dtypes=NUM)
add("take.negative", "paddle.take(x, paddle.to_tensor([[0, -1], [5, -12]]))", "float32[3,4]")
add("take.wrap", "paddle.take(x, paddle.to_tensor([[0, -13], [25, 3]]), 'wrap')",
    "float32[3,4]")
add("take.clip", "paddle.take(x, paddle.to_tensor([[0, -13], [25, 3]]), mode='clip')",
    "int64[3,4]")
add("take.int32_index", "paddle.take(x, y)", "float64[2,3]", "int32[4]|idx6")
add("take.zero_d_index", "paddle.take(x, paddle.to_tensor(3))", "float32[3,4]")
add("take.grad", "paddle.take(x, paddle.to_tensor([1, 1, -1]))", "float32[3,4]", grad=True)
add("take.method", "x.take(y)", "float32[2,3]", "int64[3]|idx6")
add("take.bad_mode", "paddle.take(x, y, 'x')", "float32[3,4]", "int64[2]|idx3")
add("take.bad_index_dtype", "paddle.take(x, y)", "float32[3,4]", "float32[2]")
add("take.out_of_range", "paddle.take(x, paddle.to_tensor([13]))", "float32[3,4]")

# ------------------------------------------------------------ put_along_axis
PUT_IDX = "paddle.to_tensor([[0, 0, 2, 0], [0, 1, 2, 0]])"
for dt in NUM:
    add(f"put_along_axis.assign.{dt}",
        "paddle.put_along_axis(x, paddle.to_tensor([[0, 1, 2, 0]]), y, 0)",
        f"{dt}[3,4]", f"{dt}[1,4]")
add("put_along_axis.axis1", "paddle.put_along_axis(x, y, z, 1)", "float32[3,4]",
    "int64[3,1]|idx4", "float32[3,1]", grad=True)
add("put_along_axis.neg_axis", "paddle.put_along_axis(x, y, z, -1)", "float64[3,4]",
    "int32[3,2]|idx4", "float64[3,2]")
add("put_along_axis.broadcast_index", "paddle.put_along_axis(x, y, z, 0)", "float32[3,4]",
    "int64[1,1]|idx3", "float32[1,1]")
for red in ("add", "mul", "multiply", "mean", "amin", "amax"):
    for self_ in ("True", "False"):
        add(f"put_along_axis.{red}.self_{self_}",
            f"paddle.put_along_axis(x, {PUT_IDX}, y, 0, '{red}', {self_}, False)",
            "float32[3,4]", "float32[2,4]", grad=red not in ("amin", "amax"))
    add(f"put_along_axis.{red}.int64",
        f"paddle.put_along_axis(x, {PUT_IDX}, y, 0, '{red}', True, False)",
        "int64[3,4]", "int64[2,4]")
add("put_along_axis.amax.grad", f"paddle.put_along_axis(x, {PUT_IDX}, y * 3.0, 0, 'amax')",
    "float32[3,4]", "float32[2,4]", grad=True)
add("put_along_axis.assign.dup_grad",
    f"paddle.put_along_axis(x, {PUT_IDX}, y, 0, 'assign', True, False)",
    "float32[3,4]", "float32[2,4]", grad=True)
add("put_along_axis.no_broadcast", "paddle.put_along_axis(x, paddle.to_tensor([[0, 2]]), y, "
    "0, 'assign', True, False)", "float32[3,4]", "float32[1,2]")
add("put_along_axis.scalar", "paddle.put_along_axis(x, paddle.to_tensor([[0, 1, 2, 0]]), 9.0, "
    "0)", "float32[3,4]")
add("put_along_axis.scalar_add", "paddle.put_along_axis(x, paddle.to_tensor([[0, 0, 2, 0]]), "
    "2.0, 0, 'add')", "float32[3,4]")
add("put_along_axis.out_of_range", "paddle.put_along_axis(x, paddle.to_tensor([[0, 5]]), y, 0, "
    "'assign', True, False)", "float32[3,4]", "float32[1,2]")
add("put_along_axis.method", "x.put_along_axis(y, z, 1)", "float32[2,3]", "int64[2,1]|idx3",
    "float32[2,1]")
add("put_along_axis.bad_reduce", "paddle.put_along_axis(x, y, z, 0, 'foo')", "float32[3,4]",
    "int64[1,4]|idx3", "float32[1,4]")
add("put_along_axis.bad_rank", "paddle.put_along_axis(x, y, z, 0)", "float32[3,4]",
    "int64[4]|idx3", "float32[4]")
add("put_along_axis.bad_dtype", "paddle.put_along_axis(x, y, z, 0)", "int32[3]",
    "int64[1]|idx3", "int64[1]")
add("put_along_axis_.method", "x.put_along_axis_(y, z, 0)\nreturn x", "float32[3,4]",
    "int64[1,4]|idx3", "float32[1,4]")

# ------------------------------------------------------------ index_add / index_fill
grid("index_add.axis0", "paddle.index_add(x, y, 0, z)",
     ["@[3,4]", "int64[2]|idx3", "@[2,4]"], dtypes=NUM)
add("index_add.axis1_dup", "paddle.index_add(x, paddle.to_tensor([1, 1]), -1, y)",
    "float32[3,4]", "float32[3,2]", grad=True)
add("index_add.int32_index", "paddle.index_add(x, y, 1, z)", "float64[2,3]", "int32[4]|idx3",
    "float64[2,4]", grad=True)
add("index_add.method", "x.index_add(y, 0, z)", "float32[3]", "int64[2]|idx3", "float32[2]")
add("index_add.bad_shape", "paddle.index_add(x, y, 0, z)", "float32[3,4]", "int64[2]|idx3",
    "float32[3,4]", paddle_bug=INDEX_ADD_SHAPE, want="error")
add("index_add.bad_dtype", "paddle.index_add(x, y, 0, z)", "float32[3,4]", "int64[2]|idx3",
    "float64[2,4]")
add("index_add.bad_index_dtype", "paddle.index_add(x, y, 0, z)", "float32[3,4]",
    "float32[2]", "float32[2,4]")
add("index_add.bad_index_rank", "paddle.index_add(x, y, 0, z)", "float32[3,4]",
    "int64[1,2]|idx3", "float32[2,4]")
add("index_add.bad_axis", "paddle.index_add(x, y, 2, z)", "float32[3,4]", "int64[2]|idx3",
    "float32[2,4]")
add("index_add.out_of_range", "paddle.index_add(x, paddle.to_tensor([5]), 0, y)",
    "float32[3,4]", "float32[1,4]")
add("index_add_.fn", "paddle.index_add_(x, y, 0, z)\nreturn x", "float32[3,4]",
    "int64[2]|idx3", "float32[2,4]")
add("index_add_.method", "x.index_add_(y, 1, z)\nreturn x", "int64[3,4]", "int64[2]|idx4",
    "int64[3,2]")
grid("index_fill.axis0", "paddle.index_fill(x, y, 0, 1)", ["@[3,4]", "int64[2]|idx3"])
add("index_fill.axis1", "paddle.index_fill(x, y, 1, -1.0)", "float32[3,4]", "int64[2]|idx4",
    grad=True)
add("index_fill.tensor_value", "paddle.index_fill(x, y, -1, paddle.to_tensor(-2.0))",
    "float32[3,4]", "int64[2]|idx4")
add("index_fill.3d", "paddle.index_fill(x, y, 2, 0.0)", "float64[2,3,4]", "int32[1]|idx4")
add("index_fill.negative_index", "paddle.index_fill(x, paddle.to_tensor([-1]), 0, 0.0)",
    "float32[3,4]")
add("index_fill.method", "x.index_fill(y, 0, 5)", "int64[3]", "int64[1]|idx3")
add("index_fill.bad_value", "paddle.index_fill(x, y, 1, paddle.to_tensor([-2.0]))",
    "float32[3,4]", "int64[2]|idx4")
add("index_fill.bad_index", "paddle.index_fill(x, [0, 1], 1, -1.0)", "float32[3,4]")
add("index_fill.bad_axis", "paddle.index_fill(x, y, 2, -1.0)", "float32[3,4]",
    "int64[2]|idx3")
add("index_fill_.axis0", "x.index_fill_(y, 0, -1.0)\nreturn x", "float32[3,4]",
    "int64[2]|idx3")
add("index_fill_.axis1", "paddle.index_fill_(x, y, 1, -1.0)\nreturn x", "float32[3,4]",
    "int64[2]|idx3", paddle_bug=INDEX_FILL_INPLACE,
    want="np.where(np.isin(np.arange(4), y), np.float32(-1.0), x)")

# ------------------------------------------------------------ scatter_nd / scatter_nd_add
grid("scatter_nd_add.rows", "paddle.scatter_nd_add(x, y, z)",
     ["@[3,4]", "int64[3,1]|idx3", "@[3,4]"], dtypes=NUM)
add("scatter_nd_add.elements", "paddle.scatter_nd_add(x, y, z)", "float32[3,4]",
    "int64[5,2]|idx3", "float32[5]", grad=True)
add("scatter_nd_add.batched_index", "paddle.scatter_nd_add(x, y, z)", "float64[3,4,2]",
    "int32[2,2,2]|idx3", "float64[2,2,2]", grad=True)
add("scatter_nd_add.empty_index", "paddle.scatter_nd_add(x, y, z)", "float32[3,4]",
    "int64[2,0]", "float32[2,3,4]")
add("scatter_nd_add.method", "x.scatter_nd_add(y, z)", "int32[3]", "int64[2,1]|idx3",
    "int32[2]")
add("scatter_nd_add.bad_dtype", "paddle.scatter_nd_add(x, y, z)", "float32[3,4]",
    "int64[1,2]|idx3", "float64[1]")
add("scatter_nd_add.bad_shape", "paddle.scatter_nd_add(x, y, z)", "float32[3,4]",
    "int64[2,2]|idx3", "float32[3]")
add("scatter_nd_add.out_of_range",
    "paddle.scatter_nd_add(x, paddle.to_tensor([[5, 1]]), y)", "float32[3,4]", "float32[1]")
add("scatter_nd_add.bool", "paddle.scatter_nd_add(x, y, z)", "bool[3]", "int64[1,1]|idx3",
    "bool[1]")
grid("scatter_nd.rows", "paddle.scatter_nd(y, z, [3, 2])",
     ["int64[3,1]|idx3", "@[3,2]"], dtypes=NUM)
add("scatter_nd.elements", "paddle.scatter_nd(x, y, [2, 2])", "int64[2,2]|idx2", "float32[2]",
    grad=True)
add("scatter_nd.tuple_shape", "paddle.scatter_nd(x, y, (4,))", "int32[3,1]|idx4", "int64[3]")
add("scatter_nd.method", "x.scatter_nd(y, [3])", "int64[2,1]|idx3", "float64[2]")

# ------------------------------------------------------------ multiplex
for dt in NUM:
    add(f"multiplex.two.{dt}", "paddle.multiplex([x, y], z)", f"{dt}[3,4]", f"{dt}[3,4]",
        "int32[3,1]|idx2")
add("multiplex.three", "paddle.multiplex([x, y, z], w)", "float32[4,2]", "float32[4,2]",
    "float32[4,2]", "int32[4,1]|idx3", grad=True)
add("multiplex.int64_index", "paddle.multiplex([x, y], z)", "float32[3,4]", "float32[3,4]",
    "int64[3,1]|idx2", paddle_bug=MULTIPLEX_INT64,
    want="np.where(z == 1, y, x)")
add("multiplex.bad_index_shape", "paddle.multiplex([x, y], z)", "float32[3,4]",
    "float32[3,4]", "int32[3]|idx2")
add("multiplex.one_input", "paddle.multiplex([x], y)", "float32[3,4]", "int32[3,1]|idx1")
add("multiplex.bool", "paddle.multiplex([x, y], z)", "bool[2,1]", "bool[2,1]",
    "int32[2,1]|idx2")

# ------------------------------------------------------------ crop
grid("crop.basic", "paddle.crop(x, [2, 2], [1, 1])", ["@[3,4]"], dtypes=NUM)
add("crop.neg1", "paddle.crop(x, [-1, 2], [1, 1])", "float32[3,4]", grad=True)
add("crop.defaults", "paddle.crop(x)", "float64[3,4]")
add("crop.shape_only", "paddle.crop(x, shape=[2, 3])", "float32[3,4]", grad=True)
add("crop.tensors", "paddle.crop(x, paddle.to_tensor([2, 2]), paddle.to_tensor([1, 1]))",
    "float32[3,4]")
add("crop.tensor_lists", "paddle.crop(x, [paddle.to_tensor(2), 2], [1, paddle.to_tensor(1)])",
    "int64[3,4]")
add("crop.3d", "paddle.crop(x, [1, 2, 2], [1, 0, 2])", "float32[2,3,4]", grad=True)
add("crop.too_big", "paddle.crop(x, [4, 2], [1, 1])", "float32[3,4]")
add("crop.zero", "paddle.crop(x, [0, 2])", "float32[3,4]")
add("crop.bad_rank", "paddle.crop(x, [2])", "float32[3,4]")
add("crop.bad_offset", "paddle.crop(x, [2, 2], [-1, 0])", "float32[3,4]")

# ------------------------------------------------------------ shard_index
add("shard_index.basic", "paddle.shard_index(x, 20, 2, 0)",
    "int64[4,1]|idx20")
add("shard_index.shard1_ignore", "paddle.shard_index(x, 20, 2, 1, -5)", "int32[4,1]|idx20")
add("shard_index.three", "paddle.shard_index(x, 20, 3, 1)", "int64[6,1]|idx20")
add("shard_index.method", "x.shard_index(10, 4, 3)", "int64[2,3,1]|idx10")
add("shard_index.bad_shard", "paddle.shard_index(x, 20, 2, 2)", "int64[2,1]|idx20")
add("shard_index.bad_rank", "paddle.shard_index(x, 20, 2, 1)", "int64[2]|idx20")
add("shard_index.out_of_range", "paddle.shard_index(x + 20, 20, 2, 0)", "int64[2,1]|idx20")
add("shard_index.float", "paddle.shard_index(x, 20, 2, 0)", "float32[2,1]")

# ------------------------------------------------------------ shapes and broadcasting
add("broadcast_shape.basic", "paddle.broadcast_shape([2, 1, 3], [1, 3, 1])")
add("broadcast_shape.tuple", "paddle.broadcast_shape((2, 1, 3), [4, 1])")
add("broadcast_shape.empty", "paddle.broadcast_shape([], [4, 1])")
add("broadcast_shape.tensor_shape", "paddle.broadcast_shape(x.shape, [1])", "float32[3,4]")
add("broadcast_shape.bad", "paddle.broadcast_shape([2, 3], [4, 1])")
add("broadcast_tensors.method", "paddle.Tensor.broadcast_tensors([x, y])", "float32[3,4]",
    "float32[4]")
add("is_same_shape.same", "x.is_same_shape(y)", "float32[3,4]", "int64[3,4]")
add("is_same_shape.different", "x.is_same_shape(y)", "float32[3,4]", "float32[4,3]")
