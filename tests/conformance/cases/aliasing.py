"""Storage sharing of eager tensors: which results are views of their input
(a write into either is seen by the other) and which are copies, as Paddle
2.6.2 has them.  sampan keeps the sharing by bookkeeping (dygraph/aliases.py).

Not recorded here, where Paddle 2.6.2's eager result is itself inconsistent
(tests/dygraph/test_aliases.py checks sampan's answer by hand instead): a write
*into* an ``as_strided`` or ``unfold`` result (Paddle loses it, even in the
view itself), a dtype-changing write into a view (``cast_``: Paddle reinterprets
the bytes), and a gradient through a base after a write into its view (Paddle
uses the base's position before the write)."""
from spec import C

_E = ("eager",)
# writes through a view inside to_static: sampan's program follows eager
# (program/views.py), Paddle's to_static does not (compare.expected: eager is the truth)
_ES = ("eager", "to_static")
M34 = "float32[3,4]"

# a view of x, written through: (id, how the view is made, args)
_VIEWS = [
    ("detach", "x.detach()", M34),
    ("Tensor", "paddle.Tensor(x)", M34),
    ("index.slice", "x[0:2]", M34),
    ("index.int", "x[1]", M34),
    ("index.step", "x[:, ::2]", M34),
    ("index.none", "x[None]", M34),
    ("index.ellipsis", "x[..., 1]", M34),
    ("index.mixed", "x[1, 1:3]", M34),
    ("reshape", "x.reshape([4, 3])", M34),
    ("reshape.fn", "paddle.reshape(x, [2, -1])", M34),
    ("view", "x.view([6, 2])", M34),
    ("flatten", "x.flatten()", M34),
    ("transpose", "x.transpose([1, 0])", M34),
    ("t", "x.t()", M34),
    ("T", "x.T", M34),
    ("moveaxis", "paddle.moveaxis(x, 0, 1)", M34),
    ("squeeze", "x.squeeze(0)", "float32[1,3,2]"),
    ("unsqueeze", "x.unsqueeze(1)", M34),
    ("unbind", "x.unbind(0)[1]", M34),
    ("diagonal", "x.diagonal()", M34),
    ("slice", "paddle.slice(x, [1], [1], [3])", M34),
    ("strided_slice", "paddle.strided_slice(x, [1], [0], [4], [2])", M34),
    ("chain", "x.reshape([2, 6]).t()[1:4]", M34),
]
# a view that Paddle reads through but whose own writes it loses (module docstring)
_READ_ONLY_VIEWS = [
    ("unfold", "x.unfold(1, 2, 1)", M34),
    ("as_strided", "paddle.as_strided(x, [3, 2], [4, 1], 4)", M34),
]
# results that are copies: a later write into x is not seen
_COPIES = [
    ("split", "paddle.split(x, 2, axis=1)[0]"),
    ("chunk", "paddle.chunk(x, 3, axis=0)[1]"),
    ("expand", "x[0:1].expand([2, 4])"),
    ("broadcast_to", "paddle.broadcast_to(x[0], [2, 4])"),
    ("cast", "x.cast('float32')"),
    ("assign", "paddle.assign(x)"),
    ("clone", "x.clone()"),
    ("to_tensor", "paddle.to_tensor(x)"),
    ("index_select", "paddle.index_select(x, paddle.to_tensor([0, 2]))"),
    ("gather", "paddle.gather(x, paddle.to_tensor([1]))"),
    ("flip", "x.flip(0)"),
    ("roll", "x.roll(1)"),
    ("mask", "x[x > 0]"),
    ("index_list", "x[[0, 2]]"),
    ("numpy", "paddle.to_tensor(x.numpy())"),
]

# results that are copies of a parameter: an optimizer step (which sampan's
# kernels write into the parameter's array) must not reach them
_COPIES_OF_PARAMETER = [
    ("split", "paddle.split(w, 2)[0]"),
    ("chunk", "paddle.chunk(w, 2, axis=1)[1]"),
    ("unstack", "paddle.unstack(w)[1]"),
    ("flip", "w.flip(0)"),
    ("einsum_transpose", "paddle.einsum('ij->ji', w)"),
    ("matrix_power_1", "paddle.linalg.matrix_power(w, 1)"),
    ("reshape", "w.reshape([16])"),     # a view: it follows the step
]

