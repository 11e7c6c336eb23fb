"""``paddle.LazyGuard``: parameters created inside it are not initialized.

Inside the guard an initializer does not fill the parameter it is given: the
parameter holds an ``Unallocated`` value (its shape and dtype, no memory;
dygraph/lazy.py) and keeps the initializer, which fills it when
``param.initialize()`` is called.  Using the parameter before that raises a
RuntimeError naming it, as Paddle's uninitialized parameters fail.  This is
how a model too large to initialize twice is built first and initialized
(or loaded) afterwards:

    with paddle.LazyGuard():
        model = paddle.nn.Linear(10, 10)     # weight and bias not initialized
    for p in model.parameters():
        p.initialize()
"""
from ...dygraph.lazy import Unallocated
from ...ops import in_dynamic_mode

__all__ = ["LazyGuard"]


class _LazyState:
    """Whether parameter initialization is deferred now (one per process, as
    Paddle's ``lazy_init_helper``)."""
    def __init__(self):
        self.state = False

    def enable(self):
        if self.state:
            return
        if not in_dynamic_mode():
            raise AssertionError("LazyInit.enable() is only available in dygraph mode.")
        self.state = True

    def disable(self):
        self.state = False


LAZY = _LazyState()


class LazyGuard:
    """A context in which the parameters layers create are not initialized
    until ``param.initialize()`` (module docstring)."""

    def __enter__(self):
        LAZY.enable()

    def __exit__(self, *exc):
        LAZY.disable()


def defer(initializer, param):
    """Leave ``param`` unallocated and make ``initializer`` its ``initialize()``."""
    param._data = Unallocated(param._data.shape, param._data.dtype, param.name)
    param.set_init_func(initializer.forward)
    return param
