"""Eager calls that touch autograd, made by code converted by to_static
(issue 25): ``paddle.grad`` (the backward appended into the program),
``Tensor.detach`` (``share_data``), ``paddle.to_tensor`` of a tensor (a copy
that stops its gradient) and ``clone``.  In a hand-built static Program real
Paddle rejects ``paddle.grad`` (an eager-only API there); sampan appends the
backward as under to_static (eager's answer is the truth either way)."""
from spec import C

CASES = [
    C("grad.square", "x.stop_gradient = False\ny = x * x\nreturn paddle.grad(y, x)[0]",
      "float32[3]"),
    C("grad.create_graph",
      "x.stop_gradient = False\ny = paddle.tanh(x) * x\n"
      "return paddle.grad(y, x, create_graph=True)[0] * 2.0", "float32[2,3]"),
    C("grad.two_outputs",
      "x.stop_gradient = False\nreturn paddle.grad([x * x, paddle.sin(x)], [x])[0]",
      "float32[4]"),
    C("grad.grad_outputs",
      "x.stop_gradient = False\ny = paddle.exp(x)\n"
      "return paddle.grad([y], [x], grad_outputs=[paddle.ones_like(y) * 3.0])[0]",
      "float32[3]"),
    C("grad.two_inputs",
      "x.stop_gradient = False\ny.stop_gradient = False\n"
      "gx, gy = paddle.grad([paddle.matmul(x, y).sum()], [x, y])\nreturn gx, gy",
      "float32[2,3]", "float32[3,2]"),
    C("grad.intermediate",
      "x.stop_gradient = False\nh = x * 2.0\nreturn paddle.grad(paddle.sin(h) * h, h)[0]",
      "float32[3]"),
    C("detach.add", "y = x * 2.0\nreturn y.detach() + y", "float32[3]"),
    C("detach.float64", "return (x + 1.0).detach()", "float64[2,2]"),
    C("to_tensor_of_tensor.add", "return paddle.to_tensor(x) + 1.0", "float32[3]"),
    C("to_tensor_of_tensor.dtype", "return paddle.to_tensor(x, dtype='float64')",
      "float32[3]"),
    C("to_tensor_of_list", "return x + paddle.to_tensor([1.0, 2.0, 3.0])", "float32[3]"),
    C("clone", "return x.clone() * 2.0", "float32[2,3]"),
]
