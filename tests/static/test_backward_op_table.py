"""Every op-spec case with a gradient check, differentiated statically: the op
is built on ``static.data`` inputs, a weighted sum of its outputs is
differentiated with ``static.gradients`` (the weights as ``target_gradients``,
fed) or ``append_backward`` (an explicit weighted sum), run by the Executor,
and the gradients must equal the eager tape's (float64 inputs, tight
tolerance)."""
import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.dygraph import Tensor
from sampan.dygraph.engine import run_op, differentiable_outputs
from sampan.dygraph.tape import run_backward
from sampan.ops import get_op, bind
from sampan.utils import unique_name

from ops.spec import all_cases

GRAD_CASES = [c for c in all_cases() if c.grad is not False and not c.random_op]


def _grad_slots(case, op):
    if case.grad is not None:
        return tuple(case.grad)
    return tuple(s.name for s in op.inputs
                 if s.name in case.inputs and s.name not in op.no_grad_inputs
                 and np.asarray(case.inputs[s.name] if not isinstance(case.inputs[s.name], list)
                                else case.inputs[s.name][0]).dtype.kind in "fc")


def _weight(rng, a):
    """A weight of a's shape and dtype; a complex one weighs the real and the
    imaginary part (the loss is sum Re(conj(w) * out), as the op-table test's)."""
    w = rng.uniform(0.5, 1.5, np.shape(a))
    if a.dtype.kind == "c":
        w = w + 1j * rng.uniform(0.5, 1.5, np.shape(a))
    return w.astype(a.dtype)


def _weights(op, outs, case):
    """One weight array per differentiable output (as the eager op-table test)."""
    rng = np.random.default_rng(7)
    diff = differentiable_outputs(op)
    names = case.grad_outputs
    ws = []
    for i, o in enumerate(outs):
        use = (op.outputs[i].name in names) if names else (i in diff)
        if o is None or not use:
            ws.append(None)
        elif isinstance(o, list):
            ws.append([_weight(rng, x) for x in o])
        else:
            ws.append(_weight(rng, o))
    return ws


def _weighted(o, w):
    """sum Re(conj(w) * o): the loss the weights are the output gradients of."""
    if paddle.is_complex(w):
        return paddle.sum(paddle.real(o * paddle.conj(w)))
    return paddle.sum(o * w)


def _pairs(outs, ws):
    for o, w in zip(outs, ws):
        if w is None:
            continue
        if isinstance(o, list):
            yield from zip(o, w)
        else:
            yield o, w


def _eager(case, op, slots):
    ins = []
    for s in op.inputs:
        v = case.inputs.get(s.name)
        if v is None:
            ins.append(None)
        elif isinstance(v, list):
            ins.append([Tensor(np.array(a), stop_gradient=s.name not in slots) for a in v])
        else:
            ins.append(Tensor(np.array(v), stop_gradient=s.name not in slots))
    outs = run_op(op, ins, case.attrs or None)
    arrays = [None if o is None else [x._data for x in o] if isinstance(o, list) else o._data
              for o in outs]
    ws = _weights(op, arrays, case)
    pairs = list(_pairs(outs, ws))
    run_backward([o for o, _ in pairs], [w for _, w in pairs])
    grads = {}
    for s in slots:
        t = ins[op.input_index[s]]
        ts = t if isinstance(t, list) else [t]
        grads[s] = [None if x.grad is None else x.grad._data for x in ts]
    return ws, grads


def _build(case, op, slots):
    """Static data for every input (grad slots with stop_gradient=False), the op."""
    feed, vs, wrt = {}, [], {}
    for s in op.inputs:
        v = case.inputs.get(s.name)
        if v is None:
            vs.append(None)
            continue
        made = []
        for k, a in enumerate(v if isinstance(v, list) else [v]):
            a = np.array(a)
            name = f"{s.name}_{k}"
            d = static.data(name, list(a.shape), a.dtype)
            if s.name in slots:
                d.stop_gradient = False
            feed[name] = a
            made.append(d)
        if s.name in slots:
            wrt[s.name] = made
        vs.append(made if isinstance(v, list) else made[0])
    return feed, wrt, bind(op, vs, case.attrs or None)


def _static_grads(case, op, slots, ws, mode):
    main = static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, static.Program()):
            feed, wrt, outs = _build(case, op, slots)
            targets, tgs = [], []
            for k, (o, w) in enumerate(_pairs(outs, ws)):
                targets.append(o)
                wv = static.data(f"w_{k}", list(w.shape), w.dtype)
                feed[f"w_{k}"] = w
                tgs.append(wv)
            inputs = [x for s in slots for x in wrt[s]]
            if mode == "gradients":
                gs = static.gradients(targets, inputs, tgs)
            else:
                terms = [_weighted(o, w) for o, w in zip(targets, tgs)]
                loss = terms[0]
                for t in terms[1:]:
                    loss = loss + t
                static.append_backward(loss)
                gs = [main.global_block().vars.get(x.name + "@GRAD") for x in inputs]
    finally:
        paddle.disable_static()
    fetch = [g for g in gs if g is not None]
    got = iter(static.Executor().run(main, feed=feed, fetch_list=fetch))
    vals = [None if g is None else next(got) for g in gs]
    out, i = {}, 0
    for s in slots:
        n = len(wrt[s])
        out[s] = vals[i:i + n]
        i += n
    return out


def _check(case, op, slots, eager, static_):
    for s in slots:
        for k, (e, g) in enumerate(zip(eager[s], static_[s])):
            if e is None:
                assert g is None or not np.any(g), f"{case.name()}: d/d{s}[{k}] should be 0"
                continue
            assert g is not None, f"{case.name()}: static backward gave no grad for {s}[{k}]"
            assert g.shape == e.shape and g.dtype == e.dtype, \
                f"{case.name()}: d/d{s}[{k}] {g.shape}:{g.dtype} vs eager {e.shape}:{e.dtype}"
            # FLOAT attributes are float32 in a program (as on Paddle's wire)
            np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-9,
                                       err_msg=f"{case.name()}: d/d{s}[{k}]")


def _float64(case):
    return all(np.asarray(v if not isinstance(v, list) else v[0]).dtype != np.float32
               for v in case.inputs.values())


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c.name() for c in GRAD_CASES])
def test_static_gradients_match_eager(case):
    op = get_op(case.op)
    slots = _grad_slots(case, op)
    ws, eager = _eager(case, op, slots)
    _check(case, op, slots, eager, _static_grads(case, op, slots, ws, "gradients"))


# append_backward through an explicit weighted sum: one case per op is enough
_FIRST = {}
for _c in GRAD_CASES:
    _FIRST.setdefault(_c.op, _c)
AB_CASES = list(_FIRST.values())


@pytest.mark.parametrize("case", AB_CASES, ids=[c.name() for c in AB_CASES])
def test_append_backward_matches_eager(case):
    op = get_op(case.op)
    slots = _grad_slots(case, op)
    ws, eager = _eager(case, op, slots)
    got = _static_grads(case, op, slots, ws, "append_backward")
    # the weighted sum is itself computed in float64 here; keep the tolerance tight
    for s in slots:
        for k, (e, g) in enumerate(zip(eager[s], got[s])):
            if e is None:
                assert g is None or not np.any(g)
                continue
            assert g is not None, f"{case.name()}: no grad for {s}[{k}]"
            tol = 1e-6 if _float64(case) else 1e-5
            np.testing.assert_allclose(g, e, rtol=tol, atol=tol,
                                       err_msg=f"{case.name()}: d/d{s}[{k}]")
