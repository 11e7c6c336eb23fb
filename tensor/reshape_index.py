"""Triangles, diagonals, index writes, strided views and the shape helpers
built on them (``paddle.tril``, ``paddle.diagonal``, ``paddle.put_along_axis``,
``paddle.take``, ``paddle.unfold``, ``paddle.meshgrid`` ...).

Each public function binds one op of ``ops/defs/reshape_index.py``, or is
composed over existing functions the way Paddle composes it in Python, so a
static Program holds Paddle's op sequence (``take``: flatten, where,
index_select, reshape; ``index_fill``: transpose, index_put, transpose;
``combinations``: meshgrid, range, less_than, masked_select, stack).  The
in-place forms (``tril_``, ``index_add_``, ``fill_diagonal_`` ...) rebind the
tensor to the result (``indexing.inplace``).  Argument checks that Paddle makes
in Python raise Paddle's builtin class (``assert``: AssertionError).
"""
import numbers

import numpy as np

from ..dygraph.aliases import view_op
from ..dygraph import aliases
from ..ops import bind, get_op
from ..ops.dtypes import to_enum, to_np_dtype
from ..ops.meta_rules import broadcast_shapes, norm_axis
from . import indexing as I
from . import manipulation as M
from .creation import is_var, full, zeros, empty, arange, assign
from .creation_base import to_tensor
from .math import cast, clip
from .sort_search import cumprod

__all__ = ["tril", "triu", "tril_", "triu_", "tril_indices", "triu_indices", "diag",
           "diag_embed", "diagflat", "diagonal", "diagonal_scatter", "select_scatter", "rot90",
           "reverse", "t", "t_", "transpose_", "view", "view_as", "unflatten", "unfold",
           "vsplit", "atleast_1d", "atleast_2d", "atleast_3d", "meshgrid", "combinations",
           "kron", "repeat_interleave", "take", "put_along_axis", "index_add", "index_add_",
           "index_fill", "index_fill_", "scatter_nd", "scatter_nd_add", "multiplex", "crop",
           "as_strided", "vander", "broadcast_shape", "shard_index"]
# paddle.X that are not Tensor methods
METHODS = [n for n in __all__ if n not in ("tril_indices", "triu_indices", "meshgrid", "crop")]

_OPS = {t: get_op(t) for t in (
    "tril_triu", "tril_indices", "triu_indices", "diag_v2", "diag_embed", "diagonal",
    "fill_diagonal", "fill_diagonal_tensor", "kron", "repeat_interleave", "put_along_axis",
    "index_add", "scatter_nd_add", "multiplex", "crop_tensor", "meshgrid", "shard_index",
    "view_shape", "view_dtype", "tensor_unfold", "as_strided", "set_value",
    "flatten_contiguous_range")}


def _int(v, what, fn):
    if not isinstance(v, (numbers.Integral, np.integer)) or isinstance(v, bool):
        raise TypeError(f"{fn}: {what} must be a Python int, got {type(v).__name__}")
    return int(v)


def _ndim(x):
    return len(x.shape)


# ------------------------------------------------------------ triangles
def _tril_triu(x, diagonal, lower, fn):
    diagonal = _int(diagonal, "diagonal", fn)
    if _ndim(x) < 2:
        raise ValueError(f"{fn}: x must be at least 2-D, got shape {list(x.shape)}")
    return bind(_OPS["tril_triu"], (x,), {"diagonal": diagonal, "lower": lower})[0]


def tril(x, diagonal=0, name=None):
    return _tril_triu(x, diagonal, True, "tril")


def triu(x, diagonal=0, name=None):
    return _tril_triu(x, diagonal, False, "triu")


def tril_(x, diagonal=0, name=None):
    return I.inplace(x, lambda t: tril(t, diagonal))


def triu_(x, diagonal=0, name=None):
    return I.inplace(x, lambda t: triu(t, diagonal))


