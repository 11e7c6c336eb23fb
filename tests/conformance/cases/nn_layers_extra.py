"""More ``paddle.nn`` layers: MultiHeadAttention with its incremental
(``Cache``) and static (``StaticCache``) caches and ``need_weights``,
TransformerDecoderLayer / TransformerDecoder (full and cached decoding),
Transformer (and ``generate_square_subsequent_mask``), SpectralNorm,
SyncBatchNorm (one process: BatchNorm; Paddle 2.6's CPU build has no
sync_batch_norm kernel, so those cases record the Paddle spelling
``paddle.nn.BatchNorm2D``), and ``paddle.nn.utils`` (weight_norm,
spectral_norm, parameters_to_vector, clip_grad_*).

Parameters are set deterministically in the case code: ``ParamAttr``s with
``Assign`` initializers of arrays built from ``np.sin`` (every weight of the
layers below is [8, 8], the feed-forward width equals d_model).  Spectral
norms run enough power iterations to converge, so their random u / v do not
show in the result (sigma is the largest singular value)."""
from spec import C

CASES = []


def L(id, code, *args, modes=("eager", "static"), **kw):
    """A case building its layer in the code: no to_static (sampan binds a
    to_static program to parameters created before the call)."""
    CASES.append(C(id, code, *args, modes=modes, **kw))


# every [8, 8] weight and [8] bias of the layers below, made from sin
ATTRS = ("W = paddle.ParamAttr(initializer=paddle.nn.initializer.Assign("
         "(np.sin(np.arange(64) * 0.37) * 0.4).reshape(8, 8).astype('float32')))\n"
         "B = paddle.ParamAttr(initializer=paddle.nn.initializer.Assign("
         "(np.cos(np.arange(8) * 0.9) * 0.1).astype('float32')))\n")
MHA = ATTRS + "m = paddle.nn.MultiHeadAttention(8, 2, weight_attr=W, bias_attr=B{})\n"
DEC_LAYER = ATTRS + ("layer = paddle.nn.TransformerDecoderLayer(8, 2, 8, dropout=0.0, "
                     "weight_attr=W, bias_attr=B{})\n")
X3 = "float32[2,3,8]"
M4 = "float32[2,4,8]"

# ------------------------------------------------------------------ MultiHeadAttention
L("mha.plain", MHA.format("") + "return m(x)", X3, grad=True)
L("mha.cross", MHA.format("") + "return m(x, y, y)", X3, M4, grad=True)
L("mha.need_weights", MHA.format(", need_weights=True") + "return m(x, y, y)", X3, M4,
  grad=True)
L("mha.bool_mask", MHA.format("") + "mask = paddle.to_tensor("
  "np.array([[True, True, False, True]] * 3))\nreturn m(x, y, y, attn_mask=mask)", X3, M4)
L("mha.cache.empty", MHA.format("") + "c = m.gen_cache(x)\nreturn c.k, c.v", X3)
L("mha.cache.step", MHA.format("") + "c = m.gen_cache(x)\nout, c = m(x, x, x, None, c)\n"
  "return out, c.k, c.v", X3, grad=True)
L("mha.cache.two_steps", MHA.format("") + "c = m.gen_cache(x)\n"
  "out1, c = m(x, x, x, None, c)\nout2, c = m(y, y, y, None, c)\n"
  "return out1, out2, c.k.shape, c.v", X3, "float32[2,1,8]", grad=True)
L("mha.cache.given_kv", MHA.format("") + "c = m.gen_cache(z, w)\nout, c = m(x, x, x, None, c)\n"
  "return out, c.k", X3, "float32[2,1,8]", "float32[2,2,2,4]", "float32[2,2,2,4]")
L("mha.static_cache", MHA.format("") + "c = m.gen_cache(y, y, type=m.StaticCache)\n"
  "out, c2 = m(x, None, None, None, c)\nreturn out, c2.k, c2.v", X3, M4, grad=True)
