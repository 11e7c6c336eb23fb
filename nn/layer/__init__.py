"""``paddle.nn.layer``: the Layer base class and the layer library.  Every
module lists its public names in ``__all__``; they are re-exported here and
from ``sampan.nn``."""
import importlib

_MODULES = ("layers", "container", "common", "conv", "pooling", "norm", "activation",
            "loss", "loss_extra", "transformer", "transformer_decoder", "extra", "rnn",
            "norm_extra")

__all__ = []
for _m in _MODULES:
    _mod = importlib.import_module(f"{__name__}.{_m}")
    for _n in _mod.__all__:
        globals()[_n] = getattr(_mod, _n)
        __all__.append(_n)
