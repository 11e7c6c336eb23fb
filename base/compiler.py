"""``paddle.base.compiler``: compiled programs and their strategies."""
from ..executor.compiled import CompiledProgram, BuildStrategy, ExecutionStrategy  # noqa: F401
from ..static import IpuCompiledProgram, IpuStrategy  # noqa: F401
