"""``Program`` and ``Block``: views over a ``ProgramDesc`` and its ``BlockDesc`` s.

``Program.desc`` is the protobuf message itself, so serialization is
``desc.SerializeToString()`` and a program's signature is a hash of those
bytes (cached, dropped by every mutation made through this API).  Blocks keep
their variables (name -> Variable) and ops (in order) as Python wrappers
whose state lives in the message.

Seams for later issues: ``Block.append_op/_insert_op/_remove_op`` (backward,
optimizers), ``Program._create_block/_rollback`` (control-flow sub-blocks),
``Program.bind_tensor`` (eager tensors used as persistables, read by the
executor's scope and by to_static).
"""
import hashlib

from ..ops.dtypes import to_np_dtype
from .proto import framework_pb2 as pb
from .variable import Variable, Parameter, LOD_TENSOR
from .operator import Operator
from . import attrs as A

__all__ = ["Program", "Block", "Operator", "Variable", "Parameter"]


class Block:
    _is_static_block = True

    def __init__(self, program, idx):
        self.program = program
        self.idx = idx
        self.desc = program.desc.blocks[idx]
        self.vars = {}        # name -> Variable, in creation order
        self.ops = []

    @property
    def parent_idx(self):
        return self.desc.parent_idx

    @property
    def forward_block_idx(self):
        return self.desc.forward_block_idx

    def _set_forward_block_idx(self, idx):
        self.desc.forward_block_idx = idx
        self.program._bump()

    # ------------------------------------------------------------- variables
    def var(self, name):
        v = self.vars.get(name)
        if v is None:
            raise ValueError(f"variable '{name}' is not in block {self.idx}")
        return v

    def has_var(self, name):
        return name in self.vars

    def _find_var_recursive(self, name):
        b = self
        while True:
            v = b.vars.get(name)
            if v is not None or b.parent_idx < 0:
                return v
            b = self.program.blocks[b.parent_idx]

    def _var_recursive(self, name):
        v = self._find_var_recursive(name)
        if v is None:
            raise ValueError(f"variable '{name}' is not in block {self.idx} or its parents")
        return v

    def create_var(self, **kwargs):
        """A new Variable; an existing one of the same name is returned when the
        given shape/dtype agree with it (a clear error when they do not)."""
        name = kwargs.get("name")
        if name is not None and name in self.vars:
            return _same_var(self.vars[name], kwargs)
        v = Variable(self, **kwargs)
        self.vars[v.name] = v
        self.program._bump()
        return v

    def create_parameter(self, **kwargs):
        name = kwargs.get("name")
        if name in self.vars:
            raise ValueError(f"parameter '{name}' already exists in block {self.idx}")
        p = Parameter(self, **kwargs)
        self.vars[p.name] = p
        self.program._bump()
        return p

    def _remove_var(self, name):
        v = self.vars.pop(name)
        for i, d in enumerate(self.desc.vars):
            if d.name == name:
                del self.desc.vars[i]
                break
        self.program._bump()
        return v

    def _rename_var_desc(self, var, new):
        old = var.desc.name
        if new in self.vars and self.vars[new] is not var:
            raise ValueError(f"cannot rename '{old}' to '{new}': the name is taken")
        var.desc.name = new
        self.vars = {(new if k == old else k): v for k, v in self.vars.items()}
        self.program._bump()

    def _rename_var(self, old, new):
        """Rename a variable and every use of it in this block's ops."""
        self._rename_var_desc(self.var(old), new)
        for op in self.ops:
            op._rename_input(old, new)
            op._rename_output(old, new)

    def all_parameters(self):
        return [v for v in self.vars.values() if isinstance(v, Parameter)]

    def iter_parameters(self):
        return iter(self.all_parameters())

    # ------------------------------------------------------------- ops
    def append_op(self, type, inputs=None, outputs=None, attrs=None):
        op = Operator(self, self.desc.ops.add(), type, inputs, outputs, attrs)
        self.ops.append(op)
        self.program._bump()
        return op

    def _insert_op(self, index, type, inputs=None, outputs=None, attrs=None):
        self.desc.ops.insert(index, pb.OpDesc())
        op = Operator(self, self.desc.ops[index], type, inputs, outputs, attrs)
        self.ops.insert(index, op)
        self.program._bump()
        return op

    def _prepend_op(self, type, inputs=None, outputs=None, attrs=None):
        return self._insert_op(0, type, inputs, outputs, attrs)

    def _remove_op(self, index):
        del self.desc.ops[index]
        op = self.ops.pop(index)
        self.program._bump()
        return op

    def to_string(self, throw_on_error=False, with_details=False):
        from .printer import block_text
        return block_text(self, with_details)

    def __repr__(self):
        return self.to_string()

    __str__ = __repr__

    # ------------------------------------------------------------- rebuild
    def _load(self):
        """(Re)build the wrappers from the message (parsed or copied programs)."""
        self.vars, self.ops = {}, []
        for d in self.desc.vars:
            cls = Parameter if d.is_parameter and d.type.type == LOD_TENSOR else Variable
            self.vars[d.name] = cls(self, desc=d)
        for d in self.desc.ops:
            self.ops.append(Operator(self, d))


