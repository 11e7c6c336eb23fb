"""Control flow in static programs, built as Paddle 2.6 builds it:

- ``cond(pred, true_fn, false_fn)``: a ``conditional_block`` (Cond=[pred]) whose
  sub-block runs ``true_fn``, ``logical_not(pred)`` and a second
  ``conditional_block`` for ``false_fn``, then one ``select_input`` per output
  (X=[false, true], Mask=cast(pred, int32)).  Each branch copies its results
  to new ``_generated_var_<n>`` variables of the parent block (``assign`` in
  the sub-block);
- ``while_loop(cond, body, loop_vars)``: a ``while`` op whose sub-block runs
  ``body``, recomputes the condition, and ``assign`` s the results back to the
  loop variables and the condition;
- ``switch_case`` and ``case``: nested conds;
- ``Print`` (op ``print``), the static side of tensor arrays
  (``create_array``/``array_write`` need variables of kind LOD_TENSOR_ARRAY)
  and of ``increment`` (it writes its input variable, as in Paddle).

A control-flow op reads every outer variable its sub-block reads before
writing it, and writes every outer variable its sub-block writes (Paddle's
``Input``/``X`` and ``Out`` slots).  In eager mode (a Python bool or an eager
Tensor as the condition) cond calls the chosen branch and while_loop runs a
Python loop, as Paddle's dygraph does.
"""
import numpy as np

from ...ops import get_op, bind, name_key, is_graph_value as is_static, set_mode_action
from ...utils import unique_name
from ...tensor import logic as _logic, math as _math, creation as _creation
from ...program.program_guard import default_main_program
from ...program.static_mode import append_op
from ...program.variable import VarType
from . import nest

__all__ = ["cond", "while_loop", "switch_case", "case", "Print", "create_undefined_variable"]

STEP_SCOPES = VarType.STEP_SCOPES
LOD_TENSOR_ARRAY = VarType.LOD_TENSOR_ARRAY
RETURN_NO_VALUE_MAGIC_NUM = 1.77113e27


# ----------------------------------------------------------------- helpers
def _is_tensor(x):
    return hasattr(x, "_data")


def _as_var(program, x):
    return program.bind_tensor(x) if _is_tensor(x) and not is_static(x) else x


def _generated_var(block, like=None, **kw):
    name = unique_name.generate("_generated_var")
    if like is None:
        return block.create_var(name=name, **kw)
    kind = like.type
    if kind in (VarType.LOD_TENSOR, LOD_TENSOR_ARRAY):
        return block.create_var(name=name, type=kind, shape=like.shape, dtype=like.np_dtype)
    return block.create_var(name=name, type=kind)


def _eager_truth(pred, api):
    if isinstance(pred, (bool, np.bool_, int, np.integer)):
        return bool(pred)
    if _is_tensor(pred):
        a = np.asarray(pred._data)
        if a.size != 1:
            raise ValueError(f"{api}: the condition must hold one element, got shape "
                             f"{list(a.shape)}")
        return bool(a.reshape(-1)[0])
    raise TypeError(f"{api}: the condition must be a bool Tensor (or a Python bool), got "
                    f"{type(pred).__name__}")


def _check_bool_scalar(v, api, what):
    if v.np_dtype != np.dtype(bool):
        raise TypeError(f"{api}: {what} must be a bool Variable, got '{v.name}' of dtype "
                        f"{v.dtype}")
    n = 1
    for d in v.shape:
        n *= d
    if n != 1:
        raise TypeError(f"{api}: {what} must hold exactly one element (shape [] or [1]), "
                        f"got '{v.name}' of shape {list(v.shape)}")


def _block_io(program, block, written_first=()):
    """(outer names read before written, outer names written) by ``block``'s ops."""
    parent = program.block(block.parent_idx)
    written, reads, writes = set(written_first), [], []
    for op in block.ops:
        for n in op.input_arg_names:
            if n not in written:
                reads.append(n)
        for n in op.output_arg_names:
            written.add(n)
            writes.append(n)
    outer = [n for n in dict.fromkeys(reads) if parent._find_var_recursive(n) is not None]
    out = [n for n in dict.fromkeys(writes) if parent._find_var_recursive(n) is not None]
    return outer, out


class _SubBlock:
    """``with _SubBlock(program) as block:`` builds ops into a new child block."""

    def __init__(self, program):
        self.program = program

    def __enter__(self):
        self.parent = self.program.current_block()
        self.block = self.program._create_block()
        return self.block

    def __exit__(self, *exc):
        self.program._rollback()
        return False


