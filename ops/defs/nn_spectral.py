"""spectral_norm (Paddle 2.6's slots Weight, U, V -> Out; attrs dim,
power_iters, eps) and spectral_norm_grad.

Out = Weight / sigma, sigma = u^T W v, where W is Weight with dimension
``dim`` (0 or 1) moved first and the rest flattened ([h, w]), and u, v are
copies of U, V after ``power_iters`` rounds of v = W^T u / (|W^T u| + eps),
u = W v / (|W v| + eps).  U and V themselves are left unchanged.

The gradient is Paddle's kernel formula, kept as Paddle computes it:
dW = dOut * (1 - u v^T * sum(W / sigma)) / sigma (elementwise), which is the
exact derivative (u, v held constant) only when dOut is constant, e.g. for
``sum(Out)`` or ``mean(Out)``."""
from ..declare import defop, defgrad, grad_op
from ..registry import Meta, OpError

_SN_ATTRS = (("dim", "INT", 0), ("power_iters", "INT", 1), ("eps", "FLOAT", 1e-12))


def check_spectral_norm(w, u, v, attrs):
    """Paddle's checks of the shapes (w, u, v: anything with ``.shape``) and attrs."""
    rank = len(w.shape)
    if rank < 2:
        raise OpError(f"spectral_norm: the rank of Input(Weight) should be greater equal "
                      f"than 2, but received Weight rank({rank})")
    if rank > 5:
        raise OpError(f"spectral_norm: the rank of Input(Weight) should be less equal "
                      f"than 5, but received Weight rank({rank})")
    dim = attrs["dim"]
    if dim not in (0, 1):
        raise OpError(f"spectral_norm: Attr(dim) can only be 0 or 1, but received {dim}")
    if attrs["power_iters"] < 0:
        raise OpError(f"spectral_norm: Attr(power_iters) should be greater equal than 0, "
                      f"but received {attrs['power_iters']}")
    h = w.shape[dim]
    rest = 1
    for i, d in enumerate(w.shape):
        if i != dim:
            rest = -1 if d < 0 or rest < 0 else rest * d
    if len(u.shape) != 1 or len(v.shape) != 1:
        raise OpError(f"spectral_norm: Input(U) and Input(V) must be 1-D, got shapes "
                      f"{list(u.shape)} and {list(v.shape)}")
    if u.shape[0] >= 0 and h >= 0 and u.shape[0] != h:
        raise OpError(f"spectral_norm: Input(U) dimension[0] should be equal to "
                      f"Input(Weight) dimension[Attr(dim)], but received U dimension[0]"
                      f"({u.shape[0]}) != Weight dimension[{dim}]({h})")
    if v.shape[0] >= 0 and rest >= 0 and v.shape[0] != rest:
        raise OpError(f"spectral_norm: Input(V) dimension[0] should be equal to the product "
                      f"of Input(Weight) dimension except dimension[Attr(dim)], but received "
                      f"V dimension[0]({v.shape[0]}) != product of Input(Weight) "
                      f"dimension({rest})")


def _sn_infer(metas, attrs):
    check_spectral_norm(metas[0], metas[1], metas[2], attrs)
    return (Meta(tuple(metas[0].shape), metas[0].dtype),)


defgrad("spectral_norm_grad", "Weight U V Out@GRAD", "Weight@GRAD", _SN_ATTRS,
        infer=lambda metas, attrs: (Meta(tuple(metas[0].shape), metas[0].dtype),))
defop("spectral_norm", "Weight U V", "Out", _SN_ATTRS, infer=_sn_infer,
      grad=grad_op("spectral_norm_grad", uses=("Weight", "U", "V"), wrt=("Weight",)),
      no_grad_inputs=("U", "V"))
