"""``paddle.jit.dy2static.logging_utils``: printing converted code and
conversion decisions."""
from ..conversion import set_code_level, set_verbosity  # noqa: F401

__all__ = ["set_code_level", "set_verbosity"]
