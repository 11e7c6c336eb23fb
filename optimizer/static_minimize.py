"""The optimizer pass of a static program: ``Optimizer.minimize`` /
``backward`` / ``apply_gradients`` given static Variables (Paddle's static
``minimize``).

``minimize(loss)`` = ``static.append_backward`` -> pairs sorted by parameter
name -> the optimizer's own clip, regularization and update code (what eager
``step`` runs), given the program's learning-rate variable; its
mode-dependent steps are ``ops`` actions, so here the accumulators become
persistable variables filled by the startup program, regularization is
``sum`` into the gradient in place, and every op of the pass has op_role =
Optimize (op_role_var = [param, grad] for the ops made for one parameter).

Parameter groups (``parameters=[{'params': [...], 'learning_rate': 0.1,
'weight_decay': ...}, ...]``) train as eager ``step`` trains them: each
group's own clip, decay (in the gradient, or the update op's
regularization attributes) and learning-rate multiplier (a ``scale`` of the
learning rate per parameter, as Paddle).  (Paddle 2.6's static ``minimize``
refuses groups unless ``parameters`` is given, and then ignores a group's
``weight_decay``; eager is the truth here.)

``multi_precision=True`` (Momentum, Adam, AdamW ...) with float16 parameters:
each gets a float32 master weight (``master_weight``) and its accumulators
are the master's, as eagerly.

The learning rate (``learning_rate_<n>``, shape []) is a persistable variable
of the main program, filled in the startup program; with an LRScheduler the
main program remembers it (``program.lr_scheduler``,
``lr_scheduler._var_name``) and the Executor writes its current value into
the variable before each run, so ``scheduler.step()`` takes effect on the next
run.  ``main.clone()`` keeps the scheduler (``for_test=True`` drops it), as
Paddle's Program.clone does.

A whole training step inside ``to_static`` (``loss.backward(); opt.step();
opt.clear_grad()`` in the converted function, as Paddle 2.6's AST to_static
runs it): ``backward()`` records each parameter's gradient variable
(static/variable_methods.py) and the traced ``step`` appends the same clip,
regularization and update ops as eager ``step`` for the parameters that have
one, per parameter group.  The optimizer's state stays eager: its
accumulators (and master weights) are created as eager tensors, as the first
eager ``step`` would, and the program binds them (``Program.bind_tensor``) as
it binds the parameters, so each call of the function reads and writes the
live tensors (``state_dict``, a later eager ``step`` and the program share
them).  The learning rate is an eager tensor of its own that the program binds
and that is set to ``get_lr()`` before every run (``program.before_run``,
run by jit/partial_program.py), so ``scheduler.step()`` between calls takes
effect.  The parameters' ``.grad`` go through the function as eagerly:
``backward`` adds to them, ``clear_grad`` clears them, and the call writes
them back (program/traced_grads.py); ``minimize(loss)`` is ``backward`` +
``step``.
"""
import weakref

import numpy as np

from ..dygraph.aliases import write_data
from ..ops import create_state, op_role, static_guard
from ..ops.dtypes import to_enum
from ..program import append_backward, default_main_program, program_guard
from ..program.program_guard import default_startup_program
from ..program.traced_grads import traced_grads
from ..utils import unique_name
from .lr import LRScheduler

_OP_ROLE_OPTIMIZE = 2

__all__ = ["minimize", "backward", "apply_gradients", "traced_step", "traced_clear_grad",
           "traced_minimize"]


def learning_rate(opt):
    """The program's learning-rate variable (one per optimizer and program)."""
    main = default_main_program()
    lrs = opt.__dict__.setdefault("_static_lr_vars", weakref.WeakKeyDictionary())
    v = lrs.get(main)
    if v is not None:
        return v
    lr = opt._learning_rate
    sched = lr if isinstance(lr, LRScheduler) else None
    name = unique_name.generate("learning_rate")
    v = create_state(name, [], opt._dtype or "float32", sched() if sched is not None else lr)
    if sched is not None:
        sched._var_name = name
        main.lr_scheduler = sched
        main.lr_var = v
    lrs[main] = v
    return v


def master_weight(opt, param):
    """The float32 master copy of float16 parameter ``param`` (multi_precision):
    persistable ``<param>_fp32_master_<n>``, filled in the startup program by
    ``fill_constant`` then ``cast`` of the initialized parameter, as Paddle's
    static optimizers do; the update ops read and write it
    (MasterParam/MasterParamOut, ``multi_precision=True``)."""
    t = opt._master_weights.get(param.name)
    if t is not None:
        return t
    name = unique_name.generate(param.name + "_fp32_master")
    t = create_state(name, list(param.shape), "float32", 0.0)
    startup = default_startup_program().global_block()
    if param.name not in startup.vars:
        raise ValueError(f"{type(opt).__name__}(multi_precision=True): parameter "
                         f"'{param.name}' is not initialized by the startup program, so its "
                         f"float32 master weight cannot be filled from it")
    startup.append_op(type="cast", inputs={"X": [param.name]}, outputs={"Out": [name]},
                      attrs={"in_dtype": to_enum(param.np_dtype), "out_dtype": to_enum("float32")})
    opt._master_weights[param.name] = t
    return t


# ----------------------------------------------------------------- the pass
def _param_names(parameters):
    if parameters is None:
        return None
    out = []
    for p in parameters:
        if isinstance(p, dict):
            out.extend(_param_names(p["params"]))
        else:
            out.append(p if isinstance(p, str) else p.name)
    return out


