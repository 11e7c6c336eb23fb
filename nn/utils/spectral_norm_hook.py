"""``spectral_norm(layer)``: ``weight = weight_orig / sigma``, sigma =
u^T W v for W the [h, w] matrix of ``weight_orig`` with ``dim`` moved first.
In training, each forward first runs ``n_power_iterations`` rounds of
v = normalize(W^T u), u = normalize(W v) without gradient, writing the
``weight_u`` / ``weight_v`` buffers; sigma is then differentiated through W
only.  Paddle 2.6 composes these ops (matmul, normalize, mv, dot), not the
``spectral_norm`` op, and so does this hook (same values, same gradient)."""
from ... import tensor as _T
from ...dygraph.tape import no_grad
from .. import functional as F
from ..layer.common import Linear
from ..layer.conv import Conv1DTranspose, Conv2DTranspose, Conv3DTranspose
from ._hooks import find_hook, set_computed

__all__ = ["spectral_norm"]


class SpectralNorm:
    """The forward pre-hook: sets ``layer.<name>`` from ``<name>_orig``."""

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        mat = weight
        if self.dim != 0:
            mat = _T.transpose(mat, [self.dim] + [d for d in range(len(mat.shape))
                                                  if d != self.dim])
        return _T.reshape(mat, [mat.shape[0], -1])

    def compute_weight(self, layer, do_power_iteration):
        weight = getattr(layer, self.name + "_orig")
        u = getattr(layer, self.name + "_u")
        v = getattr(layer, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    _T.assign(F.normalize(_T.matmul(mat, u, transpose_x=True), axis=0,
                                          epsilon=self.eps), v)
                    _T.assign(F.normalize(_T.matmul(mat, v), axis=0, epsilon=self.eps), u)
                u = _T.clone(u)
                v = _T.clone(v)
        sigma = _T.dot(u, _T.mv(mat, v))
        return weight / sigma

    def __call__(self, layer, inputs):
        set_computed(layer, self.name, self.compute_weight(layer, layer.training))

    @staticmethod
    def apply(layer, name, n_power_iterations, dim, eps):
        if find_hook(layer, SpectralNorm, name)[1] is not None:
            raise RuntimeError(f"Cannot register two spectral_norm hooks on the same "
                               f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = layer._parameters[name]
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = layer.create_parameter([h])
            _T.assign(_T.normal(0.0, 1.0, shape=u.shape), u)
            v = layer.create_parameter([w])
            _T.assign(_T.normal(0.0, 1.0, shape=v.shape), v)
            u = F.normalize(u, axis=0, epsilon=fn.eps)
            v = F.normalize(v, axis=0, epsilon=fn.eps)
        del layer._parameters[fn.name]
        layer.add_parameter(fn.name + "_orig", weight)
        setattr(layer, fn.name, weight * 1.0)
        layer.register_buffer(fn.name + "_u", u)
        layer.register_buffer(fn.name + "_v", v)
        layer.register_forward_pre_hook(fn)
        return fn


def spectral_norm(layer, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Spectral normalization of parameter ``name`` of ``layer`` (``dim``:
    1 for Linear and transposed convolutions, else 0); returns the layer."""
    if dim is None:
        dim = 1 if isinstance(layer, (Conv1DTranspose, Conv2DTranspose, Conv3DTranspose,
                                      Linear)) else 0
    SpectralNorm.apply(layer, name, n_power_iterations, dim, eps)
    return layer
