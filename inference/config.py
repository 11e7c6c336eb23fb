"""``sampan.inference.Config``: where a model's files are and how to run it.

``Config(model_file, params_file)``, ``Config(path_prefix)`` (``prefix.pdmodel`` +
``prefix.pdiparams``), ``Config(model_dir)`` (the one ``*.pdmodel`` in it, or a
legacy ``__model__``), or ``Config()`` then ``set_model``.  An empty or missing
params file is fine for a model without parameters.

sampan runs on the CPU with numpy, so the device, thread, MKLDNN, TensorRT and
memory settings Paddle users call are accepted and remembered but change nothing
(``enable_xpu`` refuses, as Paddle's CPU build does, and the XPU setters want it);
``switch_ir_optim`` (on by default) turns sampan's own graph passes on or off
(``inference.passes``).
"""
import os

__all__ = ["Config", "PrecisionType", "PlaceType", "DataType", "XpuConfig",
           "get_num_bytes_of_data_type"]


class PrecisionType:
    Float32, Int8, Half, Bfloat16 = 0, 1, 2, 3


class PlaceType:
    UNK, CPU, GPU, XPU, CUSTOM = -1, 0, 1, 2, 3


class DataType:
    """Paddle Inference's tensor data types (``Tensor.type()``)."""
    FLOAT32, INT64, INT32, UINT8, INT8, FLOAT16, BOOL, FLOAT64 = 0, 1, 2, 3, 4, 5, 6, 7

    BY_NUMPY = {"float32": FLOAT32, "int64": INT64, "int32": INT32, "uint8": UINT8,
                "int8": INT8, "float16": FLOAT16, "bool": BOOL, "float64": FLOAT64}


# bytes per element of each DataType (Paddle 2.6.2 answers FLOAT32, INT64, INT32
# and UINT8 and gives -1 for the rest, an unfinished switch; these are the sizes)
_NBYTES = {DataType.FLOAT32: 4, DataType.INT64: 8, DataType.INT32: 4, DataType.UINT8: 1,
           DataType.INT8: 1, DataType.FLOAT16: 2, DataType.BOOL: 1, DataType.FLOAT64: 8}


def get_num_bytes_of_data_type(dtype):
    """Bytes per element of an inference ``DataType``."""
    try:
        return _NBYTES[dtype]
    except (KeyError, TypeError):
        raise ValueError(f"get_num_bytes_of_data_type: {dtype!r} is not an inference "
                         f"DataType (one of {sorted(_NBYTES)})") from None


class XpuConfig:
    """Paddle Inference's XPU settings (``Config.set_xpu_config``), with its
    fields and defaults.  sampan has no XPU backend: ``Config.enable_xpu``
    refuses, as Paddle's CPU build does, so a config never holds one."""

    def __init__(self):
        self.device_id = 0
        self.l3_size = 0
        self.l3_ptr = None
        self.l3_autotune_size = 0
        self.context_gm_size = -1
        self.context = None
        self.stream = None
        self.conv_autotune_level = 0
        self.conv_autotune_file = ""
        self.conv_autotune_file_writeback = False
        self.fc_autotune_level = 0
        self.fc_autotune_file = ""
        self.fc_autotune_file_writeback = False
        self.gemm_compute_precision = 1
        self.transformer_softmax_optimize_level = 0
        self.transformer_encoder_adaptive_seqlen = True
        self.quant_post_static_gelu_out_threshold = 10.0
        self.quant_post_dynamic_activation_method = 0
        self.quant_post_dynamic_weight_precision = 1
        self.quant_post_dynamic_op_types = []


def _resolve(path):
    """(model file, params file) for a path prefix or a model directory."""
    path = os.fspath(path)
    if os.path.isdir(path):
        found = sorted(f for f in os.listdir(path) if f.endswith(".pdmodel"))
        if len(found) == 1:
            base = os.path.join(path, found[0][:-len(".pdmodel")])
            return base + ".pdmodel", base + ".pdiparams"
        if os.path.isfile(os.path.join(path, "__model__")):
            return os.path.join(path, "__model__"), os.path.join(path, "__params__")
        raise ValueError(f"model directory {path} holds {len(found)} .pdmodel files; pass "
                         f"Config(model_file, params_file)")
    for suffix in (".pdmodel", ".pdiparams"):
        if path.endswith(suffix):
            path = path[:-len(suffix)]
    return path + ".pdmodel", path + ".pdiparams"