L("mha.static_cache.weights", MHA.format(", need_weights=True") +
  "c = m.gen_cache(y, y, type=m.StaticCache)\nout, wts, c2 = m(x, y, y, None, c)\n"
  "return out, wts, c2.k", X3, M4)

# ------------------------------------------------------------------ decoder
L("decoder_layer.plain", DEC_LAYER.format("") + "return layer(x, y)", X3, M4, grad=True)
L("decoder_layer.pre_norm", DEC_LAYER.format(", normalize_before=True") + "return layer(x, y)",
  X3, M4, grad=True)
L("decoder_layer.gelu", DEC_LAYER.format(", activation='gelu'") + "return layer(x, y)",
  X3, M4)
L("decoder_layer.masks", DEC_LAYER.format("") +
  "tm = paddle.to_tensor(np.triu(np.full([3, 3], -np.inf), 1).astype('float32'))\n"
  "mm = paddle.to_tensor(np.array([[1, 1, 0, 1]] * 3, 'int32'))\n"
  "return layer(x, y, tgt_mask=tm, memory_mask=mm)", X3, M4, grad=True)
L("decoder_layer.cache", DEC_LAYER.format("") + "c = layer.gen_cache(y)\n"
  "out, (inc, st) = layer(x, y, cache=c)\nreturn out, inc.k, st.v", X3, M4, grad=True)
L("decoder.causal", DEC_LAYER.format("") +
  "dec = paddle.nn.TransformerDecoder(layer, 2, paddle.nn.LayerNorm(8))\n"
  "tm = paddle.to_tensor(np.triu(np.full([3, 3], -np.inf), 1).astype('float32'))\n"
  "return dec(x, y, tgt_mask=tm)", X3, M4, grad=True)
L("decoder.cache_steps", DEC_LAYER.format("") +
  "dec = paddle.nn.TransformerDecoder(layer, 2)\nc = dec.gen_cache(y)\n"
  "o1, c = dec(x[:, :1], y, cache=c)\no2, c = dec(x[:, 1:2], y, cache=c)\n"
  "return o1, o2, c[1][0].k", X3, M4, grad=True)
L("decoder.gen_cache_zip", DEC_LAYER.format("") +
  "dec = paddle.nn.TransformerDecoder(layer, 2)\nc = dec.gen_cache(y, do_zip=True)\n"
  "return len(c), len(c[0]), c[1][1].k", X3, M4)

# ------------------------------------------------------------------ Transformer
TRANSFORMER = ATTRS + ("t = paddle.nn.Transformer(8, 2, 1, 2, 8, dropout=0.0, weight_attr=W, "
                       "bias_attr=B{})\n")
L("transformer.plain", TRANSFORMER.format("") + "return t(x, y)", M4, X3, grad=True)
L("transformer.masks", TRANSFORMER.format("") +
  "return t(x, y, tgt_mask=t.generate_square_subsequent_mask(3))", M4, X3, grad=True)
L("transformer.pre_norm", TRANSFORMER.format(", normalize_before=True") + "return t(x, y)",
  M4, X3)
L("transformer.square_mask", "t = paddle.nn.Transformer(8, 2, 1, 1, 8)\n"
  "return t.generate_square_subsequent_mask(4)")
L("transformer.structure", "t = paddle.nn.Transformer(8, 2, 1, 2, 16)\n"
  "return [list(p.shape) for p in t.parameters()], len(t.decoder.layers)",
  modes=("eager",))
L("transformer.bad_d_model", "return paddle.nn.Transformer(0, 2)", modes=("eager",))
L("mha.bad_heads", "return paddle.nn.MultiHeadAttention(8, 3)", modes=("eager",))
L("mha.zero_heads", "return paddle.nn.MultiHeadAttention(8, 0)", modes=("eager",))
L("encoder_layer.bad_d_model", "return paddle.nn.TransformerEncoderLayer(0, 2, 8)",
  modes=("eager",))
L("encoder_layer.bad_activation", "return paddle.nn.TransformerEncoderLayer(8, 2, 8, "
  "activation='nope')", modes=("eager",))
L("decoder_layer.bad_attr_list", "return paddle.nn.TransformerDecoderLayer(8, 2, 8, "
  "weight_attr=[None, None])", modes=("eager",))

