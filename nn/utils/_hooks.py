"""What the normalization hooks share: storing the recomputed weight on the
layer before each forward."""
from ...dygraph.tensor import Tensor
from ...tensor.indexing import rebind


def set_computed(layer, name, value):
    """``layer.<name> = value`` as a non-persistable buffer (Paddle's
    ``setattr``).  An eager value is written into the buffer already there,
    which keeps its identity: a to_static program that captured it reads each
    call's weight and sends its gradient back through this call's graph.
    A static value (the hook runs while a program is built) replaces it, as
    Paddle's dy2static does."""
    old = layer._buffers.get(name)
    if isinstance(old, Tensor) and isinstance(value, Tensor) and old is not value \
            and old.shape == value.shape and old.dtype == value.dtype:
        old.stop_gradient = value.stop_gradient
        rebind(old, value)
        return
    if isinstance(value, Tensor) or name not in layer._buffers:
        setattr(layer, name, value)
    else:
        layer._buffers[name] = value


def find_hook(layer, kind, name):
    for key, hook in layer._forward_pre_hooks.items():
        if isinstance(hook, kind) and hook.name == name:
            return key, hook
    return None, None
