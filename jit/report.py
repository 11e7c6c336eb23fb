"""``sampan.jit.report(fn_or_layer, *example_inputs_or_specs)``: every problem
that would stop or change to_static's conversion, all at once.

Two passes, merged (one entry per line and kind):

1. the source: the function (a Layer's ``forward``), and the user functions,
   methods and sub-layers' forwards it calls (outside sampan), are read as
   ASTs and checked for what to_static refuses or runs differently: generator
   and coroutine syntax (refused), ``global``/``nonlocal`` and ``self.x = ...``
   (Python state changed once, when the program is traced), ``try`` (an op
   failing while the program runs is not caught), Python values that get
   frozen into the program (``time``, ``random``, ``np.random``), value reads
   of tensors (``.numpy()``, ``.item()``, ``.tolist()``, ``float/int/bool``
   and numpy calls on a tensor: a graph break, or an error under
   ``full_graph=True``), ops whose output shape depends on the data
   (``nonzero``, ``masked_select``, ``unique``, one-argument ``where``),
   parameters or layers created in ``forward``, and ``print``/``assert`` of
   Python values only (they run when the program is traced, not at each
   call).  Which names hold tensors is a light data flow: the parameters
   (but ``self``) and every name assigned from an expression that reads one,
   or from a call of ``paddle``/``self``;
2. one strict trace on the example inputs (or InputSpecs): its value request
   (program/value_request.py carries the line) or error joins the list, and
   the traced program's data-dependent-shape ops are listed at their
   ``Location``.

Each problem has ``kind``, ``file``, ``line``, ``code`` (the source text),
``message`` and ``suggestion``.
"""
import ast
import inspect
import linecache
import textwrap

from ..nn.layer.layers import Layer
from ..program.location import internal
from .static_function import StaticFunction

__all__ = ["report", "ConversionReport", "Problem"]

UNSUPPORTED = "unsupported construct"
FROZEN = "Python value frozen at trace"
VALUE_READ = "tensor value read"
NUMPY = "numpy call on a tensor"
DATA_SHAPE = "data-dependent shape"
PARAM_IN_FORWARD = "parameter created in forward"
TRACE_ONLY = "runs only when traced"
TRACE_ERROR = "trace error"

_READ_METHODS = {"numpy": ".numpy()", "item": ".item()", "tolist": ".tolist()"}
_DATA_SHAPE_CALLS = {"nonzero", "masked_select", "unique", "unique_consecutive"}
_DATA_SHAPE_OPS = {"where_index": "nonzero", "masked_select": "masked_select",
                   "unique": "unique", "unique_consecutive": "unique_consecutive"}
_FROZEN_MODULES = {"time", "random", "datetime"}
_PARAM_CALLS = {"create_parameter", "create_tensor"}
_CAST = {"float": "float32", "int": "int64", "bool": "bool"}


class Problem:
    __slots__ = ("kind", "file", "line", "code", "message", "suggestion")

    def __init__(self, kind, file, line, message, suggestion):
        self.kind, self.file, self.line = kind, file, line
        self.code = linecache.getline(file, line).strip() if file else ""
        self.message, self.suggestion = message, suggestion

    def __str__(self):
        return (f"{self.file}:{self.line}: [{self.kind}] {self.message}\n"
                f"    {self.code}\n    suggestion: {self.suggestion}")

    __repr__ = __str__


class ConversionReport:
    """The problems (``problems``, in file and line order) and the trace's
    outcome (``traced``: whether one program was built)."""

    def __init__(self, name, problems, traced):
        self.name, self.problems, self.traced = name, problems, traced

    @property
    def kinds(self):
        return sorted({p.kind for p in self.problems})

    def __len__(self):
        return len(self.problems)

    def __iter__(self):
        return iter(self.problems)

    def __str__(self):
        head = (f"to_static conversion report: '{self.name}': {len(self.problems)} "
                f"problem(s) of {len(self.kinds)} kind(s); strict trace "
                f"{'built one program' if self.traced else 'failed'}")
        return "\n".join([head] + [str(p) for p in self.problems])

    __repr__ = __str__


def report(fn_or_layer, *example_inputs_or_specs, **kwargs):
    """The ConversionReport of converting ``fn_or_layer`` (a function, a
    StaticFunction or a Layer) for these example arguments (tensors or
    InputSpecs; none: the source pass only)."""
    function, instance, name = _target(fn_or_layer)
    problems = {}

    def add(p):
        problems.setdefault((p.file, p.line, p.kind), p)

    for p in _scan_all(function, instance):
        add(p)
    traced = False
    if example_inputs_or_specs or kwargs:
        traced = _trace(function, instance, example_inputs_or_specs, kwargs, add, problems)
    ordered = sorted(problems.values(), key=lambda p: (p.file, p.line, p.kind))
    return ConversionReport(name, ordered, traced)


