"""``paddle.amp`` on the CPU, where Paddle 2.6.2 runs no AMP: auto_cast
(O1/O2/OD, float16/bfloat16, custom lists, use_promote) leaves every op's
output dtype and value as without it, decorate(level='O2') casts nothing,
GradScaler is disabled and passes the loss through; bad levels and dtypes
raise ValueError.  Paddle's auto_cast/GradScaler are eager-only (its static
mode asserts), so those cases run eagerly and under to_static."""
from spec import C

CASES = []
EAGERISH = ("eager", "to_static")


def A(id, body, *args, **kw):
    CASES.append(C(id, body, *args, **kw))


MM = ("float32[2,3]", "float32[3,4]")
for level in ("O1", "O2", "OD"):
    for dtype in ("float16", "bfloat16"):
        cm = f"paddle.amp.auto_cast(level='{level}', dtype='{dtype}')"
        A(f"auto_cast.{level}.{dtype}.matmul", f"with {cm}:\n    y = paddle.matmul(x, y)\n"
          f"return y", *MM, modes=EAGERISH)
        A(f"auto_cast.{level}.{dtype}.exp_add", f"with {cm}:\n    z = paddle.exp(x) + x\n"
          f"return z", "float32[2,3]", modes=EAGERISH)
A("auto_cast.conv2d", "with paddle.amp.auto_cast():\n"
  "    out = paddle.nn.functional.conv2d(x, y)\nreturn out", "float32[1,2,5,5]",
  "float32[3,2,3,3]", modes=EAGERISH)
A("auto_cast.softmax_mean", "with paddle.amp.auto_cast():\n"
  "    out = paddle.nn.functional.softmax(paddle.matmul(x, y)).mean()\nreturn out", *MM,
  modes=EAGERISH)
A("auto_cast.custom_white", "with paddle.amp.auto_cast(custom_white_list={'elementwise_add'}):"
  "\n    out = x + y\nreturn out", "float32[2,3]", "float32[2,3]", modes=EAGERISH)
A("auto_cast.custom_black", "with paddle.amp.auto_cast(custom_black_list={'matmul_v2'}):"
  "\n    out = paddle.matmul(x, y)\nreturn out", *MM, modes=EAGERISH)
A("auto_cast.no_promote", "with paddle.amp.auto_cast(level='O2', use_promote=False):"
  "\n    out = x * y\nreturn out", "float32[2,3]", "float32[2,3]",
  modes=EAGERISH)
A("auto_cast.disabled", "with paddle.amp.auto_cast(enable=False):\n"
  "    out = paddle.matmul(x, y)\nreturn out", *MM, modes=EAGERISH)
A("auto_cast.float16_input", "with paddle.amp.auto_cast():\n"
  "    out = paddle.matmul(x.astype('float16'), y)\nreturn out.dtype", *MM, modes=EAGERISH)
# Paddle's auto_cast checks its arguments as the block is entered
A("auto_cast.bad_level.not_entered", "paddle.amp.auto_cast(level='O3')\nreturn x",
  "float32[2]", modes=("eager",))
A("auto_cast.bad_level", "with paddle.amp.auto_cast(level='O3'):\n    y = x + 1\nreturn x",
  "float32[2]", modes=("eager",))
A("auto_cast.bad_dtype", "with paddle.amp.auto_cast(dtype='float64'):\n    y = x + 1\n"
  "return x", "float32[2]", modes=("eager",))
A("auto_cast.overlap", "with paddle.amp.auto_cast(custom_white_list=['exp'], "
  "custom_black_list=['exp']):\n    y = x + 1\nreturn x", "float32[2]", modes=("eager",))

# ------------------------------------------------------------------ decorate
A("decorate.O2.linear", "net = paddle.nn.Linear(3, 4)\n"
  "net = paddle.amp.decorate(net, level='O2')\nreturn [net.weight.dtype, net(x).dtype]",
  "float32[2,3]", modes=("eager",))
A("decorate.O2.bfloat16", "net = paddle.nn.Conv2D(2, 3, 3)\n"
  "opt = paddle.optimizer.SGD(parameters=net.parameters())\n"
  "net, opt = paddle.amp.decorate(net, opt, level='O2', dtype='bfloat16')\n"
  "return [net.weight.dtype, net.bias.dtype]", modes=("eager",))
A("decorate.bad_level", "paddle.amp.decorate(paddle.nn.Linear(2, 2), level='O0')",
  modes=("eager",))
A("decorate.bad_dtype", "paddle.amp.decorate(paddle.nn.Linear(2, 2), dtype='float32')",
  modes=("eager",))

# ------------------------------------------------------------------ GradScaler
A("grad_scaler.disabled", "s = paddle.amp.GradScaler()\n"
  "return [s.is_enable(), s.scale(x), len(s.state_dict())]", "float32[3]", modes=("eager",))
A("grad_scaler.minimize", "net = paddle.nn.Linear(3, 1)\n"
  "opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=net.parameters())\n"
  "net.weight.set_value(paddle.ones([3, 1]))\n"
  "s = paddle.amp.GradScaler(init_loss_scaling=1024)\n"
  "with paddle.amp.auto_cast():\n    loss = net(x).sum()\n"
  "scaled = s.scale(loss)\nscaled.backward()\ns.minimize(opt, scaled)\n"
  "return [scaled, net.weight]", "float32[2,3]", modes=("eager",))
A("grad_scaler.step_update", "net = paddle.nn.Linear(3, 1)\n"
  "opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=net.parameters())\n"
  "net.weight.set_value(paddle.ones([3, 1]))\n"
  "s = paddle.amp.GradScaler()\nloss = net(x).sum()\n"
  "s.scale(loss).backward()\ns.unscale_(opt)\ns.step(opt)\ns.update()\n"
  "return net.weight", "float32[2,3]", modes=("eager",))
A("is_float16_supported", "paddle.amp.is_float16_supported()", modes=("eager",))
