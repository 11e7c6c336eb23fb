"""The op-spec table: one ``Case`` per op configuration, collected from every
``cases_*.py`` module in this folder.  ``test_op_table.py`` drives, for each
case: the kernel against its numpy reference, infer_meta against the kernel's
actual outputs, and finite-difference gradient checks: first order; second
order where ``order2=True``; second and third order where ``order3=True``.

    Case("elementwise_add", {"X": a, "Y": b}, ref=lambda X, Y: X + Y)

``inputs`` maps slot -> numpy array (a list for duplicable slots); ``ref``
receives the inputs as keyword arguments plus ``attrs`` when it declares it,
and returns one array or a tuple (one per compared output, in output-slot
order, ``None`` to skip one).  ``grad`` names the input slots to check
(default: every float input); ``grad=False`` marks a case without a gradient
check (an op must still have one case with it when it is differentiable).
``symmetric`` names input slots holding symmetric matrices that the op reads
through one triangle (cholesky, eigh): their finite differences move X[i, j]
and X[j, i] together, compared with the analytic gradient's projection on
those directions (G[i, j] + G[j, i]; G[i, i] on the diagonal).
"""
import importlib
import inspect
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np


@dataclass
class Case:
    op: str
    inputs: dict
    attrs: dict = field(default_factory=dict)
    ref: Callable | None = None
    grad: Any = None               # None: all float inputs; False: no check; tuple of slots
    outputs: tuple | None = None   # output slots compared to ref (default: non-intermediate)
    grad_outputs: tuple | None = None   # outputs the check's loss is built from
    order2: bool = False           # check second-order gradients (the grad ops' grads)
    order3: bool = False           # check second- and third-order gradients
    rtol: float = 1e-5
    atol: float = 1e-6
    grad_tol: float = 1e-4
    eps: float = 1e-6
    random_op: bool = False        # ref checks properties instead of values
    symmetric: tuple = ()          # input slots of symmetric matrices (see above)
    const_out_grad: bool = False   # the gradient checks start from ones (loss = sum of outputs)
    id: str = ""

    def name(self):
        return self.id or self.op

    def order(self):
        """The highest order of gradient the table checks for this case."""
        if self.grad is False:
            return 0
        return 3 if self.order3 else 2 if self.order2 else 1


def call_ref(case):
    kwargs = {k.replace("@", "_"): v for k, v in case.inputs.items()}
    sig = inspect.signature(case.ref)
    if "attrs" in sig.parameters:
        kwargs["attrs"] = case.attrs
    out = case.ref(**{k: v for k, v in kwargs.items() if k in sig.parameters or
                      any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())})
    return out if isinstance(out, tuple) else (out,)


def all_cases():
    from . import __path__ as here
    cases = []
    for m in sorted(mi.name for mi in pkgutil.iter_modules(here)):
        if m.startswith("cases_"):
            mod = importlib.import_module(f"{__package__}.{m}")
            cases.extend(mod.CASES)
    return cases


def rand(*shape, low=-1.0, high=1.0, dtype="float64", seed=None):
    rng = np.random.default_rng(seed if seed is not None else hash(shape) % 2**32)
    return rng.uniform(low, high, shape).astype(dtype)


def away_from(x, points, margin=0.05):
    """Nudge values away from kinks (|x - p| < margin) so finite differences are valid."""
    x = x.copy()
    for p in points:
        near = np.abs(x - p) < margin
        x[near] = p + margin * 2 * np.sign(x[near] - p + 1e-12)
    return x