def backward(opt, loss, startup_program=None, parameters=None, no_grad_set=None,
             callbacks=None):
    """``append_backward`` over the optimizer's parameters (default: every
    trainable parameter of the program); returns [(param, grad)]."""
    params = parameters if parameters is not None else opt._parameter_list
    with program_guard(loss.block.program, startup_program):
        return append_backward(loss, _param_names(params), no_grad_set, callbacks)


def _groups(opt, params_grads):
    """[(hyperparameters, params_grads)]: one entry, or one per parameter group
    (its own learning_rate, weight_decay, grad_clip and update attributes, as
    eager ``step``); a parameter in no group is not updated, as eagerly."""
    if not opt._grouped:
        return [(opt._default_dict, params_grads)]
    out = []
    for group in opt._param_groups:
        names = {p.name for p in group["params"]}
        hp = dict(opt._default_dict)
        hp.update((k, v) for k, v in group.items() if k != "params")
        pgs = [pg for pg in params_grads if pg[0].name in names]
        if pgs:
            out.append((hp, pgs))
    return out


def apply_gradients(opt, params_grads, startup_program=None):
    """Clip, regularize and append the update ops (per parameter group);
    returns the ops of the update pass (learning-rate scaling and update ops)."""
    params_grads = sorted((pg for pg in params_grads if pg[1] is not None),
                          key=lambda pg: pg[0].name)
    main = default_main_program()
    with program_guard(main, startup_program), op_role(_OP_ROLE_OPTIMIZE):
        prepared = [(hp, opt._prepare(pgs, hp)) for hp, pgs in _groups(opt, params_grads)]
        block = main.global_block()
        start = len(block.ops)
        lr = learning_rate(opt)
        for hp, pgs in prepared:
            opt._update(pgs, hp, lr)
        return block.ops[start:]


def minimize(opt, loss, startup_program=None, parameters=None, no_grad_set=None):
    """Static ``minimize``: returns (optimize_ops, params_grads)."""
    params_grads = backward(opt, loss, startup_program, parameters, no_grad_set)
    with program_guard(loss.block.program, startup_program):
        ops = apply_gradients(opt, params_grads, startup_program)
    return ops, params_grads


# ----------------------------------------------------------------- to_static steps
def _traced_program(what):
    main = default_main_program()
    if not getattr(main, "to_static_trace", False):
        raise AssertionError(
            f"Optimizer.{what}() while building a static program: it updates eager "
            f"parameters; in a static program call optimizer.minimize(loss), or call "
            f"{what}() inside a paddle.jit.to_static function or eagerly")
    return main


def _traced_lr(opt, main):
    """The learning-rate variable of ``main``: an eager tensor the program binds,
    set to the optimizer's current rate before every run."""
    lrs = opt.__dict__.setdefault("_traced_lr", weakref.WeakKeyDictionary())
    t = lrs.get(main)
    if t is None:
        with static_guard(False):
            t = opt._new_state(unique_name.generate("learning_rate"), [],
                               opt._dtype or "float32", opt.get_lr())
        lrs[main] = t
        ref = weakref.ref(opt)

        def refresh():
            o = ref()
            if o is not None:
                v = o.get_lr()
                if float(t._data) != v:
                    write_data(t, np.asarray(v, t._data.dtype))
        main.__dict__.setdefault("before_run", []).append(refresh)
    return main.bind_tensor(t)


def traced_step(opt):
    """``opt.step()`` traced into a to_static program (module doc)."""
    main = _traced_program("step")
    state = traced_grads(main)
    grads = state.vars if state is not None else {}
    groups = []
    for hp, params in _param_groups(opt):
        pairs = [(p, grads[p.name]) for p in params
                 if not p.stop_gradient and p.name in grads]
        if pairs:
            groups.append((hp, pairs))
    if not groups:
        return
    with static_guard(False):       # the state: eager tensors, as a first eager step makes
        for hp, pairs in groups:
            new = [p for p, _ in pairs if p.name not in opt._prepared]
            if new:
                opt._create_accumulators(new, hp)
                opt._prepared.update(p.name for p in new)
    lr = _traced_lr(opt, main)
    block = main.global_block()
    start = len(block.ops)
    for hp, pairs in groups:
        opt._update(opt._prepare(pairs, hp), hp, lr)
    state.keep_raw(block, start)


def _param_groups(opt):
    """[(hyperparameters, parameters)] as eager ``step`` walks them."""
    if opt._parameter_list is None:
        raise AttributeError("parameters argument given to the Optimizer should not be None "
                             "in dygraph mode.")
    if not opt._grouped:
        return [(opt._default_dict, opt._parameter_list)]
    out = []
    for group in opt._param_groups:
        hp = dict(opt._default_dict)
        hp.update((k, v) for k, v in group.items() if k != "params")
        out.append((hp, group["params"]))
    return out


def traced_clear_grad(opt, set_to_zero=True):
    """``opt.clear_grad()`` traced: the parameters' gradients so far are dropped,
    and the call clears their ``.grad`` as the eager one does."""
    main = _traced_program("clear_grad")
    traced_grads(main, create=True).clear(
        [p for p in opt._all_params() if not p.stop_gradient], set_to_zero)


def traced_minimize(opt, loss):
    """``minimize(loss)`` inside to_static: backward, then the traced step;
    returns (the update ops, [(parameter, gradient variable)])."""
    main = loss.block.program
    block = main.global_block()
    loss.backward()
    start = len(block.ops)
    traced_step(opt)
    grads = traced_grads(main).vars
    pairs = [(p, grads[p.name]) for _, params in _param_groups(opt) for p in params
             if p.name in grads]
    return block.ops[start:], pairs
