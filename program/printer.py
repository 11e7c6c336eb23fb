"""Programs printed like code.

    block 0:
      data x: float32[-1, 4]
      param linear_0.w_0: float32[4, 3]
      linear_0.tmp_0: float32[-1, 3] = matmul_v2(X=x, Y=linear_0.w_0) {trans_y=True}  # net.py:12
      out: float32[] = conditional_block(Cond=c, Input=[x]) {is_scalar_condition=True}
        block 1:
          ...

One line per op: outputs with their types on the left (``Slot=`` prefixes
only when the op writes several slots), input slots as keyword arguments,
attributes that differ from the op's declared defaults in braces, the user's
source line as a trailing comment.  Sub-blocks are nested under the op that
owns them.  Bookkeeping attributes (op_role, op_namescope ...) appear only
with ``with_details=True``.
"""
import os

import numpy as np

from . import attrs as A
from .variable import Parameter


def _fmt(t, v):
    if t == "FLOAT":
        return str(np.float32(v))
    if t == "FLOATS":
        return "[" + ", ".join(str(np.float32(x)) for x in v) + "]"
    if isinstance(v, str):
        return repr(v)
    return str(v)


def _default(op, name):
    spec = op.opdef.attr_specs.get(name) if op.opdef is not None else None
    if spec is None or spec.required:
        return _MISSING
    try:
        return A.normalize(spec.type, spec.default)
    except TypeError:
        return _MISSING


_MISSING = object()


def _attr_text(op, with_details):
    parts = []
    for name in op.attr_names:
        t = op.attr_type(name)
        if t in ("BLOCK", "BLOCKS"):
            continue                   # shown by nesting the block under the op
        if name in A.BOOKKEEPING:
            if with_details and name != "op_callstack":   # the source is the comment
                parts.append(f"{name}={_fmt(t, op.attr(name))}")
            continue
        v = op.attr(name)
        if op.opdef is None or _default(op, name) != v:
            parts.append(f"{name}={_fmt(t, v)}")
    return " {" + ", ".join(parts) + "}" if parts else ""


def _source(op):
    if op.location is not None:
        return f"  # {op.location.short}"
    src = op.source                        # a loaded program's op_callstack text
    if not src:
        return ""
    try:                                   # 'File "/a/b.py", line 12, in f'
        path = src.split('"')[1]
        line = src.split("line ")[1].split(",")[0]
        return f"  # {os.path.basename(path)}:{line}"
    except IndexError:
        return f"  # {src}"


def _typed(block, name):
    v = block._find_var_recursive(name)
    return f"{name}: {v.type_str() if v is not None else '?'}"


def _dup(op, slot, kind):
    if op.opdef is None:
        return False
    slots = op.opdef.inputs if kind == "in" else op.opdef.outputs
    return any(s.name == slot and s.duplicable for s in slots)


def op_line(op, with_details=False):
    ins = []
    for slot, names in op.inputs.items():
        if names:
            many = len(names) > 1 or _dup(op, slot, "in")
            ins.append(f"{slot}={'[' + ', '.join(names) + ']' if many else names[0]}")
    outs = [(slot, names) for slot, names in op.outputs.items() if names]
    lhs = []
    for slot, names in outs:
        many = len(names) > 1 or _dup(op, slot, "out")
        typed = [_typed(op.block, n) for n in names]
        text = "[" + ", ".join(typed) + "]" if many else typed[0]
        lhs.append(text if len(outs) == 1 else f"{slot}={text}")
    head = ", ".join(lhs) + " = " if lhs else ""
    return f"{head}{op.type}({', '.join(ins)}){_attr_text(op, with_details)}{_source(op)}"


def _declarations(block):
    lines = []
    for v in block.vars.values():
        if v.is_data or v.need_check_feed:
            kind = "data"
        elif v.is_parameter or isinstance(v, Parameter):
            kind = "param"
        elif v.persistable:
            kind = "persist"
        else:
            continue
        lines.append(f"{kind} {v.name}: {v.type_str()}")
    return lines


def _block_lines(block, indent, with_details, seen):
    seen.add(block.idx)
    pad = "  " * indent
    head = f"block {block.idx}:" if block.idx == 0 else \
        f"block {block.idx} (parent {block.parent_idx}):"
    lines = [pad + head]
    lines += [pad + "  " + d for d in _declarations(block)]
    for op in block.ops:
        lines.append(pad + "  " + op_line(op, with_details))
        for sub in op.sub_blocks():
            if sub not in seen and sub < len(block.program.blocks):
                lines += _block_lines(block.program.blocks[sub], indent + 2, with_details, seen)
    return lines


def block_text(block, with_details=False):
    return "\n".join(_block_lines(block, 0, with_details, set()))


def program_text(program, with_details=False):
    seen = set()
    lines = _block_lines(program.global_block(), 0, with_details, seen)
    for b in program.blocks:              # blocks no op points at (unusual) still print
        if b.idx not in seen:
            lines += _block_lines(b, 0, with_details, seen)
    return "\n".join(lines)
