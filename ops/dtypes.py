"""Paddle's data types: the VarType.Type enum values (used by dtype attributes
and the file formats), their numpy dtypes and the public names."""
import numpy as np

# VarType.Type value -> numpy dtype (FORMAT.md); BF16 has no numpy type.
ENUM_TO_NP = {0: np.dtype("bool"), 1: np.dtype("int16"), 2: np.dtype("int32"),
              3: np.dtype("int64"), 4: np.dtype("float16"), 5: np.dtype("float32"),
              6: np.dtype("float64"), 19: np.dtype("uint64"), 20: np.dtype("uint8"),
              21: np.dtype("int8"), 23: np.dtype("complex64"), 24: np.dtype("complex128")}
NP_TO_ENUM = {v: k for k, v in ENUM_TO_NP.items()}
ENUM_NAMES = {0: "BOOL", 1: "INT16", 2: "INT32", 3: "INT64", 4: "FP16", 5: "FP32",
              6: "FP64", 19: "SIZE_T", 20: "UINT8", 21: "INT8", 22: "BF16",
              23: "COMPLEX64", 24: "COMPLEX128"}

_ALIASES = {"float": "float32", "double": "float64", "int": "int64", "long": "int64",
            "half": "float16", "bool_": "bool", "fp32": "float32", "fp64": "float64",
            "fp16": "float16"}


def to_np_dtype(dtype):
    """Any dtype spelling (str, numpy, VarType int, sampan dtype) -> numpy dtype."""
    if dtype is None:
        return None
    if isinstance(dtype, np.dtype):
        return dtype
    if isinstance(dtype, (int, np.integer)) and not isinstance(dtype, bool):
        try:
            return ENUM_TO_NP[int(dtype)]
        except KeyError:
            raise ValueError(f"unsupported VarType data type {dtype}") from None
    np_dt = getattr(dtype, "np_dtype", None)
    if np_dt is not None:
        return np_dt
    if dtype is BFLOAT16:
        raise TypeError(_NO_BFLOAT16)
    if isinstance(dtype, str):
        name = dtype.lower().replace("paddle.", "")
        name = _ALIASES.get(name, name)
        if name == "bfloat16":
            raise TypeError(_NO_BFLOAT16)
        try:
            return np.dtype(name)
        except TypeError:           # a TypeError, as numpy's (and Paddle's) own
            raise TypeError(f"unknown dtype '{dtype}': data type not understood") from None
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(f"unknown dtype {dtype!r}: data type not understood") from None


def to_enum(dtype):
    d = to_np_dtype(dtype)
    try:
        return NP_TO_ENUM[d]
    except KeyError:
        raise ValueError(f"dtype {d} has no Paddle VarType") from None


def is_float(dtype):
    return to_np_dtype(dtype).kind == "f"


def is_complex(dtype):
    return to_np_dtype(dtype).kind == "c"


_COMPLEX_OF = {np.dtype("float32"): np.dtype("complex64"),
               np.dtype("float64"): np.dtype("complex128")}
_REAL_OF = {v: k for k, v in _COMPLEX_OF.items()}


def complex_of(dtype):
    """complex64 for float32, complex128 for float64, any other dtype as it is
    (Paddle's ``_real_to_complex_dtype``)."""
    d = to_np_dtype(dtype)
    return _COMPLEX_OF.get(d, d)


def real_of(dtype):
    """float32 for complex64, float64 for complex128, any other dtype as it is
    (Paddle's ``_complex_to_real_dtype``)."""
    d = to_np_dtype(dtype)
    return _REAL_OF.get(d, d)


class DType:
    """A public dtype (``sampan.float32``): compares equal to its numpy dtype,
    its name and its VarType value, prints like Paddle's."""
    __slots__ = ("name", "np_dtype", "enum")

    def __init__(self, np_dtype):
        self.np_dtype = np.dtype(np_dtype)
        self.name = self.np_dtype.name
        self.enum = NP_TO_ENUM.get(self.np_dtype)

    def __repr__(self):
        return f"paddle.{self.name}"

    __str__ = __repr__

    def __eq__(self, other):
        if isinstance(other, DType):
            return self.np_dtype == other.np_dtype
        try:
            return self.np_dtype == to_np_dtype(other)
        except (ValueError, TypeError):
            return False

    def __hash__(self):
        return hash(self.np_dtype)


PUBLIC = {d.name: DType(d) for d in ENUM_TO_NP.values()}

# ``paddle.bfloat16``: a dtype that can be named, compared and asked about
# (``paddle.finfo``), but numpy has no bfloat16, so no sampan tensor holds one
BFLOAT16 = DType.__new__(DType)
BFLOAT16.name, BFLOAT16.np_dtype, BFLOAT16.enum = "bfloat16", None, 22
_NO_BFLOAT16 = ("bfloat16 tensors are not supported by sampan: numpy has no bfloat16 type "
                "(use float16 or float32)")
_BY_NP = {PUBLIC[k].np_dtype: PUBLIC[k] for k in PUBLIC}


def public_dtype(np_dtype):
    """The DType object for a numpy dtype (cached; hot path of Tensor.dtype)."""
    d = _BY_NP.get(np_dtype)
    if d is None:
        d = _BY_NP[np_dtype] = DType(np_dtype)
    return d


# ----------------------------------------------------------------- the default float dtype
_DEFAULT_FLOAT = [np.dtype("float32")]


def set_default_dtype(d):
    """``paddle.set_default_dtype``: the dtype of Python floats and new parameters."""
    d = to_np_dtype(d)
    if d.kind != "f":
        raise TypeError(f"set_default_dtype only supports float dtypes, got {d}")
    _DEFAULT_FLOAT[0] = d


def get_default_dtype():
    """``paddle.get_default_dtype``: its name (``'float32'`` unless changed)."""
    return _DEFAULT_FLOAT[0].name


def default_float():
    """The default float dtype as a numpy dtype."""
    return _DEFAULT_FLOAT[0]
