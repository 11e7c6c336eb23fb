"""Converting a Python function's source for to_static.

``convert_function(fn)`` returns a function that behaves like ``fn`` but
whose control flow, logic, casts, prints and calls go through the runtime
helpers (``jit.convert_runtime``).  It is built once per code object:

1. the source (``inspect``), dedented, parsed with gast; decorators dropped;
2. every node stamped with its line in the user's file;
3. the pass pipeline (``ast_transforms.pipeline``), printed after a chosen
   pass with ``set_code_level``;
4. the function wrapped in a factory whose parameters are the runtime
   module (``_jst``) and the original's free variables, unparsed, compiled
   under a synthetic file name registered with ``linecache`` (no files
   written), with a source map to the user's lines (``jit.errors``);
5. per function object: the inner code object made into a function with the
   original's globals, defaults and closure cells, so closures and
   ``nonlocal`` share the original's variables.

Conversions are cached weakly: by function object and by code object (a
closure made again shares the compiled code).  ``converted_callable`` is what
``convert_call`` uses to decide what to convert: user functions, methods,
Layers (their forward) and callable objects; never builtins, sampan, numpy,
the standard library, ``ignore_module`` modules or ``not_to_static``
functions.
"""
import ast
import builtins
import copy
import gc
import inspect
import itertools
import linecache
import logging
import sysconfig
import textwrap
import types
import weakref

import gast

from ..ast_transforms import anno, pipeline
from ..ast_transforms.base import REWRITTEN_BUILTINS
from . import convert_runtime, errors
from .errors import ConversionError
from ..nn import Layer, Sequential

__all__ = ["convert_function", "converted_source", "converted_callable", "not_to_static",
           "ignore_module", "set_code_level", "set_verbosity", "ConversionError"]

