"""``paddle.flops``: count a network's floating-point operations the way
Paddle 2.6 counts them.

For a Layer: the network runs once (eval mode, no grad) on
``randn(input_size)`` with a forward post-hook on every leaf layer; the
count function of the layer's exact type (``custom_ops`` first, then
Paddle's table below; other types count zero) adds per call:

- ConvNd / ConvNdTranspose: ``out.numel() * (in_channels / groups * prod(kernel) + has_bias)``
- BatchNorm2D, BatchNorm: ``2 * in.numel()``; LeakyReLU: ``in.numel()``
- Linear: ``in_features * out.numel()``; AvgPoolNd: ``out.numel()``
- AdaptiveAvgPoolNd: ``(prod(in_hw // out_hw) + 1) * out.numel()``
- ReLU, ReLU6, Dropout: 0

For a static Program: per op, conv2d/depthwise_conv2d, pool2d, mul/matmul,
batch_norm and elementwise ops (Paddle's static rules, per sample).
Prints ``Total Flops: N     Total Params: M`` (and with ``print_detail``
a table per layer or op) and returns the total.
"""
import warnings

import numpy as np

from .. import nn
from ..dygraph import no_grad
from ..program.framework import Program
from .. import tensor as T

__all__ = ["flops", "Table"]


def _numel(t):
    return int(np.prod(t.shape))


def count_convNd(m, x, y):
    kernel_ops = np.prod(m.weight.shape[2:])
    bias_ops = 1 if m.bias is not None else 0
    return abs(int(_numel(y) * (x[0].shape[1] / m._groups * kernel_ops + bias_ops)))


def count_leaky_relu(m, x, y):
    return _numel(x[0])


def count_bn(m, x, y):
    return abs(int(2 * _numel(x[0])))


def count_linear(m, x, y):
    return abs(int(m.weight.shape[0] * _numel(y)))


def count_avgpool(m, x, y):
    return _numel(y)


def count_adap_avgpool(m, x, y):
    kernel = np.array(x[0].shape[2:]) // np.array(y.shape[2:])
    return abs(int((np.prod(kernel) + 1) * _numel(y)))


def count_zero_ops(m, x, y):
    return 0


register_hooks = {
    nn.Conv1D: count_convNd, nn.Conv2D: count_convNd, nn.Conv3D: count_convNd,
    nn.Conv1DTranspose: count_convNd, nn.Conv2DTranspose: count_convNd,
    nn.Conv3DTranspose: count_convNd,
    nn.BatchNorm2D: count_bn, nn.BatchNorm: count_bn,
    nn.ReLU: count_zero_ops, nn.ReLU6: count_zero_ops, nn.LeakyReLU: count_leaky_relu,
    nn.Linear: count_linear, nn.Dropout: count_zero_ops,
    nn.AvgPool1D: count_avgpool, nn.AvgPool2D: count_avgpool, nn.AvgPool3D: count_avgpool,
    nn.AdaptiveAvgPool1D: count_adap_avgpool, nn.AdaptiveAvgPool2D: count_adap_avgpool,
    nn.AdaptiveAvgPool3D: count_adap_avgpool,
}


class Table:
    """The ``+----+`` table Paddle's flops prints."""

    def __init__(self, table_heads):
        self.table_heads = table_heads
        self.col_num = len(table_heads)
        self.table_len = [len(h) for h in table_heads]
        self.data = []

    def add_row(self, row):
        if not isinstance(row, list) or len(row) != self.col_num:
            raise ValueError(f"a row of this table is a list of {self.col_num} cells, got "
                             f"{row!r}")
        self.table_len = [max(n, len(str(c))) for n, c in zip(self.table_len, row)]
        self.data.append(row)

    def _row(self, row):
        return "".join("|" + str(c).center(n + 2) for c, n in zip(row, self.table_len)) + "|"

    def _shelf(self):
        return "".join("+" + "-" * (n + 2) for n in self.table_len) + "+"

    def print_table(self):
        print(self._shelf())
        print(self._row(self.table_heads))
        print(self._shelf())
        for row in self.data:
            print(self._row(row))
        print(self._shelf())


