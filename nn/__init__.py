"""``paddle.nn``: Layer, the layer library, initializers, gradient clipping.
Written once on top of the public op functions, so it runs eagerly and
(later) in static mode."""
from . import functional  # noqa: F401
from . import initializer  # noqa: F401
from . import layer  # noqa: F401
from . import utils  # noqa: F401
from .layer import *  # noqa: F401,F403
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue  # noqa: F401
from .decode import BeamSearchDecoder, dynamic_decode  # noqa: F401
