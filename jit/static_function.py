"""``StaticFunction``: what ``to_static`` returns.

A call flattens its arguments into the cache key and the feed list
(``arguments.Signature.flatten``), looks the key up in this function's program
cache, traces a new ConcreteProgram on a miss (converting the function's source
once, ``jit.conversion``), and runs the entry's partial program.  The cached
path is: key -> dict lookup -> interpreter run -> wrap outputs.

Used on a method in a class body, it is a descriptor: each instance gets its
own StaticFunction (its own programs, bound to its own parameters), kept in a
weak per-instance table.  Called while a program is being built (inside
another to_static trace, or in static mode), it runs the converted function
inline, so its ops join the enclosing program.
"""
import functools
import inspect
import types
import warnings
import weakref

from ..ops import call_static_function, set_mode_action
from ..program.data import InputSpec
from ..program.program_guard import BUILD_LOCK
from ..static.nn import nest
from .arguments import Signature
from .program_cache import ProgramCache
from ..ops.amp import amp_key
from ..ops.mode import _wrapped_threads
from .tracing import trace, rebuild_outputs, is_slot
from .errors import ConversionError, map_error
from .partial_program import PartialProgram
from .graph_break import BrokenKey, GraphBreakError, strict_error, allow_breaks, describe
from .conversion import _say
from ..program.value_request import ValueRequest, resolving

__all__ = ["StaticFunction", "enable_to_static", "to_static_enabled"]

_ENABLED = [True]


def enable_to_static(enable_to_static_bool):
    """``paddle.jit.enable_to_static``: False makes every StaticFunction run its
    original (eager) function."""
    if not isinstance(enable_to_static_bool, bool):
        raise TypeError(f"enable_to_static expects a bool, got "
                        f"{type(enable_to_static_bool).__name__}")
    _ENABLED[0] = enable_to_static_bool


def to_static_enabled():
    return _ENABLED[0]


# ----------------------------------------------------------------- conversion seam
def _convert(fn):
    """The converted function of ``fn`` (cached by ``jit.conversion``)."""
    from .conversion import convert_function
    if getattr(getattr(fn, "__code__", None), "co_name", None) == "<lambda>":
        try:
            return convert_function(fn)
        except ConversionError:
            return fn            # source not found: one expression, traced as written
    return convert_function(fn)


def _source_of(fn):
    from .conversion import converted_source
    return converted_source(fn)


class _Entry:
    """One cached program: the ConcreteProgram and its partial program."""
    __slots__ = ("concrete_program", "partial_program", "single", "template", "leaves")

    def __init__(self, concrete):
        self.concrete_program = concrete
        self.partial_program = PartialProgram(concrete)
        self.template = concrete.template
        self.single = is_slot(concrete.template)
        self.leaves = nest.flatten(concrete.template)

    def __iter__(self):          # Paddle's cache values unpack as (concrete, partial)
        return iter((self.concrete_program, self.partial_program))


def _with_amp(key):
    """The cache key of a call under auto_cast: the AMP state joins the
    layer's training flag (the last entry), so a traced program with casts is
    never run without AMP, nor one without casts under it."""
    amp = amp_key()
    if amp is None:
        return key
    return type(key)(tuple(key[:-1]) + ((key[-1], amp),))