# ----------------------------------------------------------------- cond
def create_undefined_variable():
    """A float32 [1] variable standing for "no value" (dy2static's UndefinedVar),
    built in the global block as Paddle does."""
    program = default_main_program()
    gb = program.global_block()
    var = gb.create_var(name=unique_name.generate("undefined_var"), shape=[1],
                        dtype="float32")
    append_op(gb, "assign_value", {}, {"Out": [var]},
              {"shape": [1], "dtype": 5, "fp32_values": [RETURN_NO_VALUE_MAGIC_NUM]})
    return var


def _to_static_variable(x):
    if is_static(x) or _is_tensor(x):
        return x
    if x is None or type(x).__name__ == "UndefinedVar":
        return create_undefined_variable()
    if isinstance(x, (bool, np.bool_)):
        return _creation.full([], bool(x), "bool")
    if isinstance(x, (int, np.integer)):
        return _creation.full([], int(x), "int64")
    if isinstance(x, (float, np.floating)):
        return _creation.full([], float(x), "float64")
    return x


def _copy_to_parent(program, v):
    """Inside a branch: the parent-block variable that will hold ``v``."""
    if not (is_static(v) or _is_tensor(v)):
        return v
    v = _as_var(program, v)
    block = program.current_block()
    parent = program.block(block.parent_idx)
    if v.type == LOD_TENSOR_ARRAY and parent._find_var_recursive(v.name) is not None:
        return v
    pv = _generated_var(parent, like=v)
    pv.stop_gradient = v.stop_gradient
    append_op(block, "assign", {"X": [v]}, {"Out": [pv]})
    return pv


def _build_branch(program, cond_var, fn):
    """Run ``fn`` into a new sub-block and append its conditional_block."""
    with _SubBlock(program) as block:
        given = out = fn()
        if out is not None:
            out = nest.map_structure(lambda v: _copy_to_parent(program, v), out)
    parent = program.current_block()
    inputs, outputs = _block_io(program, block)
    scope = _generated_var(parent, type=STEP_SCOPES)
    append_op(parent, "conditional_block",
              {"Cond": [cond_var], "Input": [parent._var_recursive(n) for n in inputs]},
              {"Out": [parent._var_recursive(n) for n in outputs], "Scope": [scope]},
              {"sub_block": block, "is_scalar_condition": True})
    return out, given


def _is_undefined(x):
    return type(x).__name__ == "UndefinedVar"


def _expand_undefined(x, other):
    """``x`` with each undefined marker standing where ``other`` has a nested
    value replaced by markers in that value's structure (dy2static's
    expand_undefined_var: a variable bound by one branch only)."""
    if _is_undefined(x) and nest._is_seq(other):
        return nest.map_structure(lambda _: x, other)
    if nest._is_seq(x) and nest._is_seq(other) and nest.same_structure(
            [0] * len(nest._items(x)), [0] * len(nest._items(other))) and \
            isinstance(x, dict) == isinstance(other, dict) and \
            (not isinstance(x, dict) or sorted(x) == sorted(other)):
        vals = [_expand_undefined(a, b) for a, b in zip(nest._items(x), nest._items(other))]
        if isinstance(x, dict):
            return type(x)(zip(sorted(x), vals))
        if isinstance(x, tuple) and hasattr(x, "_fields"):
            return type(x)(*vals)
        return type(x)(vals)
    return x


def _placeholder_like(v):
    """The value an undefined branch result takes beside Variable ``v``: of
    ``v``'s dtype and shape (unknown dims as 1), every element the "no value"
    RETURN_NO_VALUE_MAGIC_NUM (zeros for a non-float ``v``), as Paddle's
    create_undefined_variable holds it (to_static gives such an output back
    as None: the program is flagged)."""
    if v.type != VarType.LOD_TENSOR:
        return create_undefined_variable()
    shape = [d if d >= 0 else 1 for d in v.shape]
    dtype = np.dtype(v.np_dtype)
    if dtype.kind != "f" or dtype.itemsize < 4:
        return _creation.full(shape, 0, dtype)
    v.block.program._jst_no_value = True
    out = _creation.full(shape, RETURN_NO_VALUE_MAGIC_NUM, dtype)
    v.block.program.__dict__.setdefault("_jst_no_value_vars", set()).add(out.name)
    return out


