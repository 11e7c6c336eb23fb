"""Initializers made of several ops: Orthogonal, Dirac, Bilinear.

Eagerly the values are computed here (numpy, from the same steps) and stored
in the parameter; given a static block they append Paddle 2.6's op sequence
(the same op types, attributes and temporary variable names as Paddle's
``__call__``/``forward``).
"""
import numpy as np

from ...dygraph.aliases import write_data
from ...dygraph.tensor import Tensor
from ...ops import bind, get_op
from ...ops.dtypes import to_np_dtype
from ...utils import unique_name
from .initializer import Initializer, dtype_attr

__all__ = ["Orthogonal", "Dirac", "Bilinear"]

_FP32 = np.dtype("float32")


def _static(param, block):
    return block is not None and hasattr(block, "append_op") and not isinstance(param, Tensor)


def _tmp(block, prefix, dtype, shape=None):
    kw = dict(name=unique_name.generate(prefix), dtype=dtype, persistable=False,
              stop_gradient=True)
    if shape is not None:
        kw["shape"] = list(shape)
    return block.create_var(**kw)


def _set(param, value):
    if not isinstance(param, Tensor):
        raise TypeError(f"initializer: expected a Tensor or Parameter to fill, "
                        f"got {type(param).__name__}")
    write_data(param, np.ascontiguousarray(value.astype(param._data.dtype, copy=False)))


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix of shape [shape[0], prod(shape[1:])] times
    ``gain``: the Q of the QR decomposition of a Gaussian sample, its columns'
    signs fixed by R's diagonal."""

    def __init__(self, gain=1.0, name=None):
        if gain is None:
            raise ValueError("gain should not be None")
        self._gain = gain

    def forward(self, param, block=None):
        shape = list(param.shape)
        if len(shape) < 2:
            raise ValueError("Only Tensor with 2 or more dimensions can be initialized by "
                             "Orthogonal")
        row, col = shape[0], int(np.prod(shape[1:]))
        flat = [max(row, col), min(row, col)]
        seed = getattr(getattr(block, "program", None), "random_seed", 0) or 0
        dtype = param.dtype
        if not _static(param, block):
            g = get_op("gaussian_random")
            sample = bind(g, (None, None), {"shape": flat, "mean": 0.0, "std": 1.0,
                                            "seed": seed, "dtype": dtype_attr(dtype)})[0]
            a = np.asarray(sample.numpy())
            q, r = np.linalg.qr(a, mode="reduced")
            q = (q * np.sign(np.diagonal(r))).astype(a.dtype)
            if row < col:
                q = q.T
            _set(param, q.reshape(shape) * a.dtype.type(self._gain))
            return None
        if to_np_dtype(dtype).name not in ("float32", "float64"):
            raise TypeError(f"Orthogonal: the parameter's dtype must be float32 or float64, "
                            f"got {to_np_dtype(dtype).name}")
        normal = _tmp(block, "gaussian_random.tmp", dtype)
        block.append_op(type="gaussian_random", outputs={"Out": [normal]},
                        attrs={"mean": 0.0, "std": 1.0, "shape": flat, "seed": seed,
                               "dtype": dtype_attr(dtype)})
        q = _tmp(block, "qr.q.tmp", dtype)
        r = _tmp(block, "qr.r.tmp", dtype)
        block.append_op(type="qr", inputs={"X": [normal]}, outputs={"Q": [q], "R": [r]},
                        attrs={"mode": "reduced"})
        r_diag = _tmp(block, "diag.tmp", dtype)
        block.append_op(type="diag_v2", inputs={"X": [r]}, outputs={"Out": [r_diag]},
                        attrs={"offset": 0, "padding_value": 0})
        block.append_op(type="sign", inputs={"X": [r_diag]}, outputs={"Out": [r_diag]})
        block.append_op(type="elementwise_mul", inputs={"X": [q], "Y": [r_diag]},
                        outputs={"Out": [q]}, attrs={})
        x_shape = _tmp(block, "transpose.shape.tmp", dtype)
        if row < col:
            qt = _tmp(block, "transpose.tmp", dtype)
            block.append_op(type="transpose2", inputs={"X": [q]},
                            outputs={"Out": [qt], "XShape": [x_shape]}, attrs={"axis": [1, 0]})
            q = qt
        block.append_op(type="reshape2", inputs={"X": [q]},
                        outputs={"Out": [q], "XShape": [x_shape]}, attrs={"shape": shape})
        return block.append_op(type="scale", inputs={"X": [q]}, outputs={"Out": [param]},
                               attrs={"scale": float(self._gain), "bias": 0.0})


