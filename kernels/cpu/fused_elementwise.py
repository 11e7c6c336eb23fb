"""Kernel of ``sampan_fused_elementwise`` (ops/defs/fused_elementwise.py).

Two ways to run one fused expression, chosen once per (expression, dtype):

- compiled (numba present, ``SAMPAN_NUMBA`` not ``0``): the elementwise steps
  become one scalar Python function, compiled by ``numba.vectorize`` into a
  numpy ufunc (numpy does the broadcasting, strides and the output array; the
  whole tree is one pass over memory with no temporaries); a trailing
  reduction runs on its result with the reduction's own kernel.  On arrays
  over ``SMALL`` elements, steps calling libm (exp, tanh, ...; ``LIBM``) run
  as numpy's SIMD kernels between compiled arithmetic segments instead
  (numba's scalar libm loops are 5-60x slower than numpy's).  Each step's
  scalar code follows the numpy kernel it replaces (same formula, constants
  in the array dtype, NaN through max/min/relu as numpy's maximum), so
  results agree with the unfused ops to rounding (transcendentals come from
  libm instead of numpy's SIMD loops);
- unfused (no numba, a step the compiler does not cover, or numba failing
  to compile: a RuntimeWarning): the replaced ops' own kernels, called in
  order: exactly the unfused program's numbers.

``scalar_code(op_type, attrs)`` says whether a step compiles (the fusion pass
asks it before fusing).  Compilation happens at the first run of an
expression, once per process; numba's compile time (about 0.3 s for a first
expression, less after) is the price of a fused program's first run.
"""
import json
import math
import os
import warnings

import numpy as np


from ...ops.defs.fused_elementwise import FUSED_OP, steps_of
from ..registry import kernel, select_kernel, KernelKey, CPU, ANY
from .fused_loops import LoopKernel, in_place

__all__ = ["numba_available", "cached_njit", "compiled_kernel", "scalar_code", "REDUCTIONS", "compiled", "unfused",
           "activation_into"]

_NUMBA = []


def numba_available():
    """numba importable and not turned off (``SAMPAN_NUMBA=0``); decided once."""
    if not _NUMBA:
        ok = os.environ.get("SAMPAN_NUMBA", "1") != "0"
        if ok:
            try:
                import numba  # noqa: F401
            except Exception:       # absent, or broken against this numpy
                ok = False
        _NUMBA.append(ok)
    return _NUMBA[0]


def cached_njit(fn, **options):
    """``numba.njit(cache=True, nogil=True, **options)(fn)`` whose on-disk cache
    cannot fail a call.  numba's cache files are not safe against processes
    compiling the same function at once (numba issue 4807: a save raises
    KeyError, then ReferenceError "underlying object has vanished", and a
    half-written index fails later loads); here a failed save is skipped and a
    failed load compiles in memory, as a miss would."""
    import numba
    dispatcher = numba.njit(cache=True, nogil=True, **options)(fn)
    cache = getattr(dispatcher, "_cache", None)
    if cache is not None and hasattr(cache, "save_overload"):
        save, load = cache.save_overload, cache.load_overload

        def save_quietly(sig, data):
            try:
                save(sig, data)
            except Exception:       # another process's files: keep the compiled code
                pass

        def load_quietly(sig, context):
            try:
                return load(sig, context)
            except Exception:
                return None

        cache.save_overload, cache.load_overload = save_quietly, load_quietly
    return dispatcher


_KERNELS = {}


def compiled_kernel(fn):
    """``fn`` (a plain-Python loop nest) compiled by numba once per process
    (``njit(cache=True, nogil=True)``), or None: no numba, or it cannot take
    ``fn`` (the caller then runs its numpy path)."""
    if fn not in _KERNELS:
        kernel = None
        if numba_available():
            try:
                import numba
                kernel = cached_njit(fn)
            except Exception:       # a numba that cannot compile it
                kernel = None
        _KERNELS[fn] = kernel
    return _KERNELS[fn]


# ------------------------------------------------------------------ scalar code
# op type -> (arity, template(args, attrs, c) -> expression or None); ``c(v)``
# names a constant of the array dtype.  None: these attrs do not compile.
def _binary(fmt):
    # (an ``axis`` other than -1 compiles when the expression aligns Y: ``compiled``)
    def t(a, attrs, c):
        return fmt.format(*a)
    return 2, t


def _unary(fmt, **consts):
    def t(a, attrs, c):
        return fmt.format(a[0], **{k: c(v) for k, v in consts.items()})
    return 1, t


