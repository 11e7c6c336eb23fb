"""``Scope``: named values that outlive one run (parameters, optimizer state,
anything a program's persistable variables hold), as a tree of scopes.

A scope variable holds a numpy (or cupy) array, or is *bound* to an eager
tensor (``Program.bind_tensor``): then reading it reads ``tensor._data`` and
writing it replaces ``tensor._data``, so a Layer's parameters are the
program's parameters without copies.  ``get_tensor()`` gives Paddle's
LoDTensor-like view (``set``, ``shape``, ``np.array(t)``).
"""
import contextlib

import numpy as np

from ..kernels.transform import to_backend, backend_of
from ..kernels.place import backend_of_place

__all__ = ["Scope", "ScopeVar", "LoDTensor", "global_scope", "scope_guard"]


class ScopeVar:
    """One named value of a scope."""
    __slots__ = ("name", "_array", "_bound")

    def __init__(self, name):
        self.name = name
        self._array = None
        self._bound = None

    def get(self):
        b = self._bound
        return self._array if b is None else b._data

    def set(self, array):
        b = self._bound
        if b is None:
            self._array = array
        elif getattr(b, "_alias", None) is None:
            b._data = array
        else:                       # an eager tensor with views: they see the write
            b._write_shared(array)

    def bind(self, tensor):
        """Make this variable stand for an eager tensor's array."""
        self._bound = tensor
        self._array = None

    def is_initialized(self):
        return self.get() is not None

    def get_tensor(self):
        return LoDTensor(var=self)

    def __repr__(self):
        v = self.get()
        what = "uninitialized" if v is None else f"{v.dtype}{list(v.shape)}"
        return f"<scope var {self.name}: {what}>"


class LoDTensor:
    """Paddle's LoDTensor as far as users touch it: a view over a scope
    variable, or a standalone array (a fetched result with return_numpy=False)."""
    __slots__ = ("_var", "_lod")

    def __init__(self, array=None, var=None):
        if var is None:
            var = ScopeVar("")
            var._array = array
        self._var = var
        self._lod = []

    def set(self, array, place=None):
        """Hold a copy of ``array`` (on ``place``'s backend when given), as Paddle's
        ``set`` copies it in: programs that write the variable in place (an
        optimizer's update) never write the caller's array, nor does the caller
        writing it later change the variable."""
        a = np.array(array) if backend_of(array) == "CPU" else array
        backend = backend_of_place(place)
        if backend is not None and backend_of(a) != backend:
            a = to_backend(a, backend)
        elif a is array:
            a = a.copy()                # a device array on its own backend
        self._var.set(a)

    def _array(self):
        a = self._var.get()
        if a is None:
            raise ValueError(f"tensor '{self._var.name}' holds no value (not initialized)")
        return a

    def numpy(self):
        return np.asarray(to_backend(self._array(), "CPU"))

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def shape(self):
        return list(self._array().shape)

    def _dtype(self):
        return self._array().dtype

    def _is_initialized(self):
        return self._var.get() is not None

    def lod(self):
        return self._lod

    def set_lod(self, lod):
        self._lod = [list(x) for x in lod]

    def __repr__(self):
        if not self._is_initialized():
            return "LoDTensor(uninitialized)"
        return f"LoDTensor(shape={self.shape()}, dtype={self._dtype()})\n{self.numpy()}"


class Scope:
    """A node of the scope tree: ``var`` creates locally, ``find_var`` walks up."""

    def __init__(self, parent=None):
        self._vars = {}
        self._kids = []
        self._parent = parent

    def var(self, name):
        v = self._vars.get(name)
        if v is None:
            v = self._vars[name] = ScopeVar(name)
        return v

    def find_var(self, name):
        s = self
        while s is not None:
            v = s._vars.get(name)
            if v is not None:
                return v
            s = s._parent
        return None

    def find_local_var(self, name):
        return self._vars.get(name)

    def erase(self, names):
        for n in names:
            self._vars.pop(n, None)

    def new_scope(self):
        kid = Scope(self)
        self._kids.append(kid)
        return kid

    def drop_kids(self):
        self._kids = []

    def kids(self):
        return list(self._kids)

    def parent(self):
        return self._parent

    def local_var_names(self):
        return list(self._vars)

    def __repr__(self):
        return f"<Scope with {len(self._vars)} vars, {len(self._kids)} kids>"


_global = [Scope()]


def global_scope():
    return _global[0]


@contextlib.contextmanager
def scope_guard(scope):
    """Run with ``scope`` as the global scope."""
    if not isinstance(scope, Scope):
        raise TypeError(f"scope_guard needs a Scope, got {type(scope).__name__}")
    old, _global[0] = _global[0], scope
    try:
        yield
    finally:
        _global[0] = old
