"""to_static's default mode (full_graph=False) with graph breaks: a call whose
trace needs a tensor's value gives eager's values, gradients and side
effects, on every call and both arms of each guard, without retracing;
full_graph=True and jit.save raise GraphBreakError naming the line."""
import inspect
import os
import re

import numpy as np
import pytest

import sampan as paddle
from sampan.jit.graph_break import GraphBreakError

from .cases import CASES, inputs, snippet, two_breaks, branch_float

F = paddle.nn.functional


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_eager(name):
    fn = CASES[name]
    sf = paddle.jit.to_static(fn)
    for a in inputs(name) + inputs(name):       # repeated calls: cache hits
        xe = paddle.to_tensor(a, stop_gradient=False)
        xs = paddle.to_tensor(a, stop_gradient=False)
        ye, ys = fn(xe), sf(xs)
        np.testing.assert_allclose(ys.numpy(), ye.numpy(), rtol=1e-6, atol=1e-6)
        ye.sum().backward()
        ys.sum().backward()
        if xe.grad is None:
            assert xs.grad is None
        else:
            np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy(), rtol=1e-6,
                                       atol=1e-6)
    # one key, traced once, never a program in the cache
    assert len(sf._broken) == 1 and len(sf.program_cache) == 0
    assert next(iter(sf._broken.values())).traces == 1


def test_issue_snippet_gives_paddles_numbers():
    out = paddle.jit.to_static(snippet)(paddle.full([2, 3], 3.0))
    # recorded from Paddle 2.6.2 (eager and to_static agree)
    np.testing.assert_allclose(out.numpy(), [46.75055695, 47.75055695, 48.75055695],
                               rtol=1e-6)


def test_guard_alternates_both_arms():
    sf = paddle.jit.to_static(branch_float)
    pos, neg = np.full([2, 3], 0.5, "float32"), np.full([2, 3], -0.5, "float32")
    for k in range(6):
        a = pos if k % 2 == 0 else neg
        got = sf(paddle.to_tensor(a)).numpy()
        want = np.tanh(a) * 0.5 if k % 2 == 0 else a + 0.5
        np.testing.assert_allclose(got, want, rtol=1e-6)
    assert len(sf._broken) == 1


def test_side_effects_run_on_every_call():
    log = []

    def f(x):
        y = x * 3.0
        log.append(round(float(y.sum()), 4))
        return y + 1.0

    sf = paddle.jit.to_static(f)
    for v in (1.0, 2.0, 3.0):
        sf(paddle.full([2], v))
    assert log == [6.0, 12.0, 18.0]


def test_function_without_break_keeps_its_program():
    sf = paddle.jit.to_static(lambda x: paddle.tanh(x) * 2.0)
    sf(paddle.ones([2, 2]))
    sf(paddle.ones([2, 2]))
    assert len(sf.program_cache) == 1 and not sf._broken


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.l1 = paddle.nn.Linear(4, 8)
        self.l2 = paddle.nn.Linear(8, 3)
        self.seen = []

    def forward(self, x):
        h = F.relu(self.l1(x))
        scale = float(h.mean().numpy())          # a break in the middle of forward
        self.seen.append(scale)
        if scale > 0.3:
            h = h * 0.5
        return self.l2(h)


def test_layer_with_break_trains_like_eager():
    paddle.seed(3)
    eager = Net()
    static = Net()
    static.set_state_dict(eager.state_dict())
    static = paddle.jit.to_static(static)
    opt_e = paddle.optimizer.SGD(0.1, parameters=eager.parameters())
    opt_s = paddle.optimizer.SGD(0.1, parameters=static.parameters())
    rs = np.random.RandomState(0)
    for step in range(4):
        a = rs.standard_normal([5, 4]).astype("float32") * (3.0 if step % 2 else 0.2)
        t = rs.standard_normal([5, 3]).astype("float32")
        losses = []
        for net, opt in ((eager, opt_e), (static, opt_s)):
            loss = F.mse_loss(net(paddle.to_tensor(a)), paddle.to_tensor(t))
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        assert losses[0] == pytest.approx(losses[1], rel=1e-6)
    for (n, p), (_, q) in zip(eager.named_parameters(), static.named_parameters()):
        np.testing.assert_allclose(q.numpy(), p.numpy(), rtol=1e-6, err_msg=n)
    assert eager.seen == static.seen


def test_full_graph_true_names_line_and_reason():
    sf = paddle.jit.to_static(snippet, full_graph=True)
    with pytest.raises(GraphBreakError) as e:
        sf(paddle.full([2, 3], 3.0))
    msg = str(e.value)
    assert "cases.py:15" in msg and "m = float(y.numpy().mean())" in msg
    assert ".numpy()" in msg and "full_graph=True" in msg
    assert isinstance(e.value, TypeError)