class Program:
    """A whole static program: blocks of ops over variables."""
    _symbolic = False           # holds symbolic dims (ops/symbolic.py): ops refine them

    def __init__(self):
        self.desc = pb.ProgramDesc()
        self.desc.blocks.add(idx=0, parent_idx=-1)
        self.blocks = [Block(self, 0)]
        self.current_block_idx = 0
        self.random_seed = 0
        self._version = 0
        self._sig = (-1, None)
        self._bound = {}            # name -> eager tensor standing for that persistable
        self._source = None         # the file a loaded program came from (named in errors)

    # ------------------------------------------------------------- identity
    def _bump(self):
        self._version += 1

    def _signature(self):
        """Hex digest of the serialized desc; recomputed only after a mutation."""
        v, sig = self._sig
        if v != self._version:
            sig = hashlib.blake2b(self.desc.SerializeToString(), digest_size=16).hexdigest()
            self._sig = (self._version, sig)
        return sig

    signature = property(_signature)

    # ------------------------------------------------------------- blocks
    def global_block(self):
        return self.blocks[0]

    def block(self, index):
        return self.blocks[index]

    def current_block(self):
        return self.blocks[self.current_block_idx]

    @property
    def num_blocks(self):
        return len(self.blocks)

    def _create_block(self, parent_idx=None):
        """A new sub-block (child of ``parent_idx``, default the current block),
        made current; ``_rollback`` returns to its parent."""
        parent = self.current_block_idx if parent_idx is None else parent_idx
        idx = len(self.blocks)
        self.desc.blocks.add(idx=idx, parent_idx=parent)
        self.blocks.append(Block(self, idx))
        self.current_block_idx = idx
        self._bump()
        return self.blocks[idx]

    def _rollback(self):
        self.current_block_idx = max(self.current_block().parent_idx, 0)

    # ------------------------------------------------------------- variables
    def list_vars(self):
        for b in self.blocks:
            yield from b.vars.values()

    def all_parameters(self):
        return self.global_block().all_parameters()

    def bind_tensor(self, tensor, name=None):
        """The persistable Variable standing for an eager ``tensor`` (created once,
        in the global block, named after the tensor).  The tensor is remembered
        so an executor scope reads (and updates) its array in place of a copy."""
        name = name or tensor.name
        other = self._bound.get(name)
        if other is not None:
            if other is not tensor:
                raise ValueError(f"two different tensors named '{name}' are used in one "
                                 f"program; give them distinct names")
            return self.global_block().vars[name]
        gb = self.global_block()
        if name in gb.vars:
            raise ValueError(f"tensor '{name}' clashes with a variable of the same name "
                             f"already in the program")
        shape, dtype = list(tensor.shape), tensor._data.dtype
        if getattr(tensor, "trainable", None) is not None:
            v = gb.create_parameter(name=name, shape=shape, dtype=dtype,
                                    trainable=tensor.trainable)
        else:
            v = gb.create_var(name=name, shape=shape, dtype=dtype, persistable=True,
                              stop_gradient=tensor.stop_gradient)
        self._bound[name] = tensor
        return v

    @property
    def bound_tensors(self):
        """name -> eager tensor for persistables created by ``bind_tensor``."""
        return self._bound

    # ------------------------------------------------------------- copies
    @classmethod
    def _from_desc(cls, desc):
        p = cls.__new__(cls)
        p.desc = desc
        p.blocks = [Block(p, i) for i in range(len(desc.blocks))]
        p.current_block_idx = 0
        p.random_seed = 0
        p._version = 0
        p._sig = (-1, None)
        p._bound = {}
        p._source = None
        for b in p.blocks:
            b._load()
        return p

    @staticmethod
    def parse_from_string(binary):
        desc = pb.ProgramDesc()
        try:
            desc.ParseFromString(binary)
        except Exception as e:
            raise ValueError(f"the bytes are not a serialized ProgramDesc: {e}") from None
        return Program._from_desc(desc)

    def clone(self, for_test=False):
        """A deep copy.  ``for_test=True`` also drops backward/optimizer ops and
        sets ``is_test`` on every op that has it (dropout, batch_norm ...)."""
        desc = pb.ProgramDesc()
        desc.CopyFrom(self.desc)
        p = Program._from_desc(desc)
        p.random_seed = self.random_seed
        p._bound = dict(self._bound)
        p._symbolic = self._symbolic
        for b_old, b_new in zip(self.blocks, p.blocks):
            for o_old, o_new in zip(b_old.ops, b_new.ops):
                o_new._copy_origin(o_old)
            for name, v in b_old.vars.items():
                nv = b_new.vars.get(name)
                nv.is_data = v.is_data
                if v._sym is not None or v._symval is not None:     # symbolic dims
                    nv._sym, nv._symval = v._sym, v._symval
                if isinstance(v, Parameter) and isinstance(nv, Parameter):
                    for k in Parameter.PY_ATTRS:
                        object.__setattr__(nv, k, getattr(v, k))
        if for_test:
            _to_test(p)
        else:           # Paddle's clone keeps the LRScheduler the Executor feeds
            sched = self.__dict__.get("lr_scheduler")
            if sched is not None:
                p.lr_scheduler = sched
                lr_var = self.__dict__.get("lr_var")
                if lr_var is not None:
                    p.lr_var = p.global_block().vars.get(lr_var.name)
        return p

    # ------------------------------------------------------------- text
    def to_string(self, throw_on_error=False, with_details=False):
        from .printer import program_text
        return program_text(self, with_details)

    def __repr__(self):
        return self.to_string()

    __str__ = __repr__


