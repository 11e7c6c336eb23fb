"""``Variable`` and ``Parameter``: views over one ``VarDesc`` of a block.

Everything that is saved (name, kind, shape with -1 for unknown dims, data
type, lod level, persistable, stop_gradient, need_check_feed, is_parameter)
is read from and written to the protobuf message; only Python-side facts
(``is_data``, a parameter's trainable/regularizer ...) live on the object.
Operators and tensor methods (``a + b``, ``x.mean()``) are installed from the
public op functions by ``static.framework`` (same definitions as eager).
"""
from ..ops import bind_in_graph, get_op
from ..ops.dtypes import ENUM_TO_NP, ENUM_NAMES, public_dtype, to_enum
from .proto import framework_pb2 as pb
from .value_request import request_value
from ..ops.symbolic import SymDim
from ..ops.mode import grad_enabled
from .views import propagate

VarType = pb.VarType
LOD_TENSOR = VarType.LOD_TENSOR
# kinds whose VarType carries a TensorDesc, and where it sits
_TENSOR_FIELD = {VarType.LOD_TENSOR: "lod_tensor", VarType.LOD_TENSOR_ARRAY: "tensor_array",
                 VarType.SELECTED_ROWS: "selected_rows"}
KIND_NAMES = {VarType.Type.Value(n): n for n in VarType.Type.keys()}


def tensor_desc(desc):
    """The TensorDesc inside a VarDesc, or None for kinds without one."""
    field = _TENSOR_FIELD.get(desc.type.type)
    if field is None:
        return None
    sub = getattr(desc.type, field)
    return sub if field == "selected_rows" else sub.tensor


