"""The static implementations of the mode-dependent actions of ``ops.mode``
(besides ``bind`` and ``constant``, which ``static_mode`` installs), as
Paddle's LayerHelper and static optimizer build them:

- a parameter is declared in the default main program and declared plus
  initialized (its creation op) in the default startup program; a name
  already declared is shared, which is how static programs share weights;
- optimizer state is a persistable variable of the main program, filled by a
  ``fill_constant`` in the startup program;
- ``update`` appends its op with the target as output (``sum(X=[grad, decay])
  -> grad``, ``elementwise_mul(X=grad, Y=scale) -> grad``);
- ``op_role`` marks the ops appended inside with op_role (and op_role_var,
  except learning-rate computations, which keep none).
"""
import contextlib

from ..ops import set_mode_action
from ..ops.dtypes import to_enum
from ..utils import unique_name
from .attrs import OP_ROLE_LRSCHED, OP_ROLE_OPTIMIZE
from .program_guard import default_main_program, default_startup_program, name_scope
from .static_mode import append_op, name_key, op_role_guard
from .variable import VarType


def create_parameter(attr, shape, dtype):
    kw = dict(name=attr.name, shape=shape, dtype=dtype, trainable=attr.trainable,
              optimize_attr={"learning_rate": attr.learning_rate},
              regularizer=attr.regularizer, need_clip=attr.need_clip,
              do_model_average=attr.do_model_average)
    startup = default_startup_program().global_block()
    if attr.name not in startup.vars:
        attr.initializer(startup.create_parameter(**kw), startup)
    main = default_main_program().global_block()
    existing = main.vars.get(attr.name)
    return existing if existing is not None else main.create_parameter(**kw)


def create_state(name, shape, dtype, value):
    shape = [int(d) for d in shape]
    v = default_main_program().global_block().create_var(
        name=name, shape=shape, dtype=dtype, persistable=True, stop_gradient=True)
    sb = default_startup_program().global_block()
    if name not in sb.vars:
        init = sb.create_var(name=name, shape=shape, dtype=dtype, persistable=True,
                             stop_gradient=True)
        sb.append_op(type="fill_constant", outputs={"Out": [init]},
                     attrs={"shape": shape, "dtype": to_enum(dtype), "value": float(value),
                            "force_cpu": False})
    return v


def update(op_type, inputs, target, attrs=None):
    out = target
    if hasattr(target, "_data"):     # an eager tensor (a Layer's buffer): its bound variable
        out = default_main_program().bind_tensor(target)
    append_op(default_main_program().current_block(), op_type,
              {k: v if isinstance(v, list) else [v] for k, v in inputs.items()},
              {"Out": [out]}, attrs)
    return target


def new_array(dtype):
    block = default_main_program().current_block()
    return block.create_var(name=f"{unique_name.generate('array')}.out",
                            type=VarType.LOD_TENSOR_ARRAY, dtype=dtype)


@contextlib.contextmanager
def op_role(role, role_var=None):
    """Yields the op_role_var list, which the body may correct (a clipped
    gradient's new name); it is set on the ops when the block ends."""
    block = default_main_program().current_block()
    start = len(block.ops)
    names = list(role_var) if role_var is not None else None
    with op_role_guard(role):
        yield names
    if names is not None:
        for op in block.ops[start:]:
            if not op.attr("op_role") & OP_ROLE_LRSCHED:
                op._set_attr("op_role_var", names)


def for_each_pair(pairs, fn, scope):
    out = []
    for p, g in pairs:
        with op_role(OP_ROLE_OPTIMIZE, [p.name, g.name]), \
                (name_scope(scope) if scope else contextlib.nullcontext()):
            out.append(fn(p, g))
    return out


for _name, _fn in (("create_parameter", create_parameter), ("create_state", create_state),
                   ("update", update), ("new_array", new_array),
                   ("name_key", name_key), ("op_role", op_role), ("name_scope", name_scope),
                   ("for_each_pair", for_each_pair)):
    set_mode_action("static", _name, _fn)
