"""``sampan inspect --convert module:attr [--input-spec SPEC ...]``: the
to_static conversion report (``sampan.jit.report``) of a Layer class (built
with no arguments), a Layer instance or a function, before converting it.

A SPEC is ``[NAME:]DTYPE[DIMS]`` or ``[NAME:][DIMS]`` (float32), one per input
in call order: ``x:float32[B,8]``, ``ids:int64[B,S]``, ``[None,4]``.  A
dimension is an int, ``None``/``-1``/``?`` (any size), or a symbol name or
expression (``B``, ``B+1``) that stays -1 in the program and is shown as
written (the InputSpec rule: program/symbolic.py).  Without specs only the
source is read (no trace).  Exit status 1 when the report lists problems.
"""
import importlib
import inspect
import os
import re
import sys

__all__ = ["parse_input_spec", "load_target", "cmd_convert"]

_SPEC = re.compile(r"^\s*(?:(?P<name>[A-Za-z_][\w.]*)\s*:)?\s*(?P<dtype>[A-Za-z0-9_]*)\s*"
                   r"\[(?P<dims>[^\]]*)\]\s*$")


def parse_input_spec(text):
    """The InputSpec written as ``text`` (``x:float32[B,8]``); ValueError naming
    what is wrong."""
    from ..program.data import InputSpec
    m = _SPEC.match(text)
    if m is None:
        raise ValueError(f"--input-spec {text!r}: write [NAME:]DTYPE[DIMS], e.g. "
                         f"x:float32[B,8] or [None,4]")
    dims = []
    for d in (p.strip() for p in m["dims"].split(",")):
        if not d:
            continue
        if d in ("None", "?", "-1"):
            dims.append(None)
        elif re.fullmatch(r"\d+", d):
            dims.append(int(d))
        else:
            dims.append(d)              # a symbol (or an expression of symbols)
    try:
        return InputSpec(dims, m["dtype"] or "float32", name=m["name"])
    except (ValueError, TypeError) as e:
        raise ValueError(f"--input-spec {text!r}: {e}") from None


def load_target(target):
    """The object named ``module:attr`` (a Layer class is instantiated with no
    arguments); the module is found from the current folder too."""
    from ..nn.layer.layers import Layer
    mod_name, _, attr = target.partition(":")
    if not mod_name or not attr:
        raise ValueError(f"--convert takes module:Layer or module:function, got {target!r}")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())       # as `python -m`: the current folder's modules
    try:
        obj = importlib.import_module(mod_name)
    except ImportError as e:
        raise ValueError(f"--convert {target!r}: cannot import module {mod_name!r} ({e})") \
            from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"--convert {target!r}: {getattr(obj, '__name__', obj)!r} has "
                             f"no attribute {part!r}")
        obj = getattr(obj, part)
    if inspect.isclass(obj):
        if not issubclass(obj, Layer):
            raise ValueError(f"--convert {target!r} is a class but not a sampan/paddle Layer")
        try:
            obj = obj()
        except TypeError as e:
            raise ValueError(f"--convert {target!r}: the Layer cannot be built with no "
                             f"arguments ({e}); name a function that builds it instead") \
                from None
    elif not callable(obj):
        raise ValueError(f"--convert {target!r} is a {type(obj).__name__}, not a Layer or "
                         f"a function")
    return obj


def cmd_convert(args, out):
    from ..jit.report import report
    specs = [parse_input_spec(s) for s in args.input_spec or ()]
    obj = load_target(args.convert)
    r = report(obj, *specs)
    print(r, file=out)
    return 1 if len(r) else 0
