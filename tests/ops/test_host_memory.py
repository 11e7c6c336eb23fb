"""kernels/host_memory.py: importing sampan keeps freed host memory for reuse
on glibc (an array freed and allocated again does not fault its pages in
again), and leaves glibc alone when asked to (SAMPAN_HOST_MALLOC=system, or
glibc's own variables set)."""
import os
import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(platform.system() != "Linux" or
                                platform.libc_ver()[0] != "glibc", reason="glibc only")

_PROBE = """
import resource, numpy as np
import sampan
from sampan.kernels import host_memory
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
a = np.ones(1 << 15); del a                   # 256 KB freed: glibc's threshold follows it
before = faults()
for _ in range(200):
    a = np.empty(50000)                       # two 400 KB blocks from the heap, freed:
    b = np.empty(50000)                       # 800 KB free at its top, past glibc's
    a.fill(1.0); b.fill(1.0)                  # trim threshold (twice 256 KB)
    del b, a
print(host_memory.tuned(), faults() - before)
"""


def _run(**env):
    e = {k: v for k, v in os.environ.items()
         if k not in ("SAMPAN_HOST_MALLOC", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")}
    e.update(env)
    out = subprocess.run([sys.executable, "-c", _PROBE], env=e, capture_output=True,
                         text=True, check=True).stdout.split()
    return out[0] == "True", int(out[1])


def test_freed_memory_is_reused():
    tuned, faults = _run()
    system, system_faults = _run(SAMPAN_HOST_MALLOC="system")
    assert tuned and not system
    # glibc's defaults give the 800 KB back each time and fault ~200 pages in again
    assert system_faults > 200 * 100
    assert faults < system_faults / 20


def test_glibc_variables_win():
    tuned, _ = _run(MALLOC_TRIM_THRESHOLD_="1000000")
    assert not tuned


_PREDICTOR_PROBE = """
import os, resource, sys, tempfile, numpy as np
import sampan as paddle
from sampan import inference
import sampan.inference.predictor as P
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
class Plain:                                   # a run without large_from_heap
    def __enter__(self): return self
    def __exit__(self, *exc): return False
if sys.argv[1] == "plain":
    P.large_from_heap = Plain
paddle.enable_static()
main, start = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, start):
    x = paddle.static.data("x", [-1, 1024, 1024], "float32")
    y = paddle.nn.functional.relu(x * 2.0) + x          # 40 MB temporaries, > 32 MB
exe = paddle.static.Executor()
exe.run(start)
prefix = os.path.join(tempfile.mkdtemp(), "m")
paddle.static.save_inference_model(prefix, [x], [y], exe, program=main)
pred = inference.create_predictor(inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"))
a = np.random.RandomState(0).randn(10, 1024, 1024).astype("float32")
out = pred.run([a])[0]
assert np.allclose(out, np.maximum(a * 2, 0) + a)
del out
pred.run([a])
before = faults()
for _ in range(5):
    pred.run([a])
print(faults() - before)
"""


def _predictor_faults(mode):
    return int(subprocess.run([sys.executable, "-c", _PREDICTOR_PROBE, mode], check=True,
                              capture_output=True, text=True).stdout.split()[-1])


def test_predictor_runs_keep_large_blocks():
    # without it, every run maps its 40 MB temporaries anew and faults them in
    # (huge pages or not); with it the second run on finds them in the heap
    plain, held = _predictor_faults("plain"), _predictor_faults("held")
    assert plain > 5 * 2 * 20          # 5 runs x 2 blocks x 20 huge pages at least
    assert held < plain / 10, (held, plain)


def test_predictor_holds_only_where_values_can_pass_the_threshold(monkeypatch, tmp_path):
    """The switch costs ~1.4 us a run: a model whose largest value (declared
    shapes times the batch) stays under 32 MB runs without it."""
    import numpy as np
    import sampan as paddle
    from sampan import inference
    import sampan.inference.predictor as P
    held = []
    real = P.large_from_heap
    monkeypatch.setattr(P, "large_from_heap", lambda: held.append(1) or real())
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data("x", [-1, 256, 1024], "float32")    # 1 MB a row
            y = paddle.nn.functional.relu(x * 2.0)
        exe = paddle.static.Executor()
        exe.run(start)
        prefix = str(tmp_path / "m")
        paddle.static.save_inference_model(prefix, [x], [y], exe, program=main)
    finally:
        paddle.disable_static()
    pred = inference.create_predictor(inference.Config(prefix + ".pdmodel",
                                                       prefix + ".pdiparams"))
    small = np.ones((2, 256, 1024), "float32")
    np.testing.assert_array_equal(pred.run([small])[0], 2 * small)
    assert held == []
    big = np.ones((40, 256, 1024), "float32")                        # 40 MB values
    np.testing.assert_array_equal(pred.run([big])[0], 2 * big)
    h = pred.get_input_handle("x")
    h.copy_from_cpu(big)
    pred.run()
    assert held == [1, 1]
