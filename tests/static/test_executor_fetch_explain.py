"""Executor details: 0-d results come back as 0-d ndarrays (fetched or written
to the scope), whichever runner and kernel form produced them; ``explain``
shows the plans of control-flow sub-blocks nested under their ops."""
import contextlib
import io

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.executor import ExecutionConfig
from sampan.static.nn.control_flow import append_op
from sampan.utils import unique_name

CONFIGS = [ExecutionConfig(), ExecutionConfig(specialize=False),
           ExecutionConfig(runner="threaded"), ExecutionConfig(hook=lambda ins, vals: None)]


@contextlib.contextmanager
def building():
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, startup):
            yield main, startup
    finally:
        paddle.disable_static()


def _scalar_program():
    with building() as (main, _):
        x = static.data("x", [3], "float64")
        x.stop_gradient = False
        a, b = paddle.sum(x), paddle.mean(x)
        c = a + b                                # elementwise fast form on 0-d inputs
        d = paddle.tanh(paddle.sin(c) * a)       # ufunc kernels on 0-d inputs
        e = paddle.max(x) / paddle.min(x)
        block = main.global_block()
        acc = block.create_var(name="acc", shape=[], dtype="float64", persistable=True)
        append_op(block, "elementwise_add", {"X": [acc], "Y": [c]}, {"Out": [acc]})
        loss = d + e
        grads = static.gradients(loss, [x])
    return main, [c, d, e, loss, acc] + grads


@pytest.mark.parametrize("config", CONFIGS, ids=["compiled", "generic", "threaded", "loop"])
def test_zero_dim_results_are_arrays(config):
    main, fetch = _scalar_program()
    scope = static.Scope()
    scope.var("acc").set(np.array(1.0))
    exe = static.Executor(config=config)
    xv = np.array([1.0, 2.0, 3.0])
    for k in range(2):
        got = exe.run(main, feed={"x": xv}, fetch_list=fetch, scope=scope)
        assert all(type(v) is np.ndarray for v in got), [type(v).__name__ for v in got]
        assert [v.shape for v in got] == [()] * 5 + [(3,)]
        assert type(scope.find_var("acc").get()) is np.ndarray
    c = xv.sum() + xv.mean()
    np.testing.assert_allclose(got[0], c)
    np.testing.assert_allclose(got[3], np.tanh(np.sin(c) * xv.sum()) + 3.0)
    np.testing.assert_allclose(got[4], 1.0 + 2 * c)
    t, = exe.run(main, feed={"x": xv}, fetch_list=fetch[:1], scope=scope, return_numpy=False)
    assert type(np.array(t)) is np.ndarray and np.array(t).shape == ()
    exe.close()


def _loop_with_cond():
    with building() as (main, _):
        x = static.data("x", [3], "float64")
        x.stop_gradient = False
        n = static.data("n", [1], "int64")

        def body(i, y):
            y = static.nn.cond(paddle.sum(y) > 0, lambda: y * 0.5, lambda: paddle.exp(y))
            return i + 1, y

        _, y = static.nn.while_loop(lambda i, y: i < n, body,
                                    [paddle.full([1], 0, "int64"), x * 1.0])
        loss = paddle.sum(y)
        grads = static.gradients(loss, [x])
    return main, [loss] + grads


def test_explain_nests_sub_block_plans_under_their_ops():
    main, fetch = _loop_with_cond()
    feed = {"x": np.array([1.0, -2.0, 3.0]), "n": np.array([2], "int64")}
    exe = static.Executor()
    text = exe.explain(main, feed=feed, fetch_list=fetch, file=io.StringIO())
    lines = text.splitlines()

    def indent(s):
        return len(s) - len(s.lstrip())

    def line_of(needle, start=0):
        return next(k for k in range(start, len(lines)) if needle in lines[k])

    w = line_of("= while(")
    assert lines[w + 1].strip().startswith("block 1:") and "keeps its scopes" in lines[w + 1]
    assert indent(lines[w + 1]) > indent(lines[w])
    cb = line_of("= conditional_block(", w)             # nested one level deeper
    assert indent(lines[cb]) > indent(lines[w]) and "block 2:" in lines[cb + 1]
    assert indent(lines[cb + 1]) > indent(lines[cb])
    wg = line_of("= while_grad(")                       # grad ops show theirs too
    assert "block" in lines[wg + 1] and indent(lines[wg + 1]) > indent(lines[wg])
    assert "conditional_block_grad(" in text
    sub = [ln for ln in lines if indent(ln) > 4 and "#0 " in ln]
    assert len(sub) >= 4                                 # one first instruction per sub-plan
    assert text.index("edges (reduced):") > wg           # the top level's sections follow
    got = exe.run(main, feed=feed, fetch_list=fetch)
    assert got[1].shape == (3,)
