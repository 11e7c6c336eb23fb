"""Which mode is active, and what depends on it: ``bind``, the one entry every
public op function calls, and the few other actions whose meaning differs
between eager execution and building a static program.

Each mode registers its implementations (``sampan.dygraph`` the eager ones,
``sampan.static``'s core the static ones, ``sampan.jit`` the call of a
to_static function); callers call the functions below and never ask which
mode is active: only this module does.

| action | eager | static (building a Program) |
| --- | --- | --- |
| ``bind(op, inputs, attrs)`` | run the kernel, record a grad node | append an Operator |
| ``constant(array)`` | a tensor holding it | ``assign_value`` (+ ``cast``) |
| ``create_parameter(attr, shape, dtype)`` | a Parameter, initialized now | declared in the main program, initialized in the startup program |
| ``create_state(name, shape, dtype, value)`` | a persistable tensor | a persistable variable filled by the startup program |
| ``update(op_type, inputs, target)`` | the op's result, a new tensor (``target`` untouched, as Paddle's eager optimizers and clips) | the op writes ``target`` in place (as Paddle's static ones) |
| ``new_array(dtype)`` | a Python list | a LOD_TENSOR_ARRAY variable |
| ``name_key(key)`` | nothing | ops inside name outputs ``<key>_<n>.tmp_<k>`` |
| ``op_role(role, role_var)`` | nothing | ops inside carry Paddle's ``op_role``/``op_role_var`` |
| ``name_scope(prefix)`` | nothing | ops inside carry ``op_namescope`` ``/<prefix>/`` |
| ``for_each_pair(pairs, fn, scope)`` | ``fn(p, g)`` for each pair | the same, each call's ops under name scope ``scope`` with op_role Optimize, op_role_var [p, g] |
| ``call_static_function(sf, args, kwargs)`` | run its program | run its converted code inline |
| ``while_loop(cond, body, loop_vars)`` | a Python loop | a ``while`` op (``static.nn.while_loop``) |
| ``graph_grad(outputs, inputs, ...)`` | (not used: the tape runs ``paddle.grad``) | ``paddle.grad`` of Variables: the backward appended to their program |
| ``py_layer_apply(cls, args, kwargs)`` | (not used: ``PyLayer.apply`` records a tape node) | a ``pylayer`` op (``static.nn.static_pylayer``) |

A handler receives the OpDef, the inputs (one entry per input slot: a
tensor-like, a list for duplicable slots, or None) and the attributes as given
(None = all defaults); it returns a tuple with one entry per output slot.
``is_graph_value`` is the one test for "a static Variable"; ``static_guard``
switches the mode for a block of code.
"""
import contextlib
import functools
import threading

from .registry import OpError

_handlers = {"eager": None, "static": None}
_constants = {"eager": None, "static": None}   # array -> tensor of the mode (see constant)


def _no_handler(op, inputs, attrs):
    mode = "static" if _local.static else "eager"
    raise OpError(f"op '{op.type}': no handler for the {mode} mode is installed")


class _ThreadMode(threading.local):
    """The mode is per thread (as Paddle's): a thread tracing a to_static
    function does not turn another thread's eager code static.  A new thread
    starts eager."""

    def __init__(self):
        self.static = False
        self.wrap = None            # this thread's auto-mixed-precision wrapper (ops.amp)
        self.current = _handlers["eager"] or _no_handler


_local = _ThreadMode()
# bind's handler (hot path): the eager one while no thread is static, else the
# per-thread lookup; so the common all-eager process pays no thread-local read
_current = [_no_handler]
_static_threads = [0]
_count_lock = threading.Lock()


def _by_thread(op, inputs, attrs):
    return _local.current(op, inputs, attrs)


def _refresh():
    _current[0] = _by_thread if _static_threads[0] or _wrapped_threads[0] else \
        (_handlers["eager"] or _no_handler)


def _handler_for(static):
    h = _handlers["static" if static else "eager"] or _no_handler
    return h if _local.wrap is None else _local.wrap(h)


# threads whose handler is wrapped (auto_cast on): they take the per-thread path
_wrapped_threads = [0]


