"""Lists, dicts and layer containers in converted code (Paddle's
test_list.py / test_dict.py / test_container.py behaviours): lists grown in
Python and tensor loops, items written under a tensor if/else, pops, dicts
written in branches, nn.Sequential (nested) run and saved."""
import numpy as np
import pytest

import sampan as paddle

from .util import check, check_layer

pytestmark = pytest.mark.filterwarnings("ignore:jit.save:UserWarning")

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], "float32")


def list_append_python_loop(x):
    a = []
    for i in range(3):
        a.append(x * float(i + 1))
    return a[0] + a[2], len(a)


def list_append_tensor_loop(x):
    a = []
    i = paddle.zeros([1], "int64")
    n = paddle.full([1], 3, "int64")
    while i < n:
        a.append(x + paddle.cast(i, "float32"))
        i += 1
    return paddle.stack(a), a[1]


def list_item_written_in_tensor_if(x):
    a = [x, x * 2.0]
    if x.mean() > 0:
        a[0] = x + 10.0
    else:
        a[1] = x - 10.0
    return a[0] + a[1]


def list_pop(x):
    a = [x, x + 1.0, x + 2.0]
    last = a.pop()
    first = a.pop(0)
    return last - first, a[0]


def list_in_tensor_if_appended(x):
    a = []
    if x.sum() > 0:
        a.append(x)
    else:
        a.append(-x)
    return a[0] * 3.0


def dict_written_in_tensor_if(x):
    d = {"y": x, "n": 0}
    if x.mean() > 0:
        d["y"] = x * 3.0
    else:
        d["y"] = x - 1.0
    d["z"] = d["y"] + 1.0
    return d


def dict_of_lists(x):
    cache = {"k": [], "v": []}
    for i in range(2):
        cache["k"].append(x * float(i))
        cache["v"].append(paddle.tanh(x + float(i)))
    return paddle.concat(cache["k"]) + paddle.concat(cache["v"])


def dict_get_and_update(x):
    d = dict(a=x)
    d.update({"b": x * 2.0})
    return d.get("b") + d.get("c", x), len(d)


def nested_structures(x):
    out = {"pair": (x, x + 1.0), "list": [x * 2.0, {"deep": x - 1.0}]}
    return out


@pytest.mark.parametrize("fn", [list_append_python_loop, list_append_tensor_loop,
                                list_item_written_in_tensor_if, list_pop,
                                list_in_tensor_if_appended, dict_written_in_tensor_if,
                                dict_of_lists, dict_get_and_update, nested_structures])
def test_values_and_gradients(fn):
    check(fn, X, grad=(0,))
    check(fn, -X, grad=(0,))


# ----------------------------------------------------------------- layer containers
class MaskedLayer(paddle.nn.Layer):
    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        mean = paddle.mean(x)
        if mean < 0.0:
            x = x * self._mask()
        return x - mean

    def _mask(self):
        return paddle.to_tensor(np.zeros([self.n], "float32"))


class Seq(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.layer = paddle.nn.Sequential(("l1", paddle.nn.Linear(3, 3)),
                                          ("l2", paddle.nn.Linear(3, 2)),
                                          ("l3", MaskedLayer(2)))

    def forward(self, x):
        return self.layer(x)


class NestedSeq(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.layers = paddle.nn.Sequential(
            paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.Sigmoid()),
            paddle.nn.Sequential(paddle.nn.Linear(4, 2), paddle.nn.ReLU()))

    def forward(self, x):
        return self.layers(x)


class ListOfLayers(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.blocks = paddle.nn.LayerList([paddle.nn.Linear(3, 3) for _ in range(3)])
        self.heads = paddle.nn.LayerDict({"a": paddle.nn.Linear(3, 1),
                                          "b": paddle.nn.Linear(3, 2)})

    def forward(self, x):
        for i, blk in enumerate(self.blocks):
            x = paddle.tanh(blk(x)) + float(i)
        return self.heads["a"](x), self.heads["b"](x)


@pytest.mark.parametrize("cls", [Seq, NestedSeq, ListOfLayers])
def test_layer_containers_run_save_and_load(cls, tmp_path):
    paddle.seed(3)
    net = cls()
    for a in (X, -X * 4.0):
        check_layer(net, a, grad=(0,))
    static = paddle.jit.to_static(net, full_graph=True)
    x = paddle.to_tensor(X)
    ref = static(x)
    path = str(tmp_path / "m")
    paddle.jit.save(static, path, input_spec=[paddle.static.InputSpec([None, 3], "float32")])
    loaded = paddle.jit.load(path)
    got = loaded(x)
    ref = ref if isinstance(ref, (list, tuple)) else [ref]
    got = got if isinstance(got, (list, tuple)) else [got]
    for a, b in zip(ref, got):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-6)
