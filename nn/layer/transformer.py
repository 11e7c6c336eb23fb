"""Transformer encoder pieces with Paddle's argument names and defaults:
MultiHeadAttention, TransformerEncoderLayer, TransformerEncoder, with
Paddle's incremental-decoding caches: ``MultiHeadAttention.Cache`` (keys and
values of the positions so far, extended by each call along the sequence
axis) and ``MultiHeadAttention.StaticCache`` (keys and values computed once,
for cross attention).  The decoder is in transformer_decoder.py."""
import collections
import copy

from ... import tensor as _T
from .. import functional as F
from ..param_attr import ParamAttr
from .common import Dropout, Linear
from .container import LayerList
from .layers import Layer
from .norm import LayerNorm

__all__ = ["MultiHeadAttention", "TransformerEncoderLayer", "TransformerEncoder"]


def _convert_param_attr_to_list(param_attr, n):
    """One attr per sub-layer: a list is checked for length, a bool is
    expanded, anything else is copied n times (a name gets suffix ``_i``)."""
    if isinstance(param_attr, (list, tuple)):
        if len(param_attr) != n:
            raise AssertionError(f"length of param_attr should be {n} when it is a list/tuple")
        return [ParamAttr._to_attr(None) if a is True else False if a is False
                else ParamAttr._to_attr(a) for a in param_attr]
    if isinstance(param_attr, bool):
        return [ParamAttr._to_attr(None) for _ in range(n)] if param_attr else [False] * n
    attr = ParamAttr._to_attr(param_attr)
    out = []
    for i in range(n):
        a = copy.deepcopy(attr)
        if attr.name:
            a.name = f"{attr.name}_{i}"
        out.append(a)
    return out


def _convert_attention_mask(attn_mask, dtype):
    """bool/int masks become additive float masks (0 keep, -1e9 drop);
    float masks are cast to ``dtype``."""
    if attn_mask is None or attn_mask.dtype == dtype:
        return attn_mask
    kind = attn_mask.dtype.name
    if kind == "bool" or "int" in kind:
        return (_T.cast(attn_mask, dtype) - 1.0) * 1e9
    return _T.cast(attn_mask, dtype)


class MultiHeadAttention(Layer):
    """Scaled dot-product attention over ``num_heads`` heads with
    q/k/v/out projections (Linear layers ``q_proj`` ... ``out_proj``).
    ``forward`` returns ``out``, or a tuple ``(out[, weights][, cache])`` when
    ``need_weights`` is set or a cache is given."""

    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

    def __init__(self, embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None,
                 need_weights=False, weight_attr=None, bias_attr=None):
        super().__init__()
        if embed_dim <= 0:
            raise AssertionError(f"Expected embed_dim to be greater than 0, but received "
                                 f"{embed_dim}")
        if num_heads <= 0:
            raise AssertionError(f"Expected num_heads to be greater than 0, but received "
                                 f"{num_heads}")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.need_weights = need_weights
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError(f"embed_dim ({embed_dim}) must be divisible by num_heads "
                                 f"({num_heads})")
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)

    def _split_heads(self, x):
        """[batch, seq, embed] -> [batch, heads, seq, head_dim]."""
        x = _T.reshape(x, shape=[0, 0, self.num_heads, self.head_dim])
        return _T.transpose(x, perm=[0, 2, 1, 3])

    def compute_kv(self, key, value):
        """Projected keys and values, [batch, heads, seq, head_dim] each."""
        k, v = self.k_proj(key), self.v_proj(value)
        return self._split_heads(k), self._split_heads(v)

    def _prepare_qkv(self, query, key, value, cache=None):
        q = self._split_heads(self.q_proj(query))
        if isinstance(cache, self.StaticCache):
            k, v = cache.k, cache.v
        else:
            k, v = self.compute_kv(key, value)
        if isinstance(cache, self.Cache):
            k = _T.concat([cache.k, k], axis=2)
            v = _T.concat([cache.v, v], axis=2)
            cache = self.Cache(k, v)
        return (q, k, v) if cache is None else (q, k, v, cache)

    def gen_cache(self, key, value=None, type=Cache):
        """A ``StaticCache`` of ``compute_kv(key, value)``; or a ``Cache``: empty
        ([batch, heads, 0, head_dim], batch from ``key``) when ``value`` is None,
        else holding ``key`` and ``value`` as they are."""
        if type == MultiHeadAttention.StaticCache:
            return self.StaticCache(*self.compute_kv(key, value))
        if value is None:
            shape = [_T.shape(key)[0], self.num_heads, 0, self.head_dim]
            return self.Cache(_T.full(shape, 0, key.dtype), _T.full(shape, 0, key.dtype))
        return self.Cache(key, value)

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        key = query if key is None else key
        value = query if value is None else value
        if cache is None:
            q, k, v = self._prepare_qkv(query, key, value, cache)
        else:
            q, k, v, cache = self._prepare_qkv(query, key, value, cache)
        product = _T.matmul(q * (self.head_dim ** -0.5), k, transpose_y=True)
        if attn_mask is not None:
            product = product + _convert_attention_mask(attn_mask, product.dtype)
        weights = F.softmax(product)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training,
                                mode="upscale_in_train")
        out = _T.matmul(weights, v)
        out = _T.transpose(out, perm=[0, 2, 1, 3])
        out = _T.reshape(out, shape=[0, 0, out.shape[2] * out.shape[3]])
        out = self.out_proj(out)
        outs = [out]
        if self.need_weights:
            outs.append(weights)
        if cache is not None:
            outs.append(cache)
        return out if len(outs) == 1 else tuple(outs)