def set_handler_wrap(wrap):
    """Wrap this thread's ``bind`` handler (eager and static alike) with
    ``wrap(handler) -> handler`` (``ops.amp``: auto-mixed-precision casts), or
    unwrap it (None); returns the previous wrap.  While no thread has a wrap,
    ``bind`` pays nothing for it."""
    prev = _local.wrap
    if wrap is prev:
        return prev
    with _count_lock:
        _wrapped_threads[0] += (wrap is not None) - (prev is not None)
        _local.wrap = wrap
        _local.current = _handler_for(_local.static)
        _refresh()
    return prev


def set_mode_handler(mode, fn):
    if mode not in _handlers:
        raise ValueError(f"unknown mode '{mode}', expected one of {sorted(_handlers)}")
    _handlers[mode] = fn
    _local.current = _handler_for(_local.static)
    _refresh()


def set_static_mode(flag: bool):
    flag = bool(flag)
    if flag != _local.static:
        with _count_lock:
            _static_threads[0] += 1 if flag else -1
            _local.static = flag
            _local.current = _handler_for(flag)
            _refresh()


def in_static_mode() -> bool:
    return _local.static


def in_dynamic_mode() -> bool:
    return not _local.static


def bind(op, inputs, attrs=None):
    """Run (eager) or append (static) ``op`` on ``inputs`` with ``attrs``."""
    return _current[0](op, inputs, attrs)


# ``bind`` without its frame, for the hottest callers (the Tensor operators):
# ``BIND[0](op, inputs, attrs)`` is ``bind(op, inputs, attrs)``
BIND = _current


def bind_in_graph(op, inputs, attrs=None):
    """``bind`` as the static mode does it, whatever the active mode: an eager
    op given a graph value (a Variable) appends to that value's program."""
    fn = _handlers["static"]
    if fn is None:
        raise OpError(f"op '{op.type}': a static Variable was given, but no static-mode "
                      f"handler is installed")
    return fn(op, inputs, attrs)


def set_constant_handler(mode, fn):
    if mode not in _constants:
        raise ValueError(f"unknown mode '{mode}', expected one of {sorted(_constants)}")
    _constants[mode] = fn


def constant(array, stop_gradient=True, dtype=None):
    """A tensor holding a host array, converted to numpy ``dtype`` when given:
    eagerly the array itself, in a static Program an ``assign_value`` op (and a
    ``cast`` to ``dtype``), which is what Paddle's to_tensor appends there."""
    fn = _constants["static" if _local.static else "eager"]
    if fn is None:
        raise OpError("no constant handler for the active mode is installed")
    return fn(array, stop_gradient, dtype)


# ----------------------------------------------------------------- the other actions
# grad mode (``no_grad``) is kept by the tape; a Program built under it marks
# the outputs of its ops stop_gradient, so no gradient flows through them in
# either mode.  The tape installs the query.
_grad_query = [lambda: True]


def set_grad_query(fn):
    _grad_query[0] = fn


def grad_enabled():
    """Whether ops record gradients now (False inside ``no_grad``)."""
    return _grad_query[0]()


_actions = {"eager": {}, "static": {}}
ACTIONS = ("create_parameter", "create_state", "update", "new_array", "name_key",
           "op_role", "name_scope", "for_each_pair", "call_static_function", "while_loop",
           "py_layer_apply", "graph_grad")


def set_mode_action(mode, name, fn):
    """Register ``fn`` as ``mode``'s implementation of action ``name``."""
    if mode not in _actions:
        raise ValueError(f"unknown mode '{mode}', expected one of {sorted(_actions)}")
    if name not in ACTIONS:
        raise ValueError(f"unknown mode action '{name}', expected one of {list(ACTIONS)}")
    _actions[mode][name] = fn


def _action(name):
    mode = "static" if _local.static else "eager"
    fn = _actions[mode].get(name)
    if fn is None:
        raise OpError(f"no {mode}-mode implementation of '{name}' is installed")
    return fn


def create_parameter(attr, shape, dtype):
    """A trainable parameter described by ``attr`` (a ParamAttr with its name and
    initializer set)."""
    return _action("create_parameter")(attr, shape, dtype)


