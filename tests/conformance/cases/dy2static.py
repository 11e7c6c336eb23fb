"""Ordinary Python over tensors that to_static converts (loops over tensor
ranges, tensor while conditions, tensor ifs), mixing integer counters and
``paddle.shape`` values into float arithmetic: the programs that failed before
Paddle's operand rules were followed.  Eager and to_static only (plain Python
loops over a Variable are not a static Program)."""
from spec import C

DY = ("eager", "to_static")

CASES = [
    C("for_tensor_range.mul_counter",
      "acc = paddle.zeros_like(x)\nfor i in range(n):\n    acc = acc + x * i\nreturn acc",
      "float32[3,2]", "int64[]|pos", modes=DY),
    C("for_tensor_range.counter_first",
      "acc = paddle.zeros_like(x)\nfor i in range(n):\n    acc = acc + i * x\nreturn acc",
      "float32[3,2]", "int64[]|pos", modes=DY),
    C("for_shape_range.int64_index",
      "out = paddle.zeros([1], dtype='int64')\nfor i in range(paddle.shape(x)[0]):\n"
      "    idx = paddle.full([1], 0, dtype='int64') + i\n    out = out + idx\nreturn out",
      "float32[4,2]", modes=DY),
    C("shape_divisor", "b = paddle.shape(x)[0]\nreturn paddle.sum(x, axis=0) / b",
      "float32[3,2]", modes=DY + ("static",)),
    C("while_int64_lt_int32",
      "i = paddle.zeros([1], dtype='int64')\nn = paddle.shape(x)[0]\ns = paddle.zeros([1])\n"
      "while i < n:\n    s = s + paddle.sum(x[i])\n    i = i + 1\nreturn s, i",
      "float32[3,2]", modes=DY),
    C("while_int32_lt_int64",
      "i = paddle.zeros([1], dtype='int32')\ns = paddle.zeros([1])\n"
      "while i < n:\n    s = s + x[0] * i\n    i = i + 1\nreturn s",
      "float32[2]", "int64[]|pos", modes=DY),
    C("for_range.float_div_counter",
      "acc = x\nfor i in range(n):\n    acc = acc + x / (i + 1)\nreturn acc",
      "float32[3]", "int64[]|pos", modes=DY),
    C("if_tensor_negative_sum",
      "if paddle.sum(x) - 100.0:\n    return x + 1\nreturn x - 1", "float32[3]", modes=DY,
      note="a negative 1-element condition: eager Paddle's bool() is value > 0"),
    C("if_int_tensor", "if n:\n    return x * 2\nreturn x", "float32[3]", "int64[]|pos",
      modes=DY),
    C("matmul_1d_in_loop",
      "acc = paddle.zeros([])\nfor i in range(n):\n    acc = acc + paddle.matmul(x, x) * i\n"
      "return acc", "float32[4]", "int64[]|pos", modes=DY),
    C("shape_mixed_compare",
      "n = paddle.shape(x)[0]\nm = paddle.full([], 2, dtype='int64')\nreturn (n > m), (m < n)",
      "float32[3,2]", modes=DY + ("static",)),
]
