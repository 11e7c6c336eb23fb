"""numpy kernels of the control-flow helpers and tensor arrays
(ops/defs/control_flow.py), ``fill_zeros_like`` and ``increment``.

A LOD_TENSOR_ARRAY value is a Python list of arrays; ``None`` stands for an
array never written (empty).  Kernels never mutate a list they are given:
``write_to_array`` returns a new list, so a value captured earlier (a while
loop's step scope) keeps what it held.  ``conditional_block``/``while`` have no
kernel: the executor runs their sub-blocks (executor/control_flow.py).
"""
import numpy as np

from ..registry import kernel, ALL
from ...ops import OpError

_INT64 = np.dtype("int64")
_INT32 = np.dtype("int32")


def scalar_index(i, op, what="I"):
    a = np.asarray(i)
    if a.size != 1:
        raise OpError(f"{op}: {what} must hold one element, got shape {list(a.shape)}")
    return int(a.reshape(-1)[0])


# ------------------------------------------------------------------ select
@kernel("select_input", dtypes=ALL)
def select_input(ins, attrs, need):
    xs, mask = ins
    k = scalar_index(mask, "select_input", "Mask")
    if not 0 <= k < len(xs):
        raise OpError(f"select_input: Mask is {k} but X holds {len(xs)} inputs")
    if xs[k] is None:
        if any(type(x) is list for x in xs):     # a tensor array no op wrote: empty
            return ([],)
        raise OpError(f"select_input: input #{k} (chosen by Mask) holds no value")
    return (xs[k],)


def select_output_n(ins, n):
    x, mask = ins
    k = scalar_index(mask, "select_output", "Mask")
    if not 0 <= k < n:
        raise OpError(f"select_output: Mask is {k} but Out holds {n} outputs")
    # the branch not taken gets zeros (its gradient contribution); a tensor
    # array's gradient stays unwritten there (None: an empty array)
    if x is None or type(x) is list:
        return ([x if j == k else None for j in range(n)],)
    return ([x if j == k else np.zeros_like(x) for j in range(n)],)


@kernel("select_output", dtypes=ALL)
def select_output(ins, attrs, need):
    return select_output_n(ins, 2)


# ------------------------------------------------------------------ arrays
def _array(a, op):
    if a is None:
        return []
    if not isinstance(a, list):
        raise OpError(f"{op}: X must be a tensor array (a list), got {type(a).__name__}")
    return a


@kernel("write_to_array", dtypes=ALL)
def write_to_array(ins, attrs, need):
    """``ins``: X, I and (executor) the array's current value."""
    x, i = ins[0], ins[1]
    old = _array(ins[2] if len(ins) > 2 else None, "write_to_array")
    k = scalar_index(i, "write_to_array")
    if k < 0:
        raise OpError(f"write_to_array: index I must be >= 0, got {k}")
    new = list(old)
    if k >= len(new):
        new.extend([None] * (k + 1 - len(new)))
    new[k] = x
    return (new,)


@kernel("read_from_array", dtypes=ALL)
def read_from_array(ins, attrs, need):
    """``X[I]``; as write_to_array's grad (X_W given: the forward element),
    zeros shaped like X_W where X holds nothing at I."""
    arr = _array(ins[0], "read_from_array")
    k = scalar_index(ins[1], "read_from_array")
    if 0 <= k < len(arr) and arr[k] is not None:
        return (arr[k],)
    xw = ins[2] if len(ins) > 2 else None
    if xw is not None:
        return (np.zeros_like(xw),)
    raise OpError(f"read_from_array: index {k} is out of range: the array holds "
                  f"{len(arr)} tensor(s)")


@kernel("lod_array_length", dtypes=ALL)
def lod_array_length(ins, attrs, need):
    return (np.array([len(_array(ins[0], "lod_array_length"))], _INT64),)


@kernel("tensor_array_to_tensor", dtypes=ALL)
def tensor_array_to_tensor(ins, attrs, need):
    arr = [a for a in _array(ins[0], "tensor_array_to_tensor") if a is not None]
    if not arr:
        raise OpError("tensor_array_to_tensor: the array is empty")
    axis = attrs["axis"]
    if attrs["use_stack"]:
        out = np.stack(arr, axis)
        sizes = [1] * len(arr)
    else:
        out = np.concatenate(arr, axis)
        sizes = [a.shape[axis] for a in arr]
    return out, np.asarray(sizes, _INT32)


