"""Tensor conveniences and the tensor-array functions: item/tolist (Python
values), T/mT, is_tensor, increment, create_array/array_write/array_read/
array_length/tensor_array_to_tensor."""
from spec import C

DY = ("eager", "to_static")
# Paddle 2.6.2 keeps tensor_array_to_tensor in paddle.tensor.manipulation only
TA = ("a = paddle.tensor.create_array('float32')\n"
      "for k in range({2}):\n"
      "    a = paddle.tensor.array_write({1}, paddle.full([1], k, 'int64'), array=a)\n"
      "out, idx = paddle.tensor.manipulation.tensor_array_to_tensor(a, axis={0}, "
      "use_stack={3})\nreturn out, idx")
CASES = [
    C("item.float", "x[0].item()", "float32[3]", modes=("eager",)),
    C("item.int", "x.item()", "int64[]", modes=("eager",)),
    C("item.index", "x.item(1)", "int32[2,2]", modes=("eager",)),
    C("item.bool", "x.item()", "bool[1]", modes=("eager",)),
    C("tolist.f32", "x.tolist()", "float32[2,2]", modes=("eager",)),
    C("tolist.int", "x.tolist()", "int64[3]", modes=("eager",)),
    C("T.2d", "x.T", "float32[2,3]"),
    C("T.3d", "x.T", "int64[2,3,4]"),
    C("mT.3d", "x.mT", "float32[2,3,4]", paddle_code="paddle.transpose(x, [0, 2, 1])",
      note="sampan extension: Paddle 2.6.2's Tensor has no mT"),
    C("is_tensor.tensor", "paddle.is_tensor(x)", "float32[2]", modes=("eager",)),
    C("is_tensor.list", "paddle.is_tensor([1, 2])", modes=("eager",)),
    C("increment.f32", "paddle.increment(x, value=2.0)", "float32[1]"),
    C("increment.int64", "paddle.increment(x)", "int64[1]"),
    C("increment.bad_shape", "paddle.increment(x)", "float32[2]"),
    C("array.write_read",
      "a = paddle.tensor.create_array('float32')\n"
      "i = paddle.zeros([1], dtype='int64')\n"
      "a = paddle.tensor.array_write(x, i, array=a)\n"
      "a = paddle.tensor.array_write(x * 2.0, i + 1, array=a)\n"
      "return paddle.tensor.array_read(a, i + 1)", "float32[2,3]", modes=DY),
    # to_static: Paddle gives the Python int, sampan an int64 [1] tensor (README gap)
    C("array.length",
      "a = paddle.tensor.create_array('float32')\n"
      "a = paddle.tensor.array_write(x, paddle.zeros([1], dtype='int64'), array=a)\n"
      "return paddle.tensor.array_length(a)", "float32[2,3]", modes=("eager",)),
    C("array.top_level",
      "a = paddle.create_array('float32')\ni = paddle.zeros([1], dtype='int64')\n"
      "a = paddle.array_write(x, i, array=a)\nreturn paddle.array_read(a, i)",
      "float32[3]", modes=DY, note="sampan extension: the array functions at top level",
      paddle_code="a = paddle.tensor.create_array('float32')\n"
      "i = paddle.zeros([1], dtype='int64')\n"
      "a = paddle.tensor.array_write(x, i, array=a)\nreturn paddle.tensor.array_read(a, i)"),
    C("array.to_tensor_stack",
      "a = paddle.tensor.create_array('float32')\n"
      "for k in range(3):\n"
      "    a = paddle.tensor.array_write(x + k, paddle.full([1], k, 'int64'), array=a)\n"
      "out, idx = paddle.tensor_array_to_tensor(a, axis=0, use_stack=True)\n"
      "return out, idx", "float32[2]", modes=("eager",), paddle_code=TA.format(0, "x + k", 3, True)),
    C("array.to_tensor_concat",
      "a = paddle.tensor.create_array('float32')\n"
      "for k in range(2):\n"
      "    a = paddle.tensor.array_write(x * k, paddle.full([1], k, 'int64'), array=a)\n"
      "out, idx = paddle.tensor_array_to_tensor(a, axis=1)\n"
      "return out, idx", "float32[2,2]", modes=("eager",), paddle_code=TA.format(1, "x * k", 2, False)),
]
