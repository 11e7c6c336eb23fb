"""numpy kernels of the shape manipulation ops (ops/defs/manipulation.py).

Reshapes, transposes and slices return numpy views: sampan never writes into
an array a Tensor holds (in-place ops replace ``Tensor._data``), so sharing
buffers is safe and saves a copy per call.
"""
import numpy as np

from ..registry import kernel, ALL, FLOATS, NUMERIC
from ...ops import OpError
from ...ops.defs.manipulation import (reshape_target, check_perm, flatten_shape,
                                      squeeze_shape, unsqueeze_shape, expand_target,
                                      split_sizes, pad3d_spatial, check_repeat_times,
                                      check_roll_shifts, check_same_dtype)
from .elementwise import reduce_to


def ints_of(tensor, tensor_list, attr):
    """A list of ints from a 1-D tensor input, a list of 1-element tensors, or the attr."""
    if tensor is not None:
        return [int(v) for v in np.asarray(tensor).reshape(-1)]
    if tensor_list:
        return [int(np.asarray(t).reshape(-1)[0]) for t in tensor_list]
    return attr


def int_of(tensor, attr):
    return attr if tensor is None else int(np.asarray(tensor).reshape(-1)[0])


def _xshape(x, need):
    if need is not None and not need[1]:
        return None
    return np.empty((0,) + x.shape, x.dtype)


# ------------------------------------------------------------ reshape family
@kernel("reshape2", dtypes=ALL)
def reshape2(ins, attrs, need):
    x, st, sl = ins
    shape = attrs["shape"] if st is None and not sl else ints_of(st, sl, None)
    return x.reshape(reshape_target(shape, x.shape)), _xshape(x, need)


@kernel("reshape2_grad", "flatten_contiguous_range_grad", "squeeze2_grad", "unsqueeze2_grad",
        dtypes=FLOATS)
def _from_xshape_grad(ins, attrs, need):
    xs, g = ins
    return (g.reshape(xs.shape[1:]),)


@kernel("transpose2_grad", dtypes=FLOATS)
def transpose2_grad(ins, attrs, need):
    xs, g = ins
    return (g.transpose(np.argsort(check_perm(attrs["axis"], g.ndim))),)


@kernel("reshape2_grad_grad", dtypes=FLOATS)
def reshape2_grad_grad(ins, attrs, need):
    dout, ddx = ins
    return (ddx.reshape(dout.shape),)


@kernel("transpose2", dtypes=ALL)
def transpose2(ins, attrs, need):
    x = ins[0]
    return x.transpose(check_perm(attrs["axis"], x.ndim)), _xshape(x, need)


@kernel("flatten_contiguous_range", dtypes=ALL)
def flatten(ins, attrs, need):
    x = ins[0]
    return (x.reshape(flatten_shape(x.shape, attrs["start_axis"], attrs["stop_axis"])),
            _xshape(x, need))


@kernel("squeeze2", dtypes=ALL)
def squeeze2(ins, attrs, need):
    x = ins[0]
    return x.reshape(squeeze_shape(x.shape, attrs["axes"])), _xshape(x, need)


@kernel("unsqueeze2", dtypes=ALL)
def unsqueeze2(ins, attrs, need):
    x, at, al = ins
    axes = ints_of(at, al, attrs["axes"])
    return x.reshape(unsqueeze_shape(x.shape, axes)), _xshape(x, need)


# ------------------------------------------------------------ concat / split / stack
@kernel("concat", dtypes=ALL)
def concat(ins, attrs, need):
    xs, at = ins
    check_same_dtype((x.dtype for x in xs), "concat")
    return (np.concatenate(xs, axis=int_of(at, attrs["axis"])),)


@kernel("concat_grad", dtypes=FLOATS)
def concat_grad(ins, attrs, need):
    xs, at, g = ins
    axis = int_of(at, attrs["axis"])
    axis = axis + g.ndim if axis < 0 else axis
    cuts = np.cumsum([x.shape[axis] for x in xs])[:-1]
    return (np.split(g, cuts, axis=axis),)


@kernel("split", dtypes=ALL)
def split(ins, attrs, need):
    x, at, sl = ins
    axis = int_of(at, attrs["axis"])
    axis = axis + x.ndim if axis < 0 else axis
    sections = ints_of(None, sl, attrs["sections"])
    sizes = split_sizes(x.shape[axis], attrs["num"], sections)
    # copies: Paddle's split results do not share x's memory (tests/ops/test_views.py)
    return ([p.copy() for p in np.split(x, np.cumsum(sizes)[:-1], axis=axis)],)


