"""Graph breaks: what to_static does when tracing needs a tensor's value.

Tracing runs the converted function on static Variables; a Variable has no
value, so a read (``.numpy()``, ``.item()``, ``float(v)``, ``int(v)``,
``v.tolist()``, a numpy call converting it) raises ``ValueRequest``
(program/value_request.py), which carries the user's line and the kind of
read.  What happens next depends on ``full_graph``:

- ``full_graph=True``: the trace fails with ``GraphBreakError`` (a
  TypeError) naming the function, the user's line and the reason;
- ``full_graph=False`` (Paddle 2.6's default): the call key is recorded as
  *broken* (``BrokenKey``) and the function is split at the lines the trace
  stopped at (jit/segments.py): those statements run as Python on eager
  tensors, and the straight runs between them are cached to_static segments
  whose Python inputs are their guards.  So a broken call gives eager's
  values, gradients and Python side effects (prints, appends, counters), and
  a warm call runs cached programs between the breaks.  A function that
  cannot be split (no source) runs as eager code.  Keys whose trace needs no
  value keep their single program and today's path.

A broken key is remembered apart from the program cache (the cache holds
programs only, so ``concrete_program``, ``jit.save`` and ``program_cache``
see programs only); a broken key costs one more dict lookup per call.
``jit.save`` traces from InputSpecs: reads that the specs decide become
constants, and the others are named together in one ``GraphBreakError``
(jit/spec_values.py).
"""
import contextlib
import threading

from ..program.value_request import ValueRequest  # noqa: F401 (what a break catches)

__all__ = ["GraphBreakError", "BrokenKey", "describe", "source_line", "breaks_allowed",
           "allow_breaks"]


class _State(threading.local):
    allow = False


_state = _State()


def breaks_allowed():
    """Whether the trace running on this thread may break the graph (its
    function has full_graph=False and no single program is required): then
    ``float(v)`` of a Variable is a value read, as eager's float(t) gives a
    Python number, rather than a cast op that would carry a gradient."""
    return _state.allow


@contextlib.contextmanager
def allow_breaks(flag):
    prev = _state.allow
    _state.allow = flag
    try:
        yield
    finally:
        _state.allow = prev


class GraphBreakError(TypeError):
    """A trace needed a tensor's value where a single program is required
    (``full_graph=True``, ``jit.save``, ``get_concrete_program``)."""

    def __init__(self, message, request=None):
        super().__init__(message)
        self.request = request


def source_line(location):
    """The text of the user's line (stripped), or '' when it cannot be read."""
    if location is None:
        return ""
    import linecache
    return linecache.getline(location.filename, location.lineno).strip()


def describe(request):
    """``file:line (`code`): reason of variable 'tmp_0'`` for a ValueRequest."""
    loc = request.location
    if loc is None:
        where = "an unknown line"
    else:
        code = source_line(loc)
        where = f"{loc.filename}:{loc.lineno}, in {loc.function}" + \
            (f": `{code}`" if code else "")
    return f"{where} ({request.reason} of static Variable '{request.var_name}')"


def strict_error(fn_name, request, why, hint_default_mode=True):
    """The error of a value read where one program is required; ``why`` says
    which caller required it."""
    hint = (", or use to_static's default full_graph=False, which runs such a call as "
            "eager code (a graph break)") if hint_default_mode else ""
    return GraphBreakError(
        f"to_static: '{fn_name}' needs a tensor's value while its program is built, at "
        f"{describe(request)}; {why}. A program cannot read tensor values: keep the "
        f"computation in tensor ops (a tensor condition becomes a cond op){hint}.", request)


class BrokenKey:
    """A call key whose trace needed a value: its calls run eagerly.  Holds
    the first break (its ValueRequest) and counters for ``jit.explain``."""
    __slots__ = ("request", "traces", "calls", "segmented")

    def __init__(self, request, segmented=None):
        self.request = request
        self.traces = 1          # the trace that stopped at the break
        self.calls = 0
        self.segmented = segmented   # jit.segments.Segmented, or None: eager code

    def run(self, sf, args, kwargs):
        """One call of the broken key: the function split into cached segments
        and the Python between them, or (when it could not be split) as eager
        code."""
        self.calls += 1
        if self.segmented is not None:
            return self.segmented.run(args, kwargs)
        return sf.dygraph_function(*args, **kwargs)

    def __repr__(self):
        return f"<graph break at {describe(self.request)}; {self.calls} eager call(s)>"