def _tri_indices(op, row, col, offset, dtype, names, fn):
    row = _int(row, "row", fn)
    col = row if col is None else _int(col, "col", fn)
    attrs = {names[0]: row, names[1]: col, "offset": _int(offset, "offset", fn),
             "dtype": to_enum(dtype)}
    return bind(_OPS[op], (), attrs)[0]


def tril_indices(row, col, offset=0, dtype="int64"):
    """The [2, N] coordinates of the lower triangle (on and below diagonal
    ``offset``) of a row x col matrix, row by row."""
    return _tri_indices("tril_indices", row, col, offset, dtype, ("rows", "cols"),
                        "tril_indices")


def triu_indices(row, col=None, offset=0, dtype="int64"):
    return _tri_indices("triu_indices", row, col, offset, dtype, ("row", "col"), "triu_indices")


# ------------------------------------------------------------ diagonals
def diag(x, offset=0, padding_value=0, name=None):
    """A 1-D x becomes a square matrix with x on diagonal ``offset`` (the rest
    ``padding_value``); a 2-D x gives its diagonal ``offset``."""
    return bind(_OPS["diag_v2"], (x,), {"offset": _int(offset, "offset", "diag"),
                                        "padding_value": float(padding_value)})[0]


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    if not is_var(input):
        input = assign(input)
    return bind(_OPS["diag_embed"], (input,),
                {"offset": int(offset), "dim1": int(dim1), "dim2": int(dim2)})[0]


def diagflat(x, offset=0, name=None):
    offset = _int(offset, "offset", "diagflat")
    if _ndim(x) > 1:     # Paddle's own flatten op: stop_axis -1 as written
        x = bind(_OPS["flatten_contiguous_range"], (x,), {"start_axis": 0, "stop_axis": -1})[0]
    return bind(_OPS["diag_v2"], (x,), {"offset": offset, "padding_value": 0.0})[0]


@view_op
def diagonal(x, offset=0, axis1=0, axis2=1, name=None):
    return bind(_OPS["diagonal"], (x,),
                {"offset": int(offset), "axis1": int(axis1), "axis2": int(axis2)})[0]


def _fill_diagonal_tensor(x, y, offset, dim1, dim2):
    shape, nd = list(x.shape), _ndim(x)
    if not (-nd <= dim1 < nd and -nd <= dim2 < nd):
        raise AssertionError(f"fill_diagonal_tensor: dim1 {dim1} and dim2 {dim2} must lie in "
                             f"[-rank, rank) for x of rank {nd}")
    if nd < 2:
        raise AssertionError(f"fill_diagonal_tensor: x must have rank >= 2, got {nd}")
    dim1, dim2 = dim1 % nd, dim2 % nd
    want = [d for i, d in enumerate(shape) if i not in (dim1, dim2)]
    want.append(min(shape[dim1], shape[dim1] + offset, shape[dim2], shape[dim2] - offset))
    if want != list(y.shape):
        raise AssertionError(f"fill_diagonal_tensor: y must have shape {want}, got "
                             f"{list(y.shape)}")
    if _ndim(y) == 1:
        y = M.reshape(y, [1, -1])
    return bind(_OPS["fill_diagonal_tensor"], (x, y),
                {"offset": int(offset), "dim1": dim1, "dim2": dim2})[0]


def fill_diagonal_tensor(x, y, offset=0, dim1=0, dim2=1, name=None):
    """x with diagonal ``offset`` of dims (dim1, dim2) replaced by y (shape: x's
    other dims, then the diagonal's length).  Only x receives a gradient, as in
    Paddle."""
    return _fill_diagonal_tensor(x, y, offset, dim1, dim2)


def fill_diagonal_tensor_(x, y, offset=0, dim1=0, dim2=1, name=None):
    return I.inplace(x, lambda t: _fill_diagonal_tensor(t, y, offset, dim1, dim2))


def diagonal_scatter(x, y, offset=0, axis1=0, axis2=1, name=None):
    return _fill_diagonal_tensor(x, y, offset, axis1, axis2)