def _scale(a, attrs, c):
    s, b = c(attrs["scale"]), c(attrs["bias"])
    return f"({a[0]} * {s} + {b})" if attrs["bias_after_scale"] else f"(({a[0]} + {b}) * {s})"


def _gelu(a, attrs, c):
    x = a[0]
    if attrs["approximate"]:
        return (f"({c(0.5)} * {x} * ({c(1.0)} + math.tanh({c(math.sqrt(2.0 / math.pi))} * "
                f"({x} + {c(0.044715)} * {x} * {x} * {x}))))")
    return f"({x} * ({c(0.5)} * math.erfc({x} * {c(-1.0 / math.sqrt(2.0))})))"


def _leaky(a, attrs, c):
    return f"({a[0]} if {a[0]} > {c(0.0)} else {c(attrs['alpha'])} * {a[0]})"


def _swish(a, attrs, c):
    x = a[0]
    return f"({x} * ({c(1.0)} / ({c(1.0)} + math.exp(-({c(attrs['beta'])} * {x})))))"


def _hard_swish(a, attrs, c):
    x = a[0]
    return (f"(({x} * _clip({x} + {c(attrs['offset'])}, {c(0.0)}, "
            f"{c(attrs['threshold'])})) / {c(attrs['scale'])})")


def _hard_sigmoid(a, attrs, c):
    return f"_clip({a[0]} * {c(attrs['slope'])} + {c(attrs['offset'])}, {c(0.0)}, {c(1.0)})"


# max/min as numpy's maximum/minimum: a NaN on either side gives NaN
SCALAR = {
    "elementwise_add": _binary("({} + {})"),
    "elementwise_sub": _binary("({} - {})"),
    "elementwise_mul": _binary("({} * {})"),
    "elementwise_div": _binary("({} / {})"),
    "elementwise_max": _binary("_max({}, {})"),
    "elementwise_min": _binary("_min({}, {})"),
    "elementwise_pow": _binary("({} ** {})"),
    "scale": (1, _scale),
    "relu": _unary("_max({}, {z})", z=0.0),
    "sigmoid": _unary("({o} / ({o} + math.exp(-{0})))", o=1.0),
    "silu": _unary("({0} * ({o} / ({o} + math.exp(-{0}))))", o=1.0),
    "swish": (1, _swish),
    "tanh": _unary("math.tanh({})"),
    "exp": _unary("math.exp({})"),
    "log": _unary("math.log({})"),
    "sqrt": _unary("math.sqrt({})"),
    "rsqrt": _unary("({o} / math.sqrt({0}))", o=1.0),
    "abs": _unary("abs({})"),
    "square": _unary("({0} * {0})"),
    "reciprocal": _unary("({o} / {0})", o=1.0),
    "sin": _unary("math.sin({})"),
    "cos": _unary("math.cos({})"),
    "erf": _unary("math.erf({})"),
    "gelu": (1, _gelu),
    "leaky_relu": (1, _leaky),
    # the clips of kernels/cpu/activation.py (np.clip's semantics: ``_clip``)
    "relu6": _unary("_clip({0}, {z}, {six})", z=0.0, six=6.0),
    "hard_swish": (1, _hard_swish),
    "hard_sigmoid": (1, _hard_sigmoid),
}

# reductions that may end a fused tree (run on the compiled tree's result)
REDUCTIONS = ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min")


def scalar_code(op_type, attrs):
    """True when step ``op_type`` with ``attrs`` (complete) compiles."""
    entry = SCALAR.get(op_type)
    if entry is None:
        return False
    return entry[1](("x",) * entry[0], attrs, lambda v: "0") is not None


def _max(a, b):
    return a if a > b or a != a else b


def _min(a, b):
    return a if a < b or a != a else b


def _clip(a, lo, hi):
    # as np.clip: a bound only past it (a -0.0 at a 0 bound stays), NaN kept
    return lo if a < lo else hi if a > hi else a


# ------------------------------------------------------------------ the two paths
def _step_fn(od, attrs, dtype):
    """The replaced op's kernel as ``f(*slot values) -> first output``."""
    k, _ = select_kernel(od, KernelKey(CPU, ANY, dtype.name))
    fast = getattr(k, "fast", None)
    f = fast(attrs) if fast is not None and len(od.outputs) == 1 else None
    if f is not None:
        return f
    need = (True,) + (False,) * (len(od.outputs) - 1)
    return lambda *ins: k(list(ins), attrs, need)[0]


