"""Matrix products: matmul_v2 (batched, transposes, vectors), bmm, dot, and the
double / triple grads of matmul_v2 (bmm's gradient reuses matmul_v2's double grad)."""
from ..declare import defop, defgrad, grad_op, grad_chain
from ..registry import GradOp, Meta, OpError


def _mm_shape(xs, ys, tx, ty):
    xs, ys = list(xs), list(ys)
    if not xs or not ys:
        raise OpError(f"matmul needs inputs of rank >= 1, got X {xs} and Y {ys}")
    xv, yv = len(xs) == 1, len(ys) == 1
    # a vector is a row (X) or column (Y) matrix; Paddle ignores its transpose flag
    if xv:
        xs = [1] + xs
    elif tx:
        xs[-1], xs[-2] = xs[-2], xs[-1]
    if yv:
        ys = ys + [1]
    elif ty:
        ys[-1], ys[-2] = ys[-2], ys[-1]
    k1, k2 = xs[-1], ys[-2]
    if k1 != k2 and k1 != -1 and k2 != -1:
        raise OpError(f"X's contracted dim {k1} (X shape {xs}, trans_x={tx}) does not "
                      f"match Y's {k2} (Y shape {ys}, trans_y={ty})")
    from ..meta_rules import broadcast_shapes
    batch = broadcast_shapes(xs[:-2], ys[:-2], names=("X batch", "Y batch"))
    out = list(batch) + ([] if xv else [xs[-2]]) + ([] if yv else [ys[-1]])
    return tuple(out)


def matmul_infer(metas, attrs):
    x, y = metas
    return (Meta(_mm_shape(x.shape, y.shape, attrs["trans_x"], attrs["trans_y"]), x.dtype),)


_MM_ATTRS = (("trans_x", "BOOLEAN", False), ("trans_y", "BOOLEAN", False))

# matmul is bilinear: the double grad (Paddle's slots) maps X, Y, DOut and the
# incoming DDX, DDY to the gradients of X, Y and DOut; the triple grad is the
# gradient of that (kernels/cpu/bilinear.py)
_MM_HIGHER = grad_chain(
    _MM_ATTRS,
    ("matmul_v2_grad_grad", {"X": "X", "Y": "Y", "grad_out": "Out@GRAD",
                             "grad_x@GRAD?": "X@GRAD@GRAD", "grad_y@GRAD?": "Y@GRAD@GRAD"},
     {"X@GRAD": "X@GRAD", "Y@GRAD": "Y@GRAD", "grad_out@GRAD": "Out@GRAD@GRAD"}),
    ("matmul_v2_triple_grad", {"X": "X", "Y": "Y", "grad_out": "grad_out",
                               "grad_grad_x?": "grad_x@GRAD", "grad_grad_y?": "grad_y@GRAD",
                               "grad_x@GRAD?": "X@GRAD@GRAD", "grad_y@GRAD?": "Y@GRAD@GRAD",
                               "grad_grad_out@GRAD?": "grad_out@GRAD@GRAD"},
     {"X@GRAD": "X@GRAD", "Y@GRAD": "Y@GRAD", "grad_out@GRAD": "grad_out@GRAD",
      "grad_grad_x@GRAD": "grad_x@GRAD@GRAD", "grad_grad_y@GRAD": "grad_y@GRAD@GRAD"}))
defgrad("matmul_v2_grad", "X Y Out@GRAD", "X@GRAD? Y@GRAD?", _MM_ATTRS, grad=_MM_HIGHER)
defop("matmul_v2", "X Y", "Out", _MM_ATTRS, infer=matmul_infer,
      grad=grad_op("matmul_v2_grad", uses=("X", "Y"), wrt=("X", "Y")),
      same_dtype=("X", "Y"), renames={"transpose_x": "trans_x", "transpose_y": "trans_y"})


def _bmm_infer(metas, attrs):
    x, y = metas
    if len(x.shape) != 3 or len(y.shape) != 3:
        raise OpError(f"bmm needs rank-3 inputs, got X {list(x.shape)} and Y {list(y.shape)}")
    return (Meta(_mm_shape(x.shape, y.shape, False, False), x.dtype),)


# bmm is matmul_v2 of rank-3 operands: its grad op has matmul_v2_grad's slots,
# so its gradient is matmul_v2's double grad (Paddle has no bmm double grad)
defgrad("bmm_grad", "X Y Out@GRAD", "X@GRAD? Y@GRAD?",
        grad=GradOp(_MM_HIGHER.type, _MM_HIGHER.inputs, _MM_HIGHER.outputs,
                    lambda a: {"trans_x": False, "trans_y": False}))
defop("bmm", "X Y", "Out", infer=_bmm_infer,
      grad=grad_op("bmm_grad", uses=("X", "Y"), wrt=("X", "Y")), same_dtype=("X", "Y"))


def _dot_infer(metas, attrs):
    x, y = metas
    if tuple(x.shape) != tuple(y.shape):
        raise OpError(f"dot needs X and Y of the same shape, got {list(x.shape)} and "
                      f"{list(y.shape)}")
    return (Meta(tuple(x.shape[:-1]), x.dtype),)


defgrad("dot_grad", "X Y Out@GRAD", "X@GRAD? Y@GRAD?")
defop("dot", "X Y", "Out", infer=_dot_infer,
      grad=grad_op("dot_grad", uses=("X", "Y"), wrt=("X", "Y")), same_dtype=("X", "Y"))
