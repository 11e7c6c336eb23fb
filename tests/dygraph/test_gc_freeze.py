"""The import's objects are frozen out of the collector's walks and the young
generation is widened (dygraph/gc_freeze.py); what is made afterwards is
collected as before."""
import gc
import os
import subprocess
import sys
import weakref

import numpy as np

import sampan as paddle
from sampan.dygraph.gc_freeze import widen_young_generation

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _in_fresh_process(variable, env_value, expr):
    env = dict(os.environ)
    env.pop(variable, None)
    if env_value is not None:
        env[variable] = env_value
    code = f"import gc, sampan; print({expr})"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=os.path.dirname(ROOT), timeout=300)
    return out


def _freeze_count_in_fresh_process(env_value):
    out = _in_fresh_process("SAMPAN_GC_FREEZE", env_value, "gc.get_freeze_count()")
    assert out.returncode == 0, out.stderr
    return int(out.stdout)


def _young_threshold_in_fresh_process(env_value):
    out = _in_fresh_process("SAMPAN_GC_YOUNG", env_value, "gc.get_threshold()[0]")
    assert out.returncode == 0, out.stderr
    return int(out.stdout)


def test_import_freezes_its_objects_and_the_variable_opts_out():
    frozen = _freeze_count_in_fresh_process(None)
    assert frozen > 10000          # modules, classes, functions, op records
    assert _freeze_count_in_fresh_process("0") == 0


def test_cycles_made_after_import_are_still_collected():
    layer = paddle.nn.Linear(3, 2)
    x = paddle.to_tensor(np.ones((1, 3), "float32"), stop_gradient=False)
    y = layer(x).sum()
    y.backward()
    layer.self_ref = [layer]          # a cycle only the collector can free
    probe = weakref.ref(layer)
    del layer, y
    gc.collect()
    assert probe() is None


def test_import_widens_the_young_generation_and_the_variable_sets_or_opts_out():
    plain = subprocess.run([sys.executable, "-c", "import gc; print(gc.get_threshold()[0])"],
                           capture_output=True, text=True, timeout=300)
    cpython = int(plain.stdout)                 # this interpreter's own threshold
    assert _young_threshold_in_fresh_process(None) == max(10_000, cpython)
    assert _young_threshold_in_fresh_process("0") == cpython
    assert _young_threshold_in_fresh_process("50000") == 50_000
    out = _in_fresh_process("SAMPAN_GC_YOUNG", "many", "1")
    assert out.returncode != 0 and "SAMPAN_GC_YOUNG must be an integer" in out.stderr


def test_a_recorded_step_is_freed_by_its_backward_before_a_young_collection(monkeypatch):
    """1000 recorded ops and their backward: no collection runs (the tape's
    objects are freed by reference counting before the young generation fills)."""
    monkeypatch.delenv("SAMPAN_GC_YOUNG", raising=False)
    before = gc.get_threshold()
    gc.set_threshold(700, *before[1:])        # CPython's default, then sampan's widening
    assert widen_young_generation() == 10_000
    x = paddle.to_tensor(np.ones(4, "float32"), stop_gradient=False)
    b = paddle.to_tensor(np.full(4, 0.5, "float32"))
    one = paddle.to_tensor(np.ones(4, "float32"))
    runs = []

    def count(phase, info):
        if phase == "start":
            runs.append(info["generation"])
    gc.collect()
    gc.callbacks.append(count)
    try:
        for _ in range(5):
            y = x
            for _ in range(500):
                y = y + b
                y = y * one
            y.sum().backward()
            del y
    finally:
        gc.callbacks.remove(count)
        gc.set_threshold(*before)
    assert runs == []
    np.testing.assert_array_equal(x.grad.numpy(), np.full(4, 5, "float32"))