def _target(obj):
    if isinstance(obj, Layer):
        fwd = obj.forward
        fn = fwd._dygraph_function if isinstance(fwd, StaticFunction) else \
            getattr(type(obj).forward, "__func__", type(obj).forward)
        return fn, obj, f"{type(obj).__name__}.forward"
    if isinstance(obj, StaticFunction):
        return obj._dygraph_function, obj._class_instance, obj.__name__
    if inspect.ismethod(obj):
        return obj.__func__, obj.__self__, obj.__qualname__
    if callable(obj):
        return obj, None, getattr(obj, "__qualname__", "function")
    raise TypeError(f"report needs a function, a StaticFunction or a Layer, got "
                    f"{type(obj).__name__}")


# ----------------------------------------------------------------- the trace pass
def _trace(function, instance, args, kwargs, add, problems):
    from ..program.value_request import ValueRequest
    from .graph_break import GraphBreakError
    import types
    fn = types.MethodType(function, instance) if instance is not None else function
    sf = StaticFunction(fn, full_graph=True)
    try:
        concrete, _ = sf.get_concrete_program(*args, **kwargs)
    except Exception as e:                      # one problem at its line, when known
        req = e if isinstance(e, ValueRequest) else getattr(e, "request", None)
        if isinstance(e, GraphBreakError) and req is None:
            req = e.__cause__ if isinstance(e.__cause__, ValueRequest) else None
        if req is not None and req.location is not None:
            loc = req.location
            if not any(k[0] == loc.filename and k[1] == loc.lineno for k in problems):
                add(Problem(VALUE_READ, loc.filename, loc.lineno,
                            f"tracing needs the value of '{req.var_name}' ({req.reason})",
                            "keep it a tensor (tensor ops, a tensor `if` becomes cond)"))
            return False
        where = _error_location(e)
        if any(k[0] == where[0] and k[1] == where[1] for k in problems):
            return False                        # the source pass named this line already
        add(Problem(TRACE_ERROR, where[0], where[1], f"{type(e).__name__}: "
                    f"{str(e).splitlines()[0] if str(e) else ''}",
                    "fix this error first; the problems above may cause it"))
        return False
    for op in concrete.main_program.global_block().ops:
        public = _DATA_SHAPE_OPS.get(op.type)
        loc = getattr(op, "location", None)
        if public and loc is not None:
            add(_data_shape(loc.filename, loc.lineno, public))
    return True


def _error_location(e):
    """The innermost frame of the user's code (not sampan, the standard
    library or an installed package) in the error's traceback."""
    import sysconfig
    libs = tuple({sysconfig.get_paths()[k] for k in ("stdlib", "purelib", "platlib")})
    from ..program.location import _location_mappers
    where, seen = ("", 0), set()
    while e is not None and id(e) not in seen and where[0] == "":
        seen.add(id(e))
        tb = e.__traceback__
        while tb is not None:
            f, n = tb.tb_frame.f_code.co_filename, tb.tb_lineno
            loc = next((m(f, n) for m in _location_mappers if m(f, n) is not None), None)
            if loc is not None:
                where = (loc.filename, loc.lineno)
            elif not internal(f) and not f.startswith(libs) and not f.startswith("<"):
                where = (f, n)
            tb = tb.tb_next
        e = e.__cause__ or e.__context__
    return where


# ----------------------------------------------------------------- the source pass
def _scan_all(function, instance):
    seen, out, todo = set(), [], [(function, instance)]
    while todo:
        fn, inst = todo.pop(0)
        code = getattr(fn, "__code__", None)
        if code is None or code in seen or internal(code.co_filename):
            continue
        seen.add(code)
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError):
            continue
        try:
            tree = ast.parse(textwrap.dedent("".join(lines)))
        except SyntaxError:
            continue
        node = tree.body[0] if tree.body else None
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        scan = _Scan(code.co_filename, first - 1, fn.__globals__, inst)
        scan.run(node)
        out += scan.problems
        todo += scan.callees
    return out


