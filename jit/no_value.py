"""Which outputs of a traced program hold "no value" on a call.

A path on which the converted function reaches no ``return`` gives a
placeholder: Paddle's "no value", a float tensor filled with
RETURN_NO_VALUE_MAGIC_NUM, built by the converters (``convert_static.
no_value_like``, ``static.nn.control_flow._placeholder_like``), which record
its variable on the program they trace (``_jst_no_value_vars``); the eager
function returns None there.  Which path a call takes is known only when it
runs, and a real result may hold the marker's value, so the partial program
never judges an output by its value: the program itself computes, beside each
output that may hold a placeholder, a bool *has-value flag*.
``has_value_flags(program, outputs)`` starts from the recorded placeholders,
follows them through the ops that pass a value on unchanged (``assign``,
``select_input``: how cond branches merge and loop variables are carried),
and returns a copy of the program in which every variable on those paths
has a shadow ``<name>@HAS_VALUE``, written beside it:

    v = fill_constant(1.77113e27)    ->  + v@HAS_VALUE = fill_constant(False)
    w = assign(v)                    ->  + w@HAS_VALUE = assign(v@HAS_VALUE)
    o = select_input([a, w], m)      ->  + o@HAS_VALUE = select_input([True, w@HAS_VALUE], m)
    w = <any other op>               ->  + w@HAS_VALUE = fill_constant(True)

Each shadow is declared in its variable's block, so cond branches and loop
bodies carry it exactly as they carry the value.  The partial program fetches
the flags of the outputs after the outputs and gives None where a flag is
false.  The traced program itself is left as it is (what ``jit.save`` writes
and the conformance suite compares with Paddle).

``written_flags`` builds the same shadows, ``<name>@WRITTEN``, for the inputs
a call writes in place: each such input's flag is false at the start, so the
final variable's flag says whether this call's path wrote it (a write under
a tensor-dependent ``if``, or in a loop that may run no iteration).  The
partial program refuses a leaf that needs a gradient only when it was
written (jit/partial_program.py), as the eager write raises only where it
runs.
"""
import numpy as np

from ..program.variable import VarType
from ..static.nn.control_flow import RETURN_NO_VALUE_MAGIC_NUM

__all__ = ["has_value_flags", "written_flags", "clone", "FLAG_SUFFIX", "WRITTEN_SUFFIX"]

FLAG_SUFFIX = "@HAS_VALUE"
WRITTEN_SUFFIX = "@WRITTEN"
_MARK = float(np.float32(RETURN_NO_VALUE_MAGIC_NUM))
_PASS = ("assign", "select_input")        # ops whose Out is one of their X, unchanged
_BOOL = 0                                 # VarType.BOOL, fill_constant's dtype attribute


def has_value_flags(program, outputs):
    """``(program to run, [flag name or None per output])``: the program itself
    and all None when no output can hold a placeholder (module docstring)."""
    none = (program, [None] * len(outputs))
    marks = getattr(program, "_jst_no_value_vars", None)
    if not marks:
        return none
    carried = _carried(program, marks)
    if not any(_may_hold(v, carried) for v in outputs):
        return none
    program = clone(program)
    for block in program.blocks:
        _shadow_block(block, marks, carried, FLAG_SUFFIX)
    return program, [v.name + FLAG_SUFFIX if _may_hold(v, carried) else None
                     for v in outputs]


def written_flags(program, feeds, finals):
    """``(program to run, [flag name or None per final])``: the same shadows for
    in-place writes of inputs.  ``feeds``: input variables a call writes in
    place, ``finals``: the variables holding their final values.  A final
    that ``assign``/``select_input`` may carry from its feed unchanged (a
    write under a tensor-dependent ``if`` or in a loop body: the path that
    does not write passes the input on) gets a bool flag ``<final>@WRITTEN``,
    false where the value is the feed's own on this call (each feed's flag is
    a false constant at the start, every other writer sets true); a final
    always written gets None (no flag: the write happens on every call)."""
    carried = _carried(program, set(feeds))
    maybe = [name in carried for name in finals]
    if not any(maybe):
        return program, [None] * len(finals)
    program = clone(program)
    gb = program.global_block()
    for j, name in enumerate(feeds):
        gb._insert_op(j, "fill_constant", {}, {"Out": [_flag(gb, name, WRITTEN_SUFFIX)]},
                      _const(False))
    for block in program.blocks:
        _shadow_block(block, (), carried, WRITTEN_SUFFIX)
    return program, [name + WRITTEN_SUFFIX if m else None for name, m in zip(finals, maybe)]