def unfused(expr, dtype):
    """``f(xs) -> Out``: the replaced ops' kernels, in order."""
    plan = []
    for od, refs, attrs in steps_of(expr):
        slots = [None] * len(od.inputs)
        plan.append((_step_fn(od, attrs, dtype), slots, refs))

    def run(xs):
        vals = []
        for f, slots, refs in plan:
            args = list(slots)
            for pos, ref in refs:
                args[pos] = xs[ref] if ref >= 0 else vals[-1 - ref]
            vals.append(f(*args))
        return vals[-1]
    return run


# steps whose scalar code calls libm: numba's scalar loop runs them 5-60x
# slower than numpy's SIMD loops, so on large arrays they run as numpy calls
# between compiled segments (``_staged``); on small ones (up to SMALL
# elements) the whole tree is one ufunc (one call beats many)
LIBM = frozenset({"sigmoid", "silu", "swish", "tanh", "exp", "log", "sin", "cos", "erf",
                  "gelu", "elementwise_pow"})
SMALL = 4096


def _scalar_fn(steps, members, leaves, dtype):
    """The scalar Python function of step ``members[-1]`` over ``leaves``
    (constants in ``dtype``; numba compiles it)."""
    consts = {}

    def c(v):
        name = consts.get(float(v))
        if name is None:
            name = consts[float(v)] = f"c{len(consts)}"
        return name
    arg = {v: f"x{i}" for i, v in enumerate(leaves)}
    lines = [f"def fused({', '.join(arg.values())}):"]
    for j in members:
        od, refs, attrs = steps[j]
        arity, t = SCALAR[od.type]
        args = [None] * arity
        for pos, ref in refs:
            args[pos] = arg.get(ref) or f"t{-1 - ref}"
        lines.append(f"    t{j} = {t(args, attrs, c)}")
    lines.append(f"    return t{members[-1]}")
    numba = _numba()
    ns = {"__name__": __name__, "math": math, "_max": _HELPERS[0], "_min": _HELPERS[1], "_clip": _HELPERS[2],
          **{name: dtype.type(v) for v, name in consts.items()}}
    exec(compile("\n".join(lines) + "\n", f"<{FUSED_OP}>", "exec"), ns)
    return ns["fused"]


def _ufunc(steps, members, leaves, dtype):
    """A numba ufunc computing step ``members[-1]`` from ``leaves`` (value ids:
    ``k`` >= 0 an input, ``-1 - j`` step j's output), with the ``members``
    steps (ascending) inlined; called through its loop nests where the inputs
    allow (fused_loops.py)."""
    fused = _scalar_fn(steps, members, leaves, dtype)
    numba = _numba()
    t = numba.from_dtype(dtype)
    uf = numba.vectorize([t(*([t] * len(leaves)))], nopython=True)(fused).ufunc
    return LoopKernel(fused, uf, len(leaves), dtype, numba)


def _segment(steps, root, cut):
    """(member steps ascending, leaf value ids) of the compiled segment ending at
    step ``root``: its arithmetic ancestors, stopping at inputs and at steps in
    ``cut`` (materialized values)."""
    members, leaves, todo = {root}, [], [root]
    while todo:
        for _, ref in steps[todo.pop()][1]:
            j = -1 - ref
            if ref >= 0 or j in cut:
                if ref not in leaves:
                    leaves.append(ref)
            elif j not in members:
                members.add(j)
                todo.append(j)
    return sorted(members), sorted(leaves, key=lambda v: (v < 0, v if v >= 0 else -v))


def _whole(steps, dtype):
    """``f(xs)`` running every step in one ufunc."""
    members, leaves = _segment(steps, len(steps) - 1, ())
    uf = _ufunc(steps, members, leaves, dtype)
    return lambda xs: uf(*[xs[k] for k in leaves])


def _staged(steps, dtype):
    """``f(xs)``: compiled arithmetic segments, libm steps by their numpy kernels."""
    libm = {j for j, (od, _, _) in enumerate(steps) if od.type in LIBM}
    cut = set(libm) | {len(steps) - 1}
    for j in libm:
        cut.update(-1 - ref for _, ref in steps[j][1] if ref < 0)
    stages = []
    for j in sorted(cut):
        od, refs, attrs = steps[j]
        if j in libm:
            slots = [None] * len(od.inputs)
            stages.append((j, _step_fn(od, attrs, dtype), slots, refs))
        else:
            members, leaves = _segment(steps, j, cut)
            stages.append((j, _ufunc(steps, members, leaves, dtype), None,
                           tuple(enumerate(leaves))))

    def run(xs):
        vals = {}
        for j, f, slots, refs in stages:
            args = list(slots) if slots is not None else [None] * len(refs)
            for pos, ref in refs:
                args[pos] = xs[ref] if ref >= 0 else vals[-1 - ref]
            vals[j] = f(*args)
        return vals[j]
    return run