class Variable:
    """A named value of a block (Paddle's static ``Variable``)."""
    is_static_variable = True
    # symbolic dimensions (ops/symbolic.py), set while a Program with symbols is
    # built: ``_sym`` the shape with SymDims where the desc holds -1 (``shape``
    # returns it), ``_symval`` the symbolic value of a dimension-holding int tensor
    _sym = None
    _symval = None
    # an in-place op wrote this object while gradients were recorded (outside
    # ``no_grad``): a to_static input so written must not be a leaf that needs
    # a gradient (jit/partial_program.py), as the eager write refuses one
    _written_with_grad = False
    # (group, steps from its root) where this object is a view of another or has
    # views (program/views.py), else None
    _view_of = None

    def __init__(self, block, type=LOD_TENSOR, name=None, shape=None, dtype=None,
                 lod_level=None, persistable=None, stop_gradient=False,
                 need_check_feed=False, is_data=False, desc=None, **kwargs):
        self.block = block
        self.is_data = is_data
        if desc is not None:            # wrapping an existing (parsed) VarDesc
            self.desc = desc
            return
        if name is None:
            raise ValueError("a static Variable needs a name")
        d = self.desc = block.desc.vars.add()
        d.name = name
        d.type.type = type
        td = tensor_desc(d)
        if td is not None:
            td.data_type = to_enum(dtype if dtype is not None else "float32")
            if shape is not None:
                td.dims.extend(_dims(shape))
                if block.program._symbolic:         # symbolic dims (program/symbolic.py)
                    self._sym = _symbolic(shape)
            if lod_level is not None:
                getattr(d.type, _TENSOR_FIELD[type]).lod_level = lod_level
        if persistable:
            d.persistable = True
        self.stop_gradient = stop_gradient
        if need_check_feed:
            d.need_check_feed = True

    # ------------------------------------------------------------- saved facts
    @property
    def name(self):
        return self.desc.name

    @name.setter
    def name(self, new):
        self.block._rename_var_desc(self, new)

    @property
    def type(self):
        return self.desc.type.type

    @property
    def shape(self):
        s = self._sym
        if s is not None:
            return s
        td = tensor_desc(self.desc)
        return () if td is None else tuple(td.dims)

    def _set_shape(self, shape):
        td = tensor_desc(self.desc)
        del td.dims[:]
        td.dims.extend(_dims(shape))
        self._sym = _symbolic(shape) if self.block.program._symbolic else None
        self.block.program._bump()

    @property
    def ndim(self):
        return len(self.shape)

    def dim(self):
        return self.ndim

    @property
    def size(self):
        """The number of elements as a Python int (as eager ``Tensor.size``);
        while a dimension is unknown, a ``size`` op's int64 Variable of shape []
        counting them when the program runs (what Paddle's to_static gives)."""
        n = 1
        for d in self.shape:
            if d < 0:
                return bind_in_graph(get_op("size"), (self,))[0]
            n *= d
        return n

    @property
    def np_dtype(self):
        """The numpy dtype (None for kinds without a tensor)."""
        td = tensor_desc(self.desc)
        return None if td is None else ENUM_TO_NP.get(td.data_type)

    @property
    def dtype(self):
        td = tensor_desc(self.desc)
        if td is None:
            return None
        npd = ENUM_TO_NP.get(td.data_type)
        return public_dtype(npd) if npd is not None else ENUM_NAMES.get(td.data_type)

    def _set_dtype(self, dtype):
        tensor_desc(self.desc).data_type = to_enum(dtype)
        self.block.program._bump()

    @property
    def lod_level(self):
        field = _TENSOR_FIELD.get(self.type)
        return getattr(self.desc.type, field).lod_level if field and field != "selected_rows" \
            else 0

    @property
    def persistable(self):
        return self.desc.persistable

    @persistable.setter
    def persistable(self, flag):
        _set_flag(self.desc, "persistable", flag)
        self.block.program._bump()

    @property
    def stop_gradient(self):
        return self.desc.stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, flag):
        _set_flag(self.desc, "stop_gradient", flag)
        self.block.program._bump()

    @property
    def need_check_feed(self):
        return self.desc.need_check_feed

    @property
    def is_parameter(self):
        return self.desc.is_parameter

    # ------------------------------------------------------------- in place
    def _view(self):
        """Another object viewing the same VarDesc (what an in-place write's
        rebinding leaves behind under the old name)."""
        v = Variable(self.block, desc=self.desc)
        v.is_data = self.is_data
        v._sym, v._symval = self._sym, self._symval
        return v

    def _inplace_assign(self, out, merge=False):
        """An in-place op on a Variable (``x.reshape_()``, ``x[i] = v``, ...) in a
        Program: the result is the op's new variable ``out``, and this object
        becomes a view of it, so later uses of the Python name read the written
        value (as the eager Tensor does).  The old variable keeps its name in
        the block, viewed by a new object.  A persistable variable (a parameter)
        is written by ops naming it (``assign``), never rebound.

        Inside a to_static branch or loop body being built with a write log
        (``open_branch_writes``) a variable of an enclosing block is rebound
        too, for the rest of that block, and the log restores it when the
        block ends (the other branch reads it as it was); the value it held
        becomes an output of the cond, or the loop's carried value, which then
        rebinds it outside (jit/convert_static.py, jit/convert_loops.py).
        Elsewhere inside a sub-block (one without a log: an inner block of
        the branch, a cond built by user code) the object, which the outer
        block owns, stays as it is and ``out`` is returned instead.
        ``merge``: that rebinding after a cond or loop, not a write of its own."""
        if out is self or out.desc is self.desc:
            return self
        if not merge and grad_enabled():
            self._written_with_grad = True
        current = self.block.program.current_block()
        if current is not self.block:
            log = _BRANCH_WRITES[-1] if _BRANCH_WRITES else None
            if log is None or log.block is not current or self.persistable:
                # converted code rebinds the name to the result (ast_transforms/lists.py)
                return out
            log.record(self)
        if self.persistable:
            raise TypeError(f"cannot rebind the persistable variable '{self.name}' to the "
                            f"result of an in-place op in a Program")
        block = self.block
        if block.vars.get(self.desc.name) is self:
            block.vars[self.desc.name] = self._view()
        shape, dtype = self.shape, self.dtype
        self.block, self.desc, self.is_data = out.block, out.desc, False
        self._sym, self._symval = out._sym, out._symval
        if self._view_of is not None and not merge:
            propagate(self, shape, dtype)      # its views and base see the write
        return self

    def _state(self):
        return self.block, self.desc, self.is_data, self._sym, self._symval

    def _set_state(self, state):
        self.block, self.desc, self.is_data, self._sym, self._symval = state

    # ------------------------------------------------------------- behaviour
    def __hash__(self):
        return id(self)

    # reading a value while building: a ValueRequest (TypeError; to_static's
    # graph break, program/value_request.py)
    def numpy(self):
        return request_value(self, ".numpy()")

    def __array__(self, dtype=None, copy=None):
        value = request_value(self, "a numpy conversion (np.asarray / a numpy function)")
        return value if dtype is None else value.astype(dtype)

    def item(self, *args):
        return request_value(self, ".item()").item(*args)

    def __float__(self):
        return float(request_value(self, "float()"))

    def __int__(self):
        return int(request_value(self, "int()"))

    def __iter__(self):
        n = self.shape[0] if self.shape else -1
        if n < 0:
            raise TypeError(f"cannot iterate over static Variable '{self.name}' whose first "
                            f"dimension is unknown (shape {list(self.shape)})")
        return (self[i] for i in range(n))

    def __len__(self):
        n = self.shape[0] if self.shape else -1
        if n < 0:
            raise TypeError(f"len() of static Variable '{self.name}' with unknown first "
                            f"dimension (shape {list(self.shape)})")
        return n

    def type_str(self):
        """``float32[-1, 4]`` for tensors, the kind name otherwise."""
        td = tensor_desc(self.desc)
        if td is None:
            return KIND_NAMES.get(self.type, str(self.type))
        dt = ENUM_TO_NP.get(td.data_type)
        dims = list(td.dims) if self._sym is None else list(self._sym)
        s = f"{dt.name if dt is not None else ENUM_NAMES.get(td.data_type)}{dims}"
        return s if self.type == LOD_TENSOR else f"{KIND_NAMES[self.type]}<{s}>"

    def to_string(self, throw_on_error=False, with_details=False):
        s = f"var {self.name} : {self.type_str()}"
        flags = [k for k in ("persistable", "stop_gradient", "need_check_feed")
                 if getattr(self, k)]
        if with_details and flags:
            s += " (" + ", ".join(flags) + ")"
        return s

    def __repr__(self):
        td = tensor_desc(self.desc)
        if td is None:
            return f"var {self.name} : {KIND_NAMES.get(self.type)}"
        dt = ENUM_TO_NP.get(td.data_type)
        return (f"var {self.name} : {KIND_NAMES[self.type]}.shape{self.shape}"
                f".dtype({dt.name if dt is not None else td.data_type})"
                f".stop_gradient({self.stop_gradient})" + _value_text(self._symval))

    __str__ = __repr__


