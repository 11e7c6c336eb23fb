"""``paddle.nn.initializer``: how parameters get their first values.  Each
initializer names one creation op (uniform_random, gaussian_random,
truncated_gaussian_random, fill_constant, assign_value) and its attributes;
the op runs eagerly, or is appended to a static (startup) block."""
from .initializer import (Initializer, calculate_gain, set_global_initializer,  # noqa: F401
                          _global_weight_initializer, _global_bias_initializer)
from .common import Constant, Uniform, Normal, TruncatedNormal, Assign  # noqa: F401
from .fan import (XavierNormal, XavierUniform, KaimingNormal, KaimingUniform,  # noqa: F401
                  XavierInitializer, MSRAInitializer)
from .extra import Orthogonal, Dirac, Bilinear  # noqa: F401

__all__ = ["Initializer", "Constant", "Uniform", "Normal", "TruncatedNormal", "Assign",
           "XavierNormal", "XavierUniform", "KaimingNormal", "KaimingUniform",
           "Orthogonal", "Dirac", "Bilinear", "calculate_gain", "set_global_initializer"]