def fill_diagonal_(x, value, offset=0, wrap=False, name=None):
    """In place: ``value`` on diagonal ``offset`` (a matrix wraps below a square
    block only with ``wrap``; higher ranks fill the all-equal-indices diagonal)."""
    attrs = {"value": float(value), "offset": int(offset),
             "wrap": bool(wrap) if _ndim(x) == 2 else True}
    return I.inplace(x, lambda t: bind(_OPS["fill_diagonal"], (t,), attrs)[0])


def select_scatter(x, values, axis, index, name=None):
    """x with the slice at ``index`` along ``axis`` replaced by ``values`` (cast
    to x's dtype): one ``set_value``."""
    shape = list(x.shape)
    if index < 0:
        index += shape[axis]
    if axis < 0:
        axis += len(shape)
    del shape[axis]
    if shape != list(values.shape):
        raise RuntimeError(f"select_scatter: expected values to have a size equal to the slice "
                           f"of x. value size = {list(values.shape)} slice size = {shape}")
    values = cast(values, x.dtype)
    attrs = {"axes": [axis], "starts": [index], "ends": [index + 1], "steps": [1],
             "decrease_axes": [axis], "none_axes": [], "dtype": to_enum(x.dtype)}
    return bind(_OPS["set_value"], (x, values, None, None, None), attrs)[0]


# ------------------------------------------------------------ rotations and transposes
def rot90(x, k=1, axes=[0, 1], name=None):  # noqa: B006  (Paddle's signature)
    if not isinstance(axes, (list, tuple)):
        raise TypeError(f"rot90: axes must be a list or tuple, got {type(axes).__name__}")
    nd = _ndim(x)
    if len(axes) != 2:
        raise ValueError(f"rot90: expected total rotation axes == 2, but got axes = {len(axes)}")
    if nd < 2:
        raise ValueError(f"rot90: expected total dims >= 2, but got total dims = {nd}")
    a0, a1 = axes
    if a0 == a1 or abs(a0 - a1) == nd:
        raise ValueError(f"rot90: expected rotation axes to be different, but got axis0 = {a0}, "
                         f"and axis1 = {a1}")
    for i, a in enumerate(axes):
        if not -nd <= a < nd:
            raise ValueError(f"rot90: rotation axis{i} out of range, axis{i} = {a}")
    k %= 4
    if k == 0:
        return x
    if k == 2:
        return M.flip(M.flip(x, a0), a1)
    perm = list(range(nd))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return M.transpose(M.flip(x, a1), perm)
    return M.flip(M.transpose(x, perm), a1)


def reverse(x, axis, name=None):
    """``paddle.reverse`` is ``paddle.flip``."""
    return M.flip(x, axis)


def t(input, name=None):
    """The transpose of a matrix; a 0-D or 1-D tensor is returned as it is."""
    if _ndim(input) > 2:
        raise ValueError(f"t: input must have rank <= 2, got shape {list(input.shape)} "
                         f"(use paddle.transpose)")
    return input if _ndim(input) < 2 else M.transpose(input, [1, 0])


def t_(input, name=None):
    if _ndim(input) > 2:
        raise ValueError(f"t_: input must have rank <= 2, got shape {list(input.shape)} "
                         f"(use paddle.transpose_)")
    return input if _ndim(input) < 2 else I.inplace(input, lambda v: M.transpose(v, [1, 0]), view=True)


def transpose_(x, perm, name=None):
    return I.inplace(x, lambda v: M.transpose(v, perm), view=True)


# ------------------------------------------------------------ views and reshapes
def view(x, shape_or_dtype, name=None):
    """x with another shape (no -1; the same number of elements) or its bytes
    read as another dtype (the last dim scales with the item size)."""
    if isinstance(shape_or_dtype, (list, tuple)):
        return view_as(x, shape_or_dtype)     # shares x's storage
    return bind(_OPS["view_dtype"], (x,), {"dtype": to_enum(shape_or_dtype)})[0]


