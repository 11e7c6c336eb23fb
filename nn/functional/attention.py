"""``paddle.nn.functional`` attention: scaled_dot_product_attention and
sparse_attention.

scaled_dot_product_attention is Paddle 2.6's CPU path (its ``_math_attention``:
transpose2, scale, matmul_v2, softmax, dropout, matmul_v2, transpose2), so it
is differentiable in every mode.  Where Paddle's CPU gives up -- a causal
mask (its fused upper-triangle softmax is GPU-only) or an ``attn_mask`` (its
``flash_attn`` has no CPU kernel) -- sampan computes what the documentation
says: softmax(q k^T / sqrt(d) + mask) v, the causal mask hiding key j > i from
query i (-inf added above the diagonal, full_like + triu + elementwise_add).
``training=False`` turns the dropout off (Paddle 2.6 ignores it without a
mask).

sparse_attention binds the ``sparse_attention`` op (ops/defs/nn_attention.py).
"""
from ...ops import bind, get_op
from ... import tensor as T
from .activation import softmax
from .common import dropout

__all__ = ["scaled_dot_product_attention", "sparse_attention"]

_SPARSE_ATTENTION = get_op("sparse_attention")
_PERM = [0, 2, 1, 3]


def _check_4d(name, t):
    if len(t.shape) != 4:
        raise IndexError(f"scaled_dot_product_attention: {name} must be a 4-D tensor "
                         f"[batch_size, seq_len, num_heads, head_dim], got shape "
                         f"{list(t.shape)}")


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, training=True, name=None):
    for n, t in (("query", query), ("key", key), ("value", value)):
        _check_4d(n, t)
    head_dim = query.shape[3]
    q = T.transpose(query, _PERM)
    k = T.transpose(key, _PERM)
    v = T.transpose(value, _PERM)
    product = T.matmul(q * (head_dim ** -0.5), k, transpose_y=True)
    if is_causal:
        hide = T.triu(T.full_like(product, float("-inf")), diagonal=1)
        product = T.add(product, hide)
    if attn_mask is not None:
        product = T.add(product, attn_mask)
    weights = softmax(product)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=training, mode="upscale_in_train")
    return T.transpose(T.matmul(weights, v), _PERM)


def sparse_attention(query, key, value, sparse_csr_offset, sparse_csr_columns,
                     key_padding_mask=None, attn_mask=None, name=None):
    return bind(_SPARSE_ATTENTION, (query, key, value, sparse_csr_offset, sparse_csr_columns,
                                    key_padding_mask, attn_mask))[0]