class Dirac(Initializer):
    """The identity of a convolution (3-D/4-D/5-D kernels): 1 at the centre of
    kernel [j + i * out/groups, j] for each group i and j < min(out/groups, in),
    0 elsewhere."""

    def __init__(self, groups=1, name=None):
        if not (isinstance(groups, int) and groups > 0):
            raise ValueError(" 'groups' must be a positive integer. ")
        self._groups = groups

    def _indices(self, shape):
        num_per_group = shape[0] // self._groups
        min_shape = min(num_per_group, shape[1])
        strides, prod = [], 1
        for dim in reversed(shape):
            strides.insert(0, prod)
            prod *= dim
        idx = []
        for i in range(self._groups):
            for j in range(min_shape):
                off = 0
                for k, stride in enumerate(strides):
                    if k == 0:
                        off += (j + i * num_per_group) * stride
                    elif k == 1:
                        off += j * stride
                    else:
                        off += shape[k] // 2 * stride
                idx.append(off)
        return idx

    def forward(self, param, block=None):
        shape = list(param.shape)
        dt = to_np_dtype(param.dtype)
        if dt.name not in ("float16", "bfloat16", "float32", "float64"):
            raise TypeError(f"Dirac: the parameter's dtype must be a float type, got {dt.name}")
        if len(shape) not in (3, 4, 5):
            raise ValueError("Only Tensor with 3/4/5 dimensions can be initialized by Dirac")
        if shape[0] % self._groups != 0:
            raise ValueError("Tensor 0-dimension must be divisible by groups")
        idx = self._indices(shape)
        if not _static(param, block):
            flat = np.zeros(int(np.prod(shape)), _FP32)
            flat[idx] = 1.0
            _set(param, flat.reshape(shape))
            return None
        if dt != _FP32:
            out = block.create_var(name=unique_name.generate(f"dirac.{param.name}.tmp"),
                                   shape=shape, dtype="float32", persistable=False)
        else:
            out = param
        block.append_op(type="fill_constant", outputs={"Out": [out]},
                        attrs={"value": 0.0, "dtype": dtype_attr(_FP32), "shape": shape})
        xs = _tmp(block, f"{out.name}.XShape", "float32", shape)
        block.append_op(type="reshape2", inputs={"X": [out]},
                        outputs={"Out": [out], "XShape": [xs]}, attrs={"shape": [-1]})
        index = block.create_var(name=unique_name.generate("scatter_index"), persistable=False,
                                 stop_gradient=True, dtype="int64")
        block.append_op(type="assign_value", outputs={"Out": [index]},
                        attrs={"dtype": dtype_attr("int64"), "shape": [len(idx)],
                               "int64_values": idx})
        value = block.create_var(name=unique_name.generate("scatter_value"), persistable=False,
                                 stop_gradient=True, dtype="float32")
        block.append_op(type="assign_value", outputs={"Out": [value]},
                        attrs={"dtype": dtype_attr(_FP32), "shape": [len(idx)],
                               "fp32_values": [1.0] * len(idx)})
        op = block.append_op(type="scatter",
                             inputs={"X": [out], "Ids": [index], "Updates": [value]},
                             outputs={"Out": [out]}, attrs={"overwrite": True})
        xs = _tmp(block, f"{out.name}.XShape", "float32", shape)
        block.append_op(type="reshape2", inputs={"X": [out]},
                        outputs={"Out": [out], "XShape": [xs]}, attrs={"shape": shape})
        if dt != _FP32:
            block.append_op(type="cast", inputs={"X": [out]}, outputs={"Out": [param]},
                            attrs={"in_dtype": dtype_attr(_FP32), "out_dtype": dtype_attr(dt)})
        return op


class Bilinear(Initializer):
    """Bilinear-upsampling kernel weights for a transposed convolution
    ([C_out, C_in, K, K]), computed as Paddle's (whose row coordinate is the
    float ``(i / K) % K``)."""

    def __init__(self):
        pass

    @staticmethod
    def _weight(shape):
        n = int(np.prod(shape))
        weight = np.zeros(n, dtype="float32")
        size = shape[3]
        f = np.ceil(size / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        for i in range(n):
            x = i % size
            y = (i / size) % size
            weight[i] = (1 - abs(x / f - c)) * (1 - abs(y / f - c))
        return weight.reshape(shape)

    def forward(self, param, block=None):
        shape = list(param.shape)
        if len(shape) != 4:
            raise ValueError("the length of shape must be 4.")
        if shape[2] != shape[3]:
            raise ValueError("shape[2] must be equal to shape[3].")
        dt = to_np_dtype(param.dtype)
        cast = dt.name in ("float16", "bfloat16", "float64")
        if not cast and dt != _FP32:
            raise TypeError(f"Unsupported dtype {dt.name}")
        if np.prod(shape) > 1024 * 1024:
            raise ValueError("The size of input is too big. ")
        weight = self._weight(shape)
        if not _static(param, block):
            _set(param, weight)
            return None
        if cast:
            out = block.create_var(name=unique_name.generate(f"bilinear_init.{param.name}.tmp"),
                                   shape=shape, dtype="float32", persistable=False)
        else:
            out = param
        op = block.append_op(type="assign_value", outputs={"Out": [out]},
                             attrs={"dtype": dtype_attr(_FP32), "shape": shape,
                                    "fp32_values": [float(v) for v in weight.flat]})
        if cast:
            block.append_op(type="cast", inputs={"X": [out]}, outputs={"Out": [param]},
                            attrs={"in_dtype": dtype_attr(_FP32), "out_dtype": dtype_attr(dt)})
        return op
