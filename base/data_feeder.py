"""``paddle.base.data_feeder``: the input checks of static-graph layer code."""
from ..program.legacy import (convert_dtype, check_type, check_dtype,  # noqa: F401
                              check_variable_and_dtype)