def _select(false_v, true_v, mask, program, where):
    if _is_undefined(true_v) and is_static(false_v):
        true_v = _placeholder_like(false_v)
    elif _is_undefined(false_v) and is_static(true_v):
        false_v = _placeholder_like(true_v)
    if not (is_static(false_v) or _is_tensor(false_v)) and \
            not (is_static(true_v) or _is_tensor(true_v)):
        if type(false_v) is type(true_v) and false_v == true_v:
            return true_v
    for v, side in ((false_v, "false_fn"), (true_v, "true_fn")):
        if v is None:
            raise TypeError(f"cond: {side} returns None at {where} while the other branch "
                            f"returns {nest.describe(true_v if v is false_v else false_v)}; "
                            f"both branches must return a value there")
    f, t = _as_var(program, _to_static_variable(false_v)), \
        _as_var(program, _to_static_variable(true_v))
    if f is t:                  # a tensor array both branches wrote in place
        return t
    block = program.current_block()
    shape = t.shape
    if len(f.shape) == len(t.shape):
        shape = tuple(a if a == b else -1 for a, b in zip(f.shape, t.shape))
    out = block.create_var(name=unique_name.generate("_generated_var"), type=t.type,
                           shape=shape, dtype=t.np_dtype)
    out.stop_gradient = f.stop_gradient and t.stop_gradient
    append_op(block, "select_input", {"X": [f, t], "Mask": [mask]}, {"Out": [out]})
    return out


def _check_fn(fn, what):
    if fn is not None and not callable(fn):
        raise TypeError(f"cond: {what} must be callable, got {type(fn).__name__}")


def cond(pred, true_fn=None, false_fn=None, name=None, return_names=None):
    """Run ``true_fn()`` if ``pred`` else ``false_fn()``; both branches are built
    into the program and the results merged (see the module docstring)."""
    _check_fn(true_fn, "true_fn")
    _check_fn(false_fn, "false_fn")
    if not is_static(pred):
        fn = true_fn if _eager_truth(pred, "cond") else false_fn
        return fn() if fn is not None else None
    _check_bool_scalar(pred, "cond", "pred")
    program = pred.block.program
    true_out = false_out = true_given = false_given = None
    if true_fn is not None:
        true_out, true_given = _build_branch(program, pred, true_fn)
    if false_fn is not None:
        not_pred = _logic.logical_not(pred)
        false_out, false_given = _build_branch(program, not_pred, false_fn)
    if true_out is None and false_out is None:
        return None
    if true_out is None or false_out is None:
        none, other = ("true_fn", "false_fn") if true_out is None else ("false_fn", "true_fn")
        raise ValueError(f"Incompatible return values of true_fn and false_fn in cond: "
                         f"{none} returns None while {other} returns "
                         f"{nest.describe(false_given if true_out is None else true_given)}")
    true_out, false_out = _expand_undefined(true_out, false_out), \
        _expand_undefined(false_out, true_out)
    if not nest.same_structure(true_out, false_out):
        raise ValueError(f"Incompatible return values of true_fn and false_fn in cond: "
                         f"true_fn returns {nest.describe(true_given)} but false_fn returns "
                         f"{nest.describe(false_given)}; they must have the same structure")
    mask = _math.cast(pred, "int32")
    names = list(return_names) if return_names else None
    flat_t, flat_f = nest.flatten(true_out), nest.flatten(false_out)
    merged = []
    for k, (f, t) in enumerate(zip(flat_f, flat_t)):
        where = f"'{names[k]}'" if names and k < len(names) else f"output #{k}"
        merged.append(_select(f, t, mask, program, where))
    return nest.pack_sequence_as(true_out, merged)


# ----------------------------------------------------------------- while_loop
def _assign_back(program, value, var):
    """``assign(value, var)`` at the end of the loop body (Paddle's
    assign_skip_lod_tensor_array)."""
    block = program.current_block()
    if not (is_static(value) or _is_tensor(value)):
        if is_static(var) and isinstance(value, (bool, int, float, np.number)):
            value = _to_static_variable(value)
        else:
            return
    value = _as_var(program, value)
    if not is_static(var):
        raise TypeError(f"while_loop: loop variable {nest.describe(var)} is not a Variable, "
                        f"but the body returns Variable '{value.name}' for it")
    if value.type == LOD_TENSOR_ARRAY:
        parent = program.block(block.parent_idx)
        if parent._find_var_recursive(value.name) is not None:
            return
    # the loop's result carries a gradient when any iteration's value does (a
    # variable first bound in the body enters as a stopped placeholder)
    var.stop_gradient = var.stop_gradient and value.stop_gradient
    append_op(block, "assign", {"X": [value]}, {"Out": [var]})


