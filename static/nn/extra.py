"""More ``paddle.static.nn`` names: ``py_func`` (a Python function as an op of
the program) and the LoD ``sequence_*`` builders, which raise: sampan has no
LoD tensors.

``py_func``: Paddle's ``py_func`` op, with attributes ``forward_callable_id``,
``backward_callable_id`` (-1: none) and ``backward_skip_vars``; the callables live
in an in-process registry indexed by id (as Paddle's ``PyFuncRegistry``), so a
program holding ``py_func`` runs only in the process that built it.  The
function gets numpy arrays and returns arrays (or a list/tuple of them, or None);
each result is cast to its output variable's dtype and must have its shape
(-1 dims free).  The ops are declared in ops/defs/py_func.py.  Its gradient op is
sampan's ``py_func_grad``: the backward
callable gets the forward inputs, the forward outputs and the outputs'
gradients, in that order, less the variables named in
``skip_vars_in_backward_input``, and returns one gradient per forward input
(None for an input that gets none).
"""
import numpy as np

from ...ops import OpError, get_op, in_static_mode, is_graph_value
from ...ops.registry import GRAD_SUFFIX
from ...executor.plan import register_op_runner
from ...program.program_guard import default_main_program
from ...program.static_mode import append_op

__all__ = ["py_func", "sequence_concat", "sequence_conv", "sequence_enumerate",
           "sequence_expand", "sequence_expand_as", "sequence_first_step",
           "sequence_last_step", "sequence_pad", "sequence_pool", "sequence_reshape",
           "sequence_reverse", "sequence_scatter", "sequence_slice", "sequence_softmax",
           "sequence_unpad", "bilinear_tensor_product"]

_CALLABLES = []       # id -> callable (Paddle's PyFuncRegistry)
_IDS = {}             # id(callable) -> registry id (one entry per callable)



def _register(fn):
    if fn is None:
        return -1
    if not callable(fn):
        raise TypeError(f"py_func: expected a callable, got {type(fn).__name__}")
    key = id(fn)
    if key in _IDS and _CALLABLES[_IDS[key]] is fn:
        return _IDS[key]
    _CALLABLES.append(fn)
    _IDS[key] = len(_CALLABLES) - 1
    return _IDS[key]


def _callable(idx, what):
    if not 0 <= idx < len(_CALLABLES):
        raise OpError(f"py_func: {what} callable id {idx} is not registered in this process "
                      f"(a py_func program runs only where its functions were given)")
    return _CALLABLES[idx]


def _results(res, n, where):
    if res is None:
        res = []
    elif not isinstance(res, (list, tuple)):
        res = [res]
    res = list(res)
    if len(res) != n:
        raise OpError(f"{where} returned {len(res)} value(s), the op has {n} output(s)")
    return res


def _fit(value, var_meta, name, where):
    if value is None:
        return None
    a = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    dtype, shape = var_meta
    if dtype is not None:
        a = a.astype(dtype, copy=False)
    if shape is not None and (len(shape) != a.ndim or
                              any(d >= 0 and d != s for d, s in zip(shape, a.shape))):
        raise OpError(f"{where}: the value for '{name}' has shape {list(a.shape)}, the "
                      f"variable is declared {list(shape)}")
    return a


def _meta(plan, s):
    v = plan.vars[s]
    shape = getattr(v, "shape", None)
    return getattr(v, "np_dtype", None), (tuple(shape) if shape is not None else None)


def _py_func_runner(ins, plan):
    op = ins.op
    out_names = op.output("Out") if "Out" in op._outputs else []
    outs = ins.outs[0] or ()
    metas = [_meta(plan, s) for s in outs]

    def run(args, attrs, need):
        fn = _callable(attrs["forward_callable_id"], "forward")
        xs = [a for a in (args[0] or ())]
        res = _results(fn(*xs), len(out_names), f"py_func forward function {fn!r}")
        return ([_fit(r, m, n, "py_func") for r, m, n in zip(res, metas, out_names)],)
    return run


