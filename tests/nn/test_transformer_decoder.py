"""The Transformer decoder family: incremental decoding with caches equals
full decoding under a causal mask, static caches are computed once, state
dict keys / shapes / parameter names equal real Paddle's (recorded in
fixtures/paddle_state_dicts.json), the Transformer's parts and masks, and the
decoder under to_static (values and gradients as eager)."""
import json
import os

import numpy as np
import pytest

import sampan as paddle
import sampan.nn as nn
from sampan.utils import unique_name

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "fixtures", "paddle_state_dicts.json")) as fh:
    PADDLE = json.load(fh)
RS = np.random.RandomState(11)


def T(shape, stop_gradient=True):
    return paddle.to_tensor(RS.uniform(-1, 1, shape).astype("float32"),
                            stop_gradient=stop_gradient)


def causal(n):
    return paddle.to_tensor(np.triu(np.full([n, n], -np.inf, "float32"), 1))


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def entries(layer):
    return [[k, list(v.shape), v.name] for k, v in layer.state_dict().items()]


# ------------------------------------------------------------------ structure
@pytest.mark.parametrize("key, build", [
    ("transformer_d8_h2_e1_d2_ff16",
     lambda: nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=2,
                            dim_feedforward=16)),
    ("decoder_layer_d8_h2_ff16", lambda: nn.TransformerDecoderLayer(8, 2, 16)),
    ("decoder_d8_h2_ff16_n2_norm",
     lambda: nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2, nn.LayerNorm(8))),
])
def test_state_dict_equals_paddles(key, build):
    with unique_name.guard():
        layer = build()
    assert entries(layer) == PADDLE[key]


def test_state_dict_interchanges():
    with unique_name.guard():
        a = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2, nn.LayerNorm(8))
        b = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2, nn.LayerNorm(8))
    b.set_state_dict(a.state_dict())
    a.eval(), b.eval()
    tgt, mem = T([2, 3, 8]), T([2, 4, 8])
    close(a(tgt, mem).numpy(), b(tgt, mem).numpy(), 0)


def test_decoder_copies_config_and_bad_args():
    layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.2, activation="gelu",
                                       normalize_before=True)
    dec = nn.TransformerDecoder(layer, 3)
    assert dec.layers[0] is layer and len(dec.layers) == 3
    assert all(lyr.normalize_before and lyr.activation is layer.activation
               for lyr in dec.layers)
    assert dec.layers[1].self_attn is not layer.self_attn
    with pytest.raises(AssertionError):
        nn.TransformerDecoderLayer(0, 2, 16)
    with pytest.raises(AssertionError):
        nn.Transformer(8, 2, dim_feedforward=8, weight_attr=[None] * 4)


def test_transformer_parts_and_custom():
    t = nn.Transformer(8, 2, 2, 1, 16)
    assert isinstance(t.encoder, nn.TransformerEncoder) and len(t.encoder.layers) == 2
    assert isinstance(t.decoder.norm, nn.LayerNorm) and len(t.decoder.layers) == 1
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 1)
    t2 = nn.Transformer(8, 2, custom_encoder=enc, dim_feedforward=16, num_decoder_layers=1)
    assert t2.encoder is enc
    mask = t.generate_square_subsequent_mask(4).numpy()
    assert mask.dtype == np.float32
    assert np.all(mask[np.tril_indices(4)] == 0)
    assert np.all(np.isneginf(mask[np.triu_indices(4, 1)]))


def test_transformer_is_encoder_then_decoder():
    t = nn.Transformer(8, 2, 1, 2, 16, dropout=0.0)
    src, tgt = T([2, 5, 8]), T([2, 3, 8])
    mask = t.generate_square_subsequent_mask(3)
    want = t.decoder(tgt, t.encoder(src), tgt_mask=mask)
    close(t(src, tgt, tgt_mask=mask).numpy(), want.numpy(), 0)


