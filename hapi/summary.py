"""``paddle.summary``: run a network once on random inputs and print a table
of its leaf layers (Paddle 2.6's layout and numbers exactly).

Each layer (the network itself only when it has no sublayers; never a
``Sequential``/``LayerList``) gets a forward post-hook recording its input
and output shapes and its own parameters; rows are keyed
``<ClassName>-<n>`` where ``n`` is one more than the counter ending the
layer's ``full_name()`` (``conv2d_1`` -> ``Conv2D-2``).  Sizes in MB count
4 bytes per element: the inputs, twice the outputs of every row
(forward and backward), and the parameters.
"""
import numbers
import warnings
from collections import OrderedDict

import numpy as np

from ..dygraph import Tensor, no_grad
from ..ops import in_dynamic_mode
from ..program.framework import Variable
from ..static import InputSpec
from .. import tensor as T
from ..nn import Sequential, LayerList

__all__ = ["summary", "summary_string"]


def _normalize_input_size(input_size, input):
    if input_size is None and input is None:
        raise ValueError("input_size and input cannot be None at the same time")
    if input_size is None:
        if isinstance(input, (Tensor, Variable)):
            input_size = tuple(input.shape)
        elif isinstance(input, (list, tuple)):
            input_size = [tuple(x.shape) for x in input]
        elif isinstance(input, dict):
            input_size = [tuple(v.shape) for v in input.values()]
        else:
            raise ValueError("Input is not tensor, list, tuple and dict, unable to determine "
                             "input_size, please input input_size.")
    if isinstance(input_size, InputSpec):
        return tuple(input_size.shape)
    if isinstance(input_size, list):
        out = []
        for item in input_size:
            if isinstance(item, int):
                item = (item,)
            if not isinstance(item, (tuple, InputSpec)):
                raise AssertionError(f"When input_size is list, expect item in input_size is "
                                     f"a tuple or InputSpec, but got {type(item)}")
            out.append(tuple(item.shape) if isinstance(item, InputSpec) else item)
        return out
    if isinstance(input_size, int):
        return (input_size,)
    return input_size


def _is_shape(shape):
    return not any(isinstance(i, (list, tuple)) for i in shape)


def _check_shape(shape):
    unknown, out = 0, []
    for item in shape:
        if item is None or item == -1:
            unknown += 1
            if unknown > 1:
                raise ValueError("Option input_size only the dim of batch_size can be None or "
                                 "-1.")
            item = 1
        elif isinstance(item, numbers.Number) and item <= 0:
            raise ValueError(f"Expected element in input size greater than zero, but got "
                             f"{item}")
        out.append(item)
    return tuple(out)


def _check_input(size):
    if isinstance(size, (list, tuple)) and _is_shape(size):
        return _check_shape(size)
    return [_check_input(i) for i in size]


def summary(net, input_size=None, dtypes=None, input=None):
    """Print the layer table of ``net`` and return
    ``{'total_params': n, 'trainable_params': m}``.

    ``input_size``: a shape tuple (one input), a list of them, or InputSpecs
    (the batch dim may be None/-1, taken as 1); ``dtypes``: one dtype name or
    one per input (default float32); ``input``: real inputs instead."""
    size = _check_input(_normalize_input_size(input_size, input))
    if not in_dynamic_mode():
        warnings.warn("Your model was created in static graph mode, this may not get correct "
                      "summary information!")
        in_train_mode = False
    else:
        in_train_mode = net.training
    if in_train_mode:
        net.eval()
    try:
        text, info = summary_string(net, size, dtypes, input)
    finally:
        if in_train_mode:
            net.train()
    print(text)
    return info


def _all_numbers(items):
    return all(isinstance(i, numbers.Number) for i in items)


def _build_dtypes(size, dtype):
    if isinstance(size, (list, tuple)) and _all_numbers(size):
        return [dtype or "float32"]
    return [_build_dtypes(i, dtype) for i in size]


def _shape_of(x):
    if isinstance(x, (Tensor, Variable)):
        return list(x.shape)
    if isinstance(x, (list, tuple)):
        return [_shape_of(i) for i in x]
    return None


def _output_shape(out):
    if isinstance(out, (list, tuple)):
        return [_output_shape(o) for o in out]
    return list(out.shape) if hasattr(out, "shape") else []


