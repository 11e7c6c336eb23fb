"""Drives the op-spec table (spec.py): kernel vs numpy reference, infer_meta vs
actual outputs, finite-difference gradients (first, second and third order),
and coverage: every op has a case, every differentiable op a gradient check,
every grad op a check that runs it and, when it has a gradient rule itself
(double / triple grads), a check one order higher."""
import numpy as np
import pytest

import sampan  # noqa: F401
from sampan.ops import all_opdefs, get_op, Meta, GRAD_SUFFIX
from sampan.dygraph import Tensor
from sampan.dygraph.engine import run_op, differentiable_outputs
from sampan.dygraph.tape import run_backward, grad as tape_grad
from sampan.kernels.random import seed as random_seed
from sampan.kernels.registry import select_kernel, KernelKey, CPU, ANY

from .spec import all_cases, call_ref

CASES = all_cases()
IDS = [c.name() for c in CASES]

# Ops that are run by other machinery than a single kernel call (control flow,
# feed/fetch, tensor arrays) are tested by their own suites.
NOT_IN_TABLE = {"conditional_block", "while", "write_to_array", "read_from_array",
                "lod_array_length", "tensor_array_to_tensor", "tensor_array_to_tensor_grad",
                # stateful/callback ops, run in programs by tests/static/test_static_surface.py
                "auc", "py_func", "py_func_grad",
                # owns a forward and a backward block: tests/static/test_static_pylayer.py
                "pylayer",
                # decodes with the optional Pillow: tests/vision/test_detection_ops.py
                "decode_jpeg"}


def _tensors(case, slots=(), stop=True):
    op = get_op(case.op)
    ins = []
    for s in op.inputs:
        v = case.inputs.get(s.name)
        if v is None:
            ins.append(None)
        elif isinstance(v, list):
            ins.append([Tensor(np.array(a), stop_gradient=s.name not in slots) for a in v])
        else:
            ins.append(Tensor(np.array(v), stop_gradient=s.name not in slots))
    return ins


def _run(case, slots=()):
    op = get_op(case.op)
    ins = _tensors(case, slots)
    if case.random_op and case.grad is not False:
        # a random op checked for gradients draws the same numbers on every run
        random_seed(20240601)
    return op, ins, run_op(op, ins, case.attrs or None)


def _compared_outputs(case, op):
    if case.outputs is not None:
        return [op.output_index[s] for s in case.outputs]
    return [i for i, s in enumerate(op.outputs) if not s.intermediate]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_kernel_matches_reference(case):
    if case.ref is None:
        pytest.fail(f"case {case.name()} has no numpy reference")
    op, ins, outs = _run(case)
    for o in outs:
        for oo in (o if isinstance(o, list) else [o]):
            if oo is not None:
                assert isinstance(oo._data, np.ndarray), f"{case.op} returned {type(oo._data)}"
    want = call_ref(case)
    idx = _compared_outputs(case, op)
    assert len(want) == len(idx), f"ref returns {len(want)} values for outputs {idx}"
    for i, w in zip(idx, want):
        if w is None:
            continue
        if isinstance(outs[i], list):      # duplicable output: ref gives a list too
            assert len(outs[i]) == len(w), f"{op.outputs[i].name}: {len(outs[i])} outputs " \
                                           f"vs ref {len(w)}"
            for o, ww in zip(outs[i], w):
                _compare(case, op, i, o._data, ww)
            continue
        if outs[i] is None and op.need_unrecorded is not None and not op.need_unrecorded[i]:
            # an eager call that records nothing skips it (XShape): the kernel's answer
            arrays = [None if t is None else t._data for t in ins]
            fn, _ = select_kernel(op, KernelKey(CPU, ANY, arrays[0].dtype.name))
            _compare(case, op, i, fn(arrays, op.complete_attrs(case.attrs), None)[i], w)
            continue
        _compare(case, op, i, outs[i]._data, w)


def _compare(case, op, i, got, w):
    if case.random_op:
        assert w(got), f"{case.op} output {op.outputs[i].name} fails its property check"
        return
    w = np.asarray(w)
    assert got.shape == w.shape, f"{op.outputs[i].name}: shape {got.shape} vs ref {w.shape}"
    if w.dtype.kind in "fc":
        np.testing.assert_allclose(got, w, rtol=case.rtol, atol=case.atol)
    else:
        np.testing.assert_array_equal(got, w)


