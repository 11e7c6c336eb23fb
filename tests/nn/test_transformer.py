"""MultiHeadAttention and the Transformer encoder: Paddle's structure and
names, forward against a numpy reference (eval mode), masks, and gradients
reaching every parameter."""
import numpy as np
import pytest

import sampan as paddle
import sampan.nn as nn
from sampan.utils import unique_name

RS = np.random.RandomState(3)


def T(a, stop_gradient=True):
    return paddle.to_tensor(np.asarray(a), stop_gradient=stop_gradient)


def np_softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def np_linear(x, lin):
    return x @ lin.weight.numpy() + lin.bias.numpy()


def np_mha(q_in, k_in, v_in, m, mask=None):
    b, lq, e = q_in.shape
    h, d = m.num_heads, m.head_dim

    def split(x):
        return x.reshape(x.shape[0], x.shape[1], h, d).transpose(0, 2, 1, 3)

    q, k, v = split(np_linear(q_in, m.q_proj)), split(np_linear(k_in, m.k_proj)), \
        split(np_linear(v_in, m.v_proj))
    prod = (q * d ** -0.5) @ k.transpose(0, 1, 3, 2)
    if mask is not None:
        prod = prod + mask
    w = np_softmax(prod)
    out = (w @ v).transpose(0, 2, 1, 3).reshape(b, lq, e)
    return np_linear(out, m.out_proj), w


def np_ln(x, ln):
    m, v = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - m) / np.sqrt(v + ln._epsilon) * ln.weight.numpy() + ln.bias.numpy()


def np_encoder_layer(x, layer, mask=None):
    assert layer._config["activation"] == "relu"
    act = lambda a: np.maximum(a, 0)  # noqa: E731
    res = x
    if layer.normalize_before:
        x = np_ln(x, layer.norm1)
    x = res + np_mha(x, x, x, layer.self_attn, mask)[0]
    if not layer.normalize_before:
        x = np_ln(x, layer.norm1)
    res = x
    if layer.normalize_before:
        x = np_ln(x, layer.norm2)
    x = res + np_linear(act(np_linear(x, layer.linear1)), layer.linear2)
    if not layer.normalize_before:
        x = np_ln(x, layer.norm2)
    return x


def close(a, b, tol=1e-4):
    np.testing.assert_allclose(a.numpy() if hasattr(a, "numpy") else a, b, rtol=tol, atol=tol)


# ------------------------------------------------------------------ attention
def test_multi_head_attention_structure():
    with unique_name.guard():
        mha = nn.MultiHeadAttention(8, 2, kdim=6, vdim=4)
    assert mha.head_dim == 4
    assert list(mha.state_dict()) == [
        "q_proj.weight", "q_proj.bias", "k_proj.weight", "k_proj.bias",
        "v_proj.weight", "v_proj.bias", "out_proj.weight", "out_proj.bias"]
    assert mha.q_proj.weight.name == "linear_0.w_0" and mha.out_proj.weight.name == "linear_3.w_0"
    assert mha.k_proj.weight.shape == [6, 8] and mha.v_proj.weight.shape == [4, 8]
    with pytest.raises(AssertionError, match="divisible"):
        nn.MultiHeadAttention(10, 3)


def test_multi_head_attention_forward_matches_numpy():
    mha = nn.MultiHeadAttention(8, 2, need_weights=True)
    mha.eval()
    q, kv = RS.randn(2, 3, 8).astype("float32"), RS.randn(2, 5, 8).astype("float32")
    out, weights = mha(T(q), T(kv), T(kv))
    ref, ref_w = np_mha(q, kv, kv, mha)
    assert out.shape == [2, 3, 8] and weights.shape == [2, 2, 3, 5]
    close(out, ref)
    close(weights, ref_w)
    np.testing.assert_allclose(weights.numpy().sum(-1), 1.0, rtol=1e-5)
    # key/value default to the query
    close(nn.MultiHeadAttention(8, 4)(T(q)).numpy().shape, [2, 3, 8])