class Config:
    """Paddle Inference's ``Config`` (AnalysisConfig)."""

    def __init__(self, model_file=None, params_file=None):
        self._model, self._params, self._dir = None, None, None
        self._ir_optim = True
        self._threads = 1
        self._threads_given = False
        self._memory_optim = False
        self._glog = True
        self._mkldnn = False
        self._use_gpu = False
        self._device_id = 0
        self._feed_fetch_ops = True
        self._specify_input_names = False
        self._deleted_passes = set()
        self._profile = False
        if model_file is not None and params_file is None:
            self._dir = os.fspath(model_file)
            self._model, self._params = _resolve(model_file)
        elif model_file is not None:
            self.set_model(model_file, params_file)

    # ------------------------------------------------------------- files
    def set_model(self, model_file, params_file=None):
        if params_file is None:          # set_model(model_dir)
            self._dir = os.fspath(model_file)
            self._model, self._params = _resolve(model_file)
        else:
            self._model, self._params = os.fspath(model_file), os.fspath(params_file)

    def set_prog_file(self, path):
        self._model = os.fspath(path)

    def set_params_file(self, path):
        self._params = os.fspath(path)

    def set_model_dir(self, path):
        self.set_model(path)

    def prog_file(self):
        return self._model or ""

    def params_file(self):
        return self._params or ""

    def model_dir(self):
        return self._dir or ""

    def model_from_memory(self):
        return False

    def is_valid(self):
        return bool(self._model) and os.path.isfile(self._model)

    # ------------------------------------------------------------- passes
    def switch_ir_optim(self, x=True):
        self._ir_optim = bool(x)

    def ir_optim(self):
        return self._ir_optim

    def delete_pass(self, name):
        self._deleted_passes.add(name)

    def pass_builder(self):
        return _PassBuilder(self)

    # ------------------------------------------------------------- accepted, no effect
    def disable_gpu(self):
        self._use_gpu = False

    def enable_use_gpu(self, memory_pool_init_size_mb=100, device_id=0, precision_mode=None):
        self._use_gpu, self._device_id = True, device_id

    def use_gpu(self):
        return False                     # sampan's predictor runs on the CPU

    def gpu_device_id(self):
        return self._device_id

    def enable_xpu(self, l3_size=16777216, l3_locked=False, conv_autotune=False,
                   conv_autotune_file="", transformer_encoder_precision="int16",
                   transformer_encoder_adaptive_seqlen=False, enable_multi_stream=False):
        raise RuntimeError("enable_xpu: sampan has no XPU backend (its predictor runs on the "
                           "CPU); Paddle's CPU build refuses the same way")

    def use_xpu(self):
        return False

    def xpu_device_id(self):
        return 0

    def set_xpu_device_id(self, device_id=0):
        raise RuntimeError("set_xpu_device_id: call enable_xpu first (sampan has no XPU "
                           "backend)")

    def set_xpu_config(self, xpu_config):
        raise RuntimeError("set_xpu_config: call enable_xpu first (sampan has no XPU backend)")

    def xpu_config(self):
        return XpuConfig()

    def set_cpu_math_library_num_threads(self, n):
        """Threads of the math library (numpy's BLAS, kernels/blas_threads.py),
        set when a predictor is created from this config (process-wide, as
        Paddle's MKL setting)."""
        if int(n) < 1:
            raise ValueError(f"set_cpu_math_library_num_threads needs n >= 1, got {n}")
        self._threads = int(n)
        self._threads_given = True

    def cpu_math_library_num_threads(self):
        return self._threads

    def disable_glog_info(self):
        self._glog = False

    def glog_info_disabled(self):
        return not self._glog

    def enable_memory_optim(self, x=True):
        self._memory_optim = bool(x)

    def enable_memory_optim_status(self):
        return self._memory_optim

    def switch_use_feed_fetch_ops(self, x=True):
        self._feed_fetch_ops = bool(x)

    def switch_specify_input_names(self, x=True):
        self._specify_input_names = bool(x)

    def enable_mkldnn(self):
        self._mkldnn = True

    def disable_mkldnn(self):
        self._mkldnn = False

    def mkldnn_enabled(self):
        return False

    def set_mkldnn_cache_capacity(self, capacity=0):
        pass

    def enable_mkldnn_bfloat16(self):
        pass

    def enable_tensorrt_engine(self, *args, **kwargs):
        pass

    def tensorrt_engine_enabled(self):
        return False

    def enable_onnxruntime(self):
        pass

    def disable_onnxruntime(self):
        pass

    def enable_profile(self):
        """Time every op the predictor runs; the report (per op type: calls,
        total, min, max, average, ratio) is printed when the predictor goes
        away and returned by ``Predictor.profile_report()`` (inference/profile.py)."""
        self._profile = True

    def set_optim_cache_dir(self, path):
        pass

    def exp_disable_mixed_precision_ops(self, ops):
        pass

    def enable_low_precision_io(self, x=True):
        pass

    def summary(self):
        rows = [("model_file", self.prog_file()), ("params_file", self.params_file()),
                ("ir_optim", self._ir_optim), ("use_gpu", False),
                ("cpu_math_threads", self._threads), ("memory_optim", self._memory_optim)]
        w = max(len(k) for k, _ in rows)
        return "\n".join(f"{k:<{w}}  {v}" for k, v in rows)

    def __repr__(self):
        return f"Config(model_file={self.prog_file()!r}, params_file={self.params_file()!r})"


class _PassBuilder:
    def __init__(self, config):
        self._config = config

    def delete_pass(self, name):
        self._config.delete_pass(name)

    def all_passes(self):
        from .passes import PASSES
        return [n for n in PASSES if n not in self._config._deleted_passes]
