"""The conformance case tables, one module per family of the public API.
Each module defines ``CASES`` (a list of ``spec.C``); ``families()`` collects
them, keyed by module name, which is also the fixture file's name."""
import importlib
import os
import pkgutil


def families(only=None):
    here = os.path.dirname(os.path.abspath(__file__))
    out = {}
    for m in sorted(mi.name for mi in pkgutil.iter_modules([here])):
        if m.startswith("_") or (only and m not in only):
            continue
        mod = importlib.import_module(f"{__name__}.{m}")
        seen = set()
        for c in mod.CASES:
            if c.id in seen:
                raise ValueError(f"conformance family {m}: case id {c.id!r} is used twice")
            seen.add(c.id)
            c.family = m
        out[m] = list(mod.CASES)
    return out
