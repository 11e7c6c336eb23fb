"""``sampan.inference``: Config, create_predictor and the Predictor that runs
a saved model on the executor with its plan built once."""
from .config import (Config, DataType, PlaceType, PrecisionType, XpuConfig,
                     get_num_bytes_of_data_type)
from .predictor import (Predictor, PredictorPool, Tensor, create_predictor, get_version,
                        get_trt_compile_version, get_trt_runtime_version)
from ..ops.phi_names import phi_kernel_name as _get_phi_kernel_name
from .passes import optimize as _optimize, optimize_program
from .mixed_precision import convert_to_mixed_precision
from ..executor.optimize_hook import register_inference_optimizer

register_inference_optimizer(_optimize)     # jit.load(..., ir_optim=True) runs the passes

__all__ = ["Config", "DataType", "PlaceType", "PrecisionType", "Predictor", "PredictorPool",
           "Tensor", "XpuConfig", "convert_to_mixed_precision", "create_predictor", "get_num_bytes_of_data_type",
           "get_trt_compile_version", "get_trt_runtime_version", "get_version",
           "optimize_program"]
