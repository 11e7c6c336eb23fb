"""Crash-and-kill tier: savers of multi-file models SIGKILLed at random moments.

For each writer (``jit.save`` of a Layer with an extra method: five files;
``static.save_inference_model``; ``static.save``: three files), a folder holds a complete
old model; a forked child saves a new one (a different program or state with the same
parameter names, so a mix of the two would load and run) and is SIGKILLed a random delay
after its save began (half uniform over the measured save time, half near its end, where
the renames are).  The parent then loads: it must get the old model's outputs or the new
one's exactly, or ``InterruptedSaveError`` naming the files; never a mix, and no temp file
or journal may be left in the folder.  Each trial starts with a save of the old model,
which must leave no temp file either.

``SAMPAN_KILL_TRIALS`` sets the trials per writer (default 20; the issue's campaign is
200); run with ``-s`` to see the counts."""
import contextlib
import os
import signal
import time
from collections import Counter

import numpy as np
import pytest

import sampan as paddle
from sampan.save_load.atomic_set import InterruptedSaveError
from sampan.save_load.fileio import FormatError
from sampan.static import InputSpec
from sampan.utils import unique_name

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

static = paddle.static
TRIALS = int(os.environ.get("SAMPAN_KILL_TRIALS", "20"))
N = 640                                 # 640 x 640 float32 weights: 1.6 MB per file copy
SPEC = [InputSpec([None, N], "float32", "x")]
X = np.random.RandomState(7).rand(3, N).astype("float32")


def _weights(seed):
    rng = np.random.RandomState(seed)
    return (rng.rand(N, N).astype("float32") - 0.5) / 8, rng.rand(N).astype("float32")


# ------------------------------------------------------------------ jit.save
class _Net(paddle.nn.Layer):
    def __init__(self, act, scale):
        super().__init__()
        self.fc = paddle.nn.Linear(N, N)
        self.act, self.scale = act, scale

    @paddle.jit.to_static(input_spec=SPEC)
    def forward(self, x):
        y = self.fc(x)
        if self.act == "relu":
            return paddle.nn.functional.relu(y)
        return paddle.tanh(y)

    @paddle.jit.to_static(input_spec=SPEC)
    def embed(self, x):
        return self.fc(x) * self.scale


class JitCase:
    name = "jit.save"

    def __init__(self):
        self.nets = []
        for seed, act, scale in ((1, "relu", 2.0), (2, "tanh", 3.0)):
            with unique_name.guard():                   # same parameter names in both
                net = _Net(act, scale)
            w, b = _weights(seed)
            net.fc.weight.set_value(w)
            net.fc.bias.set_value(b)
            net.eval()
            self.nets.append(net)

    def save(self, which, prefix):
        paddle.jit.save(self.nets[which], prefix)

    def load(self, prefix):
        layer = paddle.jit.load(prefix)
        with paddle.no_grad():
            x = paddle.to_tensor(X)
            return [layer(x).numpy(), layer.embed(x).numpy()]


# ------------------------------------------------------------------ save_inference_model
def _program(build):
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, startup):
            out = build()
    finally:
        paddle.disable_static()
    return main, startup, out


def _set(scope, values):
    for name, arr in values.items():
        scope.var(name).set(arr)


class InferenceCase:
    name = "save_inference_model"

    def __init__(self):
        self.exe = static.Executor()
        self.models = []
        for seed, act in ((1, paddle.nn.functional.relu), (2, paddle.nn.functional.sigmoid)):
            def build(act=act):
                x = static.data("x", [None, N], "float32")
                return x, act(paddle.nn.Linear(N, N)(x))
            main, startup, (x, out) = _program(build)
            scope = static.Scope()
            with static.scope_guard(scope):
                self.exe.run(startup)
            w, b = _weights(seed)
            params = sorted(p.name for p in main.all_parameters())
            _set(scope, dict(zip(params, (b, w))))      # linear_0.b_0 < linear_0.w_0
            self.models.append((main, scope, x, out))

    def save(self, which, prefix):
        main, scope, x, out = self.models[which]
        with static.scope_guard(scope):
            static.save_inference_model(prefix, [x], [out], self.exe, program=main)

    def load(self, prefix):
        with static.scope_guard(static.Scope()):
            prog, feeds, fetches = static.load_inference_model(prefix, self.exe)
            return self.exe.run(prog, feed={feeds[0]: X}, fetch_list=fetches)


