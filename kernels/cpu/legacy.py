"""numpy kernels of the fluid-era ops (ops/defs/legacy.py): mul, its grad and
double grad."""
import numpy as np

from ..registry import kernel, NUMERIC, FLOATS
from .bilinear import Bilinear, register


def _mat(a, n):
    return a.reshape(int(np.prod(a.shape[:n], dtype=np.int64)), -1)


@kernel("mul", dtypes=FLOATS)
def mul(ins, attrs, need):
    x, y = ins
    xn, yn = attrs["x_num_col_dims"], attrs["y_num_col_dims"]
    out = _mat(x, xn) @ _mat(y, yn)
    return (out.reshape(x.shape[:xn] + y.shape[yn:]),)


@kernel("mul_grad", dtypes=NUMERIC)
def mul_grad(ins, attrs, need):
    x, y, g = ins
    xn, yn = attrs["x_num_col_dims"], attrs["y_num_col_dims"]
    x2, y2 = _mat(x, xn), _mat(y, yn)
    g2 = g.reshape(x2.shape[0], y2.shape[1])
    dx = (g2 @ y2.T).reshape(x.shape) if need is None or need[0] else None
    dy = (x2.T @ g2).reshape(y.shape) if need is None or need[1] else None
    return dx, dy


# mul is bilinear: its double grad from its forward and grad (kernels/cpu/bilinear.py)
register(Bilinear(lambda a, b, attrs: mul((a, b), attrs, None)[0],
                  lambda a, b, d, attrs, need: mul_grad((a, b, d), attrs, need)),
         ("mul_grad_grad",), dtypes=NUMERIC)
