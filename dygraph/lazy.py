"""The value of a parameter whose initialization is deferred (``paddle.LazyGuard``).

``Unallocated(shape, dtype, owner)`` is an array with the parameter's shape
and dtype and no memory of its own (a broadcast of one zero).  numpy refuses
to compute with it: any ufunc or array function raises a RuntimeError
naming the parameter, so a layer called before ``param.initialize()``
fails at its first op (Paddle's uninitialized parameter fails there too),
and the engine's fast paths never see it (they take plain ndarrays only).
It is also the value of a tensor made by Paddle's legacy constructor
``Tensor(dtype, dims, name, ...)`` (``why`` says so in the error).
"""
import numpy as np

__all__ = ["Unallocated"]


class Unallocated(np.ndarray):
    _LAZY = ("was created under paddle.LazyGuard and is not initialized yet: call its "
             "initialize() before using it")

    def __new__(cls, shape, dtype, owner="", why=None):
        a = np.broadcast_to(np.zeros((), dtype), tuple(shape)).view(cls)
        a.owner = owner
        a.why = why
        return a

    def __array_finalize__(self, obj):
        self.owner = getattr(obj, "owner", "")
        self.why = getattr(obj, "why", None)

    def _refuse(self):
        if self.why is None:
            return RuntimeError(f"parameter '{self.owner}' {self._LAZY}")
        return RuntimeError(f"tensor '{self.owner}' {self.why}: it has no values to compute with")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise self._refuse()

    def __array_function__(self, func, types, args, kwargs):
        raise self._refuse()
