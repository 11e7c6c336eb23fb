"""Fluid-era ops that Paddle 2.6 still emits from its static builders:
``mul`` (``static.nn.fc``: X and Y flattened to matrices by
x_num_col_dims / y_num_col_dims, then multiplied), its grad and double grad."""
from ..declare import defop, defgrad, grad_op, grad_chain
from ..registry import Meta, OpError

_MUL_ATTRS = (("x_num_col_dims", "INT", 1), ("y_num_col_dims", "INT", 1))


def _prod(dims):
    n = 1
    for d in dims:
        if d < 0:
            return -1
        n *= d
    return n


def _mul_infer(metas, attrs):
    x, y = metas
    xn, yn = attrs["x_num_col_dims"], attrs["y_num_col_dims"]
    if not 0 < xn < len(x.shape) + 1 or not 0 < yn < len(y.shape):
        raise OpError(f"mul: x_num_col_dims={xn} / y_num_col_dims={yn} do not fit X of shape "
                      f"{list(x.shape)} and Y of shape {list(y.shape)}")
    k1, k2 = _prod(x.shape[xn:]), _prod(y.shape[:yn])
    if k1 != k2 and k1 >= 0 and k2 >= 0:
        raise OpError(f"mul: X flattened at dim {xn} has {k1} columns but Y flattened at dim "
                      f"{yn} has {k2} rows (X {list(x.shape)}, Y {list(y.shape)})")
    return (Meta(tuple(x.shape[:xn]) + tuple(y.shape[yn:]), x.dtype),)


# mul is bilinear; its double grad has Paddle's (fluid) slot names
defgrad("mul_grad", "X Y Out@GRAD", "X@GRAD? Y@GRAD?", _MUL_ATTRS,
        grad=grad_chain(_MUL_ATTRS, ("mul_grad_grad",
                                     {"X": "X", "Y": "Y", "DOut": "Out@GRAD",
                                      "DDX?": "X@GRAD@GRAD", "DDY?": "Y@GRAD@GRAD"},
                                     {"DX": "X@GRAD", "DY": "Y@GRAD",
                                      "DDOut": "Out@GRAD@GRAD"})))
defop("mul", "X Y", "Out", _MUL_ATTRS, infer=_mul_infer,
      grad=grad_op("mul_grad", uses=("X", "Y"), wrt=("X", "Y")), same_dtype=("X", "Y"))