# ------------------------------------------------------------------ static.save
class StaticSaveCase:
    name = "static.save"

    def __init__(self):
        def build():
            x = static.data("x", [None, N], "float32")
            loss = paddle.mean(paddle.nn.Linear(N, N)(x))
            paddle.optimizer.Adam(learning_rate=0.01).minimize(loss)
            return loss
        self.main, startup, _ = _program(build)
        self.scope = static.Scope()
        with static.scope_guard(self.scope):
            static.Executor().run(startup)
        names = [n for n in self.scope.local_var_names()
                 if self.scope.find_var(n).get() is not None]
        self.states = []
        for seed in (1, 2):
            rng = np.random.RandomState(seed)
            state = {}
            for n in names:
                a = np.asarray(self.scope.find_var(n).get())
                state[n] = np.asarray(rng.rand(*a.shape) * 10, a.dtype)
            self.states.append(state)

    def save(self, which, prefix):
        _set(self.scope, self.states[which])
        with static.scope_guard(self.scope):
            static.save(self.main, prefix)

    def load(self, prefix):
        state = static.load_program_state(prefix)
        return [state[n] for n in sorted(self.states[0])]


CASES = {c.name: c for c in (JitCase, InferenceCase, StaticSaveCase)}


# ------------------------------------------------------------------ the campaign
def _hidden(folder):
    return [n for n in os.listdir(folder) if n.startswith(".")]


def _same(a, b):
    return len(a) == len(b) and all(np.array_equal(np.asarray(x), np.asarray(y))
                                    for x, y in zip(a, b))


def _judge(case, prefix, old, new):
    try:
        got = case.load(prefix)
    except InterruptedSaveError:
        return "detected"
    except FormatError:             # a strict loader naming the mismatched file
        return "detected (format)"
    if _same(got, old):
        return "old"
    if _same(got, new):
        return "new"
    return "MIXED"


def _save_times(case, folder):
    """Durations of a few children's saves (what the kill delays span)."""
    prefix = os.path.join(folder, "timing")
    times = [_killed_save(case, prefix, None)[1] for _ in range(5)]
    for f in os.listdir(folder):
        os.remove(os.path.join(folder, f))
    return times


def _killed_save(case, prefix, delay):
    """Fork a child saving the new model; SIGKILL it ``delay`` s after its save began
    (None: never).  ('killed' | 'finished' | 'child error', the save's duration)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(r)
            os.write(w, b"s")
            t0 = time.perf_counter()
            case.save(1, prefix)
            os.write(w, repr(time.perf_counter() - t0).encode())
        except BaseException:               # noqa: BLE001 - reported by the exit status
            code = 3
        os._exit(code)
    os.close(w)
    try:
        os.read(r, 1)                       # the child is about to save
        if delay is not None:
            time.sleep(delay)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        took = os.read(r, 64)
    finally:
        os.close(r)
    if os.WIFSIGNALED(status):
        return "killed", None
    if os.WEXITSTATUS(status) != 0:
        return "child error", None
    return "finished", float(took)


def campaign(case, folder, trials, seed=0):
    rng = np.random.RandomState(seed)
    prefix = os.path.join(folder, "model")
    recent = _save_times(case, folder)      # kept up to date: disks speed up and slow down
    case.save(0, prefix)
    old = case.load(prefix)
    case.save(1, prefix)
    new = case.load(prefix)
    assert not _same(old, new)
    counts = Counter()
    for i in range(trials):
        case.save(0, prefix)                # the next save also cleans up after the last
        assert _hidden(folder) == [], "a save left temp files"
        took = float(np.median(recent[-9:]))
        delay = took * (rng.uniform(0, 1.3) if i % 2 else rng.uniform(0.75, 1.25))
        outcome, duration = _killed_save(case, prefix, delay)
        counts[outcome] += 1
        if duration is not None:
            recent.append(duration)
        left = _hidden(folder)
        if left:
            counts["temps after kill"] += 1
        if any(n.endswith(".save-journal") for n in left):
            counts["killed mid-commit"] += 1
        counts[_judge(case, prefix, old, new)] += 1
        if _hidden(folder):
            counts["TEMPS LEFT after load"] += 1
    counts["save ms (median)"] = round(float(np.median(recent)) * 1000)
    return counts


@pytest.mark.parametrize("writer", sorted(CASES))
def test_killed_saves_load_old_or_new(tmp_path, writer):
    counts = campaign(CASES[writer](), str(tmp_path), TRIALS)
    print(f"\n{writer}: {TRIALS} trials: {dict(sorted(counts.items()))}")
    assert counts["MIXED"] == 0 and counts["TEMPS LEFT after load"] == 0, counts
    assert counts["child error"] == 0, counts
    assert counts["old"] + counts["new"] + counts["detected"] + \
        counts["detected (format)"] == TRIALS
    assert counts["killed"] > 0, counts