def _build_input(size, dtypes):
    if isinstance(size, (list, tuple)) and _all_numbers(size):
        dtype = dtypes[0] if isinstance(dtypes, (list, tuple)) else dtypes
        return T.cast(T.rand(list(size)), dtype)
    return [_build_input(s, d) for s, d in zip(size, dtypes)]


def _row_output_elements(shape):
    try:
        return np.sum(np.prod(shape, axis=-1))
    except (ValueError, TypeError):
        return sum(np.sum(np.prod(s, axis=-1)) for s in shape)


def _input_mb(size):
    if isinstance(size, (list, tuple)) and _all_numbers(size):
        return abs(np.prod(size) * 4.0 / 1024 ** 2.0)
    return sum(_input_mb(s) for s in size)


@no_grad()
def summary_string(model, input_size=None, dtypes=None, input=None):
    """(the table as text, {'total_params', 'trainable_params'})."""
    if not isinstance(dtypes, (list, tuple)):
        dtypes = _build_dtypes(input_size, dtypes)
    depth = len(list(model.sublayers()))
    rows = OrderedDict()
    hooks = []

    def hook(layer, inputs, output):
        class_name = type(layer).__name__
        try:
            idx = int(layer._full_name.split("_")[-1])
        except ValueError:
            idx = len(rows)
        row = rows[f"{class_name}-{idx + 1}"] = OrderedDict()
        row["input_shape"] = _shape_of(inputs)
        row["output_shape"] = _output_shape(output)
        params = layer._parameters if in_dynamic_mode() else layer.state_dict()
        row["trainable_params"] = 0
        total, trainable_flag = 0, False
        for k, v in params.items():
            if v is None:
                continue
            total += np.prod(v.shape)
            p = getattr(layer, k, v)
            if getattr(p, "trainable", True) and not p.stop_gradient:
                row["trainable_params"] += np.prod(v.shape)
                row["trainable"] = trainable_flag = True
            elif not trainable_flag:
                row["trainable"] = False
        row["nb_params"] = total

    def register(layer):
        if not isinstance(layer, (Sequential, LayerList)) and (layer is not model or depth < 1):
            hooks.append(layer.register_forward_post_hook(hook))
        elif getattr(layer, "could_use_cudnn", False):
            hooks.append(layer.register_forward_post_hook(hook))

    if isinstance(input_size, tuple):
        input_size = [input_size]
    model.apply(register)
    try:
        if input is not None:
            model(input)
        else:
            model(*_build_input(input_size, dtypes))
    finally:
        for h in hooks:
            h.remove()
    return _format(rows, input_size)


def _format(rows, input_size):
    w = {"layer": 15, "input": 20, "output": 20, "params": 15}
    for key, row in rows.items():
        w["output"] = max(w["output"], len(str(row["output_shape"])))
        w["input"] = max(w["input"], len(str(row["input_shape"])))
        w["layer"] = max(w["layer"], len(str(key)))
        w["params"] = max(w["params"], len(str(row["nb_params"])))
    table = max(75, sum(w.values()) + 5)

    def line(a, b, c, d):
        return (f"{a:^{w['layer']}} {b:^{w['input']}} {c:^{w['output']}} "
                f"{d:^{w['params']}}\n")

    text = "-" * table + "\n" + line("Layer (type)", "Input Shape", "Output Shape", "Param #")
    text += "=" * table + "\n"
    total_params = total_output = trainable = 0
    for key, row in rows.items():
        text += line(key, str(row["input_shape"]), str(row["output_shape"]),
                     f"{row['nb_params']:,}")
        total_params += row["nb_params"]
        total_output += _row_output_elements(row["output_shape"])
        if row.get("trainable"):
            trainable += row["trainable_params"]
    in_mb = _input_mb(input_size)
    out_mb = abs(2.0 * total_output * 4.0 / 1024 ** 2.0)
    params_mb = abs(total_params * 4.0 / 1024 ** 2.0)
    text += "=" * table + "\n"
    text += f"Total params: {total_params:,}\n"
    text += f"Trainable params: {trainable:,}\n"
    text += f"Non-trainable params: {total_params - trainable:,}\n"
    text += "-" * table + "\n"
    text += "Input size (MB): %0.2f\n" % in_mb
    text += "Forward/backward pass size (MB): %0.2f\n" % out_mb
    text += "Params size (MB): %0.2f\n" % params_mb
    text += "Estimated Total Size (MB): %0.2f\n" % (params_mb + out_mb + in_mb)
    text += "-" * table + "\n"
    return text, {"total_params": total_params, "trainable_params": trainable}
