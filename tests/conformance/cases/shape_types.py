"""What shape queries return, and of which Python or tensor type:
``paddle.shape`` (an int32 tensor), ``Tensor.shape`` (a list of ints),
``numel``, ``size``, ``ndim``, ``dim()``, ``len``, and shape values used in
arithmetic (``paddle.shape(x)[0]`` is an int32 0-d tensor)."""
from spec import C

CASES = [
    C("paddle_shape", "paddle.shape(x)", "float32[2,3]"),
    C("paddle_shape.zero_d", "paddle.shape(x)", "float32[]"),
    C("paddle_shape.item", "paddle.shape(x)[0]", "float32[2,3]"),
    C("paddle_shape.last", "paddle.shape(x)[-1]", "int64[2,3]"),
    C("paddle_shape.slice", "paddle.shape(x)[1:]", "float32[2,3,4]"),
    C("tensor_shape", "x.shape", "float32[2,3]"),
    C("tensor_shape.zero_d", "x.shape", "float32[]"),
    C("tensor_shape.item", "x.shape[0]", "float32[4,3]"),
    C("numel.method", "x.numel()", "float32[2,3]"),
    C("numel.fn", "paddle.numel(x)", "int32[2,3]"),
    C("numel.empty", "paddle.numel(x)", "float32[0,3]"),
    C("size", "x.size", "float32[2,3]"),
    C("ndim", "x.ndim", "float32[2,3]"),
    C("dim", "x.dim()", "float32[2,3]"),
    C("len", "len(x)", "float32[4,3]", modes=("eager", "to_static")),
    C("dtype", "x.dtype", "int32[2]"),
    C("dtype.compare", "x.dtype == paddle.float32", "float32[2]"),
    C("shape.div", "paddle.sum(x, axis=0) / paddle.shape(x)[0]", "float32[3,2]"),
    C("shape.mul_float", "x * paddle.shape(x)[0]", "float32[3,2]"),
    C("shape.add_int64", "paddle.full([1], 0, dtype='int64') + paddle.shape(x)[0]",
      "float32[3,2]"),
    C("shape.compare_int64", "y < paddle.shape(x)[0]", "float32[3,2]", "int64[]"),
    C("shape.compare_rev", "paddle.shape(x)[0] < y", "float32[3,2]", "int64[]"),
    C("shape.python_int_arith", "x * x.shape[0] + x.shape[1]", "float32[3,2]"),
    C("shape.reshape_with", "paddle.reshape(x, [paddle.shape(x)[0], -1])", "float32[3,2,2]"),
    C("shape.full_like_shape", "paddle.zeros(paddle.shape(x))", "float32[2,3]"),
    C("numel.arith", "x.sum() / x.numel()", "float32[2,3]"),
    C("cast_shape", "paddle.shape(x).astype('float32') * 0.5", "float32[2,3]"),
]
