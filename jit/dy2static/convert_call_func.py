"""``paddle.jit.dy2static.convert_call_func``: ``convert_call``, what converted
code calls in place of a function (builtins' converters, user functions,
methods and Layers converted recursively, anything else as it is)."""
from ..convert_runtime import convert_call  # noqa: F401

__all__ = ["convert_call"]
