"""The one walk over a to_static call's arguments (jit/arguments.py): the typed
CallKey (equal for equal signatures, different when a shape, dtype,
stop_gradient, Python value or the training flag changes), the feed list, the
feed names and the substitution read from the key, and the retrace warning
that reads the key's fields."""
import collections
import warnings

import numpy as np
import pytest

import sampan as paddle
from sampan.jit import program_cache
from sampan.jit.arguments import CallKey, Nested, Signature, TensorLeaf, ValueLeaf
from sampan.static import InputSpec


def _t(*shape, dtype="float32", stop_gradient=True):
    return paddle.to_tensor(np.ones(shape, dtype), stop_gradient=stop_gradient)


class _Flagged:
    training = True


def _key(args, kwargs=None, names=("x", "n"), spec=None, instance=None):
    return Signature(names, spec, instance).flatten(tuple(args), kwargs or {})


# ----------------------------------------------------------------- the key
def test_key_fields_of_tensors_and_values():
    x = _t(2, 3, stop_gradient=False)
    key, inputs = _key([x, 4])
    assert isinstance(key, CallKey)
    assert key.args == (TensorLeaf((2, 3), np.dtype("float32"), False), ValueLeaf(int, 4))
    assert [type(e) for e in key.args] == [TensorLeaf, ValueLeaf]     # typed, read by field
    assert key.args[0].shape == (2, 3) and key.args[1].value == 4
    assert key.kwargs == () and key.training is None
    assert list(inputs) == [x]
    hash(key)


def test_equal_signatures_give_equal_keys():
    a, _ = _key([_t(2, 3), 1.5], {"scale": 2})
    b, _ = _key([_t(2, 3), 1.5], {"scale": 2})
    assert a == b and hash(a) == hash(b)
    assert {a: 1}[b] == 1


@pytest.mark.parametrize("other", [
    [_t(3, 3), 1],                              # a shape
    [_t(2, 3, dtype="float64"), 1],             # a dtype
    [_t(2, 3, stop_gradient=False), 1],         # stop_gradient
    [_t(2, 3), 2],                              # a Python value
    [_t(2, 3), 1.0],                            # a Python value's type (1 == 1.0)
    [_t(2, 3), True],                           # ... (1 == True)
    [[_t(2, 3)], 1],                            # a list around the tensor
    [(_t(2, 3),), 1],                           # a tuple instead
])
def test_a_changed_argument_changes_the_key(other):
    assert _key([_t(2, 3), 1])[0] != _key(other)[0]


def test_training_flag_is_part_of_the_key():
    layer = _Flagged()
    sig = Signature(["x"], None, layer)
    train, _ = sig.flatten((_t(2),), {})
    layer.training = False
    infer, _ = sig.flatten((_t(2),), {})
    assert train.training is True and infer.training is False
    assert train != infer and train.args == infer.args


def test_keyword_arguments_are_sorted_and_named():
    a, _ = _key([_t(1)], {"b": 2, "a": _t(3)}, names=("x",))
    b, _ = _key([_t(1)], {"a": _t(3), "b": 2}, names=("x",))
    assert a == b
    assert [k for k, _ in a.kwargs] == ["a", "b"]
    assert a.kwargs[0][1] == TensorLeaf((3,), np.dtype("float32"), True)


def test_nested_arguments_and_numpy_arrays():
    x, y = _t(2), _t(3)
    arr = np.zeros([4], "int64")
    key, inputs = _key([[x, 5], {"b": y, "a": arr}])
    lst, dct = key.args
    assert lst == Nested(list, None, (TensorLeaf((2,), np.dtype("float32"), True),
                                      ValueLeaf(int, 5)))
    assert dct.type is dict and dct.keys == ("a", "b")
    assert dct.items[0] == TensorLeaf((4,), np.dtype("int64"), True)
    assert inputs[0] is x and inputs[2] is y           # dict items by sorted key
    np.testing.assert_array_equal(inputs[1].numpy(), arr)


def test_unhashable_values_count_by_identity():
    tags, same_tags = {"a", "b"}, {"a", "b"}   # sets: not hashable
    a, _ = _key([_t(1), tags])
    b, _ = _key([_t(1), tags])
    c, _ = _key([_t(1), same_tags])
    assert a == b and a != c
    assert a.args[1] == ValueLeaf(set, id(tags))


def test_input_spec_none_dims_and_stop_gradient_stand_for_the_tensor():
    spec = [InputSpec([None, 3], "float32", "img", stop_gradient=True)]
    a, _ = _key([_t(4, 3, stop_gradient=False)], names=("x",), spec=spec)
    b, _ = _key([_t(9, 3, stop_gradient=False)], names=("x",), spec=spec)
    assert a == b
    assert a.args[0] == TensorLeaf((-1, 3), np.dtype("float32"), True)


def test_input_outside_its_spec_keys_its_own_shape_with_a_warning():
    spec = [InputSpec([None, 3], "float32")]
    with pytest.warns(UserWarning, match=r"argument 'x' has shape \[2, 4\], outside its "
                                         r"InputSpec shape \[-1, 3\]") as rec:
        key, _ = _key([_t(2, 4)], names=("x",), spec=spec)
    assert key.args[0].shape == (2, 4)
    assert rec[0].filename == __file__          # the warning points at the caller


