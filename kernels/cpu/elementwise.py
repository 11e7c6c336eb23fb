"""numpy kernels of the binary elementwise ops, their grads, the double grads
of add/sub/mul/div/pow and the triple grads of add and mul."""
import numpy as np

from ...ops import OpError

from ..registry import kernel, NUMERIC, FLOATS, ALL
from .bilinear import Bilinear, register


def align_y(x, y, axis):
    """Reshape Y so numpy broadcasting matches Paddle's ``axis`` rule."""
    if axis == -1 or y.ndim >= x.ndim:
        return y
    return y.reshape(y.shape + (1,) * (x.ndim - axis - y.ndim))


def reduce_to(g, shape, axis=-1, full_ndim=None):
    """Sum a broadcast gradient ``g`` back to ``shape`` (the inverse of broadcast)."""
    gs = g.shape
    if gs == shape:
        return g
    k = len(gs) - len(shape)
    if k > 0 and gs[k:] == tuple(shape) and (axis == -1 or axis == k) and g.dtype.kind == "f":
        # leading axes only, the common bias case (ndarray.sum's own reduction)
        return np.add.reduce(g, axis=0 if k == 1 else tuple(range(k)))
    if axis != -1 and len(shape) < g.ndim:
        padded = (1,) * axis + tuple(shape) + (1,) * (g.ndim - axis - len(shape))
    else:
        padded = (1,) * (g.ndim - len(shape)) + tuple(shape)
    axes = tuple(i for i, (a, b) in enumerate(zip(g.shape, padded)) if b == 1 and a != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)


def _binary(op_type, fn, dtypes=NUMERIC):
    @kernel(op_type, dtypes=dtypes)
    def k(ins, attrs, need):
        x, y = ins
        axis = attrs["axis"]
        if axis != -1:
            y = align_y(x, y, axis)
        return (fn(x, y),)
    # executor fast form (executor/plan.py): with numpy broadcasting the op is fn itself
    k.fast = lambda attrs: fn if attrs["axis"] == -1 else None
    k.fresh = True
    if isinstance(fn, np.ufunc):      # Out may go into X's or Y's buffer (executor/reuse.py)
        k.inplace = ((0, 0, "bcast"), (0, 1, "bcast"))
        k.reuse = lambda attrs, pairs: _into(fn, pairs[0][1]) if attrs["axis"] == -1 else None
        k.reuse_min = REUSE_MIN
    return k


# below this many elements a new array costs less than the in-place form's
# Python frame (the plain fast form is the ufunc itself)
REUSE_MIN = 256


def _into(fn, pos):
    """Kernel (with fast form) computing ``fn`` into input ``pos``'s array.  Same
    dtypes give the same result dtype for these ufuncs; should the array not
    fit the result after all (declared shapes or dtypes that were wrong), the
    result gets a new array, as without reuse."""
    if pos == 0:
        def fast(x, y):
            if x.dtype is y.dtype:
                try:
                    return fn(x, y, x)
                except (ValueError, TypeError):
                    pass
            return fn(x, y)
    else:
        def fast(x, y):
            if x.dtype is y.dtype:
                try:
                    return fn(x, y, y)
                except (ValueError, TypeError):
                    pass
            return fn(x, y)

    def k(ins, attrs, need):
        return (fast(ins[0], ins[1]),)
    k.fast = lambda attrs: fast
    return k


# no bool add/subtract (Paddle registers none: ``bool_tensor + bool_tensor`` raises)
_binary("elementwise_add", np.add)
_binary("elementwise_sub", np.subtract)
_binary("elementwise_mul", np.multiply, ALL)
_binary("elementwise_max", np.maximum)
_binary("elementwise_min", np.minimum)
def _pow(x, y):
    if y.dtype.kind in "iu" and (y < 0).any():
        raise OpError("op 'elementwise_pow': an integer tensor cannot be raised to a negative "
                      "integer power (cast X to a float dtype first)")
    return np.power(x, y)


_binary("elementwise_pow", _pow)


def _check_int_divisor(x, y, op):
    if y.dtype.kind in "iub" and not y.all():
        raise OpError(f"op '{op}': integer division by zero (Y holds a 0); Paddle raises "
                      f"on this too")


