"""``paddle.optimizer``: optimizers (update math = the sgd/momentum/adam/adamw/
rmsprop/adagrad/adamax/adadelta/lamb op kernels), ``optimizer.lr`` schedulers, and the
regularizers exposed as ``paddle.regularizer``."""
from . import lr, regularizer  # noqa: F401
from .optimizer import Optimizer
from .sgd import SGD
from .momentum import Momentum
from .adam import Adam
from .adamw import AdamW
from .rmsprop import RMSProp
from .adagrad import Adagrad
from .adamax import Adamax
from .adadelta import Adadelta
from .lamb import Lamb
from .lbfgs import LBFGS

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamW", "RMSProp", "Adagrad", "Adamax", "Adadelta",
           "Lamb", "LBFGS"]