def flops(net, input_size, custom_ops=None, print_detail=False):
    """FLOPs of ``net`` (a Layer run on one random input of ``input_size``,
    or a static Program)."""
    if isinstance(net, nn.Layer):
        forward = getattr(net.forward, "dygraph_function", None)
        if forward is not None:      # a @to_static forward counts its eager code
            net.forward = forward        # (bound to net) as Paddle's unwrap_decorators does
        return dynamic_flops(net, T.randn(list(input_size)), custom_ops, print_detail)
    if isinstance(net, Program):
        return static_flops(net, print_detail=print_detail)
    warnings.warn("Your model must be an instance of paddle.nn.Layer or paddle.static.Program.")
    return -1


def _is_leaf(m):
    return not any(True for _ in m.children())


def dynamic_flops(model, inputs, custom_ops=None, print_detail=False):
    custom_ops = custom_ops or {}
    handles, seen, counts = [], set(), {}

    def add_hooks(m):
        if not _is_leaf(m):
            return
        m_type = type(m)
        fn = None
        if m_type in custom_ops:
            fn = custom_ops[m_type]
            if m_type not in seen:
                print(f"Customize Function has been applied to {m_type}")
        elif m_type in register_hooks:
            fn = register_hooks[m_type]
            if m_type not in seen:
                print(f"{m_type}'s flops has been counted")
        elif m_type not in seen:
            print(f"Cannot find suitable count function for {m_type}. Treat it as zero FLOPs.")
        seen.add(m_type)
        counts[id(m)] = {"ops": 0}

        def hook(layer, x, y, fn=fn):
            rec = counts[id(layer)]
            if fn is not None:
                if fn in register_hooks.values():
                    rec["ops"] += fn(layer, x, y)
                else:                       # a user's function adds to layer.total_ops
                    layer.total_ops = rec["ops"]
                    fn(layer, x, y)
                    rec["ops"] = int(layer.__dict__.pop("total_ops"))
            rec["params"] = sum(_numel(p) for p in layer.parameters())
            rec["input_shape"] = list(x[0].shape)
            rec["output_shape"] = list((y[0] if isinstance(y, (list, tuple)) else y).shape)
        handles.append(m.register_forward_post_hook(hook))

    training = model.training
    model.eval()
    model.apply(add_hooks)
    try:
        with no_grad():
            model(inputs)
    finally:
        if training:
            model.train()
        for h in handles:
            h.remove()
    table = Table(["Layer Name", "Input Shape", "Output Shape", "Params", "Flops"])
    total_ops = total_params = 0
    for _, m in model.named_sublayers():
        rec = counts.get(id(m))
        if rec is None or "input_shape" not in rec:
            continue
        total_ops += rec["ops"]
        total_params += rec["params"]
        table.add_row([m.full_name(), rec["input_shape"], rec["output_shape"],
                       int(rec["params"]), int(rec["ops"])])
    if print_detail:
        table.print_table()
    print(f"Total Flops: {int(total_ops)}     Total Params: {int(total_params)}")
    return int(total_ops)


def _var(program, name):
    for block in program.blocks:
        if block.has_var(name):
            return block.var(name)
    return None


def _op_flops(program, op):
    def shape(slot, out=False):
        names = op.output(slot) if out else (op.input(slot) if slot in op.input_names else [])
        return list(_var(program, names[0]).shape) if names else None

    t = op.type
    if t in ("conv2d", "depthwise_conv2d"):
        bias = 1 if "Bias" in op.input_names and op.input("Bias") else 0
        return (abs(np.prod(shape("Output", True)[1:]) * (np.prod(shape("Filter")[1:]) + bias)),
                op.input("Filter")[0])
    if t == "pool2d":
        i, o = shape("X"), shape("Out", True)
        kernel = np.array(i[2:]) // np.array(o[2:])
        return abs((np.prod(kernel) + 1) * np.prod(o[1:])), ""
    if t in ("mul", "matmul"):
        return abs(shape("Y")[0] * np.prod(shape("Out", True)[1:])), op.input("Y")[0]
    if t == "batch_norm":
        return abs(2 * np.prod(shape("Y", True)[1:])), ""
    if t.startswith("element"):
        return abs(np.prod(shape("X")[1:])), ""
    return 0, ""


def static_flops(program, print_detail=False):
    total = 0
    table = Table(["OP Type", "Param name", "Flops"])
    for block in program.blocks:
        for op in block.ops:
            n, param = _op_flops(program, op)
            total += n
            if n != 0:
                table.add_row([op.type, param, n])
    if print_detail:
        table.print_table()
    return total