def _eager_while(cond, body, loop_vars):
    go = _eager_truth(cond(*loop_vars), "while_loop")
    while go:
        out = body(*loop_vars)
        if not isinstance(out, (list, tuple)):
            out = [out]
        if len(out) != len(loop_vars):
            raise ValueError(f"body in while_loop should return the same arity (length and "
                             f"structure) as loop_vars: body returns {len(out)} value(s) "
                             f"but loop_vars has {len(loop_vars)}")
        loop_vars = out
        go = _eager_truth(cond(*loop_vars), "while_loop")
    return loop_vars


def while_loop(cond, body, loop_vars, is_test=False, name=None):
    """``while cond(*loop_vars): loop_vars = body(*loop_vars)`` as a ``while`` op."""
    if not callable(cond):
        raise TypeError("cond in while_loop should be callable")
    if not callable(body):
        raise TypeError("body in while_loop should be callable")
    if not isinstance(loop_vars, (list, tuple)):
        raise TypeError(f"loop_vars in while_loop should be a list or tuple, got "
                        f"{type(loop_vars).__name__}")
    if len(loop_vars) == 0:
        raise ValueError("loop_vars in while_loop should not be empty")
    pre_cond = cond(*loop_vars)
    if not is_static(pre_cond):
        if any(is_static(v) for v in nest.flatten(list(loop_vars))):
            raise TypeError(f"while_loop: cond must return a bool Variable when loop_vars "
                            f"hold Variables, got {type(pre_cond).__name__}")
        return _eager_while(cond, body, loop_vars)
    _check_bool_scalar(pre_cond, "while_loop", "the value returned by cond")
    program = pre_cond.block.program
    with _SubBlock(program) as block:
        out = body(*loop_vars)
        if not isinstance(out, (list, tuple)):
            out = [out]
        if len(out) != len(loop_vars) or not nest.same_structure(list(out), list(loop_vars)):
            raise ValueError(f"body in while_loop should return the same arity (length and "
                             f"structure) as loop_vars: body returns {len(out)} value(s) "
                             f"{nest.describe(list(out))} but loop_vars has "
                             f"{len(loop_vars)}: {nest.describe(list(loop_vars))}")
        now_cond = cond(*out)
        if not is_static(now_cond):
            raise TypeError(f"while_loop: cond must return a bool Variable inside the loop, "
                            f"got {type(now_cond).__name__}")
        _check_bool_scalar(now_cond, "while_loop", "the value returned by cond")
        for value, var in zip(nest.flatten(list(out)), nest.flatten(list(loop_vars))):
            _assign_back(program, value, var)
        append_op(block, "assign", {"X": [now_cond]}, {"Out": [pre_cond]})
    parent = program.current_block()
    reads, writes = _block_io(program, block, written_first=(pre_cond.name,))
    outs = [n for n in writes]
    xs = [n for n in dict.fromkeys(reads + outs) if n != pre_cond.name]
    steps = _generated_var(parent, type=STEP_SCOPES)
    append_op(parent, "while",
              {"X": [parent._var_recursive(n) for n in xs], "Condition": [pre_cond]},
              {"Out": [parent._var_recursive(n) for n in outs], "StepScopes": [steps]},
              {"sub_block": block, "is_test": bool(is_test)})
    return loop_vars


# the static form of ops.while_loop (public functions written with a loop: gcd)
set_mode_action("static", "while_loop",
                lambda cond, body, loop_vars: list(while_loop(cond, body, loop_vars)))


# ----------------------------------------------------------------- switch_case / case
def _nest_conds(pred_fn_pairs, default):
    false_fn = default
    for pred, true_fn in pred_fn_pairs:
        false_fn = (lambda p, t, f: (lambda: cond(p, t, f)))(pred, true_fn, false_fn)
    return false_fn()


