"""``sampan.inference``: Config, create_predictor and the Predictor that runs
a saved model on the executor with its plan built once."""
from .config import Config, DataType, PlaceType, PrecisionType
from .predictor import Predictor, Tensor, create_predictor, get_version
from .passes import optimize as _optimize, optimize_program
from ..executor.optimize_hook import register_inference_optimizer

register_inference_optimizer(_optimize)     # jit.load(..., ir_optim=True) runs the passes

__all__ = ["Config", "DataType", "PlaceType", "PrecisionType", "Predictor", "Tensor",
           "create_predictor", "get_version", "optimize_program"]
