"""``sampan.inference``: Config, create_predictor and the Predictor that runs
a saved model on the executor with its plan built once."""
from .config import Config, DataType, PlaceType, PrecisionType
from .predictor import Predictor, Tensor, create_predictor, get_version

__all__ = ["Config", "DataType", "PlaceType", "PrecisionType", "Predictor", "Tensor",
           "create_predictor", "get_version"]