def test_attention_masks():
    mha = nn.MultiHeadAttention(4, 1, need_weights=True)
    x = RS.randn(1, 3, 4).astype("float32")
    keep = np.array([[True, True, False]] * 3)[None, None]
    _, w_bool = mha(T(x), attn_mask=T(keep))
    assert np.allclose(w_bool.numpy()[..., 2], 0.0, atol=1e-6)
    add = np.where(keep, 0.0, -1e9).astype("float32")
    out_f, w_f = mha(T(x), attn_mask=T(add))
    close(w_f, w_bool.numpy())
    close(out_f, np_mha(x, x, x, mha, add)[0])
    _, w_int = mha(T(x), attn_mask=T(keep.astype("int64")))
    close(w_int, w_bool.numpy())


def test_cache_is_returned():
    """Caches are supported (tests/nn/test_transformer_decoder.py); as in
    Paddle, a cache of neither kind is returned as it is."""
    mha = nn.MultiHeadAttention(4, 2)
    marker = object()
    out, cache = mha(T(RS.randn(1, 2, 4).astype("float32")), cache=marker)
    assert cache is marker and out.shape == [1, 2, 4]


# ------------------------------------------------------------------ encoder
def test_encoder_layer_structure_and_defaults():
    with unique_name.guard():
        layer = nn.TransformerEncoderLayer(8, 2, 16)
    keys = list(layer.state_dict())
    assert keys == [
        "self_attn.q_proj.weight", "self_attn.q_proj.bias", "self_attn.k_proj.weight",
        "self_attn.k_proj.bias", "self_attn.v_proj.weight", "self_attn.v_proj.bias",
        "self_attn.out_proj.weight", "self_attn.out_proj.bias", "linear1.weight",
        "linear1.bias", "linear2.weight", "linear2.bias", "norm1.weight", "norm1.bias",
        "norm2.weight", "norm2.bias"]
    assert layer.linear1.weight.name == "linear_4.w_0"
    assert layer.norm2.weight.name == "layer_norm_1.w_0"
    assert layer.dropout.p == 0.1 and layer.dropout1.p == 0.1
    assert layer.self_attn.dropout == 0.1
    custom = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.2, attn_dropout=0.0,
                                        act_dropout=0.3)
    assert custom.self_attn.dropout == 0.0 and custom.dropout.p == 0.3
    assert custom.dropout1.p == 0.2
    assert custom._config["dim_feedforward"] == 16


@pytest.mark.parametrize("normalize_before", [False, True])
def test_encoder_layer_forward_matches_numpy(normalize_before):
    layer = nn.TransformerEncoderLayer(8, 2, 16, normalize_before=normalize_before)
    layer.eval()
    x = RS.randn(2, 5, 8).astype("float32")
    close(layer(T(x)), np_encoder_layer(x, layer))
    mask = np.where(np.tril(np.ones((5, 5))) > 0, 0.0, -1e9).astype("float32")
    close(layer(T(x), src_mask=T(mask)), np_encoder_layer(x, layer, mask))


def test_encoder_stack_forward_and_gradients():
    with unique_name.guard():
        enc_layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, activation="gelu")
        enc = nn.TransformerEncoder(enc_layer, 2, norm=nn.LayerNorm(8))
    assert len(enc.layers) == 2 and enc.layers[0] is enc_layer
    assert enc.layers[1]._config == enc_layer._config
    names = [p.name for p in enc.parameters()]
    assert len(names) == len(set(names)) == 2 * 16 + 2
    assert list(enc.state_dict())[0] == "layers.0.self_attn.q_proj.weight"
    assert list(enc.state_dict())[-1] == "norm.bias"
    x = T(RS.randn(2, 4, 8).astype("float32"), stop_gradient=False)
    out = enc(x)
    assert out.shape == [2, 4, 8]
    (out * T(RS.randn(2, 4, 8).astype("float32"))).sum().backward()
    for name, p in enc.named_parameters():
        assert p.grad is not None, name
        assert p.grad.shape == p.shape, name
        assert np.any(p.grad.numpy() != 0), name
    assert x.grad is not None and x.grad.shape == [2, 4, 8]


def test_encoder_train_eval_dropout():
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5), 1)
    x = T(RS.randn(2, 4, 8).astype("float32"))
    enc.eval()
    a, b = enc(x).numpy(), enc(x).numpy()
    np.testing.assert_array_equal(a, b)
    enc.train()
    assert not np.allclose(enc(x).numpy(), a)