def _meta_of(v):
    if v is None:
        return None
    if isinstance(v, list):
        return [Meta(np.shape(a), np.asarray(a).dtype) for a in v]
    return Meta(np.shape(v), np.asarray(v).dtype)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_infer_meta_matches_kernel(case):
    op = get_op(case.op)
    assert op.infer_meta is not None, f"op {case.op} has no infer_meta"
    metas = tuple(_meta_of(case.inputs.get(s.name)) for s in op.inputs)
    pred = op.infer_meta(metas, op.complete_attrs(case.attrs or None))
    _, _, outs = _run(case)
    for slot, m, o in zip(op.outputs, pred, outs):
        if m is None or o is None or slot.intermediate:
            continue
        ms = m if isinstance(m, list) else [m]
        os_ = o if isinstance(o, list) else [o]
        for mm, oo in zip(ms, os_):
            shape = tuple(oo._data.shape)
            assert len(mm.shape) == len(shape), \
                f"{case.op}.{slot.name}: infer_meta rank {mm.shape} vs kernel {shape}"
            for a, b in zip(mm.shape, shape):
                assert a == -1 or a == b, \
                    f"{case.op}.{slot.name}: infer_meta shape {mm.shape} vs kernel {shape}"
            assert np.dtype(mm.dtype) == oo._data.dtype, \
                f"{case.op}.{slot.name}: infer_meta dtype {mm.dtype} vs kernel {oo._data.dtype}"


def _grad_slots(case, op):
    if case.grad is False:
        return ()
    if case.grad is not None:
        return tuple(case.grad)
    return tuple(s.name for s in op.inputs
                 if s.name in case.inputs and s.name not in op.no_grad_inputs
                 and np.asarray(case.inputs[s.name] if not isinstance(case.inputs[s.name], list)
                                else case.inputs[s.name][0]).dtype.kind in "fc")


# Complex values: the loss is real, L = sum Re(conj(W) * out) (W's real part
# weighs Re(out), its imaginary part Im(out)), and W is the gradient the
# backward starts from: Paddle's convention for a complex z is dL/dRe z +
# i dL/dIm z, which the finite differences below measure part by part.
def _weight(rng, a):
    w = rng.uniform(0.5, 1.5, a.shape)
    if a.dtype.kind == "c":
        w = w + 1j * rng.uniform(0.5, 1.5, a.shape)
    return w.astype(a.dtype)


def _weights(op, outs, case):
    rng = np.random.default_rng(7)
    diff = differentiable_outputs(op)
    names = case.grad_outputs
    ws = []
    for i, o in enumerate(outs):
        use = (op.outputs[i].name in names) if names else (i in diff)
        if o is None or not use:
            ws.append(None)
        elif case.const_out_grad:
            ws.append([np.ones_like(x._data) for x in o] if isinstance(o, list)
                      else np.ones_like(o._data))
        elif isinstance(o, list):
            ws.append([_weight(rng, x._data) for x in o])
        else:
            ws.append(_weight(rng, o._data))
    return ws


def _inner(a, w):
    """sum Re(conj(w) * a), in float64 / complex128."""
    if a.dtype.kind == "c" or np.asarray(w).dtype.kind == "c":
        return float(np.sum(np.real(np.conj(w) * a.astype(np.complex128))))
    return float(np.sum(a.astype(np.float64) * w))


def _pairs(outs, ws):
    """(output tensor, weight) pairs, list outputs flattened."""
    for o, w in zip(outs, ws):
        if w is None:
            continue
        if isinstance(o, list):
            yield from zip(o, w)
        else:
            yield o, w


def _loss_value(case, op, arrays, ws):
    c = Case_with(case, arrays)
    _, _, outs = _run(c)
    return sum(_inner(o._data, w) for o, w in _pairs(outs, ws))


def Case_with(case, arrays):
    import copy
    c = copy.copy(case)
    c.inputs = arrays
    return c


def _numeric_grad(case, op, slot, ws, eps):
    base = {k: (list(v) if isinstance(v, list) else v) for k, v in case.inputs.items()}
    vals = base[slot]
    items = vals if isinstance(vals, list) else [vals]
    grads = []
    for k, a in enumerate(items):
        cplx = a.dtype.kind == "c"       # dL/dRe + i dL/dIm, one part at a time
        g = np.zeros(a.shape, np.complex128 if cplx else np.float64)
        it = np.nditer(a, flags=["multi_index"])
        for _ in it:
            idx = it.multi_index
            sym = slot in case.symmetric
            if sym and idx[-2] < idx[-1]:
                continue                    # the pair is moved from its lower entry
            for step in ((1, 1j) if cplx else (1,)):
                out = []
                for sign in (1, -1):
                    b = a.copy()
                    b[idx] += sign * eps * step
                    if sym and idx[-2] != idx[-1]:
                        b[idx[:-2] + (idx[-1], idx[-2])] += sign * eps * step
                    arrays = dict(base)
                    if isinstance(vals, list):
                        arrays[slot] = [b if j == k else x for j, x in enumerate(items)]
                    else:
                        arrays[slot] = b
                    out.append(_loss_value(case, op, arrays, ws))
                g[idx] += step * (out[0] - out[1]) / (2 * eps)
        grads.append(g)
    return grads if isinstance(vals, list) else grads[0]