CASES = (
    [C(f"view_sees_base.{k}", f"v = {make}\nx.multiply_(x)\nx[0, 0] = 7.0\nreturn v",
       a, modes=_ES) for k, make, a in _VIEWS + _READ_ONLY_VIEWS]
    + [C(f"base_sees_view.{k}",
         f"v = {make}\nv.add_(paddle.ones_like(v))\nv[0] = -3.0\nreturn x, v", a, modes=_ES)
       for k, make, a in _VIEWS]
    + [C(f"copy.{k}", f"v = {make}\nx.zero_()\nreturn v", M34, modes=_E)
       for k, make in _COPIES]
    + [C(f"copy_written.{k}", f"v = {make}\nv.zero_()\nreturn x", M34, modes=_E)
       for k, make in _COPIES[:4]]
    + [C(f"after_step.{k}",
         f"lin = paddle.nn.Linear(4, 4)\nw = lin.weight\nv = {make}\nv0 = v.clone()\n"
         "opt = paddle.optimizer.Momentum(0.5, parameters=lin.parameters())\n"
         "lin(x).sum().backward()\nopt.step()\n"
         f"return bool((v - v0).abs().sum() > 0), bool((v - ({make})).abs().sum() == 0)",
         M34, modes=_E) for k, make in _COPIES_OF_PARAMETER]
    + [
        C("siblings", "a = x[0]\nb = x.reshape([12])\nc = x.t()\na.zero_()\nreturn b, c",
          M34, modes=_E),
        C("reshape_.view", "v = x[0:2]\nv.reshape_([4, 2])\nv[1, 1] = 9.0\nx[0, 0] = 7.0\n"
          "return x, v", M34, modes=_E),
        C("reshape_.base", "v = x[0:2]\nx.reshape_([4, 3])\nx[0, 0] = 7.0\nreturn x, v",
          M34, modes=_E),
        C("unsqueeze_.view", "v = x.reshape([6, 2])\nv.unsqueeze_(0)\nv[0, 0, 0] = 9.0\n"
          "return x, v.shape", M34, modes=_E),
        C("set_value.base", "v = x.reshape([2, 6])\nx.set_value(np.ones([3, 4], 'float32'))\n"
          "return v", M34, modes=_E),
        C("copy_.view", "v = x.reshape([2, 6])\nv.copy_(paddle.ones([2, 6]), False)\nreturn x",
          M34, modes=_E),
        C("inplace_version", "v = x.reshape([2, 6])\nv.add_(paddle.ones([2, 6]))\n"
          "return x.inplace_version, v.inplace_version", M34, modes=_E),
        C("int.view", "v = x.reshape([2, 6])\nv.add_(paddle.ones([2, 6], 'int64'))\nreturn x",
          "int64[3,4]", modes=_E),
        C("numpy_is_a_copy", "a = x.numpy()\nx[0] = 5.0\nreturn paddle.to_tensor(a)",
          M34, modes=_E),
        C("grad.through_view",
          "x.stop_gradient = False\ny = x * 2\nz = x[2] * 3\nv = y[0:2]\nv.multiply_(z)\n"
          "v.sum().backward()\nreturn v, x.grad", M34, modes=_E),
        C("leaf.view_write",
          "w = x.detach()\nw.stop_gradient = False\nv = w[0:2]\nv.add_(paddle.ones([2, 4]))\n"
          "(w * 3).sum().backward()\nreturn w, w.is_leaf, v.stop_gradient, w.grad",
          M34, modes=_E),
        C("leaf.detach_write",
          "w = x.detach()\nw.stop_gradient = False\nd = w.detach()\nd.zero_()\n"
          "return w, w.is_leaf, w.stop_gradient", M34, modes=_E),
        C("optimizer_step_seen",
          "lin = paddle.nn.Linear(4, 2)\nd = lin.weight.detach()\nt = lin.weight.T\n"
          "r = lin.weight[1:3]\nw0 = lin.weight.clone()\n"
          "opt = paddle.optimizer.SGD(0.5, parameters=lin.parameters())\n"
          "lin(x).sum().backward()\nopt.step()\n"
          "return d - lin.weight, t - lin.weight.T, r - lin.weight[1:3], "
          "bool((w0 - lin.weight).abs().sum() > 0)", M34, modes=_E),
        C("batch_norm_stats_seen",
          "bn = paddle.nn.BatchNorm1D(4)\nm = bn._mean.reshape([2, 2])\nbn(x)\n"
          "return m, bn._mean", M34, modes=_E),
    ]
)
