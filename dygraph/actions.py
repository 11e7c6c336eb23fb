"""The eager implementations of the mode-dependent actions of ``ops.mode``
(besides ``bind`` and ``constant``, which ``engine`` installs): new
parameters and state are tensors made now; arrays are Python lists."""
import numpy as np

from ..ops import bind, get_op, set_mode_action
from ..utils import unique_name
from .tensor import Parameter
from .tensor import wrap



def create_parameter(attr, shape, dtype):
    if unique_name.dygraph_parameter_name_checker(attr.name):
        raise ValueError(f"parameter name [{attr.name}] has already been used. In dygraph mode "
                         "parameter names must be unique; check the ParamAttr names passed to "
                         "create_parameter or to the layers' constructors")
    param = Parameter(np.zeros(shape, dtype), name=attr.name, trainable=attr.trainable,
                      learning_rate=attr.learning_rate, regularizer=attr.regularizer,
                      need_clip=attr.need_clip)
    param.do_model_average = attr.do_model_average
    attr.initializer(param)
    return param


def create_state(name, shape, dtype, value):
    t = wrap(np.full(shape, value, dtype=dtype), name=name)
    t.persistable = True
    return t


def update(op_type, inputs, target, attrs=None):
    op = get_op(op_type)
    return bind(op, tuple(inputs.get(s.name) for s in op.inputs), attrs)[0]


def new_array(dtype):
    return []


def for_each_pair(pairs, fn, scope):
    return [fn(p, g) for p, g in pairs]


def while_loop(cond, body, loop_vars):
    loop_vars = list(loop_vars)
    while bool(cond(*loop_vars)):
        loop_vars = list(body(*loop_vars))
    return loop_vars


for _name, _fn in (("create_parameter", create_parameter), ("create_state", create_state),
                   ("update", update), ("new_array", new_array),
                   ("for_each_pair", for_each_pair), ("while_loop", while_loop)):
    set_mode_action("eager", _name, _fn)
