"""The runtime helpers converted code calls (``_jst.<name>`` in it).

Each helper decides at run time how its construct runs: plain Python when
the deciding value is a Python value or an eager Tensor (so eager results
are exactly the original function's, and Python-valued control flow
specialises the program), graph control flow (``jit.convert_static``) when
it is a static Variable.  A while or for loop that starts in Python and
meets a static condition later (``while True`` with a tensor ``break``)
continues as a graph loop from the values it has reached.

    helper                         Python / eager             static Variable
    convert_ifelse / ifexp         if / else                  static.nn.cond
    convert_while_loop             while                      static.nn.while_loop
    convert_for                    for over the iterable      while_loop over an index
    convert_logical_and/or/not     and / or / not             logical_* ops
    convert_len / convert_shape    len(x) / x.shape           shape op for -1 dims
    convert_var_dtype              int() / float() / bool()   cast op
    convert_print / convert_assert print / assert             print op / (skipped)
    convert_append / convert_pop   list methods               tensor array ops
    convert_getitem                lst[i] / lst[a:b]          array_read / a new array
    convert_setitem                x[i] = v                   set_value / array_write
    convert_register_hook          x.register_hook(h)         a pylayer running h in the backward
    convert_call                   converts user functions, methods and Layers
"""
import builtins

from ..dygraph.tensor import Tensor
from . import convert_loops as L, convert_static as S
from .errors import ConversionError, caller_location
from .graph_break import breaks_allowed
from ..program.value_request import request_value
from .. import tensor as T
from ..static.variable_methods import hooked

__all__ = ["UndefinedVar", "Undefined", "UndefinedVariableError", "ret", "Until",
           "convert_ifelse", "convert_ifexp", "convert_while_loop", "convert_for",
           "convert_logical_and", "convert_logical_or", "convert_logical_not",
           "convert_len", "convert_shape", "convert_var_dtype", "convert_isinstance",
           "convert_print", "convert_assert", "convert_raise", "convert_append", "convert_pop",
           "convert_getitem", "convert_setitem", "convert_inplace", "convert_register_hook",
           "convert_call", "convert_range", "convert_enumerate", "ConversionError"]

is_static = S.is_static


# ----------------------------------------------------------------- undefined
class UndefinedVariableError(UnboundLocalError):
    """A variable read on a path where the function never bound it."""


class UndefinedVar:
    """The value of a variable no path has bound yet (first bound inside a
    branch or loop).  Any use raises ``UndefinedVariableError`` naming it.
    (The class name is the one ``static.nn.cond`` recognises.)"""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def _fail(self, *args, **kwargs):
        raise UndefinedVariableError(
            f"local variable '{self.name}' is used before it is bound on this path (it is "
            f"first bound inside a branch or loop that did not bind it)")

    is_static_variable = False

    def __getattr__(self, attr):
        if attr.startswith("_"):       # protocol probes (hasattr(x, "_data") ...)
            raise AttributeError(attr)
        self._fail()

    def __repr__(self):
        return f"<undefined '{self.name}'>"

    __bool__ = __len__ = __iter__ = __call__ = __getitem__ = __setitem__ = _fail
    __index__ = __int__ = __float__ = __neg__ = __pos__ = __abs__ = __invert__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _fail
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _fail
    __pow__ = __rpow__ = __matmul__ = __rmatmul__ = __lt__ = __le__ = __gt__ = _fail
    __ge__ = __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = _fail


Undefined = UndefinedVar


RETURN_VALUE = "return value"


def ret(value):
    """The function's result: None when no ``return`` ran; reading a variable
    no path bound raises, as Python's ``return y`` would."""
    if isinstance(value, UndefinedVar):
        if value.name == RETURN_VALUE:
            return None
        value._fail()
    return value


class Until:
    """``for x in Until(xs, cond)``: the items of ``xs`` while ``cond()`` holds,
    checked before each next item (how the break pass stops a for loop)."""
    __slots__ = ("iterable", "cond")

    def __init__(self, iterable, cond):
        self.iterable, self.cond = iterable, cond

    def __iter__(self):
        for item in self.iterable:
            yield item
            if not self.cond():
                return


# ----------------------------------------------------------------- if / else
def convert_ifelse(pred, true_fn, false_fn, args, names):
    """``true_fn(*args) if pred else false_fn(*args)``; a static ``pred``
    builds a ``cond`` over both branches (``names`` label the outputs)."""
    if is_static(pred):
        return S.static_ifelse(pred, true_fn, false_fn, args, names)
    return true_fn(*args) if pred else false_fn(*args)


def convert_ifexp(pred, true_fn, false_fn):
    if is_static(pred):
        return S.static_ifexp(pred, true_fn, false_fn)
    return true_fn() if pred else false_fn()