# ------------------------------------------------------------------ SpectralNorm
L("spectral_norm.layer.dim0", "m = paddle.nn.SpectralNorm(x.shape, dim=0, power_iters=40)\n"
  "return m(x)", "float32[4,6]|pos", grad=True, rtol=1e-4, atol=1e-5)
L("spectral_norm.layer.dim1", "m = paddle.nn.SpectralNorm(x.shape, dim=1, power_iters=40)\n"
  "return m(x)", "float32[2,5,3,3]|pos", grad=True, rtol=1e-4, atol=1e-5)
L("spectral_norm.layer.float64", "m = paddle.nn.SpectralNorm(x.shape, power_iters=40, "
  "dtype='float64')\nreturn m(x)", "float64[3,4,2]|pos", rtol=1e-6, atol=1e-8)
L("spectral_norm.layer.params", "m = paddle.nn.SpectralNorm([2, 8, 3, 3], dim=1)\n"
  "return [(list(p.shape), p.stop_gradient) for p in m.parameters()]", modes=("eager",))
L("spectral_norm.layer.bad_dim", "m = paddle.nn.SpectralNorm(x.shape, dim=2)\nreturn m(x)",
  "float32[2,3,4]", modes=("eager",))
L("spectral_norm.layer.rank1", "m = paddle.nn.SpectralNorm(x.shape, dim=0)\nreturn m(x)",
  "float32[6]", modes=("eager",))
L("spectral_norm.static_builder", "return paddle.static.nn.spectral_norm(x, dim=1, "
  "power_iters=40)", "float32[3,4,5]|pos", rtol=1e-4, atol=1e-5)

# ------------------------------------------------------------------ SyncBatchNorm
for name, shape, fmt in (("2d", "float32[2,3,4,4]", ""), ("1d", "float32[4,3,5]", ""),
                         ("nhwc", "float32[2,4,4,3]", ", data_format='NHWC'")):
    bn = "BatchNorm2D" if name != "1d" else "BatchNorm1D"
    L(f"sync_batch_norm.{name}", f"m = paddle.nn.SyncBatchNorm(3{fmt})\n"
      "return m(x), m._mean, m._variance", shape, grad=True,
      paddle_code=f"m = paddle.nn.{bn}(3{fmt})\nreturn m(x), m._mean, m._variance",
      rtol=1e-5, atol=1e-5)
L("sync_batch_norm.eval", "m = paddle.nn.SyncBatchNorm(3)\nm.eval()\nreturn m(x)",
  "float32[2,3,4,4]", paddle_code="m = paddle.nn.BatchNorm2D(3)\nm.eval()\nreturn m(x)",
  modes=("eager",))
L("sync_batch_norm.convert", "m = paddle.nn.Sequential(paddle.nn.Conv2D(3, 3, 1), "
  "paddle.nn.BatchNorm2D(3))\nc = paddle.nn.SyncBatchNorm.convert_sync_batchnorm(m)\n"
  "return type(c[1]).__name__, c[1]._mean is m[1]._mean, len(c.parameters())",
  modes=("eager",))

# ------------------------------------------------------------------ nn.utils
LIN = ATTRS + "lin = paddle.nn.Linear(8, 8, weight_attr=W, bias_attr=B)\n"
L("utils.weight_norm", LIN + "paddle.nn.utils.weight_norm(lin)\n"
  "return lin(x), lin.weight_g, lin.weight_v", X3, grad=True, modes=("eager",))
L("utils.weight_norm.dim1", LIN + "paddle.nn.utils.weight_norm(lin, dim=1)\n"
  "return lin(x), lin.weight_g", X3, grad=True, modes=("eager",))
L("utils.weight_norm.dim_none", LIN + "paddle.nn.utils.weight_norm(lin, dim=None)\n"
  "return lin(x), lin.weight_g", X3, modes=("eager",))