@kernel("sampan_concat_shuffle", dtypes=ALL)
def sampan_concat_shuffle(ins, attrs, need):
    """concat(X, axis 1) -> channel shuffle in ``group`` groups -> split into
    ``sections`` (ops/defs/fused.py), each output written once: its channels
    j = r, r + group, ... (one residue r) come from consecutive concatenated
    channels, copied as whole planes from the inputs holding them."""
    xs = ins[0]
    check_same_dtype((x.dtype for x in xs), "sampan_concat_shuffle")
    g, sections = attrs["group"], attrs["sections"]
    starts = np.cumsum([0] + [x.shape[1] for x in xs])    # concatenated channel starts
    per = int(starts[-1]) // g
    outs, s0 = [], 0
    for size in sections:
        out = np.empty((xs[0].shape[0], size) + xs[0].shape[2:], xs[0].dtype)
        for r in range(g):
            j0 = s0 + (r - s0) % g               # first channel j >= s0 with j % g == r
            if j0 >= s0 + size:
                continue
            count = (s0 + size - 1 - j0) // g + 1
            dst = out[:, j0 - s0::g]
            p, k = r * per + j0 // g, 0           # concatenated channel of dst[:, k]
            while k < count:
                i = int(np.searchsorted(starts, p, "right")) - 1
                take = min(count - k, int(starts[i + 1]) - p)
                q = p - int(starts[i])
                np.copyto(dst[:, k:k + take], xs[i][:, q:q + take])
                k, p = k + take, p + take
        outs.append(out)
        s0 += size
    return (outs,)


@kernel("stack", dtypes=ALL)
def stack(ins, attrs, need):
    check_same_dtype((x.dtype for x in ins[0]), "stack")
    return (np.stack(ins[0], axis=attrs["axis"]),)


def _unstack(x, axis):
    return list(np.moveaxis(x, axis, 0))


@kernel("stack_grad", dtypes=FLOATS)
def stack_grad(ins, attrs, need):
    return (_unstack(ins[0], attrs["axis"]),)


@kernel("unbind", dtypes=ALL)
def unbind(ins, attrs, need):
    return (_unstack(ins[0], attrs["axis"]),)       # views of x, as Paddle's


@kernel("unstack", dtypes=NUMERIC)   # Paddle: no bool unstack, a bool unbind
def unstack(ins, attrs, need):
    return ([a.copy() for a in _unstack(ins[0], attrs["axis"])],)   # copies, as Paddle's


@kernel("unstack_grad", dtypes=FLOATS)
def unstack_grad(ins, attrs, need):
    return (np.stack(ins[0], axis=attrs["axis"]),)


# ------------------------------------------------------------ expand / tile
@kernel("expand_v2", dtypes=ALL)
def expand_v2(ins, attrs, need):
    x, st, sl = ins
    shape = attrs["shape"] if st is None and not sl else ints_of(st, sl, None)
    # a real copy: broadcast views are read-only and share every element
    return (np.array(np.broadcast_to(x, expand_target(x.shape, shape))),)


@kernel("expand_v2_grad", "expand_as_v2_grad", dtypes=FLOATS + ("int32", "int64"))
def expand_grad(ins, attrs, need):
    x, g = ins[0], ins[-1]
    return (reduce_to(g, x.shape),)


@kernel("expand_as_v2", dtypes=ALL)
def expand_as_v2(ins, attrs, need):
    x, y = ins
    target = y.shape if y is not None else attrs["target_shape"]
    return (np.array(np.broadcast_to(x, expand_target(x.shape, target))),)


@kernel("broadcast_tensors", dtypes=ALL)
def broadcast_tensors(ins, attrs, need):
    xs = ins[0]
    if len({x.dtype for x in xs}) > 1:
        raise OpError(f"broadcast_tensors: inputs have different dtypes "
                      f"{[str(x.dtype) for x in xs]}; cast them to one dtype first")
    shape = np.broadcast_shapes(*(x.shape for x in xs))
    return ([np.array(np.broadcast_to(x, shape)) for x in xs],)


@kernel("broadcast_tensors_grad", dtypes=FLOATS)
def broadcast_tensors_grad(ins, attrs, need):
    xs, gs = ins
    return ([np.zeros(x.shape, x.dtype) if g is None else reduce_to(g, x.shape)
             for x, g in zip(xs, gs)],)


@kernel("tile", dtypes=ALL)
def tile(ins, attrs, need):
    x, rt, rl = ins
    reps = ints_of(rt, rl, attrs["repeat_times"])
    check_repeat_times(reps)
    return (np.tile(x, reps),)


@kernel("tile_grad", dtypes=FLOATS)
def tile_grad(ins, attrs, need):
    x, rt, rl, g = ins
    reps = list(ints_of(rt, rl, attrs["repeat_times"]))
    n = max(len(reps), x.ndim)
    reps = [1] * (n - len(reps)) + reps
    xs = [1] * (n - x.ndim) + list(x.shape)
    inter = [v for pair in zip(reps, xs) for v in pair]
    g = g.reshape(inter).sum(axis=tuple(range(0, 2 * n, 2)))
    return (g.reshape(x.shape),)


