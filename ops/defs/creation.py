"""Creation ops: assign, assign_value, fill_constant, fill_any_like, range,
linspace, eye, one_hot_v2, and the random ops (uniform_random, gaussian_random,
truncated_gaussian_random, randint, randperm).

Ops without a deciding input take their kernel dtype from the ``dtype``
attribute (a Paddle VarType value).  Random ops are ``random=True`` (program
order is kept) and draw from ``kernels/random.py``.
"""
from ..declare import defop, REQUIRED
from ..dtypes import to_np_dtype
from ..registry import GradOp, Meta, OpError
from .manipulation import values_in


def attr_dtype(attrs, default=5):
    d = attrs.get("dtype", default)
    return to_np_dtype(default if d is None or d == -1 else d)


def _check_shape(shape, op):
    for s in shape:
        if int(s) < -1:
            raise OpError(f"{op}: shape {list(shape)} has a negative dim {s}")
    return tuple(int(s) for s in shape)


def _shape_from(metas, attrs, op, first=0):
    """Output shape of a creation op with (ShapeTensor?, ShapeTensorList*?) slots."""
    shape_t, shape_list = metas[first], metas[first + 1]
    if shape_t is not None:
        return (-1,) * values_in(shape_t)
    if shape_list:
        # the attribute holds the list's numbers (-1 at its tensors)
        ints = attrs.get("shape") or ()
        if len(ints) == len(shape_list):
            return tuple(int(s) if int(s) >= 0 else -1 for s in ints)
        return (-1,) * len(shape_list)
    return _check_shape(attrs["shape"], op)


# ------------------------------------------------------------ copies and constants
defop("assign", "X?", "Out", infer=lambda m, a: (m[0],),
      grad=GradOp("assign", {"X": "Out@GRAD"}, {"Out": "X@GRAD"}))
# Variable.detach in a Program: Out shares X's data and stops gradients (no grad rule)
defop("share_data", "X", "Out", infer=lambda m, a: (m[0],))

_ASSIGN_VALUE_ATTRS = (("shape", "INTS", REQUIRED), ("dtype", "INT", REQUIRED),
                       ("bool_values", "INTS", []), ("fp32_values", "FLOATS", []),
                       ("fp64_values", "FLOAT64S", []), ("int32_values", "INTS", []),
                       ("int64_values", "LONGS", []))
defop("assign_value", (), "Out", _ASSIGN_VALUE_ATTRS,
      infer=lambda m, a: (Meta(_check_shape(a["shape"], "assign_value"), attr_dtype(a)),))


_VALUE_ATTR = {"float32": "fp32_values", "float64": "fp64_values", "int32": "int32_values",
               "int64": "int64_values", "bool": "bool_values"}


def assign_value_attrs(arr):
    """The attributes of an ``assign_value`` op holding numpy array ``arr``."""
    import numpy as np
    dt = arr.dtype
    key = _VALUE_ATTR.get(dt.name, "fp32_values" if dt.kind == "f" else "int64_values")
    vals = arr.astype(np.int64 if dt.kind == "b" else dt).reshape(-1).tolist()
    from ..dtypes import to_enum
    return {"shape": list(arr.shape), "dtype": to_enum(dt), key: vals}


def _fill_constant_infer(metas, attrs):
    return (Meta(_shape_from(metas, attrs, "fill_constant", 1), attr_dtype(attrs)),)


defop("fill_constant", "ValueTensor? ShapeTensor? ShapeTensorList*?", "Out",
      (("dtype", "INT", 5), ("shape", "LONGS", []), ("value", "FLOAT", 0.0),
       ("str_value", "STRING", ""), ("force_cpu", "BOOLEAN", False),
       ("place_type", "INT", -1)),
      infer=_fill_constant_infer, dtype_from="dtype")


# Paddle leaves the memory uninitialised; sampan's kernel zero-fills it
defop("empty", "ShapeTensor? ShapeTensorList*?", "Out", (("shape", "LONGS", []), ("dtype", "INT", 5)),
      infer=lambda m, a: (Meta(_shape_from(m, a, "empty"), attr_dtype(a)),))


def _fill_any_like_infer(metas, attrs):
    x = metas[0]
    d = attrs["dtype"]
    return (Meta(tuple(x.shape), x.dtype if d is None or d == -1 else to_np_dtype(d)),)


defop("fill_any_like", "X", "Out", (("value", "FLOAT", 0.0), ("dtype", "INT", -1)),
      infer=_fill_any_like_infer, no_need_buffer=("X",))