@pytest.mark.parametrize("read,reason", [("x.item()", ".item()"),
                                         ("x.tolist()", ".tolist()"),
                                         ("np.mean(np.asarray(x))", "numpy conversion")])
def test_each_read_is_a_break_with_its_reason(tmp_path, read, reason):
    src = tmp_path / "mod_read.py"
    src.write_text("import numpy as np\n\ndef f(x):\n    v = " + read + "\n    return x\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location("mod_read", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x = paddle.ones([1])
    with pytest.raises(GraphBreakError) as e:
        paddle.jit.to_static(mod.f, full_graph=True)(x)
    assert f"mod_read.py:4" in str(e.value) and reason in str(e.value)
    out = paddle.jit.to_static(mod.f)(x)          # default mode: eager's result
    np.testing.assert_allclose(out.numpy(), [1.0])


def test_jit_save_names_the_break(tmp_path):
    sf = paddle.jit.to_static(snippet, input_spec=[paddle.static.InputSpec([2, 3], "float32")])
    with pytest.raises(GraphBreakError) as e:
        paddle.jit.save(sf, str(tmp_path / "m"))
    assert "cases.py:15" in str(e.value) and "one program" in str(e.value)


def test_jit_save_after_broken_calls(tmp_path):
    sf = paddle.jit.to_static(snippet)
    sf(paddle.full([2, 3], 3.0))
    with pytest.raises(GraphBreakError) as e:
        paddle.jit.save(sf, str(tmp_path / "m"))
    assert "cases.py:15" in str(e.value)
    assert not os.path.exists(str(tmp_path / "m.pdmodel"))


def test_explain_two_breaks():
    x = paddle.full([2, 3], 0.4)
    rep = paddle.jit.explain(two_breaks, x)
    np.testing.assert_allclose(rep.result.numpy(), two_breaks(x).numpy(), rtol=1e-6)
    assert rep.graph_break_count == 2 and rep.graph_count == 3
    lines, first = inspect.getsourcelines(two_breaks)
    want = [first + k for k, t in enumerate(lines) if ".item()" in t or ".numpy()" in t]
    assert [b["line"] for b in rep.breaks] == want
    assert [b["reason"] for b in rep.breaks] == [".item()", ".numpy()"]
    assert rep.graphs[0]["op_types"][0] == "exp"
    text = str(rep)
    assert "break 0" in text and "break 1" in text and "guards" in text
    assert re.search(rf"line {want[0]}: \.item\(\) -> [0-9.]+", text)


def test_explain_without_break():
    rep = paddle.jit.explain(lambda x: x * 2.0 + 1.0, paddle.ones([2]))
    assert rep.graph_break_count == 0 and rep.graph_count == 1
    assert rep.graphs[0]["ops"] >= 1


def test_float_of_a_tensor_is_a_read_in_default_mode_and_a_cast_in_full_graph():
    def f(x):
        s = float(x.sum())
        return x * s

    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    sf = paddle.jit.to_static(f)
    sf(x).sum().backward()                 # eager: s is a Python number
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
    assert len(sf._broken) == 1
    strict = paddle.jit.to_static(f, full_graph=True)
    np.testing.assert_allclose(strict(x).numpy(), [3.0, 6.0])     # a cast op, one program
    assert len(strict.program_cache) == 1


def test_jit_save_of_a_float_break_writes_the_cast_program(tmp_path):
    def f(x):
        s = float(x.mean())            # a break when called; a cast op in a saved program
        return x * s + 1.0

    sf = paddle.jit.to_static(f)
    x = paddle.to_tensor([[1.0, 3.0]])
    np.testing.assert_allclose(sf(x).numpy(), [[3.0, 7.0]])
    assert len(sf._broken) == 1
    with pytest.warns(UserWarning, match="is a function, not a Layer"):
        paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    np.testing.assert_allclose(loaded(x).numpy(), [[3.0, 7.0]])


def test_sot_mode_guard_decides_full_graph_at_decoration():
    """Paddle 2.6's switch: inside sot_mode_guard(False) a function decorated without
    full_graph is strict (a value read is an error); outside it breaks as by default."""
    from sampan.jit.api import sot_mode_guard

    def reads(x):
        return x * float(x.numpy().sum())

    x = paddle.to_tensor(np.array([1.0, 2.0], "float32"))
    with sot_mode_guard(False):
        strict = paddle.jit.to_static(reads)
    with pytest.raises(Exception, match="full_graph=True"):
        strict(x)
    np.testing.assert_allclose(paddle.jit.to_static(reads)(x).numpy(), [3.0, 6.0])
