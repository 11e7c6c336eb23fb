"""``paddle.version``: which Paddle this is, and what it was built with.

Scripts read it to choose a code path (``paddle.version.full_version``) or to
report their environment (``paddle.version.cuda()``, ``show()``).  sampan
implements Paddle 2.6.2's API, so the version fields are 2.6.2's; the build
facts are sampan's own: no MKL (numpy's BLAS), no cuDNN, XPU or CINN, and CUDA
only when cupy finds a GPU (the runtime's version then, as ``'12.2'``).
``show()`` names sampan's own version too.
"""
from ..kernels.transform import gpu_available
from ..utils.version import PADDLE_API_VERSION, __version__ as sampan_version

__all__ = []

full_version = PADDLE_API_VERSION
major, minor, patch = full_version.split(".")
rc = "0"
istaged = True
commit = f"sampan-{sampan_version}"
with_mkl = "OFF"
cudnn_version = xpu_version = xpu_xccl_version = cinn_version = "False"


def _cuda_runtime():
    """'major.minor' of the CUDA runtime cupy uses, when it finds a GPU; else 'False'."""
    if not gpu_available():
        return "False"
    from ..kernels.transform import _cp
    v = _cp.cuda.runtime.runtimeGetVersion()        # e.g. 12020
    return f"{v // 1000}.{v % 1000 // 10}"


def __getattr__(name):
    if name == "cuda_version":          # read when asked: finding a GPU starts CUDA
        return _cuda_runtime()
    raise AttributeError(f"module 'paddle.version' has no attribute {name!r}")


def cuda():
    """The CUDA version this build uses ('False' without a GPU)."""
    return _cuda_runtime()


def cudnn():
    return cudnn_version


def xpu():
    return xpu_version


def xpu_xccl():
    return xpu_xccl_version


def cinn():
    return cinn_version


def mkl():
    return with_mkl


def show():
    """Print the version and the build facts, as Paddle's ``show()`` does."""
    for key, value in (("full_version", full_version), ("major", major), ("minor", minor),
                       ("patch", patch), ("rc", rc), ("cuda", cuda()), ("cudnn", cudnn()),
                       ("xpu", xpu()), ("xpu_xccl", xpu_xccl()), ("cinn", cinn())):
        print(f"{key}: {value}")
    print(f"sampan: {sampan_version} (PaddlePaddle {full_version}'s API on numpy)")