def _floordiv(x, y):
    _check_int_divisor(x, y, "elementwise_floordiv")
    return np.floor_divide(x, y)


_binary("elementwise_floordiv", _floordiv, NUMERIC)


def _div(x, y):
    if x.dtype.kind in "iub":
        _check_int_divisor(x, y, "elementwise_div")
        if x.dtype.kind == "b":
            # Paddle's bool kernel divides as integers: Y is all True here, so X / Y is X
            return np.logical_and(x, y)
        # Paddle truncates integer division toward zero
        return np.trunc(np.true_divide(x, y)).astype(x.dtype)
    return np.true_divide(x, y)


def _mod(x, y):
    """Paddle's elementwise_mod: the sign of y (Python's rule).  Floats as its
    kernel computes them, ``fmod`` moved into y's sign where it is nonzero, so
    a zero remainder keeps x's sign (-7.5 % 2.5 is -0.0, np.mod gives +0.0)."""
    _check_int_divisor(x, y, "elementwise_mod")
    if x.dtype.kind != "f" or y.dtype.kind != "f":
        return np.mod(x, y)
    r = np.fmod(x, y)
    if type(r) is not np.ndarray:
        r = np.asarray(r)
    np.add(r, y, out=r, where=(r != 0) & ((r < 0) != (y < 0)))
    return r


_binary("elementwise_div", _div, ALL)
_binary("elementwise_mod", _mod, NUMERIC)


def _grads(need, x, y, axis, gx, gy):
    """Apply the need mask and reduce broadcast gradients to the input shapes."""
    dx = reduce_to(gx(), x.shape, -1) if need is None or need[0] else None
    dy = reduce_to(gy(), y.shape, axis) if need is None or need[1] else None
    return dx, dy


@kernel("elementwise_add_grad", dtypes=NUMERIC)
def add_grad(ins, attrs, need):
    x, y, g = ins
    dx = dy = None
    if need is None or need[0]:
        dx = g if g.shape == x.shape else reduce_to(g, x.shape)
    if need is None or need[1]:
        dy = g if g.shape == y.shape else reduce_to(g, y.shape, attrs["axis"])
    return dx, dy


@kernel("elementwise_sub_grad", dtypes=NUMERIC)
def sub_grad(ins, attrs, need):
    x, y, g = ins
    dx = dy = None
    if need is None or need[0]:
        dx = g if g.shape == x.shape else reduce_to(g, x.shape)
    if need is None or need[1]:
        dy = reduce_to(-g, y.shape, attrs["axis"])
    return dx, dy


def _pass_inline(neg_y):
    """``grad_inline`` of add_grad (``neg_y``: sub_grad): add_grad's formulas as
    source over its inputs {0}=X, {1}=Y, {2}=Out@GRAD (kernels/registry.py)."""
    def exprs(attrs):
        gy = "-{2}" if neg_y else "{2}"
        dy = (f"reduce_to({gy}, {{1}}.shape, {attrs['axis']!r})" if neg_y else
              f"{{2}} if {{2}}.shape == {{1}}.shape else reduce_to({{2}}, {{1}}.shape, "
              f"{attrs['axis']!r})")
        return ("{2} if {2}.shape == {0}.shape else reduce_to({2}, {0}.shape)", dy)
    return exprs


def _fast_from_inline(exprs_of):
    """``grad_fast`` made from the kernel's ``grad_inline`` formulas (one source
    for both): per need mask, a function of the grad op's three inputs
    evaluating the formulas of the outputs wanted, compiled once per form."""
    def form(attrs, need):
        exprs = exprs_of(attrs)
        if exprs is None:
            return None
        outs = ", ".join(f"({e.format('x', 'y', 'g')})" if n else "None"
                         for e, n in zip(exprs, need))
        return eval(f"lambda x, y, g: ({outs},)", globals())
    return form


add_grad.grad_inline = _pass_inline(False)
sub_grad.grad_inline = _pass_inline(True)
add_grad.grad_fast = _fast_from_inline(add_grad.grad_inline)
sub_grad.grad_fast = _fast_from_inline(sub_grad.grad_inline)


