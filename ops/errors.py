"""sampan's error contract: an error raised for bad input is an instance of the
builtin class Paddle 2.6 raises for the same fault, so ``except IndexError:``
in user code catches sampan's error where it catches Paddle's.

Paddle's C++ checks carry a kind (the ``(OutOfRange)`` prefix of its
messages) that its Python binding turns into a builtin class; its Python-side
checks raise builtins directly (``assert`` gives AssertionError, ``1 / 0`` in
an argument check ZeroDivisionError).  The kinds, by Paddle's name:

    INVALID_ARGUMENT   ValueError            (the default)
    OUT_OF_RANGE       IndexError
    NOT_FOUND          RuntimeError          (e.g. no kernel for a dtype)
    PRECONDITION_NOT_MET, ALREADY_EXISTS, UNAVAILABLE, PERMISSION_DENIED,
    EXECUTION_TIMEOUT  RuntimeError
    UNIMPLEMENTED      NotImplementedError
    RESOURCE_EXHAUSTED MemoryError
    FATAL              SystemError           (e.g. a second backward through a
                                              freed graph: ``BackwardTwiceError``)

``OpError(msg, kind=IndexError)`` is an error of sampan's op layer of that
kind: an instance of ``OpError`` (``except OpError`` catches every kind) and
of the builtin class.  Each (error class, kind) pair is one cached subclass,
named ``OpError[IndexError]`` (plain ``OpError`` for the default kind,
ValueError); an error class deriving from ``OpError``
(``ExecutionError``, which wraps an op failing while a program runs) gets its
own, so an ExecutionError wrapping an IndexError is an IndexError too.  A
wrapper takes the kind of what it wraps: ``OpError(msg, kind=kind_of(exc))``.

Nothing here imports the rest of sampan.
"""
from __future__ import annotations

INVALID_ARGUMENT = ValueError
OUT_OF_RANGE = IndexError
NOT_FOUND = RuntimeError
PRECONDITION_NOT_MET = RuntimeError
ALREADY_EXISTS = RuntimeError
UNAVAILABLE = RuntimeError
PERMISSION_DENIED = RuntimeError
EXECUTION_TIMEOUT = RuntimeError
UNIMPLEMENTED = NotImplementedError
RESOURCE_EXHAUSTED = MemoryError

# the builtin classes Paddle raises for bad input: the kinds an error can have
KINDS = (ValueError, TypeError, IndexError, RuntimeError, NotImplementedError, MemoryError,
         ZeroDivisionError, OverflowError, AssertionError)


def kind_of(exc, default=ValueError):
    """The kind of an exception (or exception class): the first of ``KINDS`` it
    is an instance of.  Anything else (an AttributeError or KeyError out of a
    kernel fed a malformed program) is ``default``, ValueError: bad input."""
    cls = exc if isinstance(exc, type) else type(exc)
    for c in cls.__mro__:
        if c in KINDS:
            return c
    return default


class OpError(Exception):
    """Bad input to an op (or to a public function's arguments): names the op, the
    argument, what was expected and what it got.  ``kind`` is the builtin class
    it is also an instance of (ValueError unless given)."""

    kind = ValueError

    def __new__(cls, *args, kind=None, **kwargs):
        if kind is None:
            kind = cls.kind
        if not issubclass(cls, kind):
            cls = _kinded(cls, kind)
        return super().__new__(cls, *args)

    def __init__(self, *args, kind=None):
        super().__init__(*args)

    def __reduce__(self):
        base = type(self).__dict__.get("_kinded_from", type(self))
        return _rebuild, (base, self.kind, self.args), (self.__dict__ or None)


_KINDED = {}


def _kinded(cls, kind):
    """The subclass of ``cls`` (an OpError class) that is also a ``kind``."""
    base = cls.__dict__.get("_kinded_from", cls)
    key = (base, kind)
    sub = _KINDED.get(key)
    if sub is None:
        if not (isinstance(kind, type) and issubclass(kind, Exception)):
            raise TypeError(f"an error kind is an Exception class, got {kind!r}")
        # the default kind keeps the plain name (tracebacks read "OpError: ...")
        tag = "" if kind is base.kind else f"[{kind.__name__}]"
        try:
            sub = type(base)(base.__name__ + tag, (base, kind), {
                "kind": kind, "_kinded_from": base, "__module__": base.__module__,
                "__qualname__": base.__qualname__ + tag,
                "__doc__": base.__doc__, "__str__": BaseException.__str__})
        except TypeError:           # a builtin with its own layout (OSError ...)
            return _kinded(base, ValueError) if kind is not ValueError else base
        _KINDED[key] = sub
    return sub


def _rebuild(base, kind, args):
    err = base.__new__(base, *args, kind=kind)
    err.args = args
    return err


class BackwardTwiceError(RuntimeError, SystemError):
    """A backward through grad nodes an earlier backward freed (no
    ``retain_graph=True``): Paddle 2.6.2 raises a SystemError there ("(Fatal)
    The TensorWrappers of TanhGradNode do not exist ... You calculate backward
    twice for the same subgraph"); sampan's is that and a RuntimeError, the class
    it raised before (recorded: tests/conformance/cases/tensor_surface.py)."""
