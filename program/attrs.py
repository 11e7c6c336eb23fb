"""Operator attributes <-> ``OpDesc.Attr`` messages (Paddle's AttrType encoding).

An attribute's type comes from, in order: the op's declaration (``OpDef``),
the table of bookkeeping attributes every op may carry (``op_role`` ...), the
type already recorded in a parsed desc, or the Python value itself.  Values
are normalized once, when set, to what the wire can hold (FLOAT is float32,
INT is int32), so an op built in this process and the same op parsed back from
bytes carry identical values (and compute identical numbers).
"""
import numpy as np

from ..ops import is_graph_value
from ..ops.dtypes import to_enum
from .proto import framework_pb2 as pb

AttrType = pb.AttrType
TYPE_NAMES = {AttrType.Value(n): n for n in AttrType.keys()}

# Attributes Paddle adds to every op (FORMAT.md 5.4); shown by the printer only on request.
BOOKKEEPING = {"op_role": "INT", "op_role_var": "STRINGS", "op_namescope": "STRING",
               "op_device": "STRING", "op_callstack": "STRINGS", "with_quant_attr": "BOOLEAN"}

OP_ROLE_FORWARD, OP_ROLE_BACKWARD, OP_ROLE_OPTIMIZE, OP_ROLE_LOSS = 0, 1, 2, 256
OP_ROLE_LRSCHED = 16        # learning-rate computations (with Optimize: 18)

_I32 = (-2 ** 31, 2 ** 31)


def _is_block(v):
    return getattr(v, "_is_static_block", False)


def infer_type(value):
    """AttrType name for a Python value (used when nothing declares the type)."""
    if isinstance(value, (bool, np.bool_)):
        return "BOOLEAN"
    if isinstance(value, (int, np.integer)):
        return "INT" if _I32[0] <= int(value) < _I32[1] else "LONG"
    if isinstance(value, (float, np.floating)):
        return "FLOAT"
    if isinstance(value, (str, bytes)):
        return "STRING"
    if _is_block(value):
        return "BLOCK"
    if is_graph_value(value):
        return "VAR"
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        if not value:
            return "INTS"
        if all(isinstance(v, (bool, np.bool_)) for v in value):
            return "BOOLEANS"
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
            fits = all(_I32[0] <= int(v) < _I32[1] for v in value)
            return "INTS" if fits else "LONGS"
        if all(isinstance(v, (int, float, np.number)) for v in value):
            return "FLOATS"
        if all(isinstance(v, str) for v in value):
            return "STRINGS"
        if all(_is_block(v) for v in value):
            return "BLOCKS"
        if all(is_graph_value(v) for v in value):
            return "VARS"
    raise TypeError(f"cannot store a {type(value).__name__} value ({value!r:.60}) as an "
                    f"operator attribute")


def _int(v):
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    # dtype attributes (dtype, out_dtype ...) are INT VarType values
    return to_enum(v)


def _f32(v):
    return float(np.float32(v))


def _block_idx(v):
    return v.idx if _is_block(v) else int(v)


def _var_name(v):
    return v.name if is_graph_value(v) else str(v)


def _seq(v):
    return v.tolist() if isinstance(v, np.ndarray) else list(v)


NORMALIZE = {
    "INT": _int, "LONG": _int, "FLOAT": _f32, "FLOAT64": float,
    "STRING": lambda v: v.decode() if isinstance(v, bytes) else str(v),
    "BOOLEAN": bool,
    "INTS": lambda v: [_int(x) for x in _seq(v)],
    "LONGS": lambda v: [_int(x) for x in _seq(v)],
    "FLOATS": lambda v: [_f32(x) for x in _seq(v)],
    "FLOAT64S": lambda v: [float(x) for x in _seq(v)],
    "STRINGS": lambda v: [str(x) for x in _seq(v)],
    "BOOLEANS": lambda v: [bool(x) for x in _seq(v)],
    "BLOCK": _block_idx,
    "BLOCKS": lambda v: [_block_idx(x) for x in v],
    "VAR": _var_name,
    "VARS": lambda v: [_var_name(x) for x in v],
    "SCALAR": lambda v: v,
    "SCALARS": lambda v: list(v),
}

# AttrType name -> (payload field, is repeated)
PAYLOAD = {"INT": ("i", False), "FLOAT": ("f", False), "STRING": ("s", False),
           "INTS": ("ints", True), "FLOATS": ("floats", True), "STRINGS": ("strings", True),
           "BOOLEAN": ("b", False), "BOOLEANS": ("bools", True), "BLOCK": ("block_idx", False),
           "LONG": ("l", False), "BLOCKS": ("blocks_idx", True), "LONGS": ("longs", True),
           "FLOAT64S": ("float64s", True), "VAR": ("var_name", False),
           "VARS": ("vars_name", True), "FLOAT64": ("float64", False),
           "SCALAR": ("scalar", False), "SCALARS": ("scalars", True)}


def normalize(type_name, value, attr_name=""):
    try:
        return NORMALIZE[type_name](value)
    except (TypeError, ValueError) as e:
        raise TypeError(f"attribute '{attr_name}' has type {type_name}; cannot store "
                        f"{value!r:.60} ({e})") from None


def _scalar_msg(v):
    if isinstance(v, pb.Scalar):
        return v
    m = pb.Scalar()
    if isinstance(v, (bool, np.bool_)):
        m.type, m.b = pb.Scalar.BOOLEAN, bool(v)
    elif isinstance(v, (int, np.integer)):
        m.type, m.i = pb.Scalar.LONG, int(v)
    elif isinstance(v, complex):
        m.type = pb.Scalar.COMPLEX128
        m.c.r, m.c.i = v.real, v.imag
    else:
        m.type, m.r = pb.Scalar.FLOAT64, float(v)
    return m


def _scalar_value(m):
    if m.type == pb.Scalar.BOOLEAN:
        return m.b
    if m.type == pb.Scalar.LONG:
        return m.i
    if m.type == pb.Scalar.COMPLEX128:
        return complex(m.c.r, m.c.i)
    return m.r


def write(msg, name, type_name, value):
    """Fill an ``OpDesc.Attr`` message with a normalized value."""
    msg.name = name
    msg.type = AttrType.Value(type_name)
    field, repeated = PAYLOAD[type_name]
    if type_name == "SCALAR":
        msg.scalar.CopyFrom(_scalar_msg(value))
    elif type_name == "SCALARS":
        msg.scalars.extend(_scalar_msg(v) for v in value)
    elif repeated:
        getattr(msg, field).extend(value)   # an empty list still writes name + type
    else:
        setattr(msg, field, value)


def read(msg):
    """``(name, type name, python value)`` of an ``OpDesc.Attr`` message."""
    t = TYPE_NAMES[msg.type]
    field, repeated = PAYLOAD[t]
    if t == "SCALAR":
        return msg.name, t, _scalar_value(msg.scalar)
    if t == "SCALARS":
        return msg.name, t, [_scalar_value(s) for s in msg.scalars]
    v = getattr(msg, field)
    return msg.name, t, (list(v) if repeated else v)