def _names(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


class _Scan(ast.NodeVisitor):
    def __init__(self, filename, offset, globs, instance):
        self.file, self.offset, self.globs, self.inst = filename, offset, globs, instance
        self.problems, self.callees, self.tensors = [], [], set()

    def add(self, node, kind, message, suggestion):
        self.problems.append(Problem(kind, self.file, node.lineno + self.offset, message,
                                     suggestion))

    def module_of(self, name):
        mod = self.globs.get(name)
        return getattr(mod, "__name__", None) if inspect.ismodule(mod) else None

    def tensorish(self, node):
        if _names(node) & self.tensors:
            return True
        for c in ast.walk(node):
            if isinstance(c, ast.Call):
                d = _dotted(c.func) or ""
                root = d.split(".")[0]
                if root == "self" or self.module_of(root) in ("sampan", "paddle"):
                    return True
        return False

    def run(self, fn):
        args = fn.args
        for a in args.posonlyargs + args.args + args.kwonlyargs:
            if a.arg != "self":
                self.tensors.add(a.arg)
        if args.vararg:
            self.tensors.add(args.vararg.arg)
        for stmt in fn.body if isinstance(fn.body, list) else [fn.body]:
            self.visit(stmt)

    # ------------------------------------------------------------- statements
    def visit_FunctionDef(self, node):       # a nested def: its body too
        for stmt in node.body:
            self.visit(stmt)

    def visit_Assign(self, node):
        self.visit(node.value)
        if self.tensorish(node.value):
            for t in node.targets:
                self.tensors |= _names(t)
        for t in node.targets:
            self._state_write(t, node)

    def visit_AugAssign(self, node):
        self.visit(node.value)
        if self.tensorish(node.value):
            self.tensors |= _names(node.target)
        self._state_write(node.target, node)

    def _state_write(self, target, node):
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and \
                target.value.id == "self" and not self.tensorish(
                    node.value if hasattr(node, "value") else node):
            self.add(node, TRACE_ONLY, f"Python attribute 'self.{target.attr}' changed in "
                     f"forward: the change happens once, when the program is traced",
                     "keep state in a tensor buffer (register_buffer) updated with tensor "
                     "ops, or move it out of forward")

    def visit_Global(self, node):
        self.add(node, TRACE_ONLY, f"'global {', '.join(node.names)}': the global is "
                 f"written when the program is traced, not at each call",
                 "return the value instead, or keep it in a tensor")

    visit_Nonlocal = visit_Global

    def visit_Try(self, node):
        self.add(node, TRACE_ONLY, "try/except: it catches errors of tracing only; an op "
                 "failing while the program runs is not caught",
                 "check the condition with tensor ops, or move the try out of forward")
        self.generic_visit(node)

    def visit_Assert(self, node):
        if not self.tensorish(node.test):
            self.add(node, TRACE_ONLY, "assert of Python values: checked once, when the "
                     "program is traced", "assert on a tensor (it becomes an Assert op) or "
                     "check before calling")
        self.generic_visit(node)

    def visit_Yield(self, node):
        self.add(node, UNSUPPORTED, "generator (yield): to_static cannot convert it",
                 "return a list or tuple of results instead of yielding them")

    visit_YieldFrom = visit_Yield

    def visit_Await(self, node):
        self.add(node, UNSUPPORTED, "await: coroutines cannot be converted",
                 "run the asynchronous part outside the converted function")

    # ------------------------------------------------------------- calls
    def visit_Call(self, node):
        d = _dotted(node.func) or ""
        parts = d.split(".")
        root, last = parts[0], parts[-1]
        mod = self.module_of(root) if root else None
        args = list(node.args) + [k.value for k in node.keywords]
        tensor_arg = any(self.tensorish(a) for a in args)
        if isinstance(node.func, ast.Attribute) and node.func.attr in _READ_METHODS and \
                not node.args:
            self.add(node, VALUE_READ, f"{_READ_METHODS[node.func.attr]} reads a tensor's "
                     f"value: a graph break (an error under full_graph=True)",
                     "keep the computation in tensor ops")
        elif d in ("float", "int", "bool") and tensor_arg:
            self.add(node, VALUE_READ, f"{d}() of a tensor reads its value: a graph break",
                     f"use x.astype('{_CAST[d]}') to stay a tensor")
        elif mod in ("numpy", "numpy.random") and len(parts) > 1:
            if "random" in parts[1:2] or mod == "numpy.random":
                self.add(node, FROZEN, f"{d}(): a random value drawn once when the program "
                         f"is traced and frozen into it", "use paddle.rand / paddle.randn")
            elif tensor_arg:
                self.add(node, NUMPY, f"{d}() on a tensor converts it to numpy: a graph "
                         f"break, and the result is a constant of the program",
                         f"use the paddle function (paddle.{last})")
        elif mod in _FROZEN_MODULES:
            self.add(node, FROZEN, f"{d}(): its value is computed once, when the program is "
                     f"traced, and frozen into it", "pass the value in as a tensor argument")
        elif last in _DATA_SHAPE_CALLS or (last == "where" and len(node.args) == 1):
            self.problems.append(_data_shape(self.file, node.lineno + self.offset, last))
        elif last in _PARAM_CALLS:
            self.add(node, PARAM_IN_FORWARD, f"{last}() in forward: a new parameter at each "
                     f"trace, not trained or saved with the layer",
                     "create it in __init__ (self.create_parameter) and use it in forward")
        elif len(parts) > 1 and last[:1].isupper() and self._is_layer_class(node.func):
            self.add(node, PARAM_IN_FORWARD, f"layer {d}(...) created in forward: its "
                     f"parameters are new at each trace, not trained or saved",
                     "create the layer in __init__ and call it in forward")
        elif d == "print" and not any(self.tensorish(a) for a in args):
            self.add(node, TRACE_ONLY, "print of Python values: printed once, when the "
                     "program is traced, not at each call", "print tensors (they print at "
                     "each run through a print op) or print outside the function")
        self._callee(node.func, parts)
        self.generic_visit(node)

    def _is_layer_class(self, func):
        obj = self._resolve(func)
        return inspect.isclass(obj) and issubclass(obj, Layer)

    def _resolve(self, func):
        d = _dotted(func)
        if d is None:
            return None
        parts = d.split(".")
        if parts[0] == "self":
            obj = self.inst
        else:
            obj = self.globs.get(parts[0], getattr(__builtins__, parts[0], None)
                                 if not isinstance(__builtins__, dict)
                                 else __builtins__.get(parts[0]))
        for p in parts[1:]:
            if obj is None:
                return None
            try:
                obj = inspect.getattr_static(obj, p)
            except AttributeError:
                return None
            if isinstance(obj, (staticmethod, classmethod)):
                obj = obj.__func__
        return obj

    def _callee(self, func, parts):
        """Queue user code this call reaches (a function, a method of self, a
        sub-layer's forward)."""
        obj = self._resolve(func)
        if obj is None:
            return
        if isinstance(obj, Layer):
            fwd = type(obj).forward
            self.callees.append((getattr(fwd, "_dygraph_function", fwd), obj))
        elif isinstance(obj, StaticFunction):
            self.callees.append((obj._dygraph_function, obj._class_instance or self.inst))
        elif inspect.isfunction(obj):
            self.callees.append((obj, self.inst if parts[0] == "self" else None))


def _data_shape(file, line, name):
    return Problem(DATA_SHAPE, file, line, f"{name}(): its output's shape depends on the "
                   f"data, so the program's shape is unknown (-1) and later shape-dependent "
                   f"Python code is decided at trace",
                   "keep shapes static: use a mask multiply (x * mask) or paddle.where(c, x, y)")


# ----------------------------------------------------------------- command line
def main(argv=None):
    """``python -m sampan.jit report module:Layer [--input 2,4:float32 ...]``:
    the report of a Layer class (built with no arguments) or a function;
    ``--input`` gives one example input spec (shape with -1 or None for a
    free dimension, dtype), repeated per input.  Exit status 1 when there
    are problems, 2 on bad arguments."""
    import argparse
    import importlib
    from ..program.data import InputSpec
    ap = argparse.ArgumentParser(prog="python -m sampan.jit report",
                                 description="to_static conversion report")
    ap.add_argument("target", help="module:Layer or module:function")
    ap.add_argument("--input", action="append", default=[], metavar="SHAPE:DTYPE",
                    help="an example input, e.g. 8,4:float32 or None,4 (float32); "
                         "--input=-1,4 for a leading -1")
    a = ap.parse_args(argv)
    mod_name, _, attr = a.target.partition(":")
    if not mod_name or not attr:
        ap.error(f"target must be module:Layer or module:function, got {a.target!r}")
    try:
        obj = importlib.import_module(mod_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as e:
        ap.error(f"cannot find {a.target!r}: {e}")
    if inspect.isclass(obj):
        if not issubclass(obj, Layer):
            ap.error(f"{a.target!r} is a class but not a Layer")
        obj = obj()
    specs = []
    for text in a.input:
        shape, _, dtype = text.partition(":")
        try:
            dims = [None if d.strip() in ("-1", "None", "?") else int(d)
                    for d in shape.split(",") if d.strip()]
        except ValueError:
            ap.error(f"--input {text!r}: the shape must be comma-separated ints "
                     f"(-1 or None for a free dimension)")
        specs.append(InputSpec(dims, dtype or "float32"))
    r = report(obj, *specs)
    print(r)
    return 1 if len(r) else 0