# ----------------------------------------------------------------- loops
def convert_while_loop(cond, body, args, names):
    """``while cond(*vars): vars = body(*vars)``; once the condition is a
    static Variable the rest of the loop becomes a ``while_loop``."""
    values = tuple(args)
    while True:
        c = cond(*values)
        if is_static(c):
            return L.static_while(cond, body, values, names)
        if not c:
            return values
        values = tuple(body(*values))


def convert_for(iterable, cond, body, args, names):
    """``for item in iterable: vars = body(item, *vars)`` (while ``cond(*vars)``
    holds, when the loop has a break); a static iterable (``range`` with a
    tensor bound, a static tensor, ``enumerate`` of one) builds a loop op."""
    if L.is_static_iterable(iterable):
        return L.static_for(iterable, cond, body, tuple(args), names)
    values = tuple(args)
    it = iter(iterable)
    for item in it:
        values = tuple(body(item, *values))
        if cond is None:
            continue
        c = cond(*values)
        if is_static(c):       # a tensor break in a Python loop: guard the rest
            return L.guarded_rest(it, c, cond, body, values, names)
        if not c:
            break
    return values


# ----------------------------------------------------------------- logic
def convert_logical_and(*operands):
    """``a and b and ...`` with each operand a thunk: Python's short-circuit
    until a static Variable appears, then ``logical_and`` of the rest."""
    value = operands[0]()
    for k, thunk in enumerate(operands[1:], 1):
        if is_static(value):
            return S.static_logical("and", value, operands[k:])
        if not value:
            return value
        value = thunk()
    return value


def convert_logical_or(*operands):
    value = operands[0]()
    for k, thunk in enumerate(operands[1:], 1):
        if is_static(value):
            return S.static_logical("or", value, operands[k:])
        if value:
            return value
        value = thunk()
    return value


def convert_logical_not(x):
    if is_static(x):
        return S.static_not(x)
    return not x


# ----------------------------------------------------------------- builtins
def convert_len(x):
    if is_static(x):
        return S.static_len(x)
    return len(x)


def convert_shape(x):
    if is_static(x):
        return S.static_shape(x)
    return x.shape


def convert_var_dtype(x, kind):
    """``int(x)``/``float(x)``/``bool(x)``; a static Variable is cast (int32,
    float32, bool, as Paddle does)."""
    if is_static(x):
        if kind == "float" and breaks_allowed():
            # eager's float(t) is a Python number (any Python code may follow, and no
            # gradient goes through it, where a cast would carry one): under
            # full_graph=False a value read, i.e. a graph break (graph_break.py)
            request_value(x, "float()")
        return S.static_cast(x, kind)
    return {"int": int, "float": float, "bool": bool}[kind](x)


def convert_isinstance(x, classinfo):
    """``isinstance``, with a static Variable counting as a ``Tensor``."""
    if is_static(x) and _mentions_tensor(classinfo):
        return True
    return isinstance(x, classinfo)


def _mentions_tensor(classinfo):
    if isinstance(classinfo, tuple):
        return any(_mentions_tensor(c) for c in classinfo)
    return isinstance(classinfo, type) and issubclass(Tensor, classinfo) and \
        classinfo is not object


def convert_print(*args, **kwargs):
    """``print``: static Variables get a print op (printed when the program
    runs); everything else prints now."""
    if any(is_static(a) for a in args):
        return S.static_print(args, kwargs)
    return builtins.print(*args, **kwargs)


def convert_assert(test, message=None):
    if is_static(test):
        return S.static_assert(test, message)
    if not test:
        raise AssertionError(message()) if message is not None else AssertionError()


_NO_CAUSE = object()


def convert_raise(error, cause=_NO_CAUSE):
    """``raise error [from cause]``: at once, except in a branch of a tensor
    ``if`` being built, where the program raises it when the run takes the
    branch (as eager Python would)."""
    if isinstance(error, type) and issubclass(error, BaseException):
        error = error()
    if cause is not _NO_CAUSE:
        if isinstance(cause, type) and issubclass(cause, BaseException):
            cause = cause()
        error.__cause__ = cause          # also sets __suppress_context__, as `from` does
    if S.branch_depth() > 0 and isinstance(error, Exception):
        S.static_raise(error)
    raise error


def convert_append(lst, value):
    """``lst.append(value)``, returning the list (a static tensor array gets
    a ``write_to_array`` at its end)."""
    if is_static(lst):
        return S.array_append(lst, value)
    lst.append(value)
    return lst


def convert_pop(lst, *index):
    """``(lst, lst.pop(*index))``."""
    if is_static(lst):
        return S.array_pop(lst, *index)
    item = lst.pop(*index)
    return lst, item


def convert_getitem(lst, index):
    """``lst[index]`` of a list the function appends to or pops from (a
    tensor array after a loop on a tensor)."""
    if S.is_array(lst):
        return S.array_getitem(lst, index)
    return lst[index]