def _same_var(v, kwargs):
    shape, dtype = kwargs.get("shape"), kwargs.get("dtype")
    if shape is not None and tuple(-1 if d is None else d for d in shape) != v.shape:
        raise ValueError(f"variable '{v.name}' already exists with shape {list(v.shape)}; "
                         f"cannot declare it again with shape {list(shape)}")
    if dtype is not None and v.np_dtype is not None and to_np_dtype(dtype) != v.np_dtype:
        raise ValueError(f"variable '{v.name}' already exists with dtype {v.np_dtype}; "
                         f"cannot declare it again with dtype {to_np_dtype(dtype)}")
    return v


_TRAIN_ROLES = A.OP_ROLE_BACKWARD | A.OP_ROLE_OPTIMIZE


def _to_test(program):
    """Prune backward/optimize ops (by op_role) and the variables only they used;
    flip is_test on."""
    for b in program.blocks:
        kept, dropped = [], []
        for op in b.ops:
            role = op._attrs.get("op_role", 0)
            (dropped if role & _TRAIN_ROLES else kept).append(op)
        if dropped:
            used = {n for op in kept for n in op.input_arg_names + op.output_arg_names}
            gone = {n for op in dropped for n in op.input_arg_names + op.output_arg_names}
            drop_ids = {id(op) for op in dropped}
            for i in range(len(b.ops) - 1, -1, -1):
                if id(b.ops[i]) in drop_ids:
                    b._remove_op(i)
            for n in gone - used:
                v = b.vars.get(n)
                if v is not None and not v.persistable and not v.is_data:
                    b._remove_var(n)
        for op in b.ops:
            if op.has_attr("is_test") or (op.opdef is not None and
                                          "is_test" in op.opdef.attr_specs):
                op._set_attr("is_test", True)
    program._bump()