# ------------------------------------------------------------------ caches
def test_mha_cache_kinds():
    mha = nn.MultiHeadAttention(8, 2)
    x, mem = T([2, 3, 8]), T([2, 5, 8])
    c = mha.gen_cache(x)
    assert isinstance(c, mha.Cache) and c.k.shape == [2, 2, 0, 4]
    out, c1 = mha(x, x, x, None, c)
    assert isinstance(c1, mha.Cache) and c1.k.shape == [2, 2, 3, 4]
    close(out.numpy(), mha(x).numpy())
    sc = mha.gen_cache(mem, mem, type=mha.StaticCache)
    out, sc2 = mha(x, mem, mem, None, sc)
    assert sc2 is sc and sc.k.shape == [2, 2, 5, 4]
    close(out.numpy(), mha(x, mem, mem).numpy())
    given = mha.gen_cache(c1.k, c1.v)           # a Cache holding given tensors
    assert given.k is c1.k
    mha.need_weights = True
    out, w, c2 = mha(x, x, x, None, c1)
    assert w.shape == [2, 2, 3, 6] and c2.k.shape == [2, 2, 6, 4]


@pytest.mark.parametrize("normalize_before", [False, True])
def test_incremental_decoding_equals_causal_full(normalize_before):
    paddle.seed(5)
    layer = nn.TransformerDecoderLayer(8, 2, 16, normalize_before=normalize_before)
    dec = nn.TransformerDecoder(layer, 2, nn.LayerNorm(8))
    dec.eval()
    tgt, mem = T([2, 4, 8]), T([2, 5, 8])
    full = dec(tgt, mem, tgt_mask=causal(4)).numpy()
    cache = dec.gen_cache(mem)
    steps = []
    for i in range(4):
        out, cache = dec(tgt[:, i:i + 1], mem, cache=cache)
        steps.append(out.numpy())
    close(np.concatenate(steps, axis=1), full, 1e-5)
    assert cache[0][0].k.shape == [2, 2, 4, 4] and cache[1][1].k.shape == [2, 2, 5, 4]


def test_static_cache_is_computed_once():
    dec_layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0)
    mem = T([1, 3, 8])
    inc, st = dec_layer.gen_cache(mem)
    _, (inc2, st2) = dec_layer(T([1, 1, 8]), mem, cache=(inc, st))
    assert st2 is st and inc2.k.shape == [1, 2, 1, 4]
    zipped = nn.TransformerDecoder(dec_layer, 2).gen_cache(mem, do_zip=True)
    assert len(zipped) == 2 and len(zipped[0]) == 2


def test_encoder_cache():
    paddle.seed(2)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2)
    src = T([2, 3, 8])
    cache = enc.gen_cache(src)
    out, new = enc(src, cache=cache)
    close(out.numpy(), enc(src).numpy())
    assert len(new) == 2 and new[0].k.shape == [2, 2, 3, 4]


# ------------------------------------------------------------------ to_static
class _Model(nn.Layer):
    def __init__(self):
        super().__init__()
        self.dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2,
                                         nn.LayerNorm(8))

    def forward(self, tgt, mem, mask):
        return self.dec(tgt, mem, tgt_mask=mask)


def test_decoder_to_static_values_and_grads():
    paddle.seed(9)
    m = _Model()
    tgt, mem = T([2, 3, 8], False), T([2, 4, 8])
    eager = m(tgt, mem, causal(3))
    eager.sum().backward()
    g_eager = m.dec.layers[1].cross_attn.k_proj.weight.grad.numpy().copy()
    gt_eager = tgt.grad.numpy().copy()
    m.clear_gradients()
    tgt.clear_gradient()
    st = paddle.jit.to_static(m)
    out = st(tgt, mem, causal(3))
    close(out.numpy(), eager.numpy())
    out.sum().backward()
    close(m.dec.layers[1].cross_attn.k_proj.weight.grad.numpy(), g_eager, 1e-4)
    close(tgt.grad.numpy(), gt_eager, 1e-4)


def test_cached_step_to_static():
    """One decoding step with caches as a static program (the cache grows)."""
    paddle.seed(4)
    layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0)
    layer.eval()
    mem = T([1, 3, 8])

    def step(x, k, v, sk, sv):
        out, (inc, _) = layer(x, mem, cache=(layer.self_attn.Cache(k, v),
                                             layer.cross_attn.StaticCache(sk, sv)))
        return out, inc.k, inc.v

    fn = paddle.jit.to_static(step)
    inc, st = layer.gen_cache(mem)
    x = T([1, 1, 8])
    want = step(x, inc.k, inc.v, st.k, st.v)
    got = fn(x, inc.k, inc.v, st.k, st.v)
    for a, b in zip(got, want):
        close(a.numpy(), b.numpy())
