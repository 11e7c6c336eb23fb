"""Paddle's ``BasicApiTransformer`` rule for dygraph-only APIs in converted
code: ``base.dygraph.to_variable`` (dynamic-graph mode only when called
directly) becomes an ``assign`` of its value while the function is traced.
sampan's converted code calls every function through ``convert_call``, so
the rule is an entry of its converter table rather than a source rewrite."""
from ...tensor.legacy_dygraph import to_variable, variable_or_assign
from ..convert_runtime import BUILTIN_CONVERTERS

__all__ = []

BUILTIN_CONVERTERS[to_variable] = variable_or_assign