def _value_text(sv):
    """`` (= B)``: the symbolic value of a dimension-holding int tensor (x.shape[0])."""
    if not sv:
        return ""
    items = ["?" if e is None else str(e) for e in sv]
    return f" (= {items[0] if len(items) == 1 else '[' + ', '.join(items) + ']'})"


class Parameter(Variable):
    """A persistable, trainable variable (weights, biases)."""

    def __init__(self, block, shape=None, dtype=None, name=None, trainable=True,
                 optimize_attr=None, regularizer=None, need_clip=True, is_distributed=False,
                 do_model_average=None, desc=None, **kwargs):
        kwargs.pop("persistable", None)
        kwargs.pop("stop_gradient", None)
        super().__init__(block, name=name, shape=shape, dtype=dtype, persistable=True,
                         stop_gradient=not trainable, desc=desc, **kwargs)
        if desc is None:
            self.desc.is_parameter = True
        else:                       # a parsed parameter: trainable is what the desc says
            trainable = not desc.stop_gradient
        object.__setattr__(self, "trainable", trainable)
        self.optimize_attr = optimize_attr or {"learning_rate": 1.0}
        self.regularizer = regularizer
        self.need_clip = need_clip
        self.is_distributed = is_distributed
        self.do_model_average = do_model_average

    PY_ATTRS = ("trainable", "optimize_attr", "regularizer", "need_clip", "is_distributed",
                "do_model_average")

    def __setattr__(self, key, value):
        if key == "trainable" and "desc" in self.__dict__:
            self.stop_gradient = not value
        object.__setattr__(self, key, value)

    def __repr__(self):
        return "Parameter " + super().__repr__()[4:]

    __str__ = __repr__


def _symbolic(shape):
    """``shape`` as a Variable's ``_sym`` (its SymDims kept, other dims as ints),
    or None when it holds no symbol."""
    if isinstance(shape, int) or not any(type(d) is SymDim for d in shape):
        return None
    return tuple(d if type(d) is SymDim else -1 if d is None else int(d) for d in shape)


def _dims(shape):
    if isinstance(shape, int):
        shape = (shape,)
    return [-1 if d is None else int(d) for d in shape]


def _set_flag(desc, field, flag):
    # absent and false mean the same; Paddle's saved files leave false flags out
    if flag:
        setattr(desc, field, True)
    else:
        desc.ClearField(field)


# ----------------------------------------------------------------- branch writes
class BranchWrites:
    """The variables of enclosing blocks written in place while one branch of
    a ``cond`` or a loop body is built in ``block`` (``Variable._inplace_assign``),
    each with the state it had before, so the block's end can restore them."""

    def __init__(self, block):
        self.block = block
        self.saved = {}                 # id(variable) -> (variable, state before)

    def record(self, var):
        if id(var) not in self.saved:
            self.saved[id(var)] = (var, var._state())

    def close(self):
        """Restore every written variable; returns {id(variable): (variable, a
        new Variable viewing what it held at the branch's end)}."""
        values = {}
        for key, (var, state) in self.saved.items():
            value = Variable(var.block, desc=var.desc)
            value._sym, value._symval = var._sym, var._symval
            values[key] = (var, value)
            var._set_state(state)
        return values


_BRANCH_WRITES = []


def open_branch_writes(block):
    """Start logging the in-place writes of a branch built in ``block``."""
    log = BranchWrites(block)
    _BRANCH_WRITES.append(log)
    return log


def close_branch_writes(log):
    """Stop logging (``log`` must be the innermost) and restore; see ``BranchWrites.close``."""
    if not _BRANCH_WRITES or _BRANCH_WRITES[-1] is not log:
        raise RuntimeError("branch write logs closed out of order")
    _BRANCH_WRITES.pop()
    return log.close()