# X and Y only give shapes (declared: the grad ops' no_need_buffer); DX may be
# Out@GRAD itself, so these kernels are not ``fresh``


@kernel("elementwise_mul_grad", dtypes=NUMERIC)
def mul_grad(ins, attrs, need):
    x, y, g = ins
    axis = attrs["axis"]
    dx = dy = None
    if need is None or need[0]:
        dx = g * (y if axis == -1 else align_y(x, y, axis))
        if dx.shape != x.shape:
            dx = reduce_to(dx, x.shape)
    if need is None or need[1]:
        dy = reduce_to(g * x, y.shape, axis)
    return dx, dy


def _mul_inline(attrs):
    """``grad_inline`` of mul_grad for numpy broadcasting (axis -1)."""
    if attrs["axis"] != -1:
        return None
    return ("_dx if (_dx := {2} * {1}).shape == {0}.shape else reduce_to(_dx, {0}.shape)",
            "reduce_to({2} * {0}, {1}.shape)")


mul_grad.grad_inline = _mul_inline
mul_grad.grad_fast = _fast_from_inline(_mul_inline)


@kernel("elementwise_div_grad", dtypes=FLOATS)
def div_grad(ins, attrs, need):
    x, y, out, g = ins
    ya = align_y(x, y, attrs["axis"])
    # DX is computed even when X needs no gradient: the double grad reads it (as
    # Paddle's does) to recover DOut / Y, e.g. for d2/dy2 of 1 / y
    return _grads((True, need is None or need[1]), x, y, attrs["axis"],
                  lambda: g / ya, lambda: -g * out / ya)


@kernel("elementwise_pow_grad", dtypes=FLOATS)
def pow_grad(ins, attrs, need):
    x, y, g = ins
    ya = align_y(x, y, attrs["axis"])

    def gy():
        with np.errstate(divide="ignore", invalid="ignore"):
            lx = np.where(x > 0, np.log(np.where(x > 0, x, 1)), 0).astype(x.dtype)
        return g * np.power(x, ya) * lx
    return _grads(need, x, y, attrs["axis"], lambda: g * ya * np.power(x, ya - 1), gy)


@kernel("elementwise_max_grad", dtypes=FLOATS)
def max_grad(ins, attrs, need):
    x, y, g = ins
    ya = align_y(x, y, attrs["axis"])
    mask = x > ya
    return _grads(need, x, y, attrs["axis"],
                  lambda: np.where(mask, g, 0).astype(g.dtype),
                  lambda: np.where(mask, 0, g).astype(g.dtype))


@kernel("elementwise_min_grad", dtypes=FLOATS)
def min_grad(ins, attrs, need):
    x, y, g = ins
    ya = align_y(x, y, attrs["axis"])
    mask = x < ya
    return _grads(need, x, y, attrs["axis"],
                  lambda: np.where(mask, g, 0).astype(g.dtype),
                  lambda: np.where(mask, 0, g).astype(g.dtype))


# ------------------------------------------------------------------ double grads
def _full(a, shape):
    """``a`` broadcast to ``shape`` as its own writable array."""
    if a.shape == tuple(shape):
        return a
    out = np.empty(shape, dtype=a.dtype)
    out[...] = a
    return out


def _want(need, n):
    return need or (True,) * n


@kernel("elementwise_add_grad_grad", dtypes=NUMERIC)
def add_grad_grad(ins, attrs, need):
    """DX = DOut and DY = DOut (reduced), so DDOut = DDX + DDY broadcast to DOut."""
    y, dout, ddx, ddy = ins
    out = np.zeros_like(dout)
    if ddx is not None:
        out = out + ddx
    if ddy is not None:
        out = out + align_y(dout, ddy, attrs["axis"])
    return (out,)


@kernel("elementwise_sub_grad_grad", dtypes=NUMERIC)
def sub_grad_grad(ins, attrs, need):
    y, dout, ddx, ddy = ins
    out = np.zeros_like(dout)
    if ddx is not None:
        out = out + ddx
    if ddy is not None:
        out = out - align_y(dout, ddy, attrs["axis"])
    return (out,)


