"""Op-spec cases of ops/defs/nn_attention.py: sparse_attention against a dense
numpy reference (scores outside the CSR layout, or masked, are -inf; a row
with nothing left attends to nothing), with the gradients of Q, K and V."""
import numpy as np

from .spec import Case, rand


def _dense_layout(offset, columns, m):
    keep = np.zeros(offset.shape[:2] + (m, m), bool)
    for b, h in np.ndindex(*offset.shape[:2]):
        for i in range(m):
            for e in range(offset[b, h, i], offset[b, h, i + 1]):
                keep[b, h, i, columns[b, h, e]] = True
    return keep


def ref_sparse_attention(Q, K, V, Offset, Columns, kp=None, am=None):
    q, k, v, offset, columns = Q, K, V, Offset, Columns
    b, h, m, d = q.shape
    keep = _dense_layout(offset, columns, m)
    if kp is not None:
        keep &= (kp != 0)[:, None, None, :]
    if am is not None:
        keep &= (am != 0)[None, None]
    s = np.where(keep, q @ np.swapaxes(k, -1, -2) / np.sqrt(d), -np.inf)
    top = np.max(np.where(keep, s, -1e300), axis=-1, keepdims=True)
    e = np.where(keep, np.exp(s - top), 0.0)
    tot = e.sum(-1, keepdims=True)
    p = e / np.where(tot == 0, 1, tot)
    return (p @ v).astype(q.dtype)


def _csr(rows_cols, b, h):
    """Offset/Columns of the same layout for every (batch, head)."""
    off, cols = [0], []
    for r in rows_cols:
        cols += r
        off.append(len(cols))
    off = np.tile(np.array(off, "int32"), (b, h, 1))
    cols = np.tile(np.array(cols, "int32"), (b, h, 1))
    return off, cols


B, H, M, D = 2, 2, 4, 3
Q, K, V = (rand(B, H, M, D, seed=s) for s in (801, 802, 803))
# row 2 is empty; the rows have 1-3 entries, not sorted by column
OFF, COLS = _csr([[0, 1], [2, 0, 3], [], [3]], B, H)
# a different layout per (batch, head)
OFF2 = np.array([[[0, 1, 2, 3, 4], [0, 2, 4, 6, 8]],
                 [[0, 4, 4, 4, 4], [0, 1, 3, 3, 4]]], "int32")
COLS2 = np.array([[[0, 1, 2, 3, 0, 0, 0, 0], [0, 1, 0, 1, 2, 3, 2, 3]],
                  [[3, 2, 1, 0, 0, 0, 0, 0], [1, 0, 2, 3, 0, 0, 0, 0]]], "int32")
KP = np.array([[1, 1, 0, 1], [1, 0, 1, 1]], "float64")
AM = np.array([[1, 1, 1, 1], [0, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 0]], "float64")

CASES = [
    Case("sparse_attention", {"Q": Q, "K": K, "V": V, "Offset": OFF, "Columns": COLS},
         ref=ref_sparse_attention),
    Case("sparse_attention", {"Q": Q, "K": K, "V": V, "Offset": OFF2, "Columns": COLS2},
         ref=ref_sparse_attention, id="sparse_attention_per_head"),
    Case("sparse_attention", {"Q": Q, "K": K, "V": V, "Offset": OFF2, "Columns": COLS2,
                              "KeyPaddingMask": KP},
         ref=lambda Q, K, V, Offset, Columns, KeyPaddingMask:
         ref_sparse_attention(Q, K, V, Offset, Columns, kp=KeyPaddingMask),
         id="sparse_attention_key_padding"),
    Case("sparse_attention", {"Q": Q, "K": K, "V": V, "Offset": OFF, "Columns": COLS,
                              "AttnMask": AM},
         ref=lambda Q, K, V, Offset, Columns, AttnMask:
         ref_sparse_attention(Q, K, V, Offset, Columns, am=AttnMask),
         id="sparse_attention_attn_mask"),
    # masks that empty whole rows (row 3 of batch 0: its only key is padded)
    Case("sparse_attention", {"Q": Q, "K": K, "V": V, "Offset": OFF, "Columns": COLS,
                              "KeyPaddingMask": np.array([[1, 1, 1, 0], [0, 1, 1, 1]], "float64"),
                              "AttnMask": AM},
         ref=lambda Q, K, V, Offset, Columns, KeyPaddingMask, AttnMask:
         ref_sparse_attention(Q, K, V, Offset, Columns, KeyPaddingMask, AttnMask),
         id="sparse_attention_both_masks"),
    Case("sparse_attention", {"Q": Q.astype("float32"), "K": K.astype("float32"),
                              "V": V.astype("float32"), "Offset": OFF, "Columns": COLS},
         ref=ref_sparse_attention, grad=False, rtol=1e-5, atol=1e-6,
         id="sparse_attention_float32"),
]
