"""The static-mode handler of ``bind``: append an Operator instead of running it.

``bind(opdef, inputs, attrs)`` in static mode (or eagerly, with a static
Variable among the inputs) lands in ``append_static_op``:

1. inputs become Variables (an eager Tensor, e.g. a Layer's parameter, becomes
   a persistable Variable of the same name via ``Program.bind_tensor``);
2. attrs are completed with the OpDef defaults;
3. the OpDef's ``infer_meta`` runs on the input metas (shape with -1, dtype)
   and gives the output Variables their shapes and dtypes;
4. the op is appended to the current block with Paddle's bookkeeping attrs
   (op_role, op_namescope, op_device, op_role_var, and op_callstack = the
   user's source line, whose ``Location`` the Operator also keeps as
   ``op.location``, see ``location.py``), and its output Variables are returned.

Output names follow FORMAT.md section 6: ``<key>_<n>.tmp_<k>`` where the key
is the op type (or the layer/API name given with ``name_key``), ``tmp_<n>``
for results of Python operators on Variables (``tmp_names``).

In-place pairs (``OpDef.inplace``) write to the input's variable when that
input is persistable and keeps its shape and dtype (state updates: optimizer
ops, batch_norm running stats); otherwise they are only buffer-reuse hints
and the output is a new variable (``reshape2`` of a parameter must not
overwrite it).
"""
import contextlib
import functools

from ..ops.errors import NOT_FOUND
from ..ops import (OpError, kind_of, Meta, get_op, set_mode_handler, set_static_mode, grad_enabled,
                   set_constant_handler, is_graph_value)
from ..utils import unique_name
from . import attrs as A
from .program_guard import default_main_program, current_name_scope
from .location import user_location
from .symbolic import annotate
from ..ops.dtypes import to_enum
from ..ops.defs.creation import assign_value_attrs

_naming = {"base": None, "tmp": False}
_role = [A.OP_ROLE_FORWARD]


# ----------------------------------------------------------------- modes
def enable_static():
    """Switch the public op functions to building static programs."""
    set_static_mode(True)


def disable_static(place=None):
    """Back to eager execution (the default)."""
    set_static_mode(False)


__all__ = ["enable_static", "disable_static", "append_static_op", "append_op", "bookkeeping",
           "name_key", "tmp_names", "op_role_guard"]


# ----------------------------------------------------------------- naming
@contextlib.contextmanager
def name_key(key):
    """Ops appended inside share one ``<key>_<n>`` prefix: their outputs are
    ``<key>_<n>.tmp_0``, ``.tmp_1`` ... (a Linear layer: ``linear_0.tmp_0`` for
    the matmul, ``linear_0.tmp_1`` for the bias add); the static implementation
    of ``ops.name_key``."""
    old = _naming["base"]
    _naming["base"] = unique_name.generate(key)
    try:
        yield
    finally:
        _naming["base"] = old


def tmp_names(fn):
    """Wrap a Variable operator (``__add__`` ...) so its results are ``tmp_<n>``."""
    @functools.wraps(fn)
    def op(*args, **kwargs):
        old = _naming["tmp"]
        _naming["tmp"] = True
        try:
            return fn(*args, **kwargs)
        finally:
            _naming["tmp"] = old
    return op


def _namer(op):
    if _naming["tmp"]:
        return lambda: unique_name.generate("tmp")
    base = []

    def name():
        if not base:
            base.append(_naming["base"] or unique_name.generate(op.type))
        return unique_name.generate(base[0] + ".tmp")
    return name


@contextlib.contextmanager
def op_role_guard(role):
    """Ops appended inside carry ``op_role = role`` (backward = 1, optimize = 2)."""
    _role.append(role)
    try:
        yield
    finally:
        _role.pop()


def current_role():
    """The op_role of ops appended now."""
    return _role[-1]


# ----------------------------------------------------------------- the handler
def _as_var(program, op, slot, x):
    if is_graph_value(x):
        if x.block.program is not program:
            raise OpError(f"op '{op.type}': input {slot.name} is variable '{x.name}' of "
                          f"another Program; build every op of a program inside one "
                          f"program_guard")
        return x
    if hasattr(x, "_data"):        # an eager Tensor (a Layer's parameter, a constant)
        return program.bind_tensor(x)
    raise OpError(f"op '{op.type}': input {slot.name} must be a static Variable or a "
                  f"Tensor, got {type(x).__name__}")


def _meta(v):
    return Meta(v.shape, v.np_dtype)


def _describe(op, in_vars):
    parts = []
    for slot, v in zip(op.inputs, in_vars):
        if isinstance(v, list):
            parts.append(f"{slot.name}=[{', '.join(f'{x.name}: {x.type_str()}' for x in v)}]")
        elif v is not None:
            parts.append(f"{slot.name}={v.name}: {v.type_str()}")
    return ", ".join(parts)


def _infer(op, in_vars, metas, attrs):
    if op.infer_meta is None:      # no rule declared: outputs look like the first input
        first = next((m for m in metas if isinstance(m, Meta)), Meta((), None))
        return (first,) * len(op.outputs)
    try:
        return tuple(op.infer_meta(tuple(metas), attrs))
    except Exception as e:
        loc = user_location()
        where = f"\n  at {loc}" if loc is not None else ""
        msg = str(e)
        if not msg.startswith(f"op '{op.type}'"):
            msg = f"op '{op.type}': {msg}"
        raise OpError(f"{msg} (inputs {_describe(op, in_vars)}){where}",
                      kind=kind_of(e)) from e