@kernel("elementwise_add_triple_grad", dtypes=NUMERIC)
def add_triple_grad(ins, attrs, need):
    """DDOut = DDX + DDY (broadcast): D_DDX, D_DDY are D_DDOut reduced to their shapes."""
    ddx, ddy, d_ddout = ins
    want = _want(need, 2)
    return (reduce_to(d_ddout, ddx.shape) if want[0] and ddx is not None else None,
            reduce_to(d_ddout, ddy.shape, attrs["axis"]) if want[1] and ddy is not None
            else None)


# mul is bilinear: its double and triple grads from its forward and grad
# (kernels/cpu/bilinear.py); Y is aligned inside X at ``axis``
MUL = Bilinear(lambda a, b, attrs: a * align_y(a, b, attrs["axis"]),
               lambda a, b, d, attrs, need: mul_grad((a, b, d), attrs, need))
register(MUL, ("elementwise_mul_grad_grad",), ("elementwise_mul_triple_grad",), NUMERIC)


@kernel("elementwise_pow_grad_grad", dtypes=FLOATS)
def pow_grad_grad(ins, attrs, need):
    """With p = X^Y, ln X taken as 0 where X <= 0 (as pow_grad does):
    dX = DOut Y X^(Y-1), dY = DOut p ln X.  Given DDX, DDY (a, b below):
    DDOut = a Y X^(Y-1) + b p ln X,
    X' = DOut (a Y (Y-1) X^(Y-2) + b X^(Y-1) (Y ln X + [X > 0])),
    Y' = DOut (a X^(Y-1) (1 + Y ln X) + b p ln^2 X)."""
    x, y, dout, ddx, ddy = ins
    axis = attrs["axis"]
    ya = align_y(x, y, axis)
    a = 0 if ddx is None else ddx
    b = 0 if ddy is None else align_y(x, ddy, axis)
    pos = x > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        lx = np.where(pos, np.log(np.where(pos, x, 1)), 0).astype(x.dtype)
        xm1 = np.power(x, ya - 1)
        xm2 = np.power(x, ya - 2)
    p = np.power(x, ya)
    want = _want(need, 3)
    dx = dy = ddout = None
    if want[0]:
        dx = reduce_to(dout * (a * ya * (ya - 1) * xm2 + b * xm1 * (ya * lx + pos)), x.shape)
    if want[1]:
        dy = reduce_to(dout * (a * xm1 * (1 + ya * lx) + b * p * lx * lx), y.shape, axis)
    if want[2]:
        ddout = np.broadcast_to(a * ya * xm1 + b * p * lx, dout.shape).astype(dout.dtype)
    return dx, dy, ddout


@kernel("elementwise_div_grad_grad", dtypes=FLOATS)
def div_grad_grad(ins, attrs, need):
    """With DX = DOut/Y and DY = -DOut*Out/Y (Out an input of div_grad):
    Y' = (DDY*Out - DDX) * DX / Y, Out' = -DDY * DX, DDOut = (DDX - DDY*Out) / Y."""
    y, out, dx, ddx, ddy = ins
    axis = attrs["axis"]
    ya = align_y(out, y, axis)
    ddya = None if ddy is None else align_y(out, ddy, axis)
    want = _want(need, 3)
    gy = gout = ddout = None
    if want[0] or want[1]:
        if dx is None or dx.shape != out.shape:
            raise OpError("op 'elementwise_div_grad_grad': the double gradient of a division "
                          "needs X's first-order gradient with the output's shape "
                          f"{list(out.shape)} (X must require grad and not be broadcast)")
        t = np.zeros_like(out)
        if ddya is not None:
            t = t + ddya * out
        if ddx is not None:
            t = t - ddx
        if want[0]:
            gy = reduce_to(t * dx / ya, y.shape, axis)
        if want[1]:
            gout = np.zeros_like(out) if ddya is None else _full(-ddya * dx, out.shape)
    if want[2]:
        t = np.zeros_like(out)
        if ddx is not None:
            t = t + ddx
        if ddya is not None:
            t = t - ddya * out
        ddout = t / ya
    return gy, gout, ddout
