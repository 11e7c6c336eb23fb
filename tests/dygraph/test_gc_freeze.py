"""The import's objects are frozen out of the collector's walks (dygraph/gc_freeze.py);
what is made afterwards is collected as before."""
import gc
import os
import subprocess
import sys
import weakref

import numpy as np

import sampan as paddle

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _freeze_count_in_fresh_process(env_value):
    env = dict(os.environ)
    env.pop("SAMPAN_GC_FREEZE", None)
    if env_value is not None:
        env["SAMPAN_GC_FREEZE"] = env_value
    code = "import gc, sampan; print(gc.get_freeze_count())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=os.path.dirname(ROOT), timeout=300)
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

