"""The tape's fast backward (dygraph/grad_fast.py): the compiled per-op node
backward and the kernels' ``grad_fast`` forms give exactly what the general
path gives (every grad op through ``_ArrayMath.run_step``), on every
differentiable case of the op table; tests/dygraph/test_grad_fast.py checks
the walk on graph shapes."""
import itertools

import numpy as np
import pytest

import sampan  # noqa: F401  (registers the kernels)
from sampan.dygraph import Tensor
from sampan.dygraph.engine import _kernel_for, differentiable_outputs, run_op
from sampan.dygraph.grad_fast import node_backward
from sampan.dygraph.tape import run_backward, set_fast_backward
from sampan.kernels.random import seed as random_seed
from sampan.ops import get_op

from .spec import all_cases

CASES = [c for c in all_cases() if c.grad is not False and get_op(c.op).grad is not None]


def _grads(case, fast):
    """Gradients of every float input of ``case`` for fixed output weights,
    with the fast path on or off."""
    op = get_op(case.op)
    ins, leaves = [], []
    for s in op.inputs:
        v = case.inputs.get(s.name)
        if v is None:
            ins.append(None)
            continue
        vs = v if isinstance(v, list) else [v]
        ts = [Tensor(np.array(a), stop_gradient=not (
            s.name not in op.no_grad_inputs and np.asarray(a).dtype.kind == "f")) for a in vs]
        leaves += ts
        ins.append(ts if isinstance(v, list) else ts[0])
    prev = set_fast_backward(fast)
    try:
        if case.random_op:
            random_seed(11)
        outs = run_op(op, ins, case.attrs or None)
        rng = np.random.default_rng(3)
        ys, ws = [], []
        for i, o in enumerate(outs):
            if o is None or i not in differentiable_outputs(op):
                continue
            for t in (o if isinstance(o, list) else [o]):
                if t.stop_gradient or t._data.dtype.kind != "f":
                    continue
                ys.append(t)
                ws.append(rng.uniform(0.5, 1.5, t._data.shape).astype(t._data.dtype))
        if not ys:
            return None
        run_backward(ys, ws)
    finally:
        set_fast_backward(prev)
    return [None if t._grad is None else t._grad._data for t in leaves]


@pytest.mark.parametrize("case", CASES, ids=[c.name() for c in CASES])
def test_fast_backward_equals_general_path(case):
    try:
        want = _grads(case, False)
    except Exception as e:                 # the op table's own tests cover the failure
        pytest.skip(f"general path raises {type(e).__name__}")
    got = _grads(case, True)
    got2 = _grads(case, True)              # the first run compiles, the second reuses
    if want is None:
        assert got is None
        return
    for w, g, g2 in zip(want, got, got2):
        assert (w is None) == (g is None) == (g2 is None)
        if w is not None:
            np.testing.assert_array_equal(g, w)
            np.testing.assert_array_equal(g2, w)
            assert g.dtype == w.dtype and g.shape == w.shape


def test_common_ops_take_the_compiled_path():
    for t in ("elementwise_add", "elementwise_mul", "elementwise_sub", "matmul_v2", "relu",
              "tanh", "reduce_sum"):
        assert node_backward(get_op(t)) is not None, t
    assert "res = f(" in node_backward(get_op("elementwise_mul")).source
    for t in ("elementwise_add", "elementwise_sub", "elementwise_mul"):     # grad_inline
        assert "if fl is inline_forms:" in node_backward(get_op(t)).source, t


def _broadcast_cases(rng):
    for dt, (xs, ys) in itertools.product(
            ("float32", "int64"), [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 4), ()),
                                   ((1, 4), (3, 1)), ((4,), (3, 4))]):
        x = (rng.standard_normal(xs) * 4).astype(dt)
        y = (rng.standard_normal(ys) * 4).astype(dt)
        g = (rng.standard_normal(np.broadcast_shapes(xs, ys)) * 4).astype(dt)
        yield x, y, g


@pytest.mark.parametrize("name", ["elementwise_add_grad", "elementwise_sub_grad",
                                  "elementwise_mul_grad"])
def test_grad_inline_formulas_equal_their_kernel(name):
    """The formulas the node backward inlines (``grad_inline``, evaluated in the
    kernel's module as grad_fast.py does) give the kernel's gradients."""
    gop = get_op(name)
    for x, y, g in _broadcast_cases(np.random.default_rng(1)):
        fn = _kernel_for(gop, [x, y, g], gop.complete_attrs({}))[0]
        exprs = [e.format("x", "y", "g") for e in fn.grad_inline({"axis": -1})]
        want = fn([x, y, g], {"axis": -1}, None)
        for e, w in zip(exprs, want):
            o = eval(e, dict(fn.__globals__), {"x": x, "y": y, "g": g})
            np.testing.assert_array_equal(o, w)
            assert o.dtype == w.dtype and o.shape == w.shape
    if name == "elementwise_mul_grad":     # Paddle's axis rule: the general kernel
        assert fn.grad_inline({"axis": 0}) is None


def test_another_cached_grad_kernel_is_not_bypassed_by_the_inlined_formulas():
    """The formulas stand for one kernel: where the eager cache holds another one
    for a dtype (chosen before its first use), that one runs."""
    gop = get_op("elementwise_mul_grad")
    dt = np.dtype("float16")
    saved = gop.eager_cache.pop(dt, None)
    x16 = np.arange(1, 5, dtype=dt)
    kernel = _kernel_for(gop, [x16, x16, x16], gop.complete_attrs({}))[0]
    calls = []

    def other(ins, attrs, need):
        calls.append(need)
        return kernel(ins, attrs, need)
    gop.eager_cache[dt] = (other, False, "CPU", None)
    try:
        x = Tensor(x16, stop_gradient=False)
        (x * x).sum().backward()
    finally:
        del gop.eager_cache[dt]
        if saved is not None:
            gop.eager_cache[dt] = saved
    assert calls == [(True, True)]
    np.testing.assert_array_equal(x.grad.numpy(), 2 * x16)


@pytest.mark.parametrize("name", ["elementwise_add_grad", "elementwise_sub_grad",
                                  "elementwise_mul_grad"])
def test_grad_fast_forms_equal_their_kernel(name):
    """Every need mask, same shapes and both broadcast directions, float32 and int64."""
    gop = get_op(name)
    for x, y, g in _broadcast_cases(np.random.default_rng(0)):
        fn = _kernel_for(gop, [x, y, g], gop.complete_attrs({}))[0]
        for need in ((True, False), (False, True), (True, True)):
            form = fn.grad_fast({"axis": -1}, need)
            want = fn([x, y, g], {"axis": -1}, need)
            got = form(x, y, g)
            for w, o in zip(want, got):
                assert (w is None) == (o is None)
                if w is not None:
                    np.testing.assert_array_equal(o, w)
                    assert o.dtype == w.dtype and o.shape == w.shape
    if name == "elementwise_mul_grad":     # Paddle's axis rule: the general kernel
        assert fn.grad_fast({"axis": 0}, (True, False)) is None