def create_state(name, shape, dtype, value):
    """A persistable, non-trainable tensor (an optimizer's accumulator or learning
    rate) named ``name`` and filled with ``value``."""
    return _action("create_state")(name, shape, dtype, value)


def update(op_type, inputs, target, attrs=None):
    """``op_type`` on ``inputs`` ({slot: value or list}; ``attrs``: the op's
    attributes) as an update of ``target``: eagerly its result is a new tensor
    and ``target`` keeps its value; in a Program the op writes ``target``
    (Paddle's static optimizer and clip passes update gradients in place).
    Returns the updated value."""
    if attrs is None:
        return _action("update")(op_type, inputs, target)
    return _action("update")(op_type, inputs, target, attrs)


def new_array(dtype):
    """An empty tensor array of ``dtype``."""
    return _action("new_array")(dtype)


def name_key(key):
    """A context: ops built inside share one ``<key>_<n>`` output prefix."""
    if not _local.static:
        return contextlib.nullcontext()
    return _action("name_key")(key)


def named_outputs(key):
    """Decorate a public function so that, in a Program, its ops' outputs are
    ``<key>_<n>.tmp_<k>`` (Paddle's LayerHelper naming: ``F.linear`` gives
    ``linear_1.tmp_0``/``linear_1.tmp_1``).  Eagerly it costs one flag check."""
    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            if not _local.static:
                return fn(*args, **kwargs)
            with _action("name_key")(key):
                return fn(*args, **kwargs)
        return call
    return wrap


def op_role(role, role_var=None):
    """A context: ops built inside carry ``op_role`` (and ``op_role_var``)."""
    if not _local.static:
        return contextlib.nullcontext()
    return _action("op_role")(role, role_var)


def name_scope(prefix):
    """A context: ops built inside carry ``op_namescope = /<prefix>/``."""
    if not _local.static:
        return contextlib.nullcontext()
    return _action("name_scope")(prefix)


def for_each_pair(pairs, fn, scope):
    """``[fn(p, g) for p, g in pairs]``: an optimizer's per-parameter ops, each
    parameter's under Paddle's bookkeeping in a Program (see the table)."""
    return _action("for_each_pair")(pairs, fn, scope)


def call_static_function(sf, args, kwargs):
    """Call a to_static function: run its program, or, while a program is
    being built, its converted code (its ops join that program)."""
    return _action("call_static_function")(sf, args, kwargs)


def graph_grad(outputs, inputs, grad_outputs, create_graph, allow_unused, no_grad_vars):
    """``paddle.grad`` of static Variables (inside a to_static function, or a
    Program): the backward appended to their program (the static handler; the
    eager tape calls this when given Variables, whatever the active mode)."""
    fn = _actions["static"].get("graph_grad")
    if fn is None:
        raise OpError("paddle.grad was given static Variables, but no static-mode "
                      "implementation of 'graph_grad' is installed")
    return fn(outputs, inputs, grad_outputs, create_graph, allow_unused, no_grad_vars)


def while_loop(cond, body, loop_vars):
    """``while cond(*loop_vars): loop_vars = body(*loop_vars)``; returns the
    final loop_vars (a list).  For public functions Paddle writes with a loop
    (``gcd``): eagerly a Python loop, in a Program a ``while`` op."""
    return _action("while_loop")(cond, body, loop_vars)


def py_layer_apply(cls, args, kwargs):
    """``PyLayer.apply`` while a program is built (static mode): a ``pylayer``
    op over the layer's forward and backward (``static.nn.static_pylayer``)."""
    return _action("py_layer_apply")(cls, args, kwargs)


def is_graph_value(x):
    """Whether ``x`` is a value of a static Program (a Variable), not a tensor
    (nor the Variable class itself: ``type(v)`` inside converted code)."""
    return getattr(x, "is_static_variable", False) and not isinstance(x, type)


@contextlib.contextmanager
def static_guard(static=True):
    """Run the block in static mode (``static=True``) or eagerly, then restore."""
    prev = _local.static
    set_static_mode(static)
    try:
        yield
    finally:
        set_static_mode(prev)