def _fill_batch_infer(metas, attrs):
    shape = list(attrs["shape"])
    shape[attrs["output_dim_idx"]] = metas[0].shape[attrs["input_dim_idx"]]
    return (Meta(tuple(shape), attr_dtype(attrs)),)


# a constant whose dim output_dim_idx is the input's dim input_dim_idx (a -1 batch dim)
defop("fill_constant_batch_size_like", "Input", "Out",
      (("shape", "INTS", REQUIRED), ("input_dim_idx", "INT", 0), ("output_dim_idx", "INT", 0),
       ("dtype", "INT", 5), ("value", "FLOAT", 0.0), ("str_value", "STRING", ""),
       ("force_cpu", "BOOLEAN", False)),
      infer=_fill_batch_infer, no_need_buffer=("Input",))


# ------------------------------------------------------------ sequences
def _range_infer(metas, attrs):
    return (Meta((-1,), metas[0].dtype),)


defop("range", "Start End Step", "Out", infer=_range_infer)


def _linspace_infer(metas, attrs):
    return (Meta((-1,), attr_dtype(attrs)),)


defop("linspace", "Start Stop Num", "Out", (("dtype", "INT", 5),), infer=_linspace_infer,
      dtype_from="dtype")


def _eye_infer(metas, attrs):
    r, c = int(attrs["num_rows"]), int(attrs["num_columns"])
    if r < 0:
        raise OpError(f"eye: num_rows must be >= 0, got {r}")
    return (Meta((r, r if c == -1 else c), attr_dtype(attrs)),)


defop("eye", (), "Out", (("num_rows", "LONG", REQUIRED), ("num_columns", "LONG", -1),
                         ("dtype", "INT", 5)), infer=_eye_infer)


def _one_hot_infer(metas, attrs):
    x, depth_t = metas
    if x.dtype.kind not in "iu":
        raise OpError(f"one_hot: X must be an integer tensor, got dtype {x.dtype}")
    depth = -1 if depth_t is not None else int(attrs["depth"])
    return (Meta(tuple(x.shape) + (depth,), attr_dtype(attrs)),)


defop("one_hot_v2", "X depth_tensor?", "Out",
      (("depth", "INT", -1), ("dtype", "INT", 5), ("allow_out_of_range", "BOOLEAN", False)),
      infer=_one_hot_infer, dtype_from="X")


# ------------------------------------------------------------ random
def _random_infer(op, default_dtype=5):
    def infer(metas, attrs):
        return (Meta(_shape_from(metas, attrs, op), attr_dtype(attrs, default_dtype)),)
    return infer


_SHAPE_T = "ShapeTensor? ShapeTensorList*?"
defop("uniform_random", _SHAPE_T, "Out",
      (("shape", "LONGS", []), ("dtype", "INT", 5), ("min", "FLOAT", -1.0),
       ("max", "FLOAT", 1.0), ("seed", "INT", 0), ("diag_num", "INT", 0),
       ("diag_step", "INT", 0), ("diag_val", "FLOAT", 1.0)),
      infer=_random_infer("uniform_random"), random=True, dtype_from="dtype")
defop("gaussian_random", _SHAPE_T, "Out",
      (("shape", "LONGS", []), ("mean", "FLOAT", 0.0), ("std", "FLOAT", 1.0),
       ("seed", "INT", 0), ("dtype", "INT", 5)),
      infer=_random_infer("gaussian_random"), random=True, dtype_from="dtype")
defop("truncated_gaussian_random", (), "Out",
      (("shape", "INTS", []), ("mean", "FLOAT", 0.0), ("std", "FLOAT", 1.0),
       ("seed", "INT", 0), ("dtype", "INT", 5)),
      infer=lambda m, a: (Meta(_check_shape(a["shape"], "truncated_gaussian_random"),
                               attr_dtype(a)),), random=True)
defop("randint", _SHAPE_T, "Out",
      (("shape", "LONGS", []), ("low", "INT", 0), ("high", "INT", 0), ("seed", "INT", 0),
       ("dtype", "INT", 3)),
      infer=_random_infer("randint", 3), random=True, dtype_from="dtype")


def _randperm_infer(metas, attrs):
    n = int(attrs["n"])
    if n <= 0:
        raise OpError(f"randperm: n must be > 0, got {n}")
    return (Meta((n,), attr_dtype(attrs, 3)),)


defop("randperm", (), "Out", (("n", "INT", REQUIRED), ("dtype", "INT", 3), ("seed", "INT", 0)),
      infer=_randperm_infer, random=True)

