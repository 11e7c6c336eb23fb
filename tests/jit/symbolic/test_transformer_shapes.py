"""Symbolic dims through a transformer block traced by to_static: printed as
``B``, ``B*8`` after a reshape merging dims, ``B+1`` after a concat of one more
row, while every ProgramDesc dim stays -1 (as Paddle writes it)."""
import re

import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec
from sampan.ops.symbolic import SymDim

from .models import Block


def _desc_dims(v):
    from sampan.program.variable import tensor_desc
    return list(tensor_desc(v.desc).dims)


@pytest.fixture(scope="module")
def traced():
    paddle.seed(3)
    m = Block()
    m.eval()
    sf = paddle.jit.to_static(m, full_graph=True,
                              input_spec=[InputSpec(["B", 8, 16], "float32", name="x")])
    return m, sf, sf.forward.concrete_program


def test_printed_program_shows_symbols(traced):
    _, _, cp = traced
    text = str(cp.main_program)
    assert "data x: float32[B, 8, 16]" in text
    assert re.search(r"reshape2_\d+\.tmp_0: float32\[B\*8, 16\]", text), text
    assert re.search(r"concat_\d+\.tmp_0: float32\[B\+1, 8, 16\] = concat", text), text
    # layer_norm's Mean is the leading dims multiplied; attention keeps B
    assert "Mean=layer_norm_0.tmp_1: float32[B*8]" in text
    assert re.search(r"matmul_v2_\d+\.tmp_0: float32\[B, 4, 8, 8\]", text)
    assert re.search(r"softmax_\d+\.tmp_0: float32\[B, 4, 8, 8\]", text)
    assert re.search(r"split_\d+\.tmp_0: float32\[B, 8, 16\]", text)
    # no op output of the block is left at -1: every unknown dim has its expression
    for line in text.splitlines():
        if " = " in line:
            lhs = line.split(" = ")[0]
            assert "-1" not in lhs, line
    assert repr(cp).startswith("<ConcreteProgram (x: float32[B, 8, 16]) -> "
                               "(reshape2_")
    flat, cls = cp.outputs
    assert flat.type_str() == "float32[B*8, 16]" and cls.type_str() == "float32[B+1, 8, 16]"


def test_desc_keeps_minus_one_and_shape_is_int_compatible(traced):
    _, _, cp = traced
    flat, cls = cp.outputs
    assert _desc_dims(flat) == [-1, 16] and _desc_dims(cls) == [-1, 8, 16]
    assert flat.shape == (-1, 16) and flat.shape[0] == -1 and flat.shape[0] < 0
    assert isinstance(flat.shape[0], SymDim) and str(flat.shape[0]) == "B*8"
    for v in cp.main_program.list_vars():            # a symbol only where the desc is -1
        for d, raw in zip(v.shape, _desc_dims(v) if v.type == 7 else v.shape):
            assert type(d) is not SymDim or raw == -1


def test_symbolic_program_runs_like_eager(traced):
    m, sf, _ = traced
    eager = Block()
    eager.set_state_dict(m.state_dict())
    eager.eval()
    for b in (1, 3):
        x = paddle.to_tensor(np.random.RandomState(b).randn(b, 8, 16).astype("float32"))
        got, want = sf(x), eager(x)
        assert got[0].shape == [b * 8, 16] and got[1].shape == [b + 1, 8, 16]
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)


def test_none_dims_get_names_from_the_input():
    def f(x, y):
        return paddle.concat([x, y], axis=0).reshape([-1])
    sf = paddle.jit.to_static(f, full_graph=True, input_spec=[
        InputSpec([None, 4], "float32", name="x"), InputSpec([-1, 4], "float32")])
    cp = sf.concrete_program
    assert [v.type_str() for v in cp.inputs] == ["float32[x_d0, 4]", "float32[y_d0, 4]"]
    assert cp.outputs[0].type_str() == "float32[x_d0*4+y_d0*4]"