class TransformerEncoderLayer(Layer):
    """Self-attention then a feed-forward block, each with residual, dropout
    and LayerNorm (pre-norm when ``normalize_before``)."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False,
                 weight_attr=None, bias_attr=None, layer_norm_eps=1e-5):
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
                            dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                            act_dropout=act_dropout, normalize_before=normalize_before,
                            weight_attr=weight_attr, bias_attr=bias_attr,
                            layer_norm_eps=layer_norm_eps)
        super().__init__()
        for what, v in (("d_model", d_model), ("nhead", nhead),
                        ("dim_feedforward", dim_feedforward)):
            if v <= 0:
                raise AssertionError(f"Expected {what} to be greater than 0, but received {v}")
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        weight_attrs = _convert_param_attr_to_list(weight_attr, 2)
        bias_attrs = _convert_param_attr_to_list(bias_attr, 2)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                            weight_attr=weight_attrs[0],
                                            bias_attr=bias_attrs[0])
        self.linear1 = Linear(d_model, dim_feedforward, weight_attrs[1], bias_attr=bias_attrs[1])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, weight_attrs[1], bias_attr=bias_attrs[1])
        self.norm1 = LayerNorm(d_model, epsilon=layer_norm_eps)
        self.norm2 = LayerNorm(d_model, epsilon=layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        if not hasattr(F, activation):
            raise AttributeError(f"module 'paddle.nn.functional' has no attribute "
                                 f"'{activation}'")
        self.activation = getattr(F, activation)

    def forward(self, src, src_mask=None, cache=None):
        """``src``, or ``(src, new_cache)`` when an incremental ``cache`` (a
        ``MultiHeadAttention.Cache`` of the self attention) is given."""
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        residual = src
        if self.normalize_before:
            src = self.norm1(src)
        if cache is None:
            src = self.self_attn(src, src, src, src_mask)
        else:
            src, cache = self.self_attn(src, src, src, src_mask, cache)
        src = residual + self.dropout1(src)
        if not self.normalize_before:
            src = self.norm1(src)
        residual = src
        if self.normalize_before:
            src = self.norm2(src)
        src = self.linear2(self.dropout(self.activation(self.linear1(src))))
        src = residual + self.dropout2(src)
        if not self.normalize_before:
            src = self.norm2(src)
        return src if cache is None else (src, cache)

    def gen_cache(self, src):
        """An empty incremental cache of the self attention."""
        return self.self_attn.gen_cache(src, type=self.self_attn.Cache)


class TransformerEncoder(Layer):
    """``num_layers`` copies of ``encoder_layer`` (the first is the given one,
    the others are fresh layers built from its configuration), then ``norm``."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList([encoder_layer if i == 0 else
                                 type(encoder_layer)(**encoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, src_mask=None, cache=None):
        """``output``, or ``(output, new_caches)`` when ``cache`` (one per layer)
        is given."""
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        output = src
        new_caches = []
        for i, layer in enumerate(self.layers):
            if cache is None:
                output = layer(output, src_mask=src_mask)
            else:
                output, new_cache = layer(output, src_mask=src_mask, cache=cache[i])
                new_caches.append(new_cache)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, src):
        """One empty incremental cache per layer."""
        return [layer.gen_cache(src) for layer in self.layers]
