"""The declared ``no_need_buffer`` facts (read as ``ops.shape_only_inputs``) hold
for every kernel: the op's result is the same whatever values those inputs
hold (only their shapes and dtypes count), so the executor may hand it a
buffer another op already reused (executor/reuse.py).  Checked on the op
table's cases: ops without a gradient run on their case inputs; grad ops run
on the inputs the eager backward of their forward op's case gives them
(recorded from the tape), each once as given and once with the shape-only
inputs overwritten (NaN, or other integers), the kernel and its ``fast`` form
alike."""
import numpy as np
import pytest

import sampan  # noqa: F401  (registers the kernels)
from sampan.dygraph import Tensor
from sampan.dygraph.engine import _kernel_for, run_op
from sampan.dygraph.tape import _ArrayMath, run_backward, set_fast_backward
from sampan.ops import all_opdefs, get_op, shape_only_inputs
from sampan.ops.grad_rules import differentiable_outputs

from .spec import all_cases

SHAPE_ONLY = sorted(t for t in all_opdefs() if shape_only_inputs(t))
CASES = all_cases()


def _grad_types(case):
    op = get_op(case.op)
    if op.grad is None or case.grad is False:
        return ()
    return tuple(g.type for g in op.grad_ops(op.complete_attrs(case.attrs or None)))


def _checked(case):
    return bool(shape_only_inputs(case.op)) or \
        any(shape_only_inputs(t) for t in _grad_types(case))


def _backward(case, op):
    """Run ``case`` eagerly with its float inputs requiring gradients and
    backpropagate random weights from its differentiable outputs."""
    wanted = case.grad if case.grad not in (None, True) else \
        [s.name for s in op.inputs if s.name not in op.no_grad_inputs]
    ins = []
    for s in op.inputs:
        v = case.inputs.get(s.name)
        if v is None:
            ins.append(None)
            continue
        vs = v if isinstance(v, list) else [v]
        ts = [Tensor(np.array(a), stop_gradient=not (
            s.name in wanted and np.asarray(a).dtype.kind in "fc")) for a in vs]
        ins.append(ts if isinstance(v, list) else ts[0])
    outs = run_op(op, ins, case.attrs or None)
    rng = np.random.default_rng(7)
    diff = differentiable_outputs(op)
    ys, ws = [], []
    for i, o in enumerate(outs):
        if o is None or i not in diff:
            continue
        for t in (o if isinstance(o, list) else [o]):
            ys.append(t)
            ws.append(rng.uniform(0.5, 1.5, t._data.shape).astype(t._data.dtype))
    run_backward(ys, ws)


def _garble(a):
    if isinstance(a, list):
        return [_garble(x) for x in a]
    a = np.asarray(a)
    if a.dtype.kind in "fc":
        return np.full_like(a, np.nan)
    if a.dtype.kind == "b":
        return ~a
    return (a + 3) * 7


def _same(want, got, what):
    if isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), what
        for k, (w, g) in enumerate(zip(want, got)):
            _same(w, g, f"{what}[{k}]")
        return
    if want is None or got is None:
        assert want is None and got is None, what
        return
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=what)


def _copy(ins):
    return [None if a is None else [np.array(x) for x in a] if isinstance(a, list)
            else np.array(a) for a in ins]


def check_op(opdef, ins, attrs, need):
    """``opdef``'s kernel (and fast form) gives the same with its shape-only
    inputs overwritten."""
    fn = _kernel_for(opdef, ins, attrs)[0]
    pos = shape_only_inputs(opdef.type)
    garbled = [_garble(a) if i in pos and a is not None else a for i, a in enumerate(ins)]
    want = fn(_copy(ins), attrs, need)
    got = fn(_copy(garbled), attrs, need)
    _same(want, got, f"{opdef.type}: output with shape-only inputs "
                     f"{[opdef.inputs[i].name for i in pos]} overwritten")
    fast = getattr(fn, "fast", None)
    if fast is not None and opdef.n_outputs == 1 and need is None and \
            not any(isinstance(a, list) for a in ins):
        g = fast(attrs)
        if g is not None:
            _same(g(*_copy(ins)), g(*_copy(garbled)), f"{opdef.type} (fast form)")


@pytest.mark.parametrize("case", [c for c in CASES if _checked(c)],
                         ids=[c.name() for c in CASES if _checked(c)])
def test_no_need_buffer_inputs_are_not_read(case, monkeypatch):
    op = get_op(case.op)
    if shape_only_inputs(case.op):
        ins = [case.inputs.get(s.name) for s in op.inputs]
        check_op(op, ins, op.complete_attrs(case.attrs or None), None)
    types = {t for t in _grad_types(case) if shape_only_inputs(t)}
    if not types:
        return
    seen, run_step = [], _ArrayMath.run_step

    def spy(node, step, ins, need):
        if shape_only_inputs(step.opdef.type) and node.op is op:
            attrs = node.attrs if step.attrs_fn is None else \
                step.opdef.complete_attrs(step.attrs_fn(node.attrs))
            seen.append((step.opdef, _copy(ins), attrs, need))
        return run_step(node, step, ins, need)
    monkeypatch.setattr(_ArrayMath, "run_step", staticmethod(spy))
    prev = set_fast_backward(False)     # every grad op through run_step
    try:
        _backward(case, op)
    finally:
        set_fast_backward(prev)
    assert {od.type for od, *_ in seen} == types, f"{case.op}: grad ops not run"
    for opdef, ins, attrs, need in seen:
        check_op(opdef, ins, attrs, need)


def test_every_fact_is_checked():
    covered = set()
    for c in CASES:
        covered.add(c.op)
        covered.update(_grad_types(c))
    missing = [t for t in SHAPE_ONLY if t not in covered]
    assert not missing, f"ops with shape-only inputs that no case runs: {missing}"


def test_facts_are_read_where_declared():
    """A grad op's facts come from its own declaration or its forward op's;
    an op without a gradient declares its own."""
    assert shape_only_inputs("elementwise_add_grad") == (0, 1)     # X, Y
    assert shape_only_inputs("reduce_sum_grad") == (0,)
    assert shape_only_inputs("shape") == (0,)
    assert shape_only_inputs("elementwise_mul_grad") == ()
    assert shape_only_inputs("reduce_sum") == ()        # the forward op reads X


# ------------------------------------------------------------------ renames
def test_renames_are_read_by_the_public_function():
    """``renames``: the public argument names an op's attributes go by
    (``sampan.matmul(transpose_x=)`` is matmul_v2's ``trans_x``), applied where
    attributes are completed, the one path of every mode."""
    mm = get_op("matmul_v2")
    assert mm.complete_attrs({"transpose_y": True}) == {"trans_x": False, "trans_y": True}
    x = np.arange(6, dtype="float32").reshape(2, 3)
    got = sampan.matmul(sampan.to_tensor(x), sampan.to_tensor(x), transpose_y=True)
    np.testing.assert_array_equal(got.numpy(), x @ x.T)
    for op in all_opdefs().values():
        for public, attr in op.renames.items():
            assert attr in op.attr_specs and public not in op.attr_specs, (op.type, public)
