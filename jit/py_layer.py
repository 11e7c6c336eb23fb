"""``PyLayer.apply`` while a program is built (to_static, static mode), as
Paddle 2.6's dy2static ``StaticPyLayer``: the layer's ``forward`` and
``backward`` (converted like any user function, so tensor control flow in
them becomes graph control flow) become the two blocks of a ``pylayer`` op
(``static.nn.static_pylayer``), so training through it under ``to_static``
gets the gradients the user's backward computes, as eagerly.

The ``ctx`` both receive is a ``StaticPyLayerContext``: attributes set in
forward are seen by backward (one Python object), ``save_for_backward`` /
``saved_tensor`` carry Variables (a forward-block variable is declared in the
backward block under its name; the run finds its value in the forward run's
scope), ``mark_non_differentiable`` makes those outputs stop gradients (the
backward receives zeros for them, as eagerly), ``mark_not_inplace`` and
``set_materialize_grads`` are accepted (outputs are always new variables and
missing gradients are zeros).  Inputs are the Tensor arguments (and lists of
them), positional then keyword, as eagerly; ``backward`` returns one gradient
or None per input, checked as eagerly (a gradient for an input that stops
gradients is dropped: an input's flag is decided when the program runs).
"""
from ..ops import is_graph_value as is_static, set_mode_action
from ..dygraph.py_layer import PyLayerContext
from ..dygraph.tensor import Tensor
from ..program.program_guard import default_main_program
from ..static.nn import nest
from ..static.nn.static_pylayer import static_pylayer
from .convert_runtime import convert_call

__all__ = ["StaticPyLayerContext"]


class StaticPyLayerContext(PyLayerContext):
    """The ``ctx`` of a PyLayer's forward/backward in a static program."""

    def __init__(self):
        self.saved_vars = ()

    def save_for_backward(self, *tensors):
        self.saved_vars = tensors

    def saved_tensor(self):
        block = default_main_program().current_block()
        out = []
        for v in self.saved_vars:
            if is_static(v) and block._find_var_recursive(v.name) is None:
                v = block.create_var(name=v.name, shape=v.shape, dtype=v.np_dtype,
                                     type=v.type)
            out.append(v)
        return tuple(out)


def _is_value(x):
    return is_static(x) or isinstance(x, Tensor)


def _positions(args, kwargs):
    """One entry per Tensor argument or list of Tensors (eager PyLayer's rule)."""
    pos = []
    for a in list(args) + list(kwargs.values()):
        if _is_value(a):
            pos.append(a)
        elif isinstance(a, (list, tuple)) and a and all(_is_value(x) for x in a):
            pos.append(list(a))
    return pos


def _flat(positions):
    return [x for p in positions for x in (p if type(p) is list else (p,))]


def _backward_fn(cls, bwd, ctx, positions):
    name = f"PyLayer_{cls.__name__}"

    def backward(*grads):
        res = bwd(ctx, *grads)
        res = list(res) if isinstance(res, (tuple, list)) else [res]
        if len(res) != len(positions):
            raise ValueError(f"The number of outputs of `PyLayer.backward` should be "
                             f"{len(positions)}, but received {len(res)}.")
        flat = []
        for i, (p, g) in enumerate(zip(positions, res)):
            many = type(p) is list
            if many:
                if g is None:
                    g = [None] * len(p)
                if not isinstance(g, (list, tuple)) or len(g) != len(p):
                    raise ValueError(f"{name}'s backward should return a list of {len(p)} "
                                     f"gradients at {i} position")
                flat.extend(g)
            else:
                flat.append(g)
        return flat
    return backward


def apply(cls, args, kwargs):
    ctx = StaticPyLayerContext()
    fwd, bwd = convert_call(cls.forward), convert_call(cls.backward)
    positions = _positions(args, kwargs)
    origin = []

    def forward(*_):
        out = fwd(ctx, *args, **kwargs)
        origin.append(out)
        return out

    output = static_pylayer(forward, _flat(positions), _backward_fn(cls, bwd, ctx, positions))
    nd = getattr(ctx, "non_differentiable", None)
    if nd and output is not None:
        for o, v in zip(nest.flatten(origin[0]), nest.flatten(output)):
            if any(o is x for x in nd) and is_static(v):
                v.stop_gradient = True
    return output


set_mode_action("static", "py_layer_apply", apply)