def convert_setitem(x, index, value):
    """``x[index] = value``, returning ``x`` (converted code rebinds it, so a
    list or tensor written in a branch or loop is branch/loop state); a static
    tensor gets a new tensor (``set_value``), a tensor array ``array_write``."""
    if is_static(x):
        if S.is_array(x):
            return S.array_setitem(x, index, value)
        new = S.static_setitem(x, index, value)
        if not x.persistable:
            # the object itself takes the write, as the eager tensor does: every name
            # for it (a to_static input's caller's tensor among them, jit/
            # partial_program.py) sees the new value; inside a loop body it stays
            # and the name is rebound (program/variable.py ``_inplace_assign``)
            return x._inplace_assign(new)
        return new
    x[index] = value
    return x


def convert_inplace(x, result):
    """The statement ``x.<method>_(...)``, returning what ``x`` is after it (the
    converted code rebinds ``x``, so a tensor written in place in a branch or
    loop is its state): the call's result where it is a tensor (a tensor's
    in-place method returns the tensor), else ``x`` (another object's method)."""
    return result if is_static(result) or isinstance(result, Tensor) else x


def convert_register_hook(x, hook):
    """The statement ``x.register_hook(hook)``, returning ``x`` (converted code
    rebinds it, so a hook registered in a branch or loop is its state); a
    static Variable gets the hooked value instead (static/variable_methods.py),
    the hook converted as user code."""
    if is_static(x):
        return hooked(x, convert_call(hook))
    x.register_hook(hook)
    return x


def convert_range(*args):
    if any(is_static(a) for a in args):
        return L.StaticRange(*args)
    return range(*args)


def convert_enumerate(iterable, start=0):
    if L.is_static_iterable(iterable):
        return L.StaticEnumerate(iterable, start)
    return enumerate(iterable, start)


def _cast_call(kind, py):
    def call(*args, **kwargs):
        if len(args) == 1 and not kwargs and is_static(args[0]):
            return S.static_cast(args[0], kind)
        return py(*args, **kwargs)
    return call


def _array_join(fn, use_stack):
    """``paddle.stack``/``paddle.concat`` of a list that became a tensor array
    in a loop on a tensor (Paddle joins arrays with tensor_array_to_tensor)."""
    def call(x, axis=0, name=None):
        if S.is_array(x):
            return S.array_join(x, axis, use_stack)
        return fn(x, axis, name) if name is not None else fn(x, axis)
    return call


def _array_add_n(fn):
    """``paddle.add_n`` of a list that became a tensor array: the sum of its
    stacked items."""
    def call(inputs, name=None):
        if S.is_array(inputs):
            return S.array_sum(inputs)
        return fn(inputs, name)
    return call


def _library_converters():
    return {T.stack: _array_join(T.stack, True), T.concat: _array_join(T.concat, False),
            T.add_n: _array_add_n(T.add_n)}


BUILTIN_CONVERTERS = {
    builtins.len: convert_len, builtins.range: convert_range,
    builtins.enumerate: convert_enumerate, builtins.print: convert_print,
    builtins.isinstance: convert_isinstance, builtins.int: _cast_call("int", int),
    builtins.float: _cast_call("float", float), builtins.bool: _cast_call("bool", bool),
    **_library_converters(),
}


# ----------------------------------------------------------------- calls
_calls = []          # converted functions running now: (code, static depth at entry)


def convert_call(fn):
    """What converted code calls in place of ``fn``: builtin converters for
    ``len``/``range``/..., converted user functions, methods and Layers
    (``jit.conversion.converted_callable``), or ``fn`` itself."""
    try:
        conv = BUILTIN_CONVERTERS.get(fn)
    except TypeError:                      # unhashable callables
        conv = None
    if conv is not None:
        return conv
    from .conversion import converted_callable
    target, code = converted_callable(fn)
    if code is None:
        return target
    return _recursion_guard(target, code)


def _recursion_guard(target, code):
    """A converted function that calls itself under a tensor condition would
    have to contain itself: refuse with a clear error (converted code runs
    while a program is built)."""
    def call(*args, **kwargs):
        depth = S.branch_depth()
        for c, d in _calls:
            if c is code and d < depth:
                loc = caller_location(2)
                where = f" ({loc})" if loc else ""
                raise ConversionError(
                    f"tensor-conditioned recursion: '{code.co_name}' calls itself inside a "
                    f"branch or loop that depends on a tensor{where}. A static program "
                    f"cannot contain itself; rewrite the recursion as a loop (a while "
                    f"loop over tensors becomes a while_loop op), or make the condition "
                    f"that stops it a Python value.")
        _calls.append((code, depth))
        try:
            return target(*args, **kwargs)
        finally:
            _calls.pop()
    return call