L("utils.weight_norm.conv", "conv = paddle.nn.Conv2D(2, 3, 2, weight_attr=paddle.ParamAttr("
  "initializer=paddle.nn.initializer.Assign(np.sin(np.arange(24)).reshape(3, 2, 2, 2)"
  ".astype('float32'))))\npaddle.nn.utils.weight_norm(conv, dim=2)\n"
  "return conv(x), conv.weight_g", "float32[1,2,3,3]", grad=True, modes=("eager",))
L("utils.weight_norm.remove", LIN + "paddle.nn.utils.weight_norm(lin)\n"
  "paddle.nn.utils.remove_weight_norm(lin)\nreturn lin(x), sorted(lin.state_dict())", X3,
  modes=("eager",))
L("utils.weight_norm.twice", LIN + "paddle.nn.utils.weight_norm(lin)\n"
  "paddle.nn.utils.weight_norm(lin)", X3, modes=("eager",))
L("utils.remove_weight_norm.missing", LIN + "paddle.nn.utils.remove_weight_norm(lin)", X3,
  modes=("eager",))
L("utils.spectral_norm.linear", LIN + "paddle.nn.utils.spectral_norm(lin, "
  "n_power_iterations=40)\nreturn lin(x), lin.weight_u.shape, lin.weight_v.shape", X3,
  grad=True, modes=("eager",), rtol=1e-4, atol=1e-5)
L("utils.spectral_norm.conv", "conv = paddle.nn.Conv2D(2, 3, 2, weight_attr=paddle.ParamAttr("
  "initializer=paddle.nn.initializer.Assign(np.sin(np.arange(24)).reshape(3, 2, 2, 2)"
  ".astype('float32'))))\npaddle.nn.utils.spectral_norm(conv, n_power_iterations=40)\n"
  "return conv(x), sorted(conv.state_dict())", "float32[1,2,3,3]", grad=True,
  modes=("eager",), rtol=1e-4, atol=1e-5)
L("utils.spectral_norm.bad_iters", LIN + "paddle.nn.utils.spectral_norm(lin, "
  "n_power_iterations=0)", X3, modes=("eager",))
L("utils.parameters_to_vector", LIN + "return paddle.nn.utils.parameters_to_vector("
  "lin.parameters())", modes=("eager",))
L("utils.vector_to_parameters", LIN + "v = paddle.arange(72, dtype='float32')\n"
  "paddle.nn.utils.vector_to_parameters(v, lin.parameters())\nreturn lin.weight, lin.bias",
  modes=("eager",))
CLIP = ("a = paddle.to_tensor(np.arange(6, dtype='float32').reshape(2, 3), stop_gradient=False)\n"
        "b = paddle.to_tensor(np.array([3.0, -4.0], 'float32'), stop_gradient=False)\n"
        "((a * x).sum() + (b * b).sum()).backward()\n")
for nt in ("2", "1", "float('inf')", "0"):
    L(f"utils.clip_grad_norm_.{nt.replace('float(', '').replace(')', '')}",
      CLIP + f"n = paddle.nn.utils.clip_grad_norm_([a, b], 1.5, norm_type={nt})\n"
      "return n, a.grad, b.grad", "float32[2,3]", modes=("eager",))
L("utils.clip_grad_norm_.no_clip", CLIP + "n = paddle.nn.utils.clip_grad_norm_([a, b], 100.0)\n"
  "return n, a.grad, b.grad", "float32[2,3]", modes=("eager",))
L("utils.clip_grad_norm_.bad_type", CLIP + "paddle.nn.utils.clip_grad_norm_([a, b], 1.0, 3)",
  "float32[2,3]", modes=("eager",))
L("utils.clip_grad_norm_.nonfinite", CLIP + "b.grad.set_value(np.array([np.inf, 1.0], "
  "'float32'))\npaddle.nn.utils.clip_grad_norm_([a, b], 1.0, error_if_nonfinite=True)",
  "float32[2,3]", modes=("eager",))
L("utils.clip_grad_value_", CLIP + "paddle.nn.utils.clip_grad_value_([a, b], 2.5)\n"
  "return a.grad, b.grad", "float32[2,3]", modes=("eager",))
