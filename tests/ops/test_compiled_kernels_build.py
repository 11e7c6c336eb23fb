"""The kernels sampan writes as LLVM IR build wherever the host can run them.

Each family compiles once per process and, if llvmlite cannot build its IR,
reports itself unavailable so callers keep their numpy/BLAS paths (and the
family's own tests skip).  That fallback must not hide a broken generator: on a
host whose vectors the kernels target (AVX2 + FMA or AVX-512), every family has
to compile, at every width it is built for."""
import os

import pytest

from sampan.kernels.cpu import (depthwise_kernel, gemm_kernel, gemm_transposed, llvm_jit,
                                sigmoid_kernel, winograd_kernel)

LANES = llvm_jit.vector_lanes()
pytestmark = pytest.mark.skipif(
    LANES is None or os.environ.get("SAMPAN_NUMBA") == "0" or
    os.environ.get("SAMPAN_GEMM_KERNEL") == "0",
    reason="no llvmlite, no AVX2 + FMA, or the compiled kernels switched off")


def test_gemm_kernels_build_at_every_width():
    assert gemm_kernel.available()
    for lanes in sorted({8, LANES}):
        built = gemm_kernel._compile(lanes=lanes)
        assert built is not None and built[1] == lanes
        assert set(gemm_kernel.SHAPES[lanes]) <= set(built[0])


def test_transposed_gemm_kernels_build_at_every_width():
    assert gemm_transposed.available() and gemm_transposed.lanes() == LANES
    for lanes in sorted({8, LANES}):
        built = gemm_kernel._compile(lanes=lanes)
        assert {("t",) + s for s in gemm_kernel.TRANS_SHAPES[lanes]} <= set(built[0])


@pytest.mark.parametrize("k", depthwise_kernel.SIZES)
@pytest.mark.parametrize("stride", depthwise_kernel.STRIDES)
def test_depthwise_kernels_build(k, stride):
    assert depthwise_kernel.available(k, stride)


def test_winograd_and_sigmoid_kernels_build():
    assert winograd_kernel.available()
    assert sigmoid_kernel.available()
