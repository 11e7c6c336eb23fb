"""``clip_grad_norm_`` and ``clip_grad_value_``: rescale or clamp the
``.grad`` of parameters in place, eagerly (as Paddle 2.6; no gradient)."""
from ... import tensor as _T
from ...dygraph.tape import no_grad
from ...dygraph.tensor import Tensor
from ...ops import in_dynamic_mode
from ...tensor.linalg_ext import norm as _norm

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


def _params(parameters):
    if not in_dynamic_mode():
        raise RuntimeError("this API can only run in dynamic mode.")
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale the gradients so that their total ``norm_type`` norm is at most
    ``max_norm`` (coefficient ``max_norm / (total + 1e-6)``, capped at 1);
    returns the total norm before clipping."""
    parameters = _params(parameters)
    supported = [float("inf"), 0, 1, 2]
    if norm_type not in supported:
        raise ValueError(f"norm_type only support {supported}")
    with no_grad():
        grads = [p.grad for p in parameters if p.grad is not None]
        max_norm, norm_type = float(max_norm), float(norm_type)
        if not grads:
            return _T.to_tensor(0.0)
        if norm_type == float("inf"):
            norms = [_T.max(_T.abs(g.detach())) for g in grads]
            total = norms[0] if len(norms) == 1 else _T.max(_T.stack(norms))
        else:
            total = _norm(_T.stack([_norm(g.detach(), norm_type) for g in grads]), norm_type)
        if error_if_nonfinite and bool(_T.logical_or(_T.isnan(total), _T.isinf(total))):
            raise RuntimeError(
                f"The total norm of {norm_type} order of the gradients from `parameters` is "
                "non-finite, so it cannot be clipped. In any case, disable this error and "
                "scale the gradient by non-finite norm, set `error_if_nonfinite=False`")
        coef = _T.clip(max_norm / (total + 1e-6), max=1.0)
        for p in parameters:
            if p.grad is not None:
                p.grad = _T.multiply(p.grad, coef)
    return total


def clip_grad_value_(parameters, clip_value):
    """Clamp every gradient into [-clip_value, clip_value] in place."""
    parameters = _params(parameters)
    clip_value = float(clip_value)
    with no_grad():
        for p in parameters:
            if p.grad is not None:
                p.grad.clip_(min=-clip_value, max=clip_value)