@kernel("tensor_array_to_tensor_grad", dtypes=ALL)
def tensor_array_to_tensor_grad(ins, attrs, need):
    """The slices of Out@GRAD each element of X contributed (None stays None).
    OutIndex (the sizes along the axis) says how many elements did and their
    extents: the array itself may have grown since (a list appended to after
    it was stacked) or be seen as it was before the writes of a branch or
    loop step that stacked it (a sub-block's scope keeps outer values on
    entry)."""
    arr = _array(ins[0], "tensor_array_to_tensor_grad")
    g = ins[2]
    axis = attrs["axis"]
    stack = attrs["use_stack"]
    if axis < 0:
        axis += g.ndim
    sizes = [a.shape[axis] if not stack else 1 for a in arr if a is not None] \
        if ins[1] is None else [int(n) for n in np.asarray(ins[1]).reshape(-1)]
    out, pos, i = [], 0, 0
    for n in sizes:
        while i < len(arr) and arr[i] is None:
            out.append(None)
            i += 1
        idx = (slice(None),) * axis + ((pos if stack else slice(pos, pos + n)),)
        out.append(np.ascontiguousarray(g[idx]))
        pos += n
        i += 1
    return (out,)


@kernel("fill_zeros_like", dtypes=ALL)
def fill_zeros_like(ins, attrs, need):
    x = ins[0]
    if x is None or type(x) is list:
        return ([None if a is None else np.zeros_like(a) for a in x or ()],)
    return (np.zeros_like(x),)


@kernel("increment", dtypes=("float32", "float64", "int32", "int64"))
def increment(ins, attrs, need):
    x = ins[0]
    if x.size != 1:
        raise OpError(f"increment: X must hold exactly one element, got shape "
                      f"{list(x.shape)}")
    return (np.asarray(x + x.dtype.type(attrs["step"]), x.dtype),)


# ------------------------------------------------------------------ print
_TYPE_NAMES = {"float32": "float", "float64": "double", "int32": "int", "int64": "long",
               "bool": "bool", "float16": "::paddle::platform::float16", "int16": "short",
               "int8": "signed char", "uint8": "unsigned char"}


def _number(v):
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, (float, np.floating)):
        return f"{float(v):g}"
    return str(v)


def format_tensor(a, attrs, name=""):
    """The text Paddle's print op writes for one tensor."""
    a = np.asarray(a)
    lines = []
    if name and attrs["print_tensor_name"]:
        lines.append(f"Variable: {name}")
    if attrs["message"]:
        lines.append(f"  - message: {attrs['message']}")
    if attrs["print_tensor_lod"]:
        lines.append("  - lod: {}")
    lines.append("  - place: Place(cpu)")
    if attrs["print_tensor_shape"]:
        lines.append(f"  - shape: [{', '.join(str(d) for d in a.shape)}]")
    if attrs["print_tensor_layout"]:
        lines.append("  - layout: NCHW")
    if attrs["print_tensor_type"]:
        lines.append(f"  - dtype: {_TYPE_NAMES.get(a.dtype.name, a.dtype.name)}")
    n = a.size if attrs["summarize"] == -1 else min(attrs["summarize"], a.size)
    lines.append(f"  - data: [{' '.join(_number(v) for v in a.reshape(-1)[:n])}]")
    return "\n".join(lines) + "\n"


def should_print(attrs):
    phase = attrs["print_phase"].upper()
    fwd = attrs["is_forward"]
    return not ((fwd and phase == "BACKWARD") or (not fwd and phase == "FORWARD"))


def print_value(x, attrs, name=""):
    print(format_tensor(x, attrs, name), end="", flush=True)


@kernel("assert", dtypes=("bool",))
def assert_(ins, attrs, need):
    cond, data = ins
    if bool(scalar_index(cond, "assert", "Cond")):
        return ()
    n = int(attrs["summarize"])
    shown = "".join(f"\n  Data[{k}] {list(np.shape(d))}: "
                    f"{np.asarray(d).reshape(-1)[:None if n < 0 else n].tolist()}"
                    for k, d in enumerate(data or ()))
    raise OpError(f"assert: the condition (Cond) must be true, but it is false{shown}")


@kernel("print", dtypes=ALL)
def print_(ins, attrs, need):
    x = ins[0]
    if should_print(attrs):
        print_value(x, attrs)
    return (x.copy(),)
