"""``Operator``: a view over one ``OpDesc`` of a block.

The op type, its input/output slots (slot name -> variable names) and its
attributes are written to the protobuf message and mirrored in small Python
dicts for fast reads.  For a registered op (``sampan.ops``) every declared slot
is written (empty when absent, as Paddle does) and the attributes are
completed with the declared defaults; attributes are kept sorted by name in
the message.  Unregistered types (``feed``/``fetch`` holders, ops of a loaded
model) keep exactly what they were given.
"""
from ..ops import OpError, has_op, get_op
from . import attrs as A


def _names(v):
    """Variable names of one slot value: a Variable, a name, or a list of them."""
    if v is None:
        return []
    if isinstance(v, (list, tuple)):
        return [x if isinstance(x, str) else x.name for x in v if x is not None]
    return [v if isinstance(v, str) else v.name]


class Operator:
    """One op of a block (Paddle's static ``Operator``)."""

    # What the op stands for in the user's code, kept in memory only (a clone
    # copies it, the desc does not hold it): the Location where it was built
    # (location.py), and for an assert op standing for the user's own raise,
    # the exception the run raises in this process (to_static sets it); and
    # whether it was built under ``no_grad`` (no gradient flows through it, as
    # eagerly: a backward pass leaves it out).
    location = None
    python_error = None
    no_grad = False

    def __init__(self, block, desc, type=None, inputs=None, outputs=None, attrs=None):
        self.block = block
        self.desc = desc
        if type is None:                 # wrapping an existing (parsed) OpDesc
            self._load()
            return
        self.type = desc.type = type
        self.opdef = get_op(type) if has_op(type) else None
        self._inputs = self._slots(desc.inputs, inputs or {}, "input")
        self._outputs = self._slots(desc.outputs, outputs or {}, "output")
        self._attrs, self._types = {}, {}
        given = dict(attrs or {})
        if self.opdef is not None:
            given = dict(self.opdef.complete_attrs(given))
        for k, v in given.items():
            self._put(k, v)
        self._sync_attrs()

    # ------------------------------------------------------------- building
    def _slots(self, field, given, what):
        declared = [s.name for s in (self.opdef.inputs if what == "input"
                                     else self.opdef.outputs)] if self.opdef else []
        unknown = [k for k in given if k not in declared]
        if self.opdef is not None and unknown:
            raise OpError(f"op '{self.type}' has no {what} slot(s) {unknown}; "
                          f"its {what} slots are {declared}")
        slots = {}
        for k in declared + unknown:
            slots[k] = _names(given.get(k))
            field.add(parameter=k, arguments=slots[k])
        return slots

    def _load(self):
        d = self.desc
        self.type = d.type
        self.opdef = get_op(d.type) if has_op(d.type) else None
        self._inputs = {v.parameter: list(v.arguments) for v in d.inputs}
        self._outputs = {v.parameter: list(v.arguments) for v in d.outputs}
        self._attrs, self._types = {}, {}
        for m in d.attrs:
            name, t, value = A.read(m)
            self._attrs[name], self._types[name] = value, t

    def _type_of(self, name, value):
        t = self._types.get(name)
        if t is not None:
            return t
        spec = self.opdef.attr_specs.get(name) if self.opdef is not None else None
        if spec is not None:
            return spec.type
        return A.BOOKKEEPING.get(name) or A.infer_type(value)

    def _put(self, name, value):
        t = self._type_of(name, value)
        self._types[name] = t
        self._attrs[name] = A.normalize(t, value, f"{self.type}.{name}")

    def _sync_attrs(self):
        """Rewrite the message's attrs, sorted by name (Paddle's order)."""
        field = self.desc.attrs
        del field[:]
        for name in sorted(self._attrs):
            A.write(field.add(), name, self._types[name], self._attrs[name])

    # ------------------------------------------------------------- slots
    def input(self, slot):
        return list(self._inputs.get(slot, ()))

    def output(self, slot):
        return list(self._outputs.get(slot, ()))

    @property
    def input_names(self):
        return list(self._inputs)

    @property
    def output_names(self):
        return list(self._outputs)

    @property
    def input_arg_names(self):
        return [n for args in self._inputs.values() for n in args]

    @property
    def output_arg_names(self):
        return [n for args in self._outputs.values() for n in args]

    @property
    def inputs(self):
        return {k: list(v) for k, v in self._inputs.items()}

    @property
    def outputs(self):
        return {k: list(v) for k, v in self._outputs.items()}

    def _set_slot(self, field, slots, slot, names):
        names = _names(names)
        slots[slot] = names
        for v in field:
            if v.parameter == slot:
                del v.arguments[:]
                v.arguments.extend(names)
                break
        else:
            field.add(parameter=slot, arguments=names)
        self.block.program._bump()

    def set_input(self, slot, names):
        self._set_slot(self.desc.inputs, self._inputs, slot, names)

    def set_output(self, slot, names):
        self._set_slot(self.desc.outputs, self._outputs, slot, names)

    def _rename_input(self, old, new):
        for slot, names in self._inputs.items():
            if old in names:
                self.set_input(slot, [new if n == old else n for n in names])

    def _rename_output(self, old, new):
        for slot, names in self._outputs.items():
            if old in names:
                self.set_output(slot, [new if n == old else n for n in names])

    # ------------------------------------------------------------- attrs
    def attr(self, name):
        try:
            return self._attrs[name]
        except KeyError:
            raise ValueError(f"op '{self.type}' has no attribute '{name}'; it has "
                             f"{sorted(self._attrs)}") from None

    def has_attr(self, name):
        return name in self._attrs

    @property
    def attr_names(self):
        return sorted(self._attrs)

    def all_attrs(self):
        return dict(self._attrs)

    def attr_type(self, name):
        return self._types[name]

    def _set_attr(self, name, value):
        self._put(name, value)
        self._sync_attrs()
        self.block.program._bump()

    set_attr = _set_attr

    def _remove_attr(self, name):
        if name in self._attrs:
            del self._attrs[name], self._types[name]
            self._sync_attrs()
            self.block.program._bump()

    def _block_attr_id(self, name):
        return self._attrs[name]

    def _block_attr(self, name):
        return self.block.program.block(self._attrs[name])

    def _blocks_attr(self, name):
        return [self.block.program.block(i) for i in self._attrs[name]]

    def sub_blocks(self):
        """Indices of the blocks this op owns (BLOCK / BLOCKS attributes)."""
        out = []
        for k, t in self._types.items():
            if t == "BLOCK":
                out.append(self._attrs[k])
            elif t == "BLOCKS":
                out.extend(self._attrs[k])
        return out

    # ------------------------------------------------------------- misc
    @property
    def idx(self):
        for i, op in enumerate(self.block.ops):
            if op is self:
                return i
        raise ValueError("op is not in its block")

    def _copy_origin(self, other):
        """Take ``other``'s in-memory origin (this op is its copy)."""
        if other.location is not None:
            self.location = other.location
        if other.python_error is not None:
            self.python_error = other.python_error
        if other.no_grad:
            self.no_grad = True

    @property
    def source(self):
        """The text of the user's source line: of ``location`` for an op built
        here, else the last ``op_callstack`` entry (a loaded program's); None
        when neither is known."""
        if self.location is not None:
            return str(self.location)
        cs = self._attrs.get("op_callstack")
        return cs[-1] if cs else None

    def to_string(self, with_details=False):
        from .printer import op_line
        return op_line(self, with_details)

    def __repr__(self):
        return self.to_string()

    __str__ = __repr__
