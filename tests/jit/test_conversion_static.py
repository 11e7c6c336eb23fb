"""Converted functions built into static programs (static.data inputs under
program_guard, run by the Executor) give the eager results, on inputs that
take every path; unsupported constructs and errors point at the user's
source."""
import inspect
import os

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.jit.conversion import convert_function
from sampan.jit.errors import ConversionError, user_error

from . import conversion_cases as C


def _flat(out):
    if isinstance(out, (list, tuple)):
        return [y for o in out for y in _flat(o)]
    return [out]


def build(fn, args, dynamic=False):
    """(program, outputs) of ``fn`` converted and traced on static inputs
    shaped like ``args`` (first dimension unknown when ``dynamic``)."""
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, startup):
            ins = []
            for k, a in enumerate(args):
                shape = list(a.shape)
                if dynamic and shape:
                    shape[0] = None
                ins.append(static.data(f"in{k}", shape, str(a.dtype)))
            out = convert_function(fn)(*ins)
    finally:
        paddle.disable_static()
    return main, _flat(out)


def run_static(fn, args, dynamic=False):
    main, outs = build(fn, args, dynamic)
    fetch = [o for o in outs if getattr(o, "is_static_variable", False)]
    got = iter(static.Executor().run(main, feed={f"in{k}": a for k, a in enumerate(args)},
                                     fetch_list=fetch))
    return [np.asarray(next(got)) if getattr(o, "is_static_variable", False) else np.asarray(o)
            for o in outs]


def run_eager(fn, args):
    out = _flat(fn(*[paddle.to_tensor(a) for a in args]))
    return [np.asarray(o.numpy()) if hasattr(o, "numpy") else np.asarray(o) for o in out]


def _ids(cases):
    return [fn.__name__ for fn, _ in cases]


@pytest.mark.parametrize("fn,inputs", C.TENSOR_CASES, ids=_ids(C.TENSOR_CASES))
def test_static_program_matches_eager(fn, inputs):
    for args in inputs:
        ref, got = run_eager(fn, args), run_static(fn, args)
        assert len(ref) == len(got)
        for r, g in zip(ref, got):
            np.testing.assert_allclose(g.reshape(r.shape) if g.size == r.size else g, r,
                                       rtol=1e-5, atol=1e-6)


DYNAMIC = [C.if_else, C.while_tensor_cond, C.for_rows, C.dynamic_batch, C.layer_call,
           C.return_inside_loop]


@pytest.mark.parametrize("fn", DYNAMIC, ids=[f.__name__ for f in DYNAMIC])
def test_unknown_batch_dimension(fn):
    args = (C.M,) if fn in (C.for_rows, C.dynamic_batch, C.layer_call) else (C.A,)
    for scale in ((1.0, 10.0) if fn is C.while_tensor_cond else (1.0, -1.0)):
        a = (args[0] * scale,)
        ref, got = run_eager(fn, a), run_static(fn, a, dynamic=True)
        for r, g in zip(ref, got):
            np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)


def test_tensor_if_builds_cond_and_python_if_specialises():
    main, _ = build(C.python_cond_in_tensor_code, (C.A,))
    types = [op.type for op in main.global_block().ops]
    assert types.count("conditional_block") == 2 and "select_input" in types
    main, _ = build(C.while_python_counter, (C.A,))
    assert "while" not in [op.type for op in main.global_block().ops]   # unrolled
    main, _ = build(C.while_tensor_cond, (C.A,))
    assert "while" in [op.type for op in main.global_block().ops]


def test_trial_trace_leaves_no_blocks_behind():
    main, _ = build(C.for_range_tensor, (C.A, C.N3))
    owned = {b for op in main.global_block().ops for b in op.sub_blocks()}
    assert owned and set(range(1, main.num_blocks)) == owned


# ----------------------------------------------------------------- errors
def _trace_error(fn, args, dynamic=False):
    with pytest.raises(Exception) as info:
        build(fn, args, dynamic)
    return user_error(info.value)


def test_shape_error_points_at_the_user_line():
    exc = _trace_error(C.shape_error, (C.M, np.zeros((4, 5), "float32")))
    lines, first = inspect.getsourcelines(C.shape_error)
    line = first + next(i for i, t in enumerate(lines) if "SHAPE-ERROR" in t)
    text = str(exc)
    assert type(exc).__name__ == "OpError"
    assert f'File "{C.__file__}", line {line}, in shape_error' in text
    assert "z = paddle.matmul(y, w)  # SHAPE-ERROR    <--- HERE" in text
    assert "matmul" in text.splitlines()[0]


def test_variable_bound_on_one_side_is_refused():
    exc = _trace_error(C.bound_on_one_side, (C.A,))
    assert isinstance(exc, ConversionError)
    assert "'y' is bound only in the true branch" in str(exc)
    assert "bound_on_one_side" in str(exc) and "bind it before" in str(exc)


def test_loop_variable_changing_type_is_refused():
    exc = _trace_error(C.loop_var_changes_type, (C.M,), dynamic=True)
    assert isinstance(exc, ConversionError)
    assert "loop variable 'acc' changes type" in str(exc)
    assert "acc = paddle.zeros([3], 'float32')" in str(exc)


def test_tensor_conditioned_recursion_is_refused():
    exc = _trace_error(C.tensor_recursion, (C.A,))
    assert isinstance(exc, ConversionError)
    assert "tensor-conditioned recursion" in str(exc) and "tensor_recursion" in str(exc)


def test_user_error_leaves_other_exceptions_alone():
    e = ValueError("plain")
    assert user_error(e) is e


def _scaled_then_branch(x):
    y = x * 2.0
    if y.sum() > 0:
        y = y + 1.0
    return y


def test_ops_of_converted_code_record_the_users_line():
    """op_callstack (shown by the printer and in run-time errors) names this
    file and the line of the user's statement, not the converted code."""
    main, _ = build(_scaled_then_branch, [np.ones([2, 3], "float32")])
    first = inspect.getsourcelines(_scaled_then_branch)[1]
    scale = next(op for op in main.global_block().ops if op.type == "scale")
    src = scale.attr("op_callstack")[0]
    assert os.path.basename(__file__) in src and f"line {first + 1}," in src
    assert "converted" not in str(main)