_log = logging.getLogger("sampan.jit")
_settings = {"code_level": 0, "code_stdout": False, "verbosity": 0, "verbosity_stdout": False}
_by_function = weakref.WeakKeyDictionary()      # fn -> converted fn
_by_code = weakref.WeakKeyDictionary()          # original code -> _Unit
_converted_codes = weakref.WeakSet()            # inner code objects we made
_not_to_static = weakref.WeakSet()              # functions marked not_to_static
_ignored = {"sampan", "numpy", "builtins", "gast", "google", "pytest", "_pytest"}
_count = itertools.count()
_STDLIB = tuple({sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib")})


# ----------------------------------------------------------------- settings
def set_code_level(level=100, also_to_stdout=False):
    """Print converted code after pass ``level`` (1 = the first pass of
    ``ast_transforms.pipeline.PASS_NAMES``; ``level`` at or beyond the last,
    e.g. the default 100, prints the final code; 0 or less prints nothing).
    The code goes to the ``sampan.jit`` logger, and to stdout when asked."""
    _settings["code_level"] = int(level)
    _settings["code_stdout"] = bool(also_to_stdout)


def set_verbosity(level=0, also_to_stdout=False):
    """Log conversion decisions: 1 = each function converted or left alone
    (and why), 2 = also each call ``convert_call`` sees."""
    _settings["verbosity"] = int(level)
    _settings["verbosity_stdout"] = bool(also_to_stdout)


def _say(level, message):
    if _settings["verbosity"] >= level:
        _log.info(message)
        if _settings["verbosity_stdout"]:
            print(message)


def _show_code(message):
    _log.info(message)
    if _settings["code_stdout"]:
        print(message)


def not_to_static(func=None):
    """Mark ``func`` to run as written (not converted) when converted code
    calls it; usable as a decorator."""
    if func is None:
        return not_to_static
    target = getattr(func, "__func__", func)
    _not_to_static.add(target)
    return func


def ignore_module(modules):
    """Functions of these modules (module objects or names, and their
    submodules) are never converted."""
    for m in modules if isinstance(modules, (list, tuple, set)) else [modules]:
        _ignored.add(m if isinstance(m, str) else m.__name__)


# ----------------------------------------------------------------- deciding
def _is_ignored(fn):
    mod = getattr(fn, "__module__", None) or ""
    if mod.split(".")[0] in _ignored or any(mod == m or mod.startswith(m + ".")
                                            for m in _ignored):
        return True
    path = fn.__code__.co_filename
    return path.startswith(_STDLIB) and "site-packages" not in path


def _wants_conversion(fn):
    if fn in _not_to_static or _is_ignored(fn):
        return False
    code = fn.__code__
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE |
                        inspect.CO_ASYNC_GENERATOR):
        return False
    if code.co_name == "<lambda>" and code.co_filename.startswith("<sampan converted"):
        return False             # written inside converted code: converted with it
    return True


def _try_convert(fn):
    if fn.__code__ in _converted_codes:
        return fn
    if not _wants_conversion(fn):
        _say(1, f"to_static: not converting {fn.__qualname__} ({fn.__module__})")
        return fn
    try:
        return convert_function(fn)
    except ConversionError as e:
        _say(1, f"to_static: calling {fn.__qualname__} as written: {e}")
        return fn


def _static_function(obj):
    """A ``to_static`` StaticFunction (it runs its converted code inline while
    a program is being built)."""
    return hasattr(obj, "converted_function") and hasattr(obj, "dygraph_function")


def converted_callable(fn):
    """``(callable, code)``: what converted code should call for ``fn``, and
    the converted code object when it is converted code (else None)."""
    if _settings["verbosity"] >= 2:
        _say(2, f"to_static: convert_call({getattr(fn, '__qualname__', type(fn).__name__)})")
    if isinstance(fn, types.FunctionType):
        conv = _try_convert(fn)
        return conv, (conv.__code__ if conv.__code__ in _converted_codes else None)
    if isinstance(fn, types.MethodType):
        f = fn.__func__
        if isinstance(f, types.FunctionType):
            conv = _try_convert(f)
            if conv is not f:
                return types.MethodType(conv, fn.__self__), conv.__code__
        return fn, None
    if _static_function(fn) or isinstance(fn, (type, types.BuiltinFunctionType)):
        return fn, None
    if isinstance(fn, Layer):
        return _layer_callable(fn)
    call = getattr(type(fn), "__call__", None)
    if isinstance(call, types.FunctionType):
        conv = _try_convert(call)
        if conv is not call:
            return types.MethodType(conv, fn), conv.__code__
    return fn, None


def _sequential_forward(layer, input):
    """``Sequential.forward`` with each sublayer called through convert_call
    (the sublayers are often the user's own)."""
    for sub in layer._sub_layers.values():
        input = convert_runtime.convert_call(sub)(input)
    return input


def _layer_callable(layer):
    """A user Layer runs its hooks and ``__call__`` as usual, with its forward
    converted (installed on the instance for the duration of the call)."""
    fwd = layer.__dict__.get("forward", None) or getattr(type(layer), "forward", None)
    if _static_function(fwd):
        return layer, None
    raw = getattr(fwd, "__func__", fwd)
    if not isinstance(raw, types.FunctionType):
        return layer, None
    if raw is Sequential.forward:
        conv = _sequential_forward
    else:
        conv = _try_convert(raw)
        if conv is raw:
            return layer, None
    bound = types.MethodType(conv, layer)

    def call(*args, **kwargs):
        d = layer.__dict__
        missing = object()
        old = d.get("forward", missing)
        d["forward"] = bound
        try:
            return layer(*args, **kwargs)
        finally:
            if old is missing:
                d.pop("forward", None)
            else:
                d["forward"] = old
    return call, (conv.__code__ if conv.__code__ in _converted_codes else None)


# ----------------------------------------------------------------- converting
class _Unit:
    """One converted code object: the inner function's code, its source."""
    __slots__ = ("code", "filename", "source", "def_source", "__weakref__")

    def __init__(self, code, filename, source, def_source):
        self.code, self.filename, self.source, self.def_source = \
            code, filename, source, def_source


def convert_function(fn):
    """The converted version of ``fn`` (a function, or a bound method: the
    result is then bound to the same instance).  Raises ``ConversionError``
    when ``fn`` cannot be converted (no source, a generator, a lambda whose
    source cannot be told apart)."""
    if isinstance(fn, types.MethodType):
        return types.MethodType(convert_function(fn.__func__), fn.__self__)
    if not isinstance(fn, types.FunctionType):
        raise TypeError(f"convert_function needs a Python function, got {type(fn).__name__}")
    if fn.__code__ in _converted_codes:
        return fn
    hit = _by_function.get(fn)
    if hit is not None:
        return hit
    unit = _by_code.get(fn.__code__)
    if unit is None:
        # Conversion allocates many small nodes that all stay reachable until
        # it ends: a garbage-collector pass in the middle finds nothing to
        # free and, with a large program loaded, costs more than converting.
        enabled = gc.isenabled()
        gc.disable()
        try:
            unit = _by_code[fn.__code__] = _convert_code(fn)
        finally:
            if enabled:
                gc.enable()
    conv = _instantiate(unit, fn)
    _by_function[fn] = conv
    return conv


def converted_source(fn):
    """The converted source of ``fn`` (the function definition only)."""
    fn = getattr(fn, "__func__", fn)
    convert_function(fn)
    return _by_code[fn.__code__].def_source


def _instantiate(unit, fn):
    cells = []
    for name in unit.code.co_freevars:
        if name == anno.RUNTIME:
            cells.append(types.CellType(convert_runtime))
        else:
            cells.append(fn.__closure__[fn.__code__.co_freevars.index(name)])
    conv = types.FunctionType(unit.code, fn.__globals__, fn.__name__, fn.__defaults__,
                              tuple(cells) or None)
    conv.__kwdefaults__ = fn.__kwdefaults__
    conv.__qualname__ = fn.__qualname__
    conv.__module__ = fn.__module__
    conv.__doc__ = fn.__doc__
    return conv


def _parse(fn):
    made = getattr(fn, SEGMENT_TREE, None)
    if made is not None:         # a segment of a broken function (jit/segments.py)
        tree = copy.deepcopy(made)
        return tree, tree.body[0]
    code = fn.__code__
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE |
                        inspect.CO_ASYNC_GENERATOR):
        raise ConversionError(f"cannot convert {fn.__qualname__}: generators and coroutines "
                              f"are not supported by to_static")
    if code.co_name == "<lambda>":
        return _lambda_tree(fn)
    tree, first = _quick_source(fn)
    if tree is None:
        try:
            lines, first = inspect.getsourcelines(code)
        except (OSError, TypeError) as e:
            raise ConversionError(f"cannot convert {fn.__qualname__}: its source is not "
                                  f"available ({e}); define it in a file") from None
        try:
            tree = gast.parse(textwrap.dedent("".join(lines)))
        except SyntaxError as e:
            raise ConversionError(f"cannot convert {fn.__qualname__}: its source does not "
                                  f"parse on its own ({e.msg})") from None
    node = tree.body[0] if tree.body else None
    if not isinstance(node, gast.FunctionDef) or node.name != code.co_name:
        raise ConversionError(f"cannot convert {fn.__qualname__}: its source is not a plain "
                              f"function definition")
    node.decorator_list = []
    anno.attach_origins(tree, first - 1, fn.__qualname__)
    return tree, node


