"""Install operators and methods on a tensor class (the eager Tensor, and the
static Variable later), each one the public function of the same meaning;
the operators and their rules for mixed operands are in ``operators.py``.
"""
from .operators import OPERATORS, EAGER_OPERATORS


def install(cls, eager=True, wrap_operators=None):
    """From every public module of this package, ``METHODS`` (names of its
    public functions that are also tensor methods), ``EXTRA_METHODS``
    ({method name: function} for the rest) and, on the eager Tensor only,
    ``EAGER_METHODS`` (the same, for what a static Variable does not have:
    properties of a value, writes of its memory); then the operators
    (``operators.OPERATORS``, and for the eager Tensor ``EAGER_OPERATORS``).
    ``wrap_operators(fn)`` wraps every dunder installed (the static Variable's
    operators name their results ``tmp_<n>``)."""
    own = set(vars(cls))
    import importlib
    import pkgutil
    from .. import tensor as pkg
    for m in sorted(mi.name for mi in pkgutil.iter_modules(pkg.__path__)):
        if m.startswith("_") or m == "methods":
            continue
        mod = importlib.import_module(f"{pkg.__name__}.{m}")
        for name in getattr(mod, "METHODS", ()):
            setattr(cls, name, getattr(mod, name))
        for name, fn in getattr(mod, "EXTRA_METHODS", {}).items():
            setattr(cls, name, fn)
        if eager:
            for name, fn in getattr(mod, "EAGER_METHODS", {}).items():
                setattr(cls, name, fn)
    for name, fn in OPERATORS.items():
        setattr(cls, name, fn)
    if eager:
        for name, fn in EAGER_OPERATORS.items():
            setattr(cls, name, fn)
    if wrap_operators is not None:
        for name, fn in list(vars(cls).items()):
            if name.startswith("__") and name not in own and callable(fn):
                setattr(cls, name, wrap_operators(fn))