@view_op
def view_as(x, other, name=None):
    dims = other if isinstance(other, (list, tuple)) else other.shape
    return bind(_OPS["view_shape"], (x,), {"dims": [int(d) for d in dims]})[0]


def unflatten(x, axis, shape, name=None):
    """Dim ``axis`` of x split into ``shape`` (a list, tuple or int tensor)."""
    nd = _ndim(x)
    axis = norm_axis(int(axis), nd, "unflatten: axis", AssertionError)
    if isinstance(shape, (list, tuple)):
        new = list(x.shape[:axis]) + list(shape) + list(x.shape[axis + 1:])
    elif is_var(shape):
        new = M.concat([M.shape(x)[:axis], cast(shape, "int32"), M.shape(x)[axis + 1:]])
    else:
        raise TypeError(f"unflatten: shape must be a list, tuple or Tensor, got "
                        f"{type(shape).__name__}")
    return M.reshape(x, new)


@view_op
def unfold(x, axis, size, step, name=None):
    """Windows of ``size`` elements every ``step`` along ``axis``: that dim
    becomes the window count and a last dim of ``size`` is added."""
    return bind(_OPS["tensor_unfold"], (x,),
                {"axis": int(axis), "size": int(size), "step": int(step)})[0]


def as_strided(x, shape, stride, offset=0, name=None):
    """The elements of x's buffer at ``offset`` bytes + sum(i_k * stride_k)
    elements, as a tensor of ``shape``."""
    attrs = {"dims": [int(d) for d in shape], "stride": [int(s) for s in stride],
             "offset": int(offset)}
    out = bind(_OPS["as_strided"], (x,), attrs)[0]
    if aliases.QUIET.depth:
        return out
    items = int(offset) // np.dtype(to_np_dtype(x.dtype)).itemsize   # the offset in elements

    def again(b):      # the same elements of b, whatever b's item size (index maps)
        size = np.dtype(to_np_dtype(b.dtype)).itemsize
        return bind(_OPS["as_strided"], (b,), dict(attrs, offset=items * size))[0]
    return aliases.link(x, out, again)


def vsplit(x, num_or_sections, name=None):
    if _ndim(x) < 2:
        raise ValueError(f"vsplit: the input tensor's dimension must be greater than 1, but "
                         f"got {_ndim(x)}")
    return M.split(x, num_or_sections, axis=0)


# rank of the input -> how atleast_<n>d raises it (a shape for reshape, or unsqueeze axes)
_ATLEAST = {1: {0: (1,)}, 2: {0: (1, 1), 1: [0]}, 3: {0: (1, 1, 1), 1: [0, 2], 2: [2]}}


def _atleast(inputs, n):
    out = []
    for v in inputs:
        v = v if is_var(v) else to_tensor(v)
        how = _ATLEAST[n].get(_ndim(v))
        if isinstance(how, tuple):
            v = M.reshape(v, how)
        elif how is not None:
            v = M.unsqueeze(v, how)
        out.append(v)
    return out[0] if len(out) == 1 else out


def atleast_1d(*inputs, name=None):
    return _atleast(inputs, 1)


def atleast_2d(*inputs, name=None):
    return _atleast(inputs, 2)


def atleast_3d(*inputs, name=None):
    return _atleast(inputs, 3)