@pytest.mark.parametrize("case", [c for c in CASES if c.grad is not False],
                         ids=[c.name() for c in CASES if c.grad is not False])
def test_gradient_finite_difference(case):
    op = get_op(case.op)
    if op.grad is None:
        pytest.fail(f"op {case.op} has no gradient rule; mark its cases grad=False")
    slots = _grad_slots(case, op)
    assert slots, f"case {case.name()} checks no input"
    _, ins, outs = _run(case, slots)
    ws = _weights(op, outs, case)
    pairs = list(_pairs(outs, ws))
    run_backward([o for o, _ in pairs], [w for _, w in pairs])
    for s in slots:
        t = ins[op.input_index[s]]
        num = _numeric_grad(case, op, s, ws, case.eps)
        ts = t if isinstance(t, list) else [t]
        nums = num if isinstance(num, list) else [num]
        for tt, nn in zip(ts, nums):
            got = np.zeros_like(nn) if tt.grad is None else tt.grad._data
            if s in case.symmetric:         # the projection on symmetric directions
                got = np.tril(got + np.swapaxes(got, -1, -2)) - np.tril(np.triu(got))
            np.testing.assert_allclose(got, nn, rtol=case.grad_tol, atol=case.grad_tol,
                                       err_msg=f"{case.op}: d/d{s}")


# ------------------------------------------------------------ higher orders
# The order-n check (n >= 2) differentiates the order-(n-1) gradients again, with
# every tensor they depend on as a variable:
#   L1 = sum <out, W>            G1 = dL1/dx
#   L2 = sum <G1, U1>            G2 = dL2/d(x, W)
#   L3 = sum <G2, U2>            G3 = dL3/d(x, W, U1)
# and compares G_n with finite differences of L_n.  Differentiating with respect
# to the output weights W and the cotangents U reaches every output of the
# double and triple grad ops (the gradient of DOut, of DDX), not only the ones
# that lead back to x.  ``groups`` holds the variables' arrays: [x, W, U1, U2, ...].
def _flat(values):
    """A list of arrays from slot values (a list slot contributes each element)."""
    return [a for v in values for a in (v if isinstance(v, list) else [v])]


def _unflat(case, slots, flat):
    inputs, it = dict(case.inputs), iter(flat)
    for s in slots:
        v = case.inputs[s]
        inputs[s] = [next(it) for _ in v] if isinstance(v, list) else next(it)
    return inputs


def _higher_grads(case, op, slots, groups, n, create_last):
    """The tensors of x, W, U1 .. U_{n-2} and the order-n gradients w.r.t. them."""
    _, ins, outs = _run(Case_with(case, _unflat(case, slots, groups[0])), slots)
    xs = _flat(ins[op.input_index[s]] for s in slots)
    ws = [Tensor(w, stop_gradient=False) for w in groups[1]]
    ys = [o for o, _ in _pairs(outs, _weights(op, outs, case))]
    g = tape_grad(ys, xs, ws, create_graph=n > 1 or create_last, allow_unused=True)
    wrt, us = list(xs), []
    for k in range(2, n + 1):
        us.append([Tensor(u, stop_gradient=False) for u in groups[k]])
        wrt += ws if k == 2 else us[k - 3]
        pairs = [(a, u) for a, u in zip(g, us[-1]) if a is not None and not a.stop_gradient]
        if not pairs:
            return wrt, [None] * len(wrt)
        g = tape_grad([a for a, _ in pairs], wrt, [u for _, u in pairs],
                      create_graph=k < n or create_last, allow_unused=True)
    return wrt, g


