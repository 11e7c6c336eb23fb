"""The Transformer decoder and the whole Transformer, with Paddle's argument
names, defaults and sublayer structure (so state dicts interchange):
TransformerDecoderLayer (self attention, cross attention, feed-forward;
``norm1`` .. ``norm3``), TransformerDecoder (``num_layers`` copies, then
``norm``), Transformer (``encoder`` + ``decoder``, each with a final
LayerNorm unless custom ones are given).

A decoder layer's cache is ``(incremental_cache, static_cache)``: a
``MultiHeadAttention.Cache`` of the self attention (grown by each step) and a
``StaticCache`` of the cross attention's keys and values of ``memory``."""
import numpy as np

from ... import tensor as _T
from ...ops.dtypes import get_default_dtype
from .common import Dropout, Linear
from .container import LayerList
from .layers import Layer
from .norm import LayerNorm
from .transformer import (MultiHeadAttention, TransformerEncoder, TransformerEncoderLayer,
                          _convert_attention_mask, _convert_param_attr_to_list)
from .. import functional as F

__all__ = ["TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


def _check_positive(**values):
    for what, v in values.items():
        if not v > 0:
            raise AssertionError(f"Expected {what} to be greater than 0, but received {v}")


class TransformerDecoderLayer(Layer):
    """Self attention over ``tgt``, cross attention to ``memory``, then a
    feed-forward block; each with residual, dropout and LayerNorm (pre-norm
    when ``normalize_before``)."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False,
                 weight_attr=None, bias_attr=None):
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
                            dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                            act_dropout=act_dropout, normalize_before=normalize_before,
                            weight_attr=weight_attr, bias_attr=bias_attr)
        super().__init__()
        _check_positive(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        weight_attrs = _convert_param_attr_to_list(weight_attr, 3)
        bias_attrs = _convert_param_attr_to_list(bias_attr, 3)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                            weight_attr=weight_attrs[0],
                                            bias_attr=bias_attrs[0])
        self.cross_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                             weight_attr=weight_attrs[1],
                                             bias_attr=bias_attrs[1])
        self.linear1 = Linear(d_model, dim_feedforward, weight_attrs[2], bias_attr=bias_attrs[2])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, weight_attrs[2], bias_attr=bias_attrs[2])
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.norm3 = LayerNorm(d_model)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.dropout3 = Dropout(dropout, mode="upscale_in_train")
        if not hasattr(F, activation):
            raise AttributeError(f"module 'paddle.nn.functional' has no attribute "
                                 f"'{activation}'")
        self.activation = getattr(F, activation)

    def _block(self, x, residual, norm, dropout):
        x = residual + dropout(x)
        return x if self.normalize_before else norm(x)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        """``tgt``, or ``(tgt, (incremental_cache, static_cache))`` when ``cache``
        is given."""
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm1(tgt)
        if cache is None:
            tgt = self.self_attn(tgt, tgt, tgt, tgt_mask, None)
        else:
            tgt, incremental_cache = self.self_attn(tgt, tgt, tgt, tgt_mask, cache[0])
        tgt = self._block(tgt, residual, self.norm1, self.dropout1)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm2(tgt)
        if cache is None:
            tgt = self.cross_attn(tgt, memory, memory, memory_mask, None)
        else:
            tgt, static_cache = self.cross_attn(tgt, memory, memory, memory_mask, cache[1])
        tgt = self._block(tgt, residual, self.norm2, self.dropout2)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm3(tgt)
        tgt = self.linear2(self.dropout(self.activation(self.linear1(tgt))))
        tgt = self._block(tgt, residual, self.norm3, self.dropout3)
        return tgt if cache is None else (tgt, (incremental_cache, static_cache))

    def gen_cache(self, memory):
        """(an empty incremental cache, the static cache of ``memory``)."""
        incremental_cache = self.self_attn.gen_cache(memory, type=self.self_attn.Cache)
        static_cache = self.cross_attn.gen_cache(memory, memory,
                                                 type=self.cross_attn.StaticCache)
        return incremental_cache, static_cache


class TransformerDecoder(Layer):
    """``num_layers`` copies of ``decoder_layer`` (the first is the given one,
    the others fresh layers of its configuration), then ``norm``."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList([decoder_layer if i == 0 else
                                 type(decoder_layer)(**decoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        """``output``, or ``(output, new_caches)`` when ``cache`` (one per layer)
        is given."""
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        output = tgt
        new_caches = []
        for i, layer in enumerate(self.layers):
            if cache is None:
                output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                               cache=None)
            else:
                output, new_cache = layer(output, memory, tgt_mask=tgt_mask,
                                          memory_mask=memory_mask, cache=cache[i])
                new_caches.append(new_cache)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, memory, do_zip=False):
        """One ``(incremental_cache, static_cache)`` per layer; ``do_zip``: two
        tuples instead (all incremental caches, all static caches)."""
        cache = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*cache)) if do_zip else cache


def _split_attrs(attr, what):
    """Paddle's rule for a list of 1, 2 or 3 attrs: (encoder's 2, decoder's 3)."""
    if not isinstance(attr, (list, tuple)):
        return attr, attr
    if len(attr) == 1:
        return [attr[0]] * 2, [attr[0]] * 3
    if len(attr) == 2:
        return attr, [attr[0], attr[0], attr[-1]]
    if len(attr) == 3:
        return [attr[0], attr[-1]], attr
    raise AssertionError(f"length of {what} should be 1 or 2 or 3 when it is a list/tuple")


class Transformer(Layer):
    """A TransformerEncoder (``num_encoder_layers``) and a TransformerDecoder
    (``num_decoder_layers``), each followed by a LayerNorm, or the given
    ``custom_encoder`` / ``custom_decoder``."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None,
                 custom_encoder=None, custom_decoder=None):
        super().__init__()
        _check_positive(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward)
        enc_bias, dec_bias = _split_attrs(bias_attr, "bias_attr")
        enc_weight, dec_weight = _split_attrs(weight_attr, "weight_attr")
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout,
                                            activation, attn_dropout, act_dropout,
                                            normalize_before, enc_weight, enc_bias)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, LayerNorm(d_model))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout,
                                            activation, attn_dropout, act_dropout,
                                            normalize_before, dec_weight, dec_bias)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, LayerNorm(d_model))
        self.d_model = d_model
        self.nhead = nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        memory = self.encoder(src, src_mask=src_mask)
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)

    def generate_square_subsequent_mask(self, length):
        """[length, length] in the default float dtype: 0 on and below the
        diagonal, -inf above it."""
        full = _T.full(shape=[length, length], fill_value=-np.inf,
                       dtype=get_default_dtype())
        return _T.triu(full, 1)