# ------------------------------------------------------------ grids and products
def meshgrid(*args, **kwargs):
    """Coordinate grids of 0-D / 1-D tensors (matrix indexing): output k holds
    input k along dim k."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return list(bind(_OPS["meshgrid"], (list(args),))[0])


def combinations(x, r=2, with_replacement=False, name=None):
    """The length-r combinations of the elements of a 1-D x, as rows."""
    if _ndim(x) != 1:
        raise TypeError(f"combinations: expect a 1-D vector, but got x shape {list(x.shape)}")
    if not isinstance(r, int) or isinstance(r, bool) or r < 0:
        raise ValueError(f"combinations: expect a non-negative int, but got r={r}")
    if r == 0:
        return empty([0], x.dtype)
    n = x.shape[0]
    if (r > n and not with_replacement) or (n == 0 and with_replacement):
        return empty([0, r], x.dtype)
    grids = meshgrid([x] * r) if r > 1 else [x]
    t_range = arange(M.numel(x), dtype="int64")
    index_grids = meshgrid([t_range] * r) if r > 1 else [t_range]
    mask = full(list(x.shape) * r, True, dtype="bool")
    for i in range(r - 1):
        a, b = index_grids[i], index_grids[i + 1]
        mask = mask * ((a <= b) if with_replacement else (a < b))
    grids = [I.masked_select(g, mask) for g in grids]
    return M.stack(grids, 1)


def kron(x, y, name=None):
    return bind(_OPS["kron"], (x, y))[0]


def vander(x, n=None, increasing=False, name=None):
    """The Vandermonde matrix of a 1-D x: column k holds x ** (n - 1 - k)
    (``increasing``: x ** k), built as Paddle's static code builds it (writes
    of a new tensor each, and a cumprod)."""
    if _ndim(x) != 1:
        raise ValueError(f"vander: the input of x is expected to be a 1-D Tensor. But now the "
                         f"dims of Input(X) is {_ndim(x)}.")
    n = x.shape[0] if n is None else n
    if n < 0:
        raise ValueError("vander: N must be non-negative.")
    # Paddle's static.setitem: each write a new tensor holding the value cast to x's dtype
    res, cols = empty([x.shape[0], n], x.dtype), slice(1, None)
    if n > 0:
        one = cast(to_tensor([1], dtype=x.dtype), x.dtype)
        res = I.set_value_of(res, (slice(None), 0), one)
    if n > 1:
        res = I.set_value_of(res, (slice(None), cols), cast(x[:, None], x.dtype))
        res = I.set_value_of(res, (slice(None), cols),
                             cast(cumprod(res[:, cols], dim=-1), x.dtype))
    return res if increasing else res[:, ::-1]


def repeat_interleave(x, repeats, axis=None, name=None):
    """Each element (or slice along ``axis``) of x repeated ``repeats`` times
    (an int, or an int tensor with one count per slice); ``axis=None`` works on
    the flattened x."""
    if is_var(repeats) and _ndim(repeats) == 0:
        repeats = M.reshape(repeats, [1])
    if axis is None:
        x, axis = M.flatten(x), 0
    if is_var(repeats):
        return bind(_OPS["repeat_interleave"], (x, repeats), {"dim": int(axis)})[0]
    if not isinstance(repeats, (numbers.Integral, np.integer)) or isinstance(repeats, bool):
        raise ValueError(f"repeat_interleave: repeats must be an int or a Tensor, got "
                         f"{type(repeats).__name__}")
    return bind(_OPS["repeat_interleave"], (x, None),
                {"Repeats": int(repeats), "dim": int(axis)})[0]


# ------------------------------------------------------------ gathers and index writes
def take(x, index, mode="raise", name=None):
    """Elements of the flattened x at ``index`` (any shape); ``mode``: 'raise'
    (negative indices count from the end), 'wrap' (modulo) or 'clip'."""
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"'mode' in 'take' should be 'raise', 'wrap', 'clip', but received "
                         f"{mode}.")
    if not is_var(index):
        raise TypeError(f"take: the type of 'index' must be Tensor, but got {type(index)}")
    if to_np_dtype(index.dtype) not in (np.int32, np.int64):
        raise TypeError(f"take: the data type of 'index' must be one of ['int32', 'int64'], "
                        f"but got {to_np_dtype(index.dtype)}")
    input_1d, index_1d = M.flatten(x), M.flatten(index)
    n = input_1d.shape[-1]
    if mode == "raise":
        index_1d = I.where(index_1d < 0, index_1d + n, index_1d)
    elif mode == "wrap":
        index_1d = I.where(index_1d < 0, index_1d % n, index_1d)
        index_1d = I.where(index_1d >= n, index_1d % n, index_1d)
    else:
        index_1d = clip(index_1d, 0, n - 1)
    return M.reshape(I.index_select(input_1d, index_1d), index.shape)


def _broadcast_put_shape(arr, indices, axis):
    """Paddle's shape to broadcast indices to (None: indices exceed arr somewhere)."""
    shape = list(arr.shape)
    shape[axis] = list(indices.shape)[axis]
    if any(a < i for a, i in zip(arr.shape, indices.shape)):
        return None
    return shape


