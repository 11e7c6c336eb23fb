"""``paddle.framework.random``: the global random state."""
from ..tensor.random import (seed, get_rng_state, set_rng_state, get_cuda_rng_state,  # noqa: F401
                             set_cuda_rng_state)
