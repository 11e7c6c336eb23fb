"""``paddle.base.param_attr``: parameter attributes."""
from ..nn.param_attr import ParamAttr  # noqa: F401
from ..static import WeightNormParamAttr  # noqa: F401