def _put_args(arr, indices, values, axis, broadcast):
    if _ndim(arr) != _ndim(indices):
        raise ValueError("put_along_axis: `indices` and `arr` must have the same number of "
                         "dimensions!")
    axis = norm_axis(int(axis), _ndim(arr), "put_along_axis: axis", AssertionError)
    if broadcast:
        values = values if is_var(values) else to_tensor(values)
        shape = _broadcast_put_shape(arr, indices, axis)
        if shape:
            indices = M.broadcast_to(indices, shape)
        values = M.broadcast_to(values, indices.shape)
    else:
        values = cast(values if is_var(values) else to_tensor(values), arr.dtype)
        if int(np.prod(values.shape)) == 1:
            values = M.broadcast_to(values, indices.shape)
        # Paddle's range check, as ops (the kernel raises on a bad index)
        (indices < arr.shape[axis]).all()      # noqa: B015
    if to_np_dtype(indices.dtype) not in (np.int32, np.int64):
        raise TypeError(f"put_along_axis: the data type of indices should be one of ['int32', "
                        f"'int64'], but got {to_np_dtype(indices.dtype)}")
    return indices, values, axis


def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True,
                   broadcast=True):
    """arr with ``values`` written along ``axis`` at ``indices`` (same rank as
    arr), combined by ``reduce``: 'assign', 'add', 'mul'/'multiply', 'mean',
    'amin', 'amax'; ``include_self=False`` leaves arr's own values out of the
    reduction at the written positions."""
    if not isinstance(include_self, bool):
        raise TypeError(f"put_along_axis: include_self must be a bool, got "
                        f"{type(include_self).__name__}")
    indices, values, axis = _put_args(arr, indices, values, axis, broadcast)
    return bind(_OPS["put_along_axis"], (arr, indices, values),
                {"Axis": axis, "Reduce": reduce, "Include_self": include_self})[0]


def put_along_axis_(arr, indices, values, axis, reduce="assign", include_self=True):
    return I.inplace(arr, lambda t: put_along_axis(t, indices, values, axis, reduce,
                                                   include_self))


def index_add(x, index, axis, value, name=None):
    """x with the slices of ``value`` added at ``index`` along ``axis``
    (repeated indices add up)."""
    return bind(_OPS["index_add"], (x, index, value), {"axis": int(axis)})[0]


def index_add_(x, index, axis, value, name=None):
    return I.inplace(x, lambda t: index_add(t, index, axis, value))


def index_fill(x, index, axis, value, name=None):
    """x with the slices at ``index`` along ``axis`` set to ``value`` (a number
    or a 0-D tensor): axis moved first, ``index_put``, moved back."""
    if not is_var(index):
        raise ValueError("index_fill: index must be Tensor")
    if not is_var(value):
        value = to_tensor(value, dtype=x.dtype)
    elif _ndim(value) > 0:
        raise ValueError("index_fill: value must be scalar or 0-D tensor")
    nd = _ndim(x)
    if not isinstance(axis, int) or not -nd <= axis < nd:
        raise ValueError("index_fill: the axis should be int, and in range [-rank(x), rank(x))")
    axis = axis % nd
    perm = list(range(nd))
    perm[0], perm[axis] = axis, 0
    out = I.index_put(M.transpose(x, perm), (index,), value)
    return M.transpose(out, perm)