def clone(program):
    """``program.clone()`` whose ops keep what the traced ones hold in memory
    only (``python_error``: the exception a ``raise`` under a tensor condition
    gives in this process; the source location)."""
    new = program.clone()
    for old_block, new_block in zip(program.blocks, new.blocks):
        for old, op in zip(old_block.ops, new_block.ops):
            for k, v in vars(old).items():
                if k not in vars(op):
                    setattr(op, k, v)
    return new


def _may_hold(var, carried):
    return var.name in carried and var.type == VarType.LOD_TENSOR and not var.persistable


def _creates(op, marks):
    """Whether ``op`` is the one that fills a recorded placeholder (a loop body
    may write the same variable later, with a value)."""
    return (op.type == "fill_constant" and op.output("Out")[0] in marks
            and not op.input("ValueTensor")
            and float(np.float32(op.attr("value"))) == _MARK)


def _carried(program, marks):
    """Names of the variables that may hold a placeholder: the recorded ones,
    and those ``_PASS`` ops copy them to (to a fixed point: a loop body carries
    values backwards)."""
    carried = set(marks)
    grew = True
    while grew:
        grew = False
        for block in program.blocks:
            for op in block.ops:
                if op.type in _PASS and any(n in carried for n in op.input("X")):
                    for n in op.output("Out"):
                        if n not in carried:
                            carried.add(n)
                            grew = True
    return carried


def _shadow_block(block, marks, carried, suffix):
    i = 0
    while i < len(block.ops):
        op = block.ops[i]
        i += 1
        if op.sub_blocks():             # what a branch or loop writes, its own ops write
            continue
        for name in op.output_arg_names:
            if name in carried:
                i = _shadow(block, i, op, name, marks, carried, suffix)


def _shadow(block, i, op, name, marks, carried, suffix):
    """Write ``name``'s flag after ``op`` (at index ``i``); the next index."""
    flag = _flag(block, name, suffix)
    if _creates(op, marks):
        block._insert_op(i, "fill_constant", {}, {"Out": [flag]}, _const(False))
        return i + 1
    if op.type == "assign" and op.input("X")[0] in carried:
        block._insert_op(i, "assign", {"X": [_flag(block, op.input("X")[0], suffix)]},
                         {"Out": [flag]})
        return i + 1
    if op.type == "select_input":
        xs = []
        for x in op.input("X"):
            if x in carried:
                xs.append(_flag(block, x, suffix))
            else:                       # a branch that gives a real value
                xs.append(_flag(block, f"{name}@{len(xs)}", suffix))
                block._insert_op(i, "fill_constant", {}, {"Out": [xs[-1]]}, _const(True))
                i += 1
        block._insert_op(i, "select_input", {"X": xs, "Mask": op.input("Mask")},
                         {"Out": [flag]})
        return i + 1
    block._insert_op(i, "fill_constant", {}, {"Out": [flag]}, _const(True))
    return i + 1


def _const(value):
    return {"shape": [], "dtype": _BOOL, "value": 1.0 if value else 0.0}


def _flag(block, name, suffix):
    """The flag variable of ``name``, declared in the block that declares it."""
    var = block._find_var_recursive(name)
    home = var.block if var is not None else block
    flag = name + suffix
    if not home.has_var(flag):
        home.create_var(name=flag, shape=(), dtype="bool", stop_gradient=True)
    return flag
