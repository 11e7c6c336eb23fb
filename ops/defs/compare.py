"""Comparisons (less_than ... not_equal), logical and bitwise ops, isnan/isinf/
isfinite (Paddle 2.6's ``*_v2`` op types), equal_all, allclose and isclose.

None of these has a gradient.  Comparisons broadcast like the elementwise ops
(``axis`` aligns Y inside X) and return bool.
"""
from ..declare import defop
from ..meta_rules import broadcast_infer, same_as, BOOL
from ..registry import Meta

_CMP_ATTRS = (("axis", "INT", -1), ("force_cpu", "BOOLEAN", False))

for _name in ("less_than", "less_equal", "greater_than", "greater_equal", "equal",
              "not_equal"):
    defop(_name, "X Y", "Out", _CMP_ATTRS, infer=broadcast_infer(BOOL), same_dtype=("X", "Y"))

for _name in ("logical_and", "logical_or", "logical_xor"):
    defop(_name, "X Y", "Out", infer=broadcast_infer(BOOL), same_dtype=("X", "Y"))
defop("logical_not", "X", "Out", infer=same_as(0, BOOL))

for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    defop(_name, "X Y", "Out", infer=broadcast_infer(), same_dtype=("X", "Y"))
defop("bitwise_not", "X", "Out", infer=same_as(0))

for _name in ("isnan_v2", "isinf_v2", "isfinite_v2"):
    defop(_name, "X", "Out", infer=same_as(0, BOOL))

defop("equal_all", "X Y", "Out", infer=lambda m, a: (Meta((), BOOL),))

# rtol/atol are STRING attributes in Paddle 2.6 (a tensor input may override them)
_CLOSE_ATTRS = (("rtol", "STRING", "1e-05"), ("atol", "STRING", "1e-08"),
                ("equal_nan", "BOOLEAN", False))
defop("allclose", "Input Other Rtol? Atol?", "Out", _CLOSE_ATTRS,
      infer=lambda m, a: (Meta((), BOOL),), same_dtype=("Input", "Other"))
defop("isclose", "Input Other Rtol? Atol?", "Out", _CLOSE_ATTRS,
      infer=lambda m, a: (Meta(tuple(broadcast_infer()(m, {})[0].shape), BOOL),),
      same_dtype=("Input", "Other"))