def compiled(expr, dtype):
    """``f(xs) -> Out`` through numba ufuncs, or None when a step does not compile."""
    steps = steps_of(expr)
    tail = None
    if steps[-1][0].type in REDUCTIONS:
        tail, steps = steps[-1], steps[:-1]
    if not steps or any(not scalar_code(od.type, a) for od, _, a in steps):
        return None
    align = {int(k): int(v) for k, v in json.loads(expr).get("align", {}).items()}
    for od, refs, a in steps:     # Paddle's axis rule: Y must be an input aligned by reshape
        if a.get("axis", -1) != -1 and dict(refs).get(1, -1) not in align:
            return None
    if any(od.type in LIBM for od, _, _ in steps):
        made = {}

        def body(xs):
            big = max(x.size for x in xs) > SMALL
            f = made.get(big)
            if f is None:
                f = made[big] = _safe(lambda: _staged(steps, dtype) if big
                                      else _whole(steps, dtype), expr, dtype, steps)
            return f(xs)
    else:
        body = _whole(steps, dtype)
    call = body
    if align:
        pads = tuple((k, (1,) * p) for k, p in align.items())

        def call(xs):
            xs = list(xs)
            for k, ones in pads:
                xs[k] = xs[k].reshape(xs[k].shape + ones)
            return body(xs)
    if tail is None:
        return call
    od, refs, attrs = tail
    red = _step_fn(od, attrs, dtype)
    return lambda xs: red(call(xs))


_HELPERS = []


def _numba():
    import numba
    if not _HELPERS:
        _HELPERS.extend(numba.njit(inline="always")(f) for f in (_max, _min, _clip))
    return numba


def _safe(make, expr, dtype, steps=None):
    """``make()``, or the unfused steps with a warning when numba fails to
    compile them (a numba/numpy version mismatch, an unsupported loop)."""
    try:
        return make()
    except Exception as e:
        warnings.warn(f"{FUSED_OP}: numba could not compile {len(steps_of(expr))} fused "
                      f"steps ({type(e).__name__}: {str(e)[:200]}); running them unfused",
                      RuntimeWarning, stacklevel=2)
        if steps is None:
            return unfused(expr, dtype)
        tail_free = json.dumps({"steps": [[od.type, {od.inputs[p].name: r for p, r in refs}, a]
                                          for od, refs, a in steps]})
        return unfused(tail_free, dtype)


_CACHE = {}
_INTO = {}
_NUMBA_FLOATS = (np.dtype("float32"), np.dtype("float64"))      # numba has no float16


def activation_into(op_type, attrs, dtype):
    """``fn(x)``: one activation op (complete ``attrs``) computed in place over a
    C-contiguous array of ``dtype``, one vectorized pass (fused_loops.py), or
    None: no numba, not float32/float64, a step calling libm (numpy's SIMD loops
    are faster) or without scalar code.  The scalar code follows the op's
    numpy kernel step by step, constants in the dtype: the kernel's numbers."""
    key = (op_type, tuple(sorted(attrs.items())), dtype)
    if key in _INTO:
        return _INTO[key]
    fn = None
    if numba_available() and dtype in _NUMBA_FLOATS and op_type not in LIBM and \
            scalar_code(op_type, attrs):
        from ...ops.registry import get_op
        try:
            fn = in_place(_scalar_fn([(get_op(op_type), [(0, 0)], attrs)], [0], [0], dtype),
                          _numba(), dtype)
        except Exception as e:      # numba failing: the op's numpy kernel
            warnings.warn(f"numba could not compile {op_type} ({type(e).__name__}: "
                          f"{str(e)[:200]}); running its numpy kernel", RuntimeWarning,
                          stacklevel=2)
    _INTO[key] = fn
    return fn


def _runner(expr, dtype):
    key = (expr, dtype)
    fn = _CACHE.get(key)
    if fn is None:
        fn = _safe(lambda: compiled(expr, dtype), expr, dtype) \
            if numba_available() and dtype.kind == "f" else None
        fn = _CACHE[key] = fn or unfused(expr, dtype)
    return fn


@kernel(FUSED_OP, dtypes=("float32", "float64"))
def fused_elementwise(ins, attrs, need):
    xs = ins[0]
    return (_runner(attrs["expr"], xs[0].dtype)(xs),)
