"""numba's on-disk cache must not fail a kernel call (kernels/cpu/fused_elementwise.py
``cached_njit``): processes that compile the same function at once can break a
save (KeyError, then ReferenceError) or leave an index that fails to load."""
import numpy as np
import pytest

from sampan.kernels.cpu.fused_elementwise import cached_njit, numba_available

pytestmark = pytest.mark.skipif(not numba_available(), reason="numba is not installed")


def _twice(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = 2 * a[i]
    return out


def _thrice(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = 3 * a[i]
    return out


def _raise(*args):
    raise ReferenceError("underlying object has vanished")


def test_a_failing_save_keeps_the_compiled_kernel():
    fn = cached_njit(_twice)
    fn._cache._save_overload = _raise          # what a racing process causes
    fn._cache._load_overload = lambda *a: None   # a miss: compile, then save
    np.testing.assert_array_equal(fn(np.arange(4.0)), [0, 2, 4, 6])


def test_a_failing_load_compiles_in_memory():
    fn = cached_njit(_thrice)
    fn._cache._load_overload = _raise
    fn._cache._save_overload = lambda *a: None
    np.testing.assert_array_equal(fn(np.arange(3.0)), [0, 3, 6])