# ----------------------------------------------------------------- read from the key
def test_feeds_name_leaves_and_carry_the_data_variables():
    spec = [InputSpec([None, 2], "float32", "img"), [None, InputSpec([3], "float32", "b")]]
    sig = Signature(["x", "pair", "xs"], spec)
    args = (_t(5, 2), [_t(1), _t(3)], {"k": _t(2), "j": 7})
    key, inputs = sig.flatten(args, {"x_extra": _t(1)})
    feeds = sig.feeds(key, inputs)
    assert [n for n, _ in feeds] == ["img", "pair_0", "b", "xs_k", "x_extra"]
    assert feeds[0][1] == TensorLeaf((-1, 2), np.dtype("float32"), False)


def test_feed_names_are_unique_and_input_spec_values_name_themselves():
    sig = Signature(["a", "a_0"])
    key, inputs = sig.flatten(([_t(1)], _t(1)), {})
    assert [n for n, _ in sig.feeds(key, inputs)] == ["a_0", "a_0_1"]
    key, inputs = sig.flatten((InputSpec([2], "float32", "given"), _t(1)), {})
    assert [n for n, _ in sig.feeds(key, inputs)] == ["given", "a_0"]


def test_substitute_rebuilds_containers_in_their_own_order_and_types():
    Pair = collections.namedtuple("Pair", "p q")
    sig = Signature(["a", "b"])
    args = (Pair(_t(1), 3), collections.OrderedDict([("z", _t(1)), ("y", "s")]))
    key, inputs = sig.flatten(args, {"w": [_t(1)]})
    new_args, new_kwargs = sig.substitute(key, args, {"w": [_t(1)]}, ["v0", "v1", "v2"])
    assert new_args[0] == Pair("v0", 3)
    assert type(new_args[1]) is collections.OrderedDict
    assert list(new_args[1].items()) == [("z", "v1"), ("y", "s")]
    assert new_kwargs == {"w": ["v2"]}


# ----------------------------------------------------------------- explaining a retrace
def _explain(key, cached, names=("x", "n"), instance=None):
    return program_cache.explain_difference(key, cached, Signature(names, None, instance))


def test_explain_names_the_dimension_dtype_stop_gradient_and_value():
    base, _ = _key([_t(2, 3), 1])
    assert _explain(_key([_t(2, 5), 1])[0], [base]) == \
        "argument 'x' dimension 1: 5 vs cached 3 (shape [2, 5] vs [2, 3])"
    assert _explain(_key([_t(2, 3, dtype="float64"), 1])[0], [base]) == \
        "argument 'x' dtype: float64 vs cached float32"
    assert _explain(_key([_t(2, 3, stop_gradient=False), 1])[0], [base]) == \
        "argument 'x' stop_gradient: False vs cached True"
    assert _explain(_key([_t(2, 3), 2])[0], [base]) == "argument 'n' value: 2 vs cached 1"
    assert _explain(_key([_t(2, 3), 1.0])[0], [base]) == \
        "argument 'n' type: float vs cached int"
    assert _explain(_key([_t(3), 1])[0], [base]) == \
        "argument 'x' rank: shape [3] vs cached [2, 3]"


def test_explain_picks_the_closest_key_and_reads_nested_and_keyword_entries():
    far, _ = _key([_t(7), 9])
    near, _ = _key([[_t(2), _t(3)], 1], {"k": 1})
    key, _ = _key([[_t(2), _t(4)], 1], {"k": 2})
    assert _explain(key, [far, near]) == \
        "argument 'x'[1] dimension 0: 4 vs cached 3 (shape [4] vs [3]); " \
        "keyword argument 'k' value: 2 vs cached 1"
    assert _explain(_key([_t(1), 1])[0], [_key([5, 1])[0]]) == \
        "argument 'x': a tensor vs cached int 5"


def test_explain_names_the_training_flag():
    layer = _Flagged()
    sig = Signature(["x"], None, layer)
    train, _ = sig.flatten((_t(2),), {})
    layer.training = False
    infer, _ = sig.flatten((_t(2),), {})
    assert program_cache.explain_difference(infer, [train], sig) == \
        "the layer's training flag (False vs cached True)"


def test_retrace_warning_text(monkeypatch):
    monkeypatch.setattr(program_cache, "MAX_TRACED_PROGRAM_COUNT", 2)

    @paddle.jit.to_static
    def f(x, n):
        return x * n

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        f(_t(2), 1)
        f(_t(3), 1)
        f(_t(3, 2), 1)
    msgs = [x for x in w if issubclass(x.category, program_cache.RetraceWarning)]
    assert len(msgs) == 1
    text = str(msgs[0].message)
    assert text.startswith("to_static: function 'f' is tracing program #3 (more than 2)")
    assert "differs from the closest cached one in: argument 'x' rank: shape [3, 2] vs " \
           "cached [2]" in text
    assert msgs[0].filename == __file__
