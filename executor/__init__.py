"""The executor: runs static Programs.

``plan`` (variable table, one instruction per op with its kernel chosen once)
-> ``deps`` (RAW/WAR/WAW + ordering of random/side-effect ops, reduced by
happens-before) -> ``liveness`` (when each temporary is freed; ``reuse``: which
ops write into the buffer of an input that dies at them) -> ``runner``
(compiled serial, instrumented loop, or threaded; same results) ->
``run_plan`` (``PlanRun``: a plan with its persistables bound, run on arrays:
feeds checked, fetches collected; the Executor, jit's partial program and the
inference Predictor all run through it) -> ``executor`` (``Executor.run``, the
interpreter cache, feeds from a dict, errors).  ``explain`` prints a plan;
``scope`` holds the values that outlive a run.
"""
from .scope import Scope, ScopeVar, LoDTensor, global_scope, scope_guard
from .executor import Executor, ExecutionConfig, Interpreter
from .run_plan import PlanRun, FeedSpec
from .plan import register_op_runner
from .runner import ExecutionError
from . import control_flow  # noqa: F401  (runners of sub-block and array ops)
from . import control_flow_grad  # noqa: F401  (conditional_block_grad, while_grad)
from . import pylayer  # noqa: F401  (pylayer, pylayer_grad)

__all__ = ["Executor", "ExecutionConfig", "Interpreter", "PlanRun", "FeedSpec", "Scope",
           "ScopeVar", "LoDTensor", "global_scope", "scope_guard", "register_op_runner",
           "ExecutionError"]