# ------------------------------------------------------------ flip / roll / pad
@kernel("flip", dtypes=ALL)
def flip(ins, attrs, need):
    axes = tuple(attrs["axis"])
    return (np.flip(ins[0], axis=axes).copy() if axes else ins[0].copy(),)


def _roll_args(st, attrs):
    shifts = ints_of(st, None, attrs["shifts"])
    axes = attrs["axis"]
    check_roll_shifts(shifts, axes)
    return (shifts[0] if not axes else tuple(shifts)), (None if not axes else tuple(axes))


@kernel("roll", dtypes=NUMERIC)
def roll(ins, attrs, need):
    x, st = ins
    shifts, axes = _roll_args(st, attrs)
    return (np.roll(x, shifts, axes),)


@kernel("roll_grad", dtypes=FLOATS)
def roll_grad(ins, attrs, need):
    x, st, g = ins
    shifts, axes = _roll_args(st, attrs)
    back = -shifts if axes is None else tuple(-s for s in shifts)
    return (np.roll(g, back, axes),)


def _pairs(p):
    return [(int(p[2 * i]), int(p[2 * i + 1])) for i in range(len(p) // 2)]


@kernel("pad", dtypes=NUMERIC)
def pad(ins, attrs, need):
    x = ins[0]
    return (np.pad(x, _pairs(attrs["paddings"]), constant_values=attrs["pad_value"]),)


@kernel("pad_grad", dtypes=FLOATS)
def pad_grad(ins, attrs, need):
    g = ins[0]
    idx = tuple(slice(lo, g.shape[i] - hi) for i, (lo, hi) in
                enumerate(_pairs(attrs["paddings"])))
    return (g[idx],)


_NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
            "circular": "wrap"}


def _pad3d_pairs(x, pt, attrs):
    p = ints_of(pt, None, attrs["paddings"])
    d, h, w = pad3d_spatial(attrs["data_format"])
    pairs = [(0, 0)] * x.ndim
    pairs[w], pairs[h], pairs[d] = (p[0], p[1]), (p[2], p[3]), (p[4], p[5])
    return pairs


@kernel("pad3d", dtypes=NUMERIC)
def pad3d(ins, attrs, need):
    x, pt = ins
    pairs = _pad3d_pairs(x, pt, attrs)
    mode = attrs["mode"]
    if mode == "constant":
        return (np.pad(x, pairs, constant_values=attrs["value"]),)
    if mode == "reflect":
        # a reflection reads inside the dim: each pad must be smaller than it (Paddle)
        for axis, (lo, hi) in enumerate(pairs):
            if max(lo, hi) >= x.shape[axis] and (lo or hi):
                raise OpError(f"pad3d: in reflect mode each padding of dim {axis} must be "
                              f"smaller than its size {x.shape[axis]}, got ({lo}, {hi})")
    return (np.pad(x, pairs, mode=_NP_MODE[mode]),)


@kernel("pad3d_grad", dtypes=FLOATS)
def pad3d_grad(ins, attrs, need):
    x, pt, g = ins
    pairs = _pad3d_pairs(x, pt, attrs)
    if attrs["mode"] == "constant":
        return (g[tuple(slice(lo, g.shape[i] - hi) for i, (lo, hi) in enumerate(pairs))],)
    # each output position reads one input position per axis; the same padding of
    # an index ramp gives that source, and the gradient scatters back along it
    for axis, (lo, hi) in enumerate(pairs):
        if lo == 0 and hi == 0:
            continue
        src = np.pad(np.arange(x.shape[axis]), (lo, hi), mode=_NP_MODE[attrs["mode"]])
        gm = np.moveaxis(g, axis, 0)
        acc = np.zeros((x.shape[axis],) + gm.shape[1:], g.dtype)
        np.add.at(acc, src, gm)
        g = np.moveaxis(acc, 0, axis)
    return (g,)


@kernel("pad3d_double_grad", dtypes=FLOATS)
def pad3d_double_grad(ins, attrs, need):
    """pad3d is linear in X (the constant value is not part of the gradient):
    the gradient of its grad pads DDX, with zeros in constant mode."""
    pt, ddx = ins
    return pad3d((ddx, pt), dict(attrs, value=0.0), need)


# ------------------------------------------------------------ shape / size
@kernel("shape", dtypes=ALL)
def shape(ins, attrs, need):
    return (np.asarray(ins[0].shape, dtype=np.int32),)


@kernel("size", dtypes=ALL)
def size(ins, attrs, need):
    return (np.asarray(ins[0].size, dtype=np.int64),)