# ----------------------------------------------------------------- the class
class StaticFunction:
    """A function (or a method bound to one instance) run as static programs."""

    def __init__(self, function, input_spec=None, build_strategy=None, backend=None,
                 full_graph=False, **kwargs):
        if isinstance(function, StaticFunction):
            input_spec = input_spec if input_spec is not None else function._input_spec
            function = function.dygraph_function
        if inspect.ismethod(function):
            self._dygraph_function = function.__func__
            self._class_instance = function.__self__
        else:
            self._dygraph_function = function
            self._class_instance = None
        if not callable(self._dygraph_function):
            raise TypeError(f"to_static needs a function, a method or a Layer, got "
                            f"{type(function).__name__}")
        self._input_spec = _check_specs(input_spec)
        self._build_strategy = build_strategy
        self._backend = backend
        self._full_graph = full_graph
        self._kwargs = kwargs
        self._program_cache = ProgramCache()
        self._entries = self._program_cache._entries       # read on every call
        self._broken = {}        # key -> BrokenKey: traces that hit a graph break
        self._segments = None    # jit.segments.Segmented, built at the first break
        self._program_cap = None     # a segment's: programs before it runs eagerly
        self._over_cap = None
        self._descriptors = weakref.WeakKeyDictionary()
        self._converted = None
        names, defaults = _parameters(self._dygraph_function, self._class_instance is not None)
        self._signature = Signature(names, self._input_spec, self._class_instance, defaults)
        functools.update_wrapper(self, self._dygraph_function, updated=())

    # ------------------------------------------------------------- binding
    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        try:
            sf = self._descriptors.get(instance)
        except TypeError:        # an unhashable instance: no per-instance cache
            return self._bound_to(instance)
        if sf is None:
            sf = self._descriptors[instance] = self._bound_to(instance)
        return sf

    def _bound_to(self, instance):
        return StaticFunction(types.MethodType(self._dygraph_function, instance),
                              self._input_spec, self._build_strategy, self._backend,
                              self._full_graph, **self._kwargs)

    # ------------------------------------------------------------- calling
    def __call__(self, *args, **kwargs):
        if not _ENABLED[0]:
            return self.dygraph_function(*args, **kwargs)
        return call_static_function(self, args, kwargs)

    def _inline(self, args, kwargs):
        """While a program is being built: the converted code, its ops join it."""
        fn = self.converted_function
        inst = self._class_instance
        return fn(inst, *args, **kwargs) if inst is not None else fn(*args, **kwargs)

    def _run(self, args, kwargs):
        """The program for these arguments (traced on a cache miss), run."""
        sig = self._signature
        if kwargs or len(args) < sig.n_positional:
            args, kwargs = sig.positional(args, kwargs)
        key, inputs = sig.flatten(args, kwargs)
        if _wrapped_threads[0]:          # under auto_cast: its own programs (with casts)
            key = _with_amp(key)
        entry = self._entries.get(key)
        if entry is None:
            entry = self._broken.get(key) or self._trace(key, inputs, args, kwargs)
            if type(entry) is BrokenKey:         # a graph break: eager code (graph_break.py)
                return entry.run(self, args, kwargs)
        try:
            outs = entry.partial_program(inputs)
        except Exception as e:
            mapped = map_error(e)
            if mapped is e:
                raise
            raise mapped from e
        if entry.single:
            return outs[0]
        return rebuild_outputs(entry.template, outs, entry.leaves)

    def _trace(self, key, inputs, args, kwargs, specs_allowed=False):
        if not specs_allowed and any(isinstance(x, InputSpec) for x in inputs):
            raise TypeError("InputSpec arguments are for get_concrete_program(); call the "
                            "function with tensors")
        with BUILD_LOCK:         # another thread may have traced it meanwhile
            entry = self._program_cache.get(key)
            if entry is not None:
                return entry
            if self._program_cap is not None and not specs_allowed and \
                    (self._over_cap is not None or
                     len(self._program_cache) >= self._program_cap):
                return self._eager_past_cap()
            self._program_cache.warn_if_too_many(key, self._signature, self.__name__)
            try:
                with allow_breaks(not (specs_allowed or self._full_graph)):
                    if specs_allowed:
                        concrete = self._trace_from_specs(key, inputs, args, kwargs)
                    else:
                        concrete = trace(self.converted_function, self._class_instance,
                                         self._signature, key, inputs, args, kwargs)
                        if self._program_cap is not None:
                            _check_segment_outputs(concrete)
            except GraphBreakError:
                raise
            except ValueRequest as e:        # the trace needs a tensor's value
                if specs_allowed:
                    raise strict_error(self.__name__, e, "a concrete program (what jit.save "
                                       "writes) is one program", False) from e
                if self._full_graph:
                    raise strict_error(self.__name__, e,
                                       "full_graph=True requires one program") from e
                brk = self._broken[key] = BrokenKey(e, self._segmented(e))
                _say(1, f"to_static: graph break in '{self.__name__}' at {describe(e)}; "
                        f"calls with this input signature run " +
                        ("as cached segments" if brk.segmented else "as eager code"))
                return brk
            except Exception as e:
                if self._program_cap is not None and not specs_allowed:
                    # a segment of a broken function that does not convert (a
                    # variable bound on one path of a tensor `if` only ...):
                    # its statements run as the eager code they are
                    # (the whole segment, not this key: keys holding values read
                    # from tensors would pile up in _broken)
                    _say(1, f"to_static: segment '{self.__name__}' runs as eager code "
                            f"({type(e).__name__}: {e})")
                    self._over_cap = BrokenKey(None)
                    return self._over_cap
                mapped = map_error(e)
                if mapped is e:
                    raise
                raise mapped from e
            entry = _Entry(concrete)
            entry.partial_program.build_strategy = self._build_strategy
            self._program_cache[key] = entry
            return entry

    def _trace_from_specs(self, key, inputs, args, kwargs):
        """The one program of InputSpecs: value reads they decide become
        constants; the others are named all at once (jit/spec_values.py)."""
        from .spec_values import SpecReads
        reads = SpecReads(self._signature.feeds(key, inputs), self.__name__)
        with resolving(reads):
            concrete = trace(self.converted_function, self._class_instance,
                             self._signature, key, inputs, args, kwargs)
        err = reads.error()
        if err is not None:
            raise err
        return concrete

    def _segmented(self, request):
        """This function split at the lines ``request``'s trace stopped at
        (jit/segments.py), or None when it cannot be (it then runs eagerly)."""
        from .segments import Segmented, break_lines
        lines = break_lines(request, self._dygraph_function)
        if not lines:
            return None
        try:
            if self._segments is None:
                self._segments = Segmented(self)
            self._segments.add(lines, request)
        except Exception as e:           # (a construct the splitter cannot rewrite)
            _say(1, f"to_static: '{self.__name__}' cannot be split at its graph break "
                    f"({type(e).__name__}: {e}); it runs as eager code")
            self._segments = None
        return self._segments

    def _eager_past_cap(self):
        """A segment traced for ``_program_cap`` signatures already (Python
        values read from tensors that change from call to call): further
        signatures run as eager code, not as a new trace each."""
        if self._over_cap is None:
            self._over_cap = BrokenKey(None)
            _say(1, f"to_static: segment '{self.__name__}' has {self._program_cap} programs; "
                    f"calls with other guard values run as eager code")
        return self._over_cap

    # ------------------------------------------------------------- programs
    def get_concrete_program(self, *args, **kwargs):
        """``(ConcreteProgram, PartialProgram)`` for these arguments: tensors or
        InputSpecs (default: the function's input_spec)."""
        if not args and not kwargs:
            if self._input_spec is None:
                raise ValueError(f"get_concrete_program of '{self.__name__}' needs arguments "
                                 f"(tensors or InputSpecs) or an input_spec in to_static")
            args = tuple(self._input_spec)
        args, kwargs = self._signature.positional(args, kwargs)
        key, inputs = self._signature.flatten(args, kwargs)
        key = _with_amp(key)
        entry = self._program_cache.get(key)
        if entry is None:
            entry = self._trace(key, inputs, args, kwargs, specs_allowed=True)
        return entry.concrete_program, entry.partial_program

    @property
    def concrete_program(self):
        """The program for the input_spec, else the most recently traced one."""
        if len(self._program_cache) == 0:
            if self._broken and self._input_spec is None:
                # one program for the broken calls' signature, traced strictly (float()
                # of a tensor a cast, as in Paddle's programs); a value read raises
                key = next(iter(self._broken))
                specs = _specs_of(key)
                if specs is None:
                    brk = self._broken[key]
                    raise strict_error(self.__name__, brk.request, "it has no program (its "
                                       "calls break the graph; a saved model is one "
                                       "program)", False)
                return self.get_concrete_program(*specs)[0]
            if self._input_spec is None:
                raise ValueError(
                    f"no program has been traced for '{self.__name__}' yet: call it with "
                    f"tensors first, or give to_static an input_spec")
            return self.get_concrete_program()[0]
        if self._input_spec is not None:
            return self.get_concrete_program()[0]
        if len(self._program_cache) > 1:
            warnings.warn(f"'{self.__name__}' has {len(self._program_cache)} cached programs; "
                          f"the most recently traced one is returned", stacklevel=2)
        return self._program_cache.last.concrete_program

    def concrete_program_specify_input_spec(self, input_spec=None, **kwargs):
        if input_spec is not None and len(self._program_cache) == 0 and \
                self._input_spec is None:
            return self.get_concrete_program(*input_spec)[0]
        return self.concrete_program

    @property
    def program_cache(self):
        return self._program_cache

    def get_traced_count(self):
        return len(self._program_cache)

    @property
    def inputs(self):
        return self.concrete_program.inputs

    @property
    def outputs(self):
        return self.concrete_program.outputs

    @property
    def main_program(self):
        return self.concrete_program.main_program

    # ------------------------------------------------------------- the function
    @property
    def dygraph_function(self):
        """The original function (bound to its instance for methods)."""
        if self._class_instance is not None:
            return types.MethodType(self._dygraph_function, self._class_instance)
        return self._dygraph_function

    @property
    def converted_function(self):
        if self._converted is None:
            self._converted = _convert(self._dygraph_function)
        return self._converted

    @property
    def code(self):
        """The converted source."""
        return _source_of(self._dygraph_function)

    @property
    def function_spec(self):
        return self._signature

    @property
    def input_spec(self):
        return self._input_spec

    def rollback(self):
        """Undo ``to_static`` on a Layer's method (the instance runs its eager
        method again); returns the original function."""
        inst = self._class_instance
        fn = self.dygraph_function
        if inst is None:
            return fn
        name = self._dygraph_function.__name__
        d = getattr(inst, "__dict__", {})
        if d.get(name) is self:
            del d[name]
        if isinstance(getattr(type(inst), name, None), StaticFunction):
            object.__setattr__(inst, name, fn)
        return fn

    def __repr__(self):
        what = self._dygraph_function.__qualname__
        return f"<StaticFunction {what}, {len(self._program_cache)} program(s)>"