def _lambda_tree(fn):
    """``lambda a, b: expr`` as ``def <lambda>(a, b): return expr``, found in its
    file's parse by line, parameters and column (a line may hold several)."""
    code = fn.__code__
    lines = linecache.getlines(code.co_filename, fn.__globals__)
    try:
        module = gast.parse("".join(lines)) if lines else None
    except SyntaxError:
        module = None
    if module is None:
        raise ConversionError(f"cannot convert a lambda ({fn.__qualname__}): its source is "
                              f"not available")
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount +
                              bool(code.co_flags & inspect.CO_VARARGS) +
                              bool(code.co_flags & inspect.CO_VARKEYWORDS)]
    found = [n for n in gast.walk(module) if isinstance(n, gast.Lambda)
             and n.lineno == code.co_firstlineno and _lambda_params(n) == params]
    if len(found) > 1:
        starts = {(p[0], p[2]) for p in code.co_positions() if p[0] is not None}
        found = [n for n in found if (n.body.lineno, n.body.col_offset) in starts]
    if len(found) != 1:
        raise ConversionError(f"cannot convert a lambda ({fn.__qualname__}): "
                              f"{'no' if not found else 'more than one'} lambda with its "
                              f"parameters on line {code.co_firstlineno}")
    lam = found[0]
    ret = gast.Return(value=lam.body)
    gast.copy_location(ret, lam.body)
    node = gast.FunctionDef(name="_jst_lambda", args=lam.args, body=[ret], decorator_list=[],
                            returns=None, type_comment=None, type_params=[])
    gast.copy_location(node, lam)
    tree = gast.Module(body=[node], type_ignores=[])
    anno.attach_origins(tree, 0, fn.__qualname__)
    return tree, node


