"""Control-flow and tensor-array ops: ``conditional_block`` and ``while`` (they own
a sub-block and have no kernel: the executor runs them, executor/control_flow.py),
``pylayer`` (forward and backward blocks of static_pylayer / PyLayer under
to_static; executor/pylayer.py),
``select_input``/``select_output`` (join / split the branches of a cond),
``write_to_array``/``read_from_array``/``lod_array_length``/
``tensor_array_to_tensor`` (a LOD_TENSOR_ARRAY value is a Python list of arrays),
``fill_zeros_like`` (of a tensor or an array), ``increment`` (a loop counter)
and ``print``.

Slots and attributes are Paddle 2.6's.  The grads of ``conditional_block`` and
``while`` are built by static backward's grad builders, not by GradOp records.
"""
import numpy as np

from ..declare import defop, defgrad, REQUIRED
from ..registry import GradOp, Meta, OpError

INT64 = np.dtype("int64")
INT32 = np.dtype("int32")


# ------------------------------------------------------------------ sub-block owners
def _no_bind(op):
    def infer(metas, attrs):
        raise OpError(f"op '{op}' owns a sub-block and is built by static.nn "
                      f"(cond / while_loop), not called as a function")
    return infer


defop("conditional_block", "Cond* Input*", "Out* Scope",
      (("sub_block", "BLOCK", REQUIRED), ("is_scalar_condition", "BOOLEAN", False)),
      infer=_no_bind("conditional_block"))
defop("while", "X* Condition*", "Out* StepScopes",
      (("sub_block", "BLOCK", REQUIRED), ("is_test", "BOOLEAN", False)),
      infer=_no_bind("while"))
# forward block, then (when a backward function was given) the user's backward block
defop("pylayer", "Input*", "Out* Scope", (("blocks", "BLOCKS", REQUIRED),),
      infer=_no_bind("pylayer"))


# ------------------------------------------------------------------ select_input / output
def merge_shapes(a, b):
    """The shape both may have: -1 where they differ (rank must agree)."""
    if len(a) != len(b):
        return None
    return tuple(x if x == y else -1 for x, y in zip(a, b))


def _select_input_infer(metas, attrs):
    xs, mask = metas
    if not xs:
        raise OpError("select_input: X must hold at least one variable")
    if mask.dtype is not None and mask.dtype.kind not in "iu":
        raise OpError(f"select_input: Mask must be an integer tensor, got {mask.dtype}")
    # Paddle takes the type from the last input (the true branch of a cond)
    shape, dtype = tuple(xs[-1].shape), xs[-1].dtype
    for m in xs[:-1]:
        if m.dtype is not None and dtype is not None and m.dtype != dtype:
            raise OpError(f"select_input: the inputs have different dtypes "
                          f"({m.dtype} and {dtype}); both branches must return the same dtype")
        merged = merge_shapes(shape, tuple(m.shape))
        shape = merged if merged is not None else ()
    return (Meta(shape, dtype),)


def _select_output_infer(metas, attrs):
    x = metas[0]
    return ([Meta(x.shape, x.dtype), Meta(x.shape, x.dtype)],)


defop("select_output", "X Mask", "Out*", infer=_select_output_infer,
      no_grad_inputs=("Mask",))
defop("select_input", "X* Mask", "Out", infer=_select_input_infer,
      grad=GradOp("select_output", {"X": "Out@GRAD", "Mask": "Mask"}, {"Out": "X@GRAD"}),
      dtype_from="X", no_grad_inputs=("Mask",))


# ------------------------------------------------------------------ tensor arrays
def _index_meta(m, op):
    if m.dtype is not None and m.dtype.kind not in "iu":
        raise OpError(f"{op}: the index I must be an integer tensor, got {m.dtype}")
    n = 1
    for d in m.shape:
        n = -1 if d < 0 or n < 0 else n * d
    if n not in (1, -1):
        raise OpError(f"{op}: the index I must hold one element, got shape {list(m.shape)}")


def _write_infer(metas, attrs):
    x, i = metas
    _index_meta(i, "write_to_array")
    return (Meta(x.shape, x.dtype),)


def _read_infer(metas, attrs):
    x, i = metas[0], metas[1]
    _index_meta(i, "read_from_array")
    return (Meta(x.shape, x.dtype),)


# The grad reads the array's gradient at I; X_W (the forward element) gives the
# shape of the zeros it returns where that gradient holds nothing (Paddle's rule).
defop("write_to_array", "X I", "Out", infer=_write_infer,
      grad=GradOp("read_from_array", {"X": "Out@GRAD", "I": "I", "X_W": "X"},
                  {"Out": "X@GRAD"}),
      no_grad_inputs=("I",))
