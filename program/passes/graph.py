"""What the build-strategy passes read of a program: which op writes and which
ops read each variable, and the edits every pass makes (insert a fused op,
drop the ops it replaces)."""
from ..attrs import BOOKKEEPING


class Uses:
    """Producers and readers of every variable of ``program``'s global block;
    ops of sub-blocks count as readers (a fused-away variable must not be read
    anywhere).  ``keep``: names that must survive (fetch targets)."""

    def __init__(self, program, keep=()):
        self.block = program.global_block()
        self.keep = frozenset(keep)
        self.producer, self.readers = {}, {}
        for b in program.blocks:
            for op in b.ops:
                for n in op.input_arg_names:
                    self.readers.setdefault(n, []).append(op)
        for op in self.block.ops:
            for n in op.output_arg_names:
                self.producer.setdefault(n, []).append(op)

    def only_reader(self, name, op_type=None):
        """The one op reading ``name`` (of ``op_type`` when given), or None."""
        rs = self.readers.get(name, ())
        if len(rs) != 1 or name in self.keep or len(self.producer.get(name, ())) != 1:
            return None
        return rs[0] if op_type is None or rs[0].type == op_type else None

    def readers_of(self, name):
        return self.readers.get(name, ())

    def writer(self, name, op_type=None):
        ps = self.producer.get(name, ())
        if len(ps) != 1:
            return None
        return ps[0] if op_type is None or ps[0].type == op_type else None

    def var(self, name):
        return self.block._find_var_recursive(name)


def one(op, slot, kind="input"):
    """The single variable name in ``slot`` (None when empty or several)."""
    names = op.input(slot) if kind == "input" else op.output(slot)
    return names[0] if len(names) == 1 else None


def bookkeeping(op):
    """The bookkeeping attrs (op_role, namescope, callstack ...) of ``op``, for
    the op that replaces it."""
    return {k: v for k, v in op.all_attrs().items() if k in BOOKKEEPING}


def replace(block, old_ops, at, type, inputs, outputs, attrs):
    """Insert one ``type`` op where ``at`` (one of ``old_ops``) stands and
    remove ``old_ops``; returns the new op."""
    ids = {id(o) for o in old_ops}
    idx = next(i for i, o in enumerate(block.ops) if o is at)
    new = block._insert_op(idx, type, inputs=inputs, outputs=outputs,
                           attrs={**bookkeeping(at), **attrs})
    new._copy_origin(at)
    remove_ops(block, ids)
    return new


def remove_ops(block, ids):
    """Remove the ops of ``block`` whose ``id()`` is in ``ids``."""
    for i in range(len(block.ops) - 1, -1, -1):
        if id(block.ops[i]) in ids:
            block._remove_op(i)


def same_shape(a, b):
    """Declared shapes equal (unknown dims equal only to unknown dims)."""
    return a is not None and b is not None and tuple(a.shape) == tuple(b.shape)
