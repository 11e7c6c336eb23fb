"""numpy kernels of ops/defs/nn_attention.py: sparse_attention and its grad.

The CSR layout of each (batch, head) becomes, once per call, a row and a
column index per entry; every step is then a gather of Q/K/V rows per entry,
a product along head_dim, and a segment sum (entries sorted by their target
row, added with one reduceat), so nothing loops over rows or entries.  A row
whose entries are all masked gets zero attention (no NaN).
"""
import numpy as np

from ...ops import OpError
from ...ops.defs.nn_attention import check_sparse_attention
from ..registry import kernel

_FLOATS = ("float32", "float64")


def _layout(offset, columns, m):
    """(rows, cols, used) of shape (B*H, nnz): each entry's row and column, and
    whether it lies inside its row range offset[0] .. offset[m]."""
    bh = int(np.prod(columns.shape[:2]))
    nnz = columns.shape[2]
    off = offset.reshape(bh, m + 1).astype(np.int64)
    cols = columns.reshape(bh, nnz).astype(np.int64)
    if off.size and (off.min() < 0 or off.max() > nnz or np.any(np.diff(off, axis=1) < 0)):
        raise OpError(f"sparse_attention: Offset must be non-decreasing row pointers in "
                      f"[0, {nnz}] (nnz = Columns.shape[2]), got {off.tolist()}")
    e = np.arange(nnz)
    used = (e >= off[:, :1]) & (e < off[:, -1:])
    bad = used & ((cols < 0) | (cols >= m))
    if bad.any():
        raise OpError(f"sparse_attention: Columns must lie in [0, {m}) (seq_len), got "
                      f"{cols[bad].tolist()}")
    # one searchsorted for every (batch, head): shift block i by i * (nnz + 1)
    shift = np.arange(bh)[:, None] * (nnz + 1)
    pos = np.searchsorted((off + shift).ravel(), (e + shift).ravel(), side="right") - 1
    rows = pos.reshape(bh, nnz) - np.arange(bh)[:, None] * (m + 1)
    rows = np.where(used, rows, 0)
    cols = np.where(used, cols, 0)
    return rows, cols, used


def _segment_sum(vals, seg, n):
    """out[s] = sum of vals[i] with seg[i] == s (s < n), for flat ``seg``."""
    out = np.zeros((n,) + vals.shape[1:], vals.dtype)
    if seg.size == 0:
        return out
    if np.any(seg[1:] < seg[:-1]):
        order = np.argsort(seg, kind="stable")
        seg, vals = seg[order], vals[order]
    starts = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
    out[seg[starts]] = np.add.reduceat(vals, starts, axis=0)
    return out


class _Entries:
    """The per-entry gathers of one call."""

    def __init__(self, q, k, v, offset, columns):
        b, h, m, d = q.shape
        self.shape, self.m, self.d = q.shape, m, d
        self.rows, self.cols, self.used = _layout(offset, columns, m)
        bh = b * h
        self.g = np.arange(bh)[:, None]
        self.qf, self.kf, self.vf = (a.reshape(bh, m, d) for a in (q, k, v))
        self.seg = (self.g * m + self.rows).ravel()          # target row of each entry
        self.cseg = (self.g * m + self.cols).ravel()         # source row (K, V) of each entry
        self.scale = 1.0 / np.sqrt(d)

    def at_rows(self, a):
        return a[self.g, self.rows]

    def at_cols(self, a):
        return a[self.g, self.cols]

    def by_row(self, vals):
        """Sum entries into their rows: (B*H, nnz, ...) -> (B, H, M, ...)."""
        n = self.g.shape[0] * self.m
        tail = vals.shape[2:]
        return _segment_sum(vals.reshape((-1,) + tail), self.seg, n)

    def by_col(self, vals):
        n = self.g.shape[0] * self.m
        tail = vals.shape[2:]
        return _segment_sum(vals.reshape((-1,) + tail), self.cseg, n)


@kernel("sparse_attention", dtypes=_FLOATS)
def sparse_attention(ins, attrs, need):
    q, k, v, offset, columns, kp_mask, attn_mask = ins
    check_sparse_attention(q.shape, k.shape, v.shape, offset.shape, columns.shape,
                           None if kp_mask is None else kp_mask.shape,
                           None if attn_mask is None else attn_mask.shape)
    en = _Entries(q, k, v, offset, columns)
    b, h, m, d = q.shape
    sdd = np.einsum("ned,ned->ne", en.at_rows(en.qf), en.at_cols(en.kf))
    sdd = np.where(en.used, sdd, 0).astype(q.dtype, copy=False)
    keep = en.used
    eps = np.finfo(q.dtype).eps
    if kp_mask is not None:       # [B, M]: one row per batch, shared by the heads
        kp = np.repeat(kp_mask, h, axis=0)
        keep = keep & (np.abs(kp[en.g, en.cols]) >= eps)
    if attn_mask is not None:     # [M, M]
        keep = keep & (np.abs(attn_mask[en.rows, en.cols]) >= eps)
    z = np.where(keep, sdd * en.scale, -np.inf)
    rowmax = np.full(b * h * m, -np.inf, q.dtype)
    np.maximum.at(rowmax, en.seg, z.ravel())
    top = np.where(keep, rowmax[en.seg].reshape(z.shape), 0)
    ex = np.where(keep, np.exp(np.where(keep, z, 0) - top), 0)
    total = en.by_row(ex[..., None])[:, 0]
    denom = total[en.seg].reshape(z.shape)
    soft = np.where(keep, ex / np.where(keep, denom, 1), 0).astype(q.dtype, copy=False)
    out = en.by_row(soft[..., None] * en.at_cols(en.vf)).astype(q.dtype, copy=False)
    return (out.reshape(q.shape), sdd.reshape(columns.shape),
            soft.reshape(columns.shape))


@kernel("sparse_attention_grad", dtypes=_FLOATS)
def sparse_attention_grad(ins, attrs, need):
    q, k, v, offset, columns, _sdd, soft, gout = ins
    check_sparse_attention(q.shape, k.shape, v.shape, offset.shape, columns.shape)
    en = _Entries(q, k, v, offset, columns)
    bh = en.g.shape[0]
    p = np.where(en.used, soft.reshape(bh, -1), 0)
    go = gout.reshape(bh, en.m, en.d)
    go_e = en.at_rows(go)
    want = [need is None or need[i] for i in range(3)]
    dq = dk = dv = None
    if want[2]:
        dv = en.by_col(p[..., None] * go_e).astype(v.dtype).reshape(v.shape)
    if want[0] or want[1]:
        dp = np.einsum("ned,ned->ne", go_e, en.at_cols(en.vf))
        rowdot = en.by_row((p * dp)[..., None])[:, 0]
        dz = en.scale * p * (dp - rowdot[en.seg].reshape(p.shape))
        if want[0]:
            dq = en.by_row(dz[..., None] * en.at_cols(en.kf)).astype(q.dtype).reshape(q.shape)
        if want[1]:
            dk = en.by_col(dz[..., None] * en.at_rows(en.qf)).astype(k.dtype).reshape(k.shape)
    return dq, dk, dv
