"""``weight_norm`` / ``remove_weight_norm``: ``weight = g * v / |v|`` (the norm
over every dim but ``dim``; over all of v when ``dim`` is None or -1), with
``weight_v`` and ``weight_g`` the layer's parameters in place of ``weight``,
recomputed by a forward pre-hook before each call, as Paddle 2.6 does."""
from ... import tensor as _T
from ...dygraph.tape import no_grad
from ...ops import bind, get_op
from .. import functional as F
from ._hooks import find_hook, set_computed

__all__ = ["weight_norm", "remove_weight_norm"]

_MUL = get_op("elementwise_mul")


def _l2_norm_along(x, axis):
    """sqrt(sum(x^2 along axis) + 1e-12) (Paddle's ``norm`` op's Norm), squeezed."""
    if len(x.shape) == 1:
        axis = 0
    return _T.sqrt(_T.sum(_T.square(x), axis=axis) + 1e-12)


def norm_except_dim(p, dim):
    shape, ndims = p.shape, len(p.shape)
    if dim == -1:
        return _T.sqrt(_T.sum(_T.square(p)) + 1e-12)
    if dim == 0:
        return _l2_norm_along(_T.reshape(p, (shape[0], -1)), 1)
    if dim == ndims - 1:
        return _l2_norm_along(_T.reshape(p, (-1, shape[-1])), 0)
    perm = list(range(ndims))
    perm[0], perm[dim] = dim, 0
    return norm_except_dim(_T.transpose(p, perm), 0)


def _weight_norm(v, g, dim):
    shape, ndims = v.shape, len(v.shape)
    if dim == -1:
        v_normalized = v / (_T.sqrt(_T.sum(_T.square(v))) + 1e-12)
    elif dim == 0:
        v_normalized = _T.reshape(F.normalize(_T.reshape(v, (shape[0], -1)), axis=1), shape)
    elif dim == ndims - 1:
        v_normalized = _T.reshape(F.normalize(_T.reshape(v, (-1, shape[-1])), axis=0), shape)
    else:
        perm = list(range(ndims))
        perm[0], perm[dim] = dim, 0
        moved = _T.transpose(v, perm)
        m = F.normalize(_T.reshape(moved, (moved.shape[0], -1)), axis=1)
        v_normalized = _T.transpose(_T.reshape(m, moved.shape), perm)
    return bind(_MUL, (v_normalized, g), {"axis": dim})[0]


class WeightNorm:
    """The forward pre-hook: sets ``layer.<name>`` from ``<name>_g`` and ``<name>_v``."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, layer):
        return _weight_norm(getattr(layer, self.name + "_v"), getattr(layer, self.name + "_g"),
                            self.dim)

    @staticmethod
    def apply(layer, name, dim):
        if find_hook(layer, WeightNorm, name)[1] is not None:
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same "
                               f"parameter {name}")
        if dim is None:
            dim = -1
        if name not in layer._parameters or layer._parameters[name] is None:
            raise KeyError(f"weight_norm: '{type(layer).__name__}' has no parameter '{name}'")
        rank = len(layer._parameters[name].shape)
        if not -rank <= dim < rank:
            raise AssertionError("dim must set between [-R, R), R means the dimension of "
                                 "weight.")
        if dim != -1:
            dim = (dim + rank) % rank
        fn = WeightNorm(name, dim)
        w = getattr(layer, name)
        del layer._parameters[name]
        g_value = norm_except_dim(w, dim)
        v = layer.create_parameter(w.shape, dtype=w.dtype)
        layer.add_parameter(name + "_v", v)
        g = layer.create_parameter(g_value.shape, dtype=g_value.dtype)
        layer.add_parameter(name + "_g", g)
        with no_grad():
            _T.assign(w, v)
            _T.assign(g_value, g)
        setattr(layer, name, fn.compute_weight(layer))
        layer.register_forward_pre_hook(fn)
        return fn

    def remove(self, layer):
        w_value = self.compute_weight(layer)
        delattr(layer, self.name)
        del layer._parameters[self.name + "_g"]
        del layer._parameters[self.name + "_v"]
        w = layer.create_parameter(w_value.shape, dtype=w_value.dtype)
        layer.add_parameter(self.name, w)
        with no_grad():
            _T.assign(w_value, w)

    def __call__(self, layer, inputs):
        set_computed(layer, self.name, self.compute_weight(layer))


def weight_norm(layer, name="weight", dim=0):
    """Replace parameter ``name`` of ``layer`` by ``<name>_g`` (the norms) and
    ``<name>_v`` (the direction); returns the layer."""
    WeightNorm.apply(layer, name, dim)
    return layer


def remove_weight_norm(layer, name="weight"):
    """Fold ``<name>_g`` and ``<name>_v`` back into one parameter ``name``."""
    key, hook = find_hook(layer, WeightNorm, name)
    if hook is None:
        raise ValueError(f"weight_norm of '{name}' not found in {layer}")
    hook.remove(layer)
    del layer._forward_pre_hooks[key]
    return layer