def test_shape_reading_code_keeps_working():
    """x.shape inside converted code stays Paddle's (runtime values for unknown
    dims); comparisons with -1 and reshape(x, [x.shape[0], -1]) work, and the
    runtime dim carries its symbol, so the reshape's result is [B, 64]."""
    seen = {}

    def f(x):
        seen["static"] = paddle.jit.symbolic_shape(x)
        seen["is_minus_one"] = paddle.jit.symbolic_shape(x)[0] == -1
        n = x.shape[0]
        seen["n"] = repr(n)
        y = paddle.reshape(x, [x.shape[0], -1])
        z = paddle.reshape(x, [n * 2, -1])
        return y, z
    sf = paddle.jit.to_static(f, full_graph=True,
                              input_spec=[InputSpec(["B", 8, 8], "float32", name="x")])
    cp = sf.concrete_program
    assert str(seen["static"]) == "(B, 8, 8)" and seen["is_minus_one"]
    assert seen["n"].endswith("(= B)")
    assert [v.type_str() for v in cp.outputs] == ["float32[B, 64]", "float32[B*2, 32]"]
    y, z = sf(paddle.ones([3, 8, 8]))
    assert y.shape == [3, 64] and z.shape == [6, 32]
    assert paddle.jit.symbolic_shape(paddle.ones([2, 3])) == (2, 3)


def test_slicing_and_split_along_symbolic_axis():
    def f(x):
        a, b = paddle.split(x, 2, axis=0)
        return x[1:], x[:-2], a, paddle.flatten(x), x[2:5]
    sf = paddle.jit.to_static(f, full_graph=True,
                              input_spec=[InputSpec(["N", 3], "float32", name="x")])
    got = [v.type_str() for v in sf.concrete_program.outputs]
    assert got == ["float32[N-1, 3]", "float32[N-2, 3]", "float32[N/2, 3]",
                   "float32[N*3]", "float32[3, 3]"]


def test_no_symbols_no_annotation():
    """A program without symbolic inputs never runs the symbolic rules."""
    def f(x):
        return paddle.concat([x, x], axis=0).reshape([-1])
    sf = paddle.jit.to_static(f, full_graph=True)
    sf(paddle.ones([2, 3]))
    cp = sf.concrete_program
    assert not cp.main_program._symbolic
    assert all(v._sym is None for v in cp.main_program.list_vars())


def test_explain_shows_symbols():
    paddle.seed(1)
    m = Block()
    sf = paddle.jit.to_static(m, full_graph=True,
                              input_spec=[InputSpec(["B", 8, 16], "float32", name="x")])
    text = str(paddle.jit.explain(sf, paddle.ones([2, 8, 16])))
    assert "(x: float32[B, 8, 16]) -> (" in text and "float32[B*8, 16]" in text
    assert "float32[B+1, 8, 16]" in text


def test_static_data_takes_a_symbol_and_clone_keeps_it():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", ["B", 6], "float32")
        y = paddle.reshape(x, [-1, 3])
    assert y.type_str() == "float32[B*2, 3]"
    c = main.clone(for_test=True)
    assert c.global_block().var(y.name).type_str() == "float32[B*2, 3]"
    assert "float32[B*2, 3]" in str(main)


def _branchy(x):
    if x.mean() > 0:
        y = x * 2
    else:
        y = x - 1
    return paddle.concat([y, x], axis=1)


def test_symbols_cross_control_flow():
    sf = paddle.jit.to_static(_branchy, full_graph=True,
                              input_spec=[InputSpec(["B", 3], "float32", name="x")])
    cp = sf.concrete_program
    assert cp.outputs[0].type_str() == "float32[B, 6]"
    assert "select_input" in str(cp.main_program)
    assert re.search(r"float32\[B, 3\] = select_input", str(cp.main_program))
    assert sf(paddle.ones([4, 3])).shape == [4, 6]
