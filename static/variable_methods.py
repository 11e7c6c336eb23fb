"""The static form of the eager Tensor methods that touch autograd, installed on
the static ``Variable`` (user code calls them inside ``to_static`` functions):

- ``detach()``: a ``share_data`` op (Paddle's) into a new
  ``detach_<name>`` variable with ``stop_gradient=True``;
- ``register_hook(hook)``: ``hook`` runs on the variable's gradient during
  the backward, its result (when not None) replacing it, as eagerly.  Built as
  a ``pylayer`` op (``static.nn.static_pylayer``) whose forward is the
  identity and whose backward block is ``hook`` traced on the gradient
  Variable; the Python object then views the pylayer's output (an in-place
  rebinding, ``Variable._inplace_assign``), so every later use reads the
  hooked value.  ``to_static`` moves a ``y.register_hook(...)`` statement up
  to just after ``y``'s assignment (ast_transforms/register_hooks.py), so
  uses between them are hooked too (Paddle 2.6 does the same and runs the
  hook through ``py_func`` on numpy arrays; eagerly it gets a Tensor, which is
  what this gives it);
- ``tolist()``: a clear error (a Variable has no value while the program is
  built), as ``numpy()``;
- ``backward(grad_tensor=None)`` inside a ``to_static`` function (a whole
  training step traced into one program, as Paddle 2.6's AST to_static
  allows): the backward of the loss is appended (``seeded_backward``: from
  ``grad_tensor``, a Variable or an eager tensor the code holds, of the
  loss's shape and dtype; None: ones, for a loss of any shape, as eagerly),
  and each trainable parameter's gradient is added to its traced ``.grad``
  (program/traced_grads.py), which a traced ``optimizer.step()`` reads
  (optimizer/static_minimize.py) and the call writes into ``.grad``.
  Outside ``to_static`` a static Variable has no ``backward()``, as in
  Paddle (``append_backward`` / ``minimize`` build one).
"""
from ..ops import OpError, is_graph_value
from ..program.backward import seeded_backward
from ..program.program_guard import default_main_program
from ..program.static_mode import append_op
from ..program.traced_grads import traced_grads
from ..program.variable import Variable, VarType
from ..program.value_request import request_value
from ..program import views
from ..utils import unique_name
from .nn.static_pylayer import static_pylayer

__all__ = ["backward", "detach", "hooked", "register_hook", "tolist"]


def detach(self):
    """A new Variable holding this one's value, stopping gradients."""
    if self.type not in (VarType.LOD_TENSOR, VarType.SELECTED_ROWS):
        raise TypeError(f"detach: only a LoDTensor or SelectedRows variable can be detached; "
                        f"'{self.name}' is a {self.type_str()}")
    block = default_main_program().current_block()
    out = block.create_var(name=unique_name.generate_with_ignorable_key("detach_" + self.name),
                           shape=self.shape, dtype=self.np_dtype, type=self.type)
    out.stop_gradient = True
    append_op(block, "share_data", {"X": [self]}, {"Out": [out]})
    return views.link(self, out, detach)    # a view: writes into either reach both


class _StaticHookHandle:
    """What ``register_hook`` returns: the hook is part of the program's
    backward from the moment it is registered."""

    def __init__(self, name):
        self.name = name

    def remove(self):
        raise OpError(f"register_hook: the hook on '{self.name}' is already part of the "
                      f"static program (its backward block was built when it was "
                      f"registered) and cannot be removed; register it only on the path "
                      f"that needs it")


def hooked(self, hook):
    """A new Variable holding this one's value whose gradient ``hook`` sees
    (the pylayer's output; this one is left as it is)."""
    if not callable(hook):
        raise TypeError(f"register_hook: hook must be callable, got {type(hook).__name__}")
    if self.stop_gradient:
        raise RuntimeError(f"cannot register a hook on a tensor with stop_gradient=True "
                           f"('{self.name}')")
    if self.persistable:
        raise RuntimeError(f"register_hook on the persistable variable '{self.name}' in a "
                           f"Program is not supported: register it on the value that uses it")

    def backward(grad):
        res = hook(grad)
        return grad if res is None else res

    return static_pylayer(lambda v: v, [self], backward_fn=backward)


def register_hook(self, hook):
    """Call ``hook(grad)`` on this variable's gradient in the backward; a
    returned Variable replaces the gradient.  This Python object then views
    the hooked value."""
    self._inplace_assign(hooked(self, hook))
    return _StaticHookHandle(self.name)


def tolist(self):
    # a ValueRequest (TypeError): to_static's graph break (program/value_request.py)
    return request_value(self, ".tolist()").tolist()


def backward(self, grad_tensor=None, retain_graph=False):
    """The loss's backward appended to its to_static program (module doc)."""
    program = self.block.program
    if not getattr(program, "to_static_trace", False):
        raise AssertionError(
            f"backward() of static variable '{self.name}': a static program has no eager "
            f"backward; build it with paddle.static.append_backward(loss) or "
            f"optimizer.minimize(loss), or call backward() inside a paddle.jit.to_static "
            f"function")
    if retain_graph:
        raise AssertionError(f"backward() of '{self.name}' inside to_static: retain_graph=True "
                             f"is not supported (the program's backward is built once); "
                             f"call it with retain_graph=False")
    if grad_tensor is not None and not is_graph_value(grad_tensor):
        if not hasattr(grad_tensor, "_data"):         # (static/ never imports dygraph/)
            raise TypeError(f"backward() of '{self.name}': grad_tensor must be a Tensor, got "
                            f"{type(grad_tensor).__name__}")
        grad_tensor = program.bind_tensor(grad_tensor)      # an eager tensor the code holds
    state = traced_grads(program, create=True)
    block = program.global_block()
    for param, grad in seeded_backward(self, grad_tensor, walked=state.walked):
        if grad is not None:
            state.add(block, param, grad)


Variable.backward = backward
Variable.detach = detach
Variable.register_hook = register_hook
Variable.tolist = tolist
