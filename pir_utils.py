"""``paddle.pir_utils``: the IR switches of Paddle's tests.  sampan builds
legacy-IR (ProgramDesc) Programs only; see ``program/legacy.py``."""
from .program.legacy import (IrGuard, OldIrGuard, test_with_pir_api,  # noqa: F401
                             test_with_old_ir_only)

__all__ = []