def _check_dtypes(op, in_vars):
    for i, j in op.same_dtype_pairs:
        a, b = in_vars[i], in_vars[j]
        if isinstance(a, list) or isinstance(b, list) or a is None or b is None:
            continue
        if a.np_dtype != b.np_dtype:
            raise op.dtype_mismatch(i, j, a.np_dtype, b.np_dtype, a.name, b.name)


def _check_kernel(op, in_vars):
    """The input deciding the kernel dtype must have a kernel, checked as the op is
    appended (eagerly the call fails there too; Paddle's static builders check
    dtypes as they build)."""
    di = op.dtype_index
    if di is None or di >= len(in_vars) or not op.kernels:
        return
    v = in_vars[di]
    if isinstance(v, list):
        v = v[0] if v else None
    if v is not None and not op.has_kernel_dtype(v.np_dtype):
        have = sorted({k.dtype for k in op.kernels})
        raise OpError(f"op '{op.type}' has no kernel for dtype {v.np_dtype} (input "
                      f"{op.inputs[di].name} is '{v.name}': {v.type_str()}); it takes "
                      f"{', '.join(have)}", kind=NOT_FOUND)


def _aliases(src, m):
    return (src is not None and not isinstance(src, list) and src.persistable
            and tuple(m.shape) == src.shape and m.dtype == src.np_dtype)


def _dtype(m):
    return "float32" if m.dtype is None else m.dtype


def _outputs(op, block, in_vars, metas):
    name = _namer(op)
    outs = []
    for i, slot in enumerate(op.outputs):
        m = metas[i] if i < len(metas) else None
        if m is None:
            outs.append(None)
            continue
        src_slot = op.inplace.get(slot.name)
        src = in_vars[op.input_index[src_slot]] if src_slot in op.input_index else None
        if isinstance(m, (list, tuple)):
            outs.append([block.create_var(name=name(), shape=x.shape, dtype=_dtype(x))
                         for x in m])
        elif _aliases(src, m):
            outs.append(src)
        else:
            outs.append(block.create_var(name=name(), shape=m.shape, dtype=_dtype(m)))
    return outs


def _flat(values):
    for v in values:
        if isinstance(v, list):
            yield from v
        elif v is not None:
            yield v


def append_static_op(op, ins, attrs):
    """``bind`` in static mode: append ``op`` to the current block; returns its
    output Variables (one entry per output slot)."""
    program = default_main_program()
    block = program.current_block()
    full = op.complete_attrs(attrs)
    in_vars = []
    for slot, x in zip(op.inputs, ins):
        if x is None:
            in_vars.append(None)
        elif isinstance(x, (list, tuple)):
            in_vars.append([_as_var(program, op, slot, e) for e in x])
        else:
            in_vars.append(_as_var(program, op, slot, x))
    _check_dtypes(op, in_vars)
    _check_kernel(op, in_vars)
    metas = [None if v is None else [_meta(x) for x in v] if isinstance(v, list) else _meta(v)
             for v in in_vars]
    out_metas = _infer(op, in_vars, metas, full)
    outs = _outputs(op, block, in_vars, out_metas)
    if program._symbolic:          # symbolic dims (program/symbolic.py): build time only
        annotate(op, in_vars, metas, full, out_metas, outs)
    no_grad = not grad_enabled()
    stop = no_grad or not op.differentiable or all(v.stop_gradient for v in _flat(in_vars))
    fresh = [v for v in _flat(outs) if not v.persistable]
    for v in fresh:
        v.stop_gradient = stop
    built = _append(block, op.type, {s.name: v for s, v in zip(op.inputs, in_vars)},
                    {s.name: v for s, v in zip(op.outputs, outs)}, full)
    if no_grad:
        built.no_grad = True
    return tuple(outs)


def bookkeeping(location=None):
    """Paddle's bookkeeping attributes of an op appended now: op_role, the name
    scope, op_device, op_role_var and op_callstack (the text of ``location``,
    the user's source line)."""
    extra = {"op_role": _role[-1], "op_namescope": current_name_scope(), "op_device": "",
             "op_role_var": []}
    if location is not None:
        extra["op_callstack"] = [str(location)]
    return extra


def _append(block, type, inputs, outputs, attrs):
    """Append an op with the bookkeeping; the op keeps the user's Location."""
    loc = user_location()
    op = block.append_op(type, inputs=inputs, outputs=outputs,
                         attrs={**attrs, **bookkeeping(loc)})
    op.location = loc
    return op


def append_op(block, type, inputs, outputs, attrs=None):
    """Append an op whose outputs are existing variables (an update in place, a
    tensor array write, a control-flow op), with its declared defaults and the
    bookkeeping."""
    return _append(block, type, inputs, outputs, get_op(type).complete_attrs(attrs or {}))


set_mode_handler("static", append_static_op)


def _static_constant(array, stop_gradient, dtype):
    """A host array in a Program: an ``assign_value`` op of the array's own
    dtype, then a ``cast`` to ``dtype`` when that differs (as Paddle's to_tensor).
    assign_value holds no complex numbers: a complex array is its real and
    imaginary parts, each an assign_value, joined by a ``complex`` op."""
    if array.dtype.kind == "c":
        parts = tuple(append_static_op(get_op("assign_value"), (), assign_value_attrs(p.copy()))[0]
                      for p in (array.real, array.imag))
        out = append_static_op(get_op("complex"), parts, None)[0]
    else:
        out = append_static_op(get_op("assign_value"), (), assign_value_attrs(array))[0]
    if dtype is not None and dtype != array.dtype:
        out = append_static_op(get_op("cast"), (out,), {"in_dtype": to_enum(array.dtype),
                                                        "out_dtype": to_enum(dtype)})[0]
    out.stop_gradient = stop_gradient
    return out


set_constant_handler("static", _static_constant)
