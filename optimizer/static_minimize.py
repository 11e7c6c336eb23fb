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

The learning rate (``learning_rate_<n>``, shape []) is a persistable variable
of the main program, filled in the startup program; with an LRScheduler the
main program remembers it (``program.lr_scheduler``,
``lr_scheduler._var_name``) and the Executor writes its current value into
the variable before each run, so ``scheduler.step()`` takes effect on the next
run.
"""
import weakref

from ..ops import create_state, op_role
from ..program import append_backward, default_main_program, program_guard
from ..utils import unique_name
from .lr import LRScheduler

_OP_ROLE_OPTIMIZE = 2

__all__ = ["minimize", "backward", "apply_gradients"]


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


def apply_gradients(opt, params_grads, startup_program=None):
    """Clip, regularize and append the update ops; returns the ops of the
    update pass (learning-rate scaling and update ops)."""
    if opt._grouped:
        raise NotImplementedError(f"{type(opt).__name__}: parameter groups are not supported "
                                  f"by minimize in static mode; give a list of parameters")
    params_grads = sorted((pg for pg in params_grads if pg[1] is not None),
                          key=lambda pg: pg[0].name)
    main = default_main_program()
    with program_guard(main, startup_program), op_role(_OP_ROLE_OPTIMIZE):
        hp = opt._default_dict
        params_grads = opt._prepare(params_grads, hp)
        block = main.global_block()
        start = len(block.ops)
        opt._update(params_grads, hp, learning_rate(opt))
        return block.ops[start:]


def minimize(opt, loss, startup_program=None, parameters=None, no_grad_set=None):
    """Static ``minimize``: returns (optimize_ops, params_grads)."""
    params_grads = backward(opt, loss, startup_program, parameters, no_grad_set)
    with program_guard(loss.block.program, startup_program):
        ops = apply_gradients(opt, params_grads, startup_program)
    return ops, params_grads
