"""``paddle.static.nn.static_pylayer`` (static mode: the ``pylayer`` op) and
``paddle.autograd.PyLayer`` eagerly and under to_static (where apply builds a
``pylayer`` op); ``grad=True`` cases compare the eager gradients, which come
from the layer's own backward.  The gradients of programs are compared with
real Paddle by tests/static/test_static_pylayer.py and
tests/jit/test_pylayer_to_static.py."""
from spec import C

S = ("static",)
DY = ("eager", "to_static")

SP = "paddle.static.nn.static_pylayer"

_TANH2 = """class F(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return paddle.tanh(a) * 2.0

    @staticmethod
    def backward(ctx, d):
        a, = ctx.saved_tensor()
        return d * a * 3.0
"""

_TWO = """class F(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx, a, b, k):
        ctx.k = k
        ctx.save_for_backward(a, b)
        return a * b * k, a + b

    @staticmethod
    def backward(ctx, d1, d2):
        a, b = ctx.saved_tensor()
        return d1 * b + d2, d1 * a * ctx.k
"""

_INNER = ("Paddle's to_static raises TypeError on a PyLayer class defined in the converted "
          "function (its Ld() turns the base class into a StaticPyLayer); sampan's "
          "to_static result is compared with eager")

CASES = [
    C("static_pylayer.exp", f"return {SP}(lambda v: paddle.exp(v), [x], lambda d: d * 2.0)",
      "float32[2,3]", modes=S),
    C("static_pylayer.no_backward", f"return {SP}(lambda v: paddle.tanh(v) + 1.0, [x])",
      "float32[4]", modes=S),
    C("static_pylayer.two_outputs",
      f"return {SP}(lambda a, b: (a * b, a - b), [x, y], lambda d1, d2: (d1, d2))",
      "float32[3]", "float32[3]", modes=S),
    C("static_pylayer.python_input",
      f"return {SP}(lambda a, s: a * s, [x, 3.0], lambda d: d)", "float64[2,2]", modes=S),
    C("static_pylayer.none_output", f"return {SP}(lambda v: None, [x])", "float32[2]",
      modes=S),
    C("static_pylayer.eager_refused", f"return {SP}(lambda v: v, [x])", "float32[2]",
      modes=("eager",)),
    C("static_pylayer.inputs_not_list", f"return {SP}(lambda v: v * 2.0, (x,), lambda d: d)",
      "float32[2]", modes=S),
    C("pylayer.saved_tensor", _TANH2 + "return F.apply(x)", "float32[2,3]", modes=DY,
      grad=True, note=_INNER),
    C("pylayer.two_in_two_out", _TWO + "out = F.apply(x, y, 2.0)\nreturn out",
      "float32[3]", "float32[3]", modes=DY, grad=True, note=_INNER),
]