def _check_order(case, n):
    op = get_op(case.op)
    slots = _grad_slots(case, op)
    _, _, outs = _run(case)
    rng = np.random.default_rng(11)
    xs = _flat(case.inputs[s] for s in slots)
    ws = [w for _, w in _pairs(outs, _weights(op, outs, case))]
    groups = [xs, ws]
    shapes = [a.shape for a in xs]
    for k in range(1, n):           # U_k has the shapes of the variables of G_k
        groups.append([rng.uniform(0.5, 1.5, sh) for sh in shapes])
        shapes += [w.shape for w in ws] if k == 1 else [a.shape for a in groups[k]]

    def value(gs):
        _, g = _higher_grads(case, op, slots, gs, n - 1, False)
        return sum(float(np.sum(a._data * u)) for a, u in zip(g, gs[n]) if a is not None)

    wrt, got = _higher_grads(case, op, slots, groups, n, False)
    assert any(g is not None for g in got), \
        f"{case.op}: the order-{n - 1} gradients are not differentiable"
    names = [f"x{i}" for i in range(len(xs))] + [f"W{i}" for i in range(len(ws))] + \
        [f"U{k}[{i}]" for k in range(1, n - 1) for i in range(len(groups[k + 1]))]
    flat = [(gi, j) for gi in range(n) for j in range(len(groups[gi]))]
    eps = 1e-5
    for (gi, j), g, name in zip(flat, got, names):
        a = groups[gi][j]
        num = np.zeros(a.shape)
        it = np.nditer(a, flags=["multi_index"])
        for _ in it:
            idx = it.multi_index
            vals = []
            for sign in (1, -1):
                b = a.copy()
                b[idx] += sign * eps
                gs = [list(grp) for grp in groups]
                gs[gi][j] = b
                vals.append(value(gs))
            num[idx] = (vals[0] - vals[1]) / (2 * eps)
        np.testing.assert_allclose(np.zeros_like(num) if g is None else g._data, num,
                                   rtol=1e-4, atol=1e-4,
                                   err_msg=f"{case.op}: order {n} d/d{name}")


@pytest.mark.parametrize("case", [c for c in CASES if c.order() >= 2],
                         ids=[c.name() for c in CASES if c.order() >= 2])
def test_second_order_gradient(case):
    _check_order(case, 2)


@pytest.mark.parametrize("case", [c for c in CASES if c.order() >= 3],
                         ids=[c.name() for c in CASES if c.order() >= 3])
def test_third_order_gradient(case):
    _check_order(case, 3)


# ------------------------------------------------------------ coverage
def _levels(case):
    """The grad op types each order of the case's checks runs: [first-order grad
    ops, their grads (double grads), ...], as far as ``case.order()``."""
    op = get_op(case.op)
    cur, levels = [(op, op.complete_attrs(case.attrs or None))], []
    for _ in range(case.order()):
        nxt = []
        for o, attrs in cur:
            for g in o.grad_ops(attrs):
                gop = get_op(g.type)
                own = attrs if g.attrs is None else g.attrs(attrs)
                nxt.append((gop, gop.complete_attrs(
                    {k: v for k, v in own.items() if k in gop.attr_specs} or None)))
        levels.append({o.type for o, _ in nxt})
        cur = nxt
    return levels


def test_every_op_has_a_case_and_every_gradient_a_check():
    covered = {c.op for c in CASES}
    grad_checked = {c.op for c in CASES if c.grad is not False}
    reached = set().union(*(lvl for c in CASES for lvl in _levels(c)))
    missing, no_grad_check = [], []
    for name, op in all_opdefs().items():
        if name in NOT_IN_TABLE or op.is_grad:
            continue
        if name not in covered:
            missing.append(name)
        if op.grad is not None and name not in grad_checked:
            no_grad_check.append(name)
    unreached = [name for name, op in all_opdefs().items()
                 if op.is_grad and name not in reached and name not in NOT_IN_TABLE]
    assert not missing, f"ops without a case in the table: {sorted(missing)}"
    assert not no_grad_check, f"differentiable ops without a gradient check: {sorted(no_grad_check)}"
    assert not unreached, f"grad ops no gradient check runs: {sorted(unreached)}"


def test_every_gradient_of_a_grad_op_is_checked():
    """A grad op with a gradient rule (a double grad, a triple grad, a linear op
    re-applied) needs a case whose checks go one order past it."""
    ruled = set()
    for c in CASES:
        for lvl in _levels(c)[:-1]:
            ruled |= lvl
    unchecked = [name for name, op in all_opdefs().items()
                 if op.is_grad and op.grad is not None and name not in ruled]
    assert not unchecked, (f"grad ops whose gradient rule no higher-order case runs "
                           f"(add order2=True / order3=True cases): {sorted(unchecked)}")