# ----------------------------------------------------------------- helpers
def _check_segment_outputs(concrete):
    """A segment hands its values to eager code: a list that a tensor loop
    grew is a tensor array there, which eager code would read without its
    gradients; such a segment runs as eager code instead."""
    from ..program.variable import VarType
    for v in concrete.outputs:
        if v.type == VarType.LOD_TENSOR_ARRAY:
            raise TypeError(f"output '{v.name}' is a tensor array (a list grown in a tensor "
                            f"loop)")


def _specs_of(key):
    """The positional arguments standing for a call key (InputSpecs for its
    tensors, its Python values), or None for keys with keyword or nested
    arguments."""
    from .arguments import TensorLeaf, ValueLeaf
    if key.kwargs:
        return None
    out = []
    for e in key.args:
        if type(e) is TensorLeaf:
            out.append(InputSpec(list(e.shape), e.dtype, stop_gradient=e.stop_gradient))
        elif type(e) is ValueLeaf and type(e.value) is e.type:    # (not an id())
            out.append(e.value)
        else:
            return None
    return out


def _check_specs(input_spec):
    if input_spec is None:
        return None
    if isinstance(input_spec, InputSpec):
        input_spec = [input_spec]
    if not isinstance(input_spec, (list, tuple)):
        raise TypeError(f"input_spec must be a list of InputSpec, got "
                        f"{type(input_spec).__name__}")
    return list(input_spec)


def _parameters(fn, bound):
    """Names of the positional parameters of ``fn`` (``self`` dropped for a
    method) and their defaults."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return [], {}
    if bound and params:
        params = params[1:]
    names, defaults = [], {}
    for p in params:
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            break
        names.append(p.name)
        if p.default is not p.empty:
            defaults[p.name] = p.default
    return names, defaults


set_mode_action("eager", "call_static_function", StaticFunction._run)
set_mode_action("static", "call_static_function", StaticFunction._inline)