def _lambda_params(lam):
    a = lam.args
    names = [x.id for x in a.posonlyargs + a.args + a.kwonlyargs]
    names += [x.id for x in (a.vararg, a.kwarg) if x is not None]
    return tuple(names)


def _indent(line):
    return len(line) - len(line.lstrip())


def _quick_source(fn):
    """``(tree, first line)`` of ``fn``'s definition found by indentation in
    its file's lines, or ``(None, None)`` when that is not plainly possible
    (``inspect.getsourcelines`` then does it the slow, thorough way: it
    scans every loaded module, a tenth of a second in a fresh process)."""
    code = fn.__code__
    lines = linecache.getlines(code.co_filename, fn.__globals__)
    start = code.co_firstlineno - 1
    if not lines or start >= len(lines):
        return None, None
    d = start
    while d < len(lines) and lines[d].lstrip().startswith("@"):
        d += 1
    if d >= len(lines) or not lines[d].lstrip().startswith(("def ", "async def ")):
        return None, None
    base, end = _indent(lines[d]), d + 1
    for k in range(d + 1, len(lines)):
        text = lines[k].strip()
        if text and not text.startswith("#"):
            if _indent(lines[k]) <= base:
                break
            end = k + 1
    try:
        tree = gast.parse(textwrap.dedent("".join(lines[start:end])))
    except (SyntaxError, IndentationError):
        return None, None
    return tree, start + 1


def _class_of(fn):
    """The name of the class whose body defines ``fn`` (from its ``__class__``
    cell when it has one, else from its qualified name)."""
    code = fn.__code__
    if "__class__" in code.co_freevars:
        cell = fn.__closure__[code.co_freevars.index("__class__")]
        try:
            return cell.cell_contents.__name__
        except ValueError:                 # an empty cell: the class is being built
            pass
    parts = fn.__qualname__.split(".")
    for j in range(len(parts) - 2, -1, -1):
        if parts[j] != "<locals>" and parts[j + 1] != "<locals>":
            return parts[j]
    return None


def _convert_code(fn):
    tree, node = _parse(fn)
    ctx = pipeline.Context(qualname=fn.__qualname__, class_name=_class_of(fn),
                           shadowed=frozenset(n for n in REWRITTEN_BUILTINS
                                              if n in fn.__globals__ and
                                              fn.__globals__[n] is not getattr(builtins, n)))
    level = _settings["code_level"]
    last = len(pipeline.PIPELINE)

    def after(i, name, t):
        if level > 0 and i == min(level, last):
            _show_code(f"# to_static: {fn.__qualname__} after pass {i} ({name})\n" +
                       ast.unparse(gast.gast_to_ast(t)))

    tree = pipeline.run(tree, ctx, after)
    _say(1, f"to_static: converted {fn.__qualname__}")
    return _compile(fn, tree.body[0])


