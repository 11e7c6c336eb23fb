"""Attention ops (Paddle 2.6's slots): sparse_attention and its grad.

sparse_attention: for each batch and head, the attention of Q [B, H, M, D] over
K, V [B, H, M, D] restricted to the entries of a CSR layout (Offset
[B, H, M + 1], Columns [B, H, nnz]): SparseDotSdd holds q_i . k_j for each
entry (i, j), Softmax the row-wise softmax of SparseDotSdd / sqrt(D) over the
entries of row i, where an entry is dropped (-inf) when KeyPaddingMask[b, j]
or AttnMask[i, j] is 0; Out[i] = sum of Softmax(i, j) * v_j.  Paddle has only a
CUDA kernel; sampan's is numpy.
"""
from ..declare import defop, defgrad, grad_op
from ..registry import Meta, OpError

_OP = "sparse_attention"


def check_sparse_attention(q, k, v, offset, columns, kp_mask=None, attn_mask=None):
    """Shape checks shared by infer_meta and the kernel (shapes are tuples, -1 unknown)."""
    for name, s in (("Q", q), ("K", k), ("V", v)):
        if len(s) != 4:
            raise OpError(f"{_OP}: {name} must be 4-D [batch_size, num_heads, seq_len, "
                          f"head_dim], got shape {list(s)}")
    for name, s in (("K", k), ("V", v)):
        if any(a >= 0 and b >= 0 and a != b for a, b in zip(q, s)):
            raise OpError(f"{_OP}: {name} must have Q's shape {list(q)}, got {list(s)}")
    b, h, m, _ = q
    for name, s, last in (("Offset", offset, m + 1 if m >= 0 else -1), ("Columns", columns, -1)):
        if len(s) != 3:
            raise OpError(f"{_OP}: {name} must be 3-D [batch_size, num_heads, "
                          f"{'seq_len + 1' if name == 'Offset' else 'nnz'}], got shape {list(s)}")
        want = (b, h, last)
        if any(a >= 0 and w >= 0 and a != w for a, w in zip(s, want)):
            raise OpError(f"{_OP}: {name} must have shape "
                          f"{[b, h, 'seq_len + 1' if name == 'Offset' else 'nnz']} for Q of "
                          f"shape {list(q)}, got {list(s)}")
    for name, s, want in (("KeyPaddingMask", kp_mask, (b, m)), ("AttnMask", attn_mask, (m, m))):
        if s is not None and (len(s) != 2 or any(a >= 0 and w >= 0 and a != w
                                                 for a, w in zip(s, want))):
            raise OpError(f"{_OP}: {name} must have shape {list(want)}, got {list(s)}")


def _sa_infer(metas, attrs):
    q, k, v, off, col, kp, am = metas
    check_sparse_attention(tuple(q.shape), tuple(k.shape), tuple(v.shape), tuple(off.shape),
                           tuple(col.shape), kp and tuple(kp.shape), am and tuple(am.shape))
    for name, mt in (("Offset", off), ("Columns", col)):
        if mt.dtype.kind not in "iu":
            raise OpError(f"{_OP}: {name} must be an int32 tensor, got {mt.dtype}",
                          kind=TypeError)
    for name, mt in (("KeyPaddingMask", kp), ("AttnMask", am)):
        if mt is not None and mt.dtype != q.dtype:
            raise OpError(f"{_OP}: {name} must have Q's dtype {q.dtype}, got {mt.dtype}")
    nnz = (q.shape[0], q.shape[1], col.shape[2])
    return Meta(tuple(q.shape), q.dtype), Meta(nnz, q.dtype), Meta(nnz, q.dtype)


defgrad("sparse_attention_grad", "Q K V Offset Columns SparseDotSdd Softmax Out@GRAD",
        "Q@GRAD? K@GRAD? V@GRAD?", (), no_need_buffer=("SparseDotSdd",))
defop(_OP, "Q K V Offset Columns KeyPaddingMask? AttnMask?", "Out SparseDotSdd~ Softmax~", (),
      infer=_sa_infer,
      grad=grad_op("sparse_attention_grad",
                   uses=("Q", "K", "V", "Offset", "Columns", "SparseDotSdd", "Softmax"),
                   wrt=("Q", "K", "V")),
      same_dtype=("Q", "K", "V"),
      no_grad_inputs=("Offset", "Columns", "KeyPaddingMask", "AttnMask"))