def _py_func_grad_runner(ins, plan):
    op = ins.op
    skip = set(op.attr("backward_skip_vars") or [])
    slots = ("X", "Out", "Out" + GRAD_SUFFIX)
    keep = [[n not in skip for n in (op.input(s) if s in op._inputs else [])] for s in slots]
    gnames = op.output("X" + GRAD_SUFFIX) if ("X" + GRAD_SUFFIX) in op._outputs else []
    x_names = op.input("X") if "X" in op._inputs else []
    gouts = ins.outs[0] or ()
    metas = [_meta(plan, s) for s in gouts]

    def run(args, attrs, need):
        fn = _callable(attrs["forward_callable_id"], "backward")
        vals = []
        for a, k in zip(args, keep):
            vals.extend(v for v, keep_it in zip(a or (), k) if keep_it)
        res = _results(fn(*vals), len(x_names), f"py_func backward function {fn!r}")
        pos = {n: i for i, n in enumerate(x_names)}
        out = []
        for g, m in zip(gnames, metas):
            src = g[:-len(GRAD_SUFFIX)] if g.endswith(GRAD_SUFFIX) else g
            i = pos.get(src)
            r = res[i] if i is not None else None
            out.append(_fit(r, m, g, "py_func backward") if r is not None
                       else np.zeros(m[1] if m[1] and all(d >= 0 for d in m[1]) else (),
                                     m[0] or np.float32))
        return (out,)
    return run


register_op_runner("py_func", _py_func_runner)
register_op_runner("py_func_grad", _py_func_grad_runner)


def _var_list(v, what):
    if v is None:
        return []
    vs = list(v) if isinstance(v, (list, tuple)) else [v]
    for e in vs:
        if not is_graph_value(e):
            raise TypeError(f"py_func: {what} must be Variable(s) of the program, got "
                            f"{type(e).__name__}")
    return vs


def py_func(func, x, out, backward_func=None, skip_vars_in_backward_input=None):
    """Append a ``py_func`` op running ``func`` on ``x``'s values into ``out``
    (variables the caller created, e.g. with ``default_main_program().current_block()
    .create_var``); returns ``out``."""
    if not in_static_mode():
        raise RuntimeError("py_func is a static-graph API: call paddle.enable_static() "
                           "first")
    xs = _var_list(x, "x")
    outs = _var_list(out, "out")
    fid = _register(func)
    bid = _register(backward_func)
    skip = _var_list(skip_vars_in_backward_input, "skip_vars_in_backward_input")
    names = {v.name for v in xs + outs}
    for v in skip:
        if v.name not in names:
            raise ValueError(f"py_func: variable {v.name} in skip_vars_in_backward_input is "
                             f"neither an input nor an output")
    if backward_func is None:
        for v in outs:
            v.stop_gradient = True
    block = default_main_program().current_block()
    append_op(block, "py_func", {"X": xs}, {"Out": outs},
              {"forward_callable_id": fid, "backward_callable_id": bid,
               "backward_skip_vars": [v.name for v in skip]})
    return out


def _lod(name):
    def builder(*args, **kwargs):
        raise NotImplementedError(
            f"static.nn.{name} works on LoD tensors (variable-length sequences), which "
            f"sampan does not support; pad the sequences to a dense tensor and use the "
            f"dense ops (e.g. paddle.nn.functional / paddle.static.nn builders) instead")
    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = f"Paddle's LoD ``{name}``: not supported by sampan (no LoD tensors)."
    return builder


sequence_concat = _lod("sequence_concat")
sequence_conv = _lod("sequence_conv")
sequence_enumerate = _lod("sequence_enumerate")
sequence_expand = _lod("sequence_expand")
sequence_expand_as = _lod("sequence_expand_as")
sequence_first_step = _lod("sequence_first_step")
sequence_last_step = _lod("sequence_last_step")
sequence_pad = _lod("sequence_pad")
sequence_pool = _lod("sequence_pool")
sequence_reshape = _lod("sequence_reshape")
sequence_reverse = _lod("sequence_reverse")
sequence_scatter = _lod("sequence_scatter")
sequence_slice = _lod("sequence_slice")
sequence_softmax = _lod("sequence_softmax")
sequence_unpad = _lod("sequence_unpad")


def bilinear_tensor_product(x, y, size, act=None, name=None, param_attr=None, bias_attr=None):
    """``out_i = x W_i y^T + b_i`` for ``i < size`` (Paddle's static builder): a weight
    ``[size, x_dim, y_dim]``, a bias ``[1, size]`` and the ``bilinear_tensor_product``
    op, then ``act``."""
    from ...ops import bind
    from .common import _owner, _param, _act, _dtype
    dt = _dtype(x)
    with _owner("bilinear_tensor_product", name) as owner:
        w = _param(owner, [size, x.shape[1], y.shape[1]], param_attr, dt)
        b = _param(owner, [1, size], bias_attr, dt, is_bias=True)
        out = bind(get_op("bilinear_tensor_product"), (x, y, w, b), {})[0]
        return _act(out, act)
