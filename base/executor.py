"""``paddle.base.executor``: the Executor and its scopes."""
from ..executor import Executor, global_scope, scope_guard, Scope  # noqa: F401
