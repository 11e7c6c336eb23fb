"""The optimizer pass of a static program: ``Optimizer.minimize`` /
``backward`` / ``apply_gradients`` given static Variables (Paddle's static
``minimize``).

``minimize(loss)`` = ``static.append_backward`` -> pairs sorted by parameter
name -> gradient clip (``clip._static_clip``) -> regularization (``scale`` of
the parameter, then ``sum`` into the gradient in place) -> the learning-rate
variable -> accumulators -> one update op per parameter.

The learning rate (``learning_rate_<n>``, shape []) and the accumulators
(``linear_0.w_0_moment1_0`` ...) are persistable variables of the main
program, declared again in the startup program and filled there by
``fill_constant``.  The update ops are the eager optimizers' own: their
``_append_optimize_op`` calls ``bind`` on static Variables, and the ops'
in-place pairs make ``ParamOut``/``Moment1Out``... the persistable inputs
themselves.  Every op of the pass has op_role = Optimize; the ops made for
one parameter carry op_role_var = [param, grad].

With an LRScheduler the main program remembers it (``program.lr_scheduler``,
``lr_scheduler._var_name``); the Executor writes its current value into the
learning-rate variable before each run, so ``scheduler.step()`` takes effect
on the next run.
"""
import contextlib
import weakref

from ..nn.initializer import Constant
from ..static import default_main_program, default_startup_program, name_scope, program_guard
from ..static.attrs import OP_ROLE_OPTIMIZE
from ..static.program_guard import current_name_scope
from ..static.static_mode import op_role_guard, user_source
from ..utils import unique_name
from .lr import LRScheduler

OP_ROLE_LRSCHED = 16        # Paddle's OpRole.LRSched (learning-rate computations)

__all__ = ["minimize", "backward", "apply_gradients", "optimized_guard", "append_inplace",
           "StaticTarget"]


# ----------------------------------------------------------------- op helpers
@contextlib.contextmanager
def optimized_guard(param, grad):
    """Ops appended inside have op_role = Optimize and op_role_var = [param, grad]
    (Paddle's ``program._optimized_guard``); learning-rate ops keep theirs (none).
    Yields the name list, which the body may correct (a clip's new gradient)."""
    block = default_main_program().current_block()
    start = len(block.ops)
    names = [param.name, grad.name]
    with op_role_guard(OP_ROLE_OPTIMIZE):
        yield names
    for op in block.ops[start:]:
        if not op.attr("op_role") & OP_ROLE_LRSCHED:
            op._set_attr("op_role_var", names)


def append_inplace(op_type, inputs, outputs, attrs=None):
    """Append ``op_type`` writing existing variables (``elementwise_mul`` into a
    gradient, ``sum`` of gradient and decay into the gradient), as Paddle's
    static optimizer does; ``bind`` would give the result a new variable."""
    block = default_main_program().current_block()
    extra = {"op_role": OP_ROLE_OPTIMIZE, "op_namescope": current_name_scope(),
             "op_device": "", "op_role_var": []}
    src = user_source()
    if src:
        extra["op_callstack"] = [src]
    return block.append_op(op_type, inputs=inputs, outputs=outputs,
                           attrs={**(attrs or {}), **extra})


# ----------------------------------------------------------------- state variables
class StaticTarget:
    """Where an optimizer's state goes while it builds a static pass: the main
    program (persistable variables) and the startup program (their
    ``fill_constant``).  Set as ``optimizer._static_target`` for the pass."""

    def __init__(self, main, startup):
        self.main, self.startup = main, startup

    def global_var(self, name, shape, dtype, value):
        shape = [int(d) for d in shape]
        v = self.main.global_block().create_var(name=name, shape=shape, dtype=dtype,
                                                persistable=True, stop_gradient=True)
        sb = self.startup.global_block()
        if name not in sb.vars:
            Constant(float(value))(sb.create_var(name=name, shape=shape, dtype=dtype,
                                                 persistable=True, stop_gradient=True), sb)
        return v

    def learning_rate(self, opt):
        """The program's learning-rate variable (one per optimizer and program)."""
        lrs = opt.__dict__.setdefault("_static_lr_vars", weakref.WeakKeyDictionary())
        v = lrs.get(self.main)
        if v is not None:
            return v
        lr = opt._learning_rate
        sched = lr if isinstance(lr, LRScheduler) else None
        name = unique_name.generate("learning_rate")
        v = self.global_var(name, [], opt._dtype or "float32",
                            sched() if sched is not None else lr)
        if sched is not None:
            sched._var_name = name
            self.main.lr_scheduler = sched
            self.main.lr_var = v
        lrs[self.main] = v
        return v

    @staticmethod
    def scaled_lr(lr, ratio):
        """``lr * ratio`` for a parameter with its own learning-rate multiplier
        (a ``scale`` op with op_role Optimize | LRSched, as Paddle)."""
        with op_role_guard(OP_ROLE_OPTIMIZE | OP_ROLE_LRSCHED), \
                name_scope("scale_with_param_lr"):
            return lr * float(ratio)

    @staticmethod
    def add_to_grad(grad, term):
        """grad += term, as Paddle: ``sum(X=[grad, term]) -> grad``."""
        append_inplace("sum", {"X": [grad, term]}, {"Out": [grad]})
        return grad


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
    from ..static import append_backward
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
    startup = startup_program or default_startup_program()
    target = StaticTarget(main, startup)
    opt._static_target = target
    try:
        with op_role_guard(OP_ROLE_OPTIMIZE):
            clip = opt._grad_clip
            if clip is not None and params_grads:
                params_grads = clip._static_clip(params_grads)
            params_grads = _regularized(opt, params_grads)
            return _update_ops(opt, target, params_grads)
    finally:
        opt._static_target = None


def _regularized(opt, params_grads):
    out = []
    with name_scope("regularization"):
        for p, g in params_grads:
            with optimized_guard(p, g):
                out.append((p, opt._create_regularization_of_grad(p, g, opt.regularization)))
    return out


def _update_ops(opt, target, params_grads):
    block = default_main_program().global_block()
    start = len(block.ops)
    lr = target.learning_rate(opt)
    params = [p for p, _ in params_grads if not p.stop_gradient]
    new = [p for p in params if p.name not in opt._prepared]
    hp = opt._default_dict
    if new:
        opt._create_accumulators(new, hp)
        opt._prepared.update(p.name for p in new)
    attrs = opt._op_attrs(hp)
    for p, g in params_grads:
        if p.stop_gradient:
            continue
        with optimized_guard(p, g), name_scope("optimizer"):
            opt._append_optimize_op(p, g, opt._param_lr(p, lr), attrs)
    return block.ops[start:]


def minimize(opt, loss, startup_program=None, parameters=None, no_grad_set=None):
    """Static ``minimize``: returns (optimize_ops, params_grads)."""
    params_grads = backward(opt, loss, startup_program, parameters, no_grad_set)
    with program_guard(loss.block.program, startup_program):
        ops = apply_gradients(opt, params_grads, startup_program)
    return ops, params_grads