def index_fill_(x, index, axis, value, name=None):
    return I.inplace(x, lambda t: index_fill(t, index, axis, value))


def scatter_nd_add(x, index, updates, name=None):
    """x with ``updates`` added at the coordinates in ``index`` (its last dim
    indexes x's leading dims; repeated coordinates add up)."""
    return bind(_OPS["scatter_nd_add"], (x, index, updates))[0]


def scatter_nd(index, updates, shape, name=None):
    return scatter_nd_add(zeros(shape, updates.dtype), index, updates)


def multiplex(inputs, index, name=None):
    """Row i of the result is row i of ``inputs[index[i]]`` (index: [N, 1])."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"multiplex: inputs must be a list of Tensors, got "
                        f"{type(inputs).__name__}")
    if len(inputs) < 2:
        raise ValueError("multiplex: inputs should be a list object with at least 2 elements.")
    return bind(_OPS["multiplex"], (list(inputs), index))[0]


def _check_crop_list(values, what):
    """Paddle's checks of the numbers in a crop argument."""
    if is_var(values):
        return
    for v in values:
        if is_var(v):
            continue
        if not isinstance(v, (numbers.Integral, np.integer)) or isinstance(v, bool):
            raise TypeError(f"crop: {what} must hold ints, got {type(v).__name__}")
        if what == "shape" and (v == 0 or v < -1):
            raise ValueError(f"crop: shape holds {v}; each entry must be positive or -1")
        if what == "offsets" and v < 0:
            raise ValueError(f"crop: offsets hold {v}; each entry must be >= 0")


def crop(x, shape=None, offsets=None, name=None):
    """The block of x of ``shape`` (-1: to the end) starting at ``offsets``
    (each a list/tuple that may hold tensors, or a 1-D int tensor)."""
    nd = _ndim(x)
    offsets = [0] * nd if offsets is None else offsets
    shape = list(x.shape) if shape is None else shape
    _check_crop_list(shape, "shape")
    _check_crop_list(offsets, "offsets")
    o_ints, ot, ol = M.int_list_args(offsets, "offsets")      # offsets first, as Paddle
    s_ints, st, sl = M.int_list_args(shape, "shape")
    if sl:      # Paddle writes 0 in the attribute for a tensor entry of the shape
        s_ints = [0 if is_var(v) else int(v) for v in shape]
    attrs = {"shape": s_ints, "offsets": [-1] * nd if ot is not None else o_ints}
    return bind(_OPS["crop_tensor"], (x, st, sl, ot, ol), attrs)[0]


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):
    """Each index v of shard ``shard_id`` (of ``nshards`` equal ranges over
    [0, index_num)) becomes v minus the shard's start; others ``ignore_value``."""
    if not 0 <= shard_id < nshards:
        raise ValueError(f"shard_index: the shard_id({shard_id}) should be in [0, {nshards})")
    return bind(_OPS["shard_index"], (input,),
                {"index_num": int(index_num), "nshards": int(nshards),
                 "shard_id": int(shard_id), "ignore_value": int(ignore_value)})[0]


def broadcast_shape(x_shape, y_shape):
    """The shape two shapes broadcast to (a list of ints)."""
    return list(broadcast_shapes(tuple(int(d) for d in x_shape), tuple(int(d) for d in y_shape),
                                 names=("x_shape", "y_shape")))


def is_same_shape(x, y):
    return list(x.shape) == list(y.shape)


# Tensor methods with no paddle.X of the same name (Paddle 2.6)
EXTRA_METHODS = {"fill_diagonal_": fill_diagonal_, "fill_diagonal_tensor": fill_diagonal_tensor,
                 "fill_diagonal_tensor_": fill_diagonal_tensor_,
                 "put_along_axis_": put_along_axis_, "is_same_shape": is_same_shape,
                 "broadcast_tensors": M.broadcast_tensors}
