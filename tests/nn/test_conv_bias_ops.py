"""The ops a conv layer's bias add appends in a static program, as real Paddle
2.6.2 appends them (recorded by running it): conv2d/conv3d reshape the bias to
[1, C, 1, ...] (channel-first) or [1, ..., 1, C] (channel-last) and add on axis
-1; the transposed convs reshape channel-first and add the 1-D bias
channel-last; conv1d (a conv2d between unsqueezes) adds on axis 1 (NCL) or -1
(NLC)."""
import pytest

import sampan as paddle

nn = paddle.nn

CASES = [
    ("Conv2D NCHW", lambda: nn.Conv2D(3, 6, 3), [None, 3, 8, 8],
     [("reshape2", [1, 6, 1, 1]), ("elementwise_add", -1)]),
    ("Conv2D NHWC", lambda: nn.Conv2D(3, 6, 3, data_format="NHWC"), [None, 8, 8, 3],
     [("reshape2", [1, 1, 1, 6]), ("elementwise_add", -1)]),
    ("Conv3D NDHWC", lambda: nn.Conv3D(3, 6, 3, data_format="NDHWC"), [None, 4, 4, 4, 3],
     [("reshape2", [1, 1, 1, 1, 6]), ("elementwise_add", -1)]),
    ("Conv2DTranspose NCHW", lambda: nn.Conv2DTranspose(3, 6, 3), [None, 3, 8, 8],
     [("reshape2", [1, 6, 1, 1]), ("elementwise_add", -1)]),
    ("Conv2DTranspose NHWC", lambda: nn.Conv2DTranspose(3, 6, 3, data_format="NHWC"),
     [None, 8, 8, 3], [("elementwise_add", -1)]),
    ("Conv1D NCL", lambda: nn.Conv1D(3, 6, 3), [None, 3, 8], [("elementwise_add", 1)]),
    ("Conv1D NLC", lambda: nn.Conv1D(3, 6, 3, data_format="NLC"), [None, 8, 3],
     [("elementwise_add", -1)]),
]


@pytest.mark.parametrize("name,make,shape,want", CASES, ids=[c[0] for c in CASES])
def test_bias_ops_are_paddles(name, make, shape, want):
    paddle.enable_static()
    try:
        prog = paddle.static.Program()
        with paddle.static.program_guard(prog, paddle.static.Program()):
            make()(paddle.static.data("x", shape, "float32"))
    finally:
        paddle.disable_static()
    got = [(op.type, op.attr("shape") if op.type == "reshape2" else op.attr("axis"))
           for op in prog.global_block().ops if op.type in ("reshape2", "elementwise_add")]
    assert got == want