defop("read_from_array", "X I X_W?", "Out", infer=_read_infer,
      grad=GradOp("write_to_array", {"X": "Out@GRAD", "I": "I"}, {"Out": "X@GRAD"}),
      no_grad_inputs=("I", "X_W"))
defop("lod_array_length", "X", "Out", infer=lambda m, a: (Meta((1,), INT64),))


def _array_to_tensor_infer(metas, attrs):
    x = metas[0]
    shape = list(x.shape)
    axis = attrs["axis"]
    if attrs["use_stack"]:
        shape.insert(axis if axis >= 0 else len(shape) + axis + 1, -1)
    elif shape:
        shape[axis] = -1
    return Meta(tuple(shape), x.dtype), Meta((-1,), INT32)


_ARRAY_TO_TENSOR_ATTRS = (("axis", "INT", 0), ("use_stack", "BOOLEAN", False))
defgrad("tensor_array_to_tensor_grad", "X OutIndex? Out@GRAD", "X@GRAD",
        _ARRAY_TO_TENSOR_ATTRS, infer=lambda m, a: (m[0],))
defop("tensor_array_to_tensor", "X", "Out OutIndex", _ARRAY_TO_TENSOR_ATTRS,
      infer=_array_to_tensor_infer,
      grad=GradOp("tensor_array_to_tensor_grad",
                  {"X": "X", "OutIndex": "OutIndex", "Out@GRAD": "Out@GRAD"},
                  {"X@GRAD": "X@GRAD"}))


# Zeros shaped like X, a tensor or a tensor array (each element): the
# gradient of an output no gradient reached (static backward).
defop("fill_zeros_like", "X", "Out", infer=lambda m, a: (m[0],))


# ------------------------------------------------------------------ increment
_INCREMENT_DTYPES = ("float32", "float64", "int32", "int64")


def _increment_infer(metas, attrs):
    x = metas[0]
    n = 1
    for d in x.shape:
        n = -1 if d < 0 or n < 0 else n * d
    if n not in (1, -1):
        raise OpError(f"increment: X must hold exactly one element, got shape "
                      f"{list(x.shape)}")
    if x.dtype is not None and x.dtype.name not in _INCREMENT_DTYPES:
        raise OpError(f"increment: X must be float32, float64, int32 or int64, got "
                      f"{x.dtype}")
    return (Meta(x.shape, x.dtype),)


# Paddle: in place (Out is X in a static program), no gradient.
defop("increment", "X", "Out", (("step", "FLOAT", 1.0),), infer=_increment_infer,
      inplace={"Out": "X"})


# ------------------------------------------------------------------ assert
def _assert_infer(metas, attrs):
    cond = metas[0]
    if cond.shape is not None and -1 not in cond.shape and int(np.prod(cond.shape)) != 1:
        raise OpError(f"assert: Cond must hold one element, got shape {list(cond.shape)}")
    return ()


# Paddle's ``static.nn.Assert`` / a tensor ``assert`` under to_static: fails the run
# when Cond is false, printing the first ``summarize`` entries of each Data tensor.
defop("assert", "Cond Data*?", (), (("summarize", "LONG", 20),), infer=_assert_infer,
      side_effect=True)


# ------------------------------------------------------------------ print
_PRINT_ATTRS = (("first_n", "INT", -1), ("message", "STRING", ""), ("summarize", "INT", 20),
                ("print_tensor_name", "BOOLEAN", True), ("print_tensor_type", "BOOLEAN", True),
                ("print_tensor_shape", "BOOLEAN", True),
                ("print_tensor_layout", "BOOLEAN", True),
                ("print_tensor_lod", "BOOLEAN", True), ("print_phase", "STRING", "BOTH"),
                ("is_forward", "BOOLEAN", True))


def _print_infer(metas, attrs):
    phase = attrs["print_phase"].upper()
    if phase not in ("FORWARD", "BACKWARD", "BOTH"):
        raise OpError(f"print: print_phase must be 'forward', 'backward' or 'both', "
                      f"got '{attrs['print_phase']}'")
    return (metas[0],)


# The gradient passes through a second print op (is_forward False), which
# prints the gradient when print_phase asks for it, as in Paddle.
defop("print", "In", "Out", _PRINT_ATTRS, infer=_print_infer,
      grad=GradOp("print", {"In": "Out@GRAD"}, {"Out": "In@GRAD"},
                  attrs=lambda a: {**a, "is_forward": False}),
      side_effect=True)