_INNER = "_jst_converted"
SEGMENT_TREE = "_sampan_segment_tree"    # a generated function's own (gast) definition


def _factory(fn, node):
    """``def _jst_factory(_jst, <free vars>): def _jst_converted(...): ...;
    return _jst_converted``.  The inner def gets a reserved name so that the
    function's own name inside it still means what it meant (a global, or a
    free variable of the original)."""
    node.name = _INNER
    params = [anno.RUNTIME] + list(fn.__code__.co_freevars)
    args = gast.arguments(args=[gast.Name(id=p, ctx=gast.Param(), annotation=None,
                                          type_comment=None) for p in params],
                          posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                          kwarg=None, defaults=[])
    ret = gast.Return(value=gast.Name(id=node.name, ctx=gast.Load(), annotation=None,
                                      type_comment=None))
    factory = gast.FunctionDef(name="_jst_factory", args=args, body=[node, ret],
                               decorator_list=[], returns=None, type_comment=None,
                               type_params=[])
    return gast.Module(body=[factory], type_ignores=[])


def _statements(node):
    """Statements of a tree in source order (gast and ast trees alike)."""
    for field in ("body", "orelse", "finalbody", "handlers"):
        for child in getattr(node, field, None) or []:
            if isinstance(child, (ast.stmt, gast.stmt)):
                yield child
            yield from _statements(child)


def compile_mapped(module, label, user_file, qualname):
    """``(code, source, filename)`` of a generated gast module compiled under
    the synthetic file ``<sampan {label} #n>``, registered with ``linecache``
    and with a source map from its lines to the user's (from the nodes'
    origins), so tracebacks and op locations name the user's lines."""
    source = ast.unparse(ast.fix_missing_locations(gast.gast_to_ast(module)))
    filename = f"<sampan {label} #{next(_count)}>"
    line_map = {}
    for g, a in zip(_statements(module), _statements(ast.parse(source))):
        o = anno.origin(g)
        if o is not None:
            line_map[a.lineno] = errors.Location(user_file, o[0], o[1] or qualname)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    errors.register_source_map(filename, line_map)
    return compile(source, filename, "exec"), source, filename


def _user_file(fn):
    """The user's file of ``fn`` (a generated segment's is its original's)."""
    return getattr(fn, "_sampan_user_file", None) or fn.__code__.co_filename


def _compile(fn, node):
    module = _factory(fn, node)
    code, source, filename = compile_mapped(module, f"converted {fn.__qualname__}",
                                            _user_file(fn), fn.__qualname__)
    lines = source.splitlines(True)
    factory = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in factory.co_consts
                 if isinstance(c, types.CodeType) and c.co_name == _INNER)
    inner = _requalify(inner, f"{factory.co_name}.<locals>.{_INNER}", fn.__qualname__)
    inner = inner.replace(co_name=fn.__code__.co_name)
    _converted_codes.add(inner)
    start = next(i for i, line in enumerate(lines) if f"def {_INNER}(" in line)
    header = lines[start].replace(f"def {_INNER}(", f"def {fn.__code__.co_name}(", 1)
    def_source = textwrap.dedent("".join([header] + lines[start + 1:-1]))
    return _Unit(inner, filename, source, def_source)


def _requalify(code, old, new):
    """Code objects named after the user's function (not the factory), every
    one of them marked as converted (nested functions of converted code are
    converted already)."""
    consts = tuple(_requalify(c, old, new) if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    name = code.co_qualname
    if name.startswith(old):
        name = new + name[len(old):]
    code = code.replace(co_consts=consts, co_qualname=name)
    _converted_codes.add(code)
    return code


def converted_filename(fn):
    """The synthetic file name of ``fn``'s converted code (None before it is
    converted): the frames of a trace that run ``fn``'s own lines."""
    fn = getattr(fn, "__func__", fn)
    unit = _by_code.get(getattr(fn, "__code__", None)) if hasattr(fn, "__code__") else None
    return unit.filename if unit is not None else None