def case(pred_fn_pairs, default=None, name=None):
    """Run the fn of the first true pred (else ``default``, else the last fn)."""
    if not isinstance(pred_fn_pairs, (list, tuple)):
        raise TypeError(f"case: pred_fn_pairs must be a list or tuple, got "
                        f"{type(pred_fn_pairs).__name__}")
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple):
            raise TypeError(f"case: each element of pred_fn_pairs must be a tuple, got "
                            f"{type(pair).__name__}")
        if len(pair) != 2:
            raise TypeError(f"case: each element of pred_fn_pairs must be a 2-tuple "
                            f"(pred, fn), got a {len(pair)}-tuple")
        pred, fn = pair
        if is_static(pred) and pred.np_dtype != np.dtype(bool):
            raise TypeError(f"case: pred '{pred.name}' must be a bool Variable, got "
                            f"{pred.dtype}")
        if not callable(fn):
            raise TypeError(f"case: the fn paired with pred "
                            f"{getattr(pred, 'name', pred)!r} must be callable")
    pairs = list(pred_fn_pairs)
    if default is None:
        if not pairs:
            raise ValueError("case: pred_fn_pairs is empty and no default is given")
        default = pairs[-1][1]
        pairs = pairs[:-1]
    elif not callable(default):
        raise TypeError("case: default must be callable")
    return _nest_conds(list(reversed(pairs)), default)


def switch_case(branch_index, branch_fns, default=None, name=None):
    """Run ``branch_fns[branch_index]`` (a list of fns, of (int, fn) pairs, or a
    dict int -> fn); ``default`` (else the fn of the largest key) otherwise."""
    if is_static(branch_index):
        if branch_index.np_dtype is None or branch_index.np_dtype.name not in \
                ("uint8", "int32", "int64"):
            raise TypeError(f"switch_case: branch_index must be a uint8, int32 or int64 "
                            f"Variable, got '{branch_index.name}' of dtype {branch_index.dtype}")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError(f"switch_case: branch_fns must be a list, tuple or dict, got "
                        f"{type(branch_fns).__name__}")
    pairs = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if pairs and all(callable(fn) for fn in pairs):
        pairs = list(enumerate(pairs))
    keys = []
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"switch_case: each element of branch_fns must be a callable or "
                            f"an (int, callable) pair, got {pair!r:.60}")
        key, fn = pair
        if not isinstance(key, int) or isinstance(key, bool):
            raise TypeError(f"switch_case: the key of each branch must be an int, got "
                            f"{type(key).__name__}")
        if key in keys:
            raise ValueError(f"switch_case: the key in branch_fns must be unique, but "
                             f"'{key}' appears more than once")
        keys.append(key)
        if not callable(fn):
            raise TypeError(f"switch_case: the fn of key {key} must be callable")
    if default is None:
        pairs = sorted(pairs, key=lambda p: p[0])
        default = pairs[-1][1]
        pairs = pairs[:-1]
    elif not callable(default):
        raise TypeError("switch_case: default must be callable")
    if is_static(branch_index) and branch_index.np_dtype.name != "int64":
        branch_index = _math.cast(branch_index, "int64")
    preds = []
    for key, fn in pairs:
        preds.append((_logic.equal(branch_index, _creation.full([1], key, "int64")), fn))
    return _nest_conds(preds, default)


# ----------------------------------------------------------------- Print
def Print(input, first_n=-1, message=None, summarize=20, print_tensor_name=True,
          print_tensor_type=True, print_tensor_shape=True, print_tensor_lod=True,
          print_phase="both"):
    """Print ``input`` (name, shape, dtype, the first ``summarize`` values) each
    time the op runs (at most ``first_n`` times); returns a copy of it."""
    phase = str(print_phase).upper()
    if phase not in ("FORWARD", "BACKWARD", "BOTH"):
        raise ValueError(f"Print: print_phase must be 'forward', 'backward' or 'both', "
                         f"got {print_phase!r}")
    attrs = {"first_n": int(first_n), "message": message or "", "summarize": int(summarize),
             "print_tensor_name": print_tensor_name, "print_tensor_type": print_tensor_type,
             "print_tensor_shape": print_tensor_shape, "print_tensor_lod": print_tensor_lod,
             "print_phase": phase}
    with name_key(f"print_{getattr(input, 'name', 'tensor')}"):
        return bind(get_op("print"), (input,), attrs)[0]


def Assert(cond, data=None, summarize=20, name=None):
    """Fail the run when ``cond`` (a bool tensor of one element) is false,
    showing the first ``summarize`` entries of each tensor of ``data``
    (``paddle.static.nn.control_flow.Assert``); returns the op."""
    if not is_static(cond) or cond.np_dtype != np.bool_:
        raise TypeError(f"Assert: cond must be a bool Variable, got "
                        f"{getattr(cond, 'dtype', type(cond).__name__)}")
    data = list(data) if data is not None else []
    bind(get_op("assert"), (cond, data), {"summarize": int(summarize)})
    return default_main_program().current_block().ops[-1]
