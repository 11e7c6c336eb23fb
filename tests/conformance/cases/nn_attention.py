"""``paddle.nn.functional`` attention: scaled_dot_product_attention and
sparse_attention.

scaled_dot_product_attention without a mask is Paddle 2.6's CPU path (its
math attention: transpose2, scale, matmul_v2, softmax, matmul_v2, transpose2),
compared with Paddle directly.  Paddle's CPU raises for ``is_causal=True``
(NotImplementedError: its fused upper-triangle softmax is GPU-only) and for an
``attn_mask`` (RuntimeError: ``flash_attn`` has no CPU kernel), and
sparse_attention has no CPU kernel at all (its legacy op is missing from the
CPU build: AttributeError); sampan computes them, and these cases are recorded
against their documented definition written with Paddle ops (``paddle_code``).
"""
from spec import C

CASES = []


def F(id, code, *args, **kw):
    """A case over ``F.<fn>``: ``F.`` is paddle.nn.functional."""
    if kw.get("paddle_code"):
        kw["paddle_code"] = kw["paddle_code"].replace("F.", "paddle.nn.functional.")
    CASES.append(C(id, code.replace("F.", "paddle.nn.functional."), *args, **kw))


SDPA = "F.scaled_dot_product_attention"
# ------------------------------------------------------------------ Paddle's CPU path
for dt, tol in (("float32", 1e-5), ("float64", 1e-6)):
    QKV = (f"{dt}[2,5,2,4]",) * 3
    F(f"sdpa.{dt}", f"{SDPA}(x, y, z)", *QKV, grad=True, rtol=tol, atol=tol)
    F(f"sdpa.kv_len.{dt}", f"{SDPA}(x, y, z)", f"{dt}[1,3,2,4]", f"{dt}[1,6,2,4]",
      f"{dt}[1,6,2,5]", grad=True, rtol=tol, atol=tol)
F("sdpa.self", f"{SDPA}(x, x, x)", "float32[1,4,3,8]", grad=True, rtol=1e-5, atol=1e-5)
F("sdpa.kwargs", f"{SDPA}(query=x, key=y, value=z, attn_mask=None, dropout_p=0.0, "
  "is_causal=False, training=True)", "float32[1,4,1,6]", "float32[1,4,1,6]", "float32[1,4,1,6]")
F("sdpa.dropout.shape", f"{SDPA}(x, y, z, dropout_p=0.5).shape", "float32[2,3,2,4]",
  "float32[2,3,2,4]", "float32[2,3,2,4]")
F("sdpa.rank3", f"{SDPA}(x, x, x)", "float32[4,2,8]", modes=("eager",))

# ------------------------------------------------------------------ beyond Paddle's CPU
# the definition: softmax(q k^T / sqrt(d) + mask) v, the causal mask hiding key j > i
SDPA_PADDLE = (
    "q, k, v = (t.transpose([0, 2, 1, 3]) for t in (x, y, z))\n"
    "s = paddle.matmul(q * (x.shape[3] ** -0.5), k, transpose_y=True)\n"
    "{causal}{mask}"
    "return paddle.matmul(F.softmax(s), v).transpose([0, 2, 1, 3])")
CAUSAL = "s = s + paddle.triu(paddle.full_like(s, float('-inf')), 1)\n"
MASK = "s = s + w\n"
NOTE = "Paddle 2.6.2's CPU raises here; recorded against the documented definition"
for dt, tol in (("float32", 1e-5), ("float64", 1e-6)):
    QKV = (f"{dt}[2,5,2,4]",) * 3
    F(f"sdpa.causal.{dt}", f"{SDPA}(x, y, z, is_causal=True)", *QKV, grad=True, rtol=tol,
      atol=tol, note=NOTE, paddle_code=SDPA_PADDLE.format(causal=CAUSAL, mask=""))
    F(f"sdpa.mask.{dt}", f"{SDPA}(x, y, z, w)", *QKV, f"{dt}[2,2,5,5]", grad=True, rtol=tol,
      atol=tol, note=NOTE, paddle_code=SDPA_PADDLE.format(causal="", mask=MASK))
F("sdpa.mask.broadcast", f"{SDPA}(x, y, z, attn_mask=w)", "float32[2,3,2,4]",
  "float32[2,6,2,4]", "float32[2,6,2,4]", "float32[1,1,3,6]", grad=True, rtol=1e-5, atol=1e-5,
  note=NOTE, paddle_code=SDPA_PADDLE.format(causal="", mask=MASK))
F("sdpa.mask.causal", f"{SDPA}(x, y, z, w, is_causal=True)", "float64[1,4,2,3]",
  "float64[1,4,2,3]", "float64[1,4,2,3]", "float64[1,2,4,4]", grad=True, note=NOTE,
  paddle_code=SDPA_PADDLE.format(causal=CAUSAL, mask=MASK))
F("sdpa.mask.eval", f"{SDPA}(x, y, z, w, dropout_p=0.3, training=False)",
  "float32[1,3,2,4]", "float32[1,3,2,4]", "float32[1,3,2,4]", "float32[1,2,3,3]",
  rtol=1e-5, atol=1e-5, note=NOTE, paddle_code=SDPA_PADDLE.format(causal="", mask=MASK))


# ------------------------------------------------------------------ sparse_attention
def _keep(offset, columns, m):
    """The dense [B, H, M, M] layout of CSR offset/columns (nested lists)."""
    out = []
    for ob, cb in zip(offset, columns):
        heads = []
        for oh, ch in zip(ob, cb):
            rows = [[False] * m for _ in range(m)]
            for i in range(m):
                for e in range(oh[i], oh[i + 1]):
                    rows[i][ch[e]] = True
            heads.append(rows)
        out.append(heads)
    return out


def _and(keep, kp=None, am=None):
    return [[[[keep[b][h][i][j] and (kp is None or kp[b][j] != 0)
               and (am is None or am[i][j] != 0)
               for j in range(len(keep[b][h][i]))] for i in range(len(keep[b][h]))]
             for h in range(len(keep[b]))] for b in range(len(keep))]


SPARSE_PADDLE = (
    "keep = paddle.to_tensor({keep})\n"
    "s = paddle.matmul(x, y, transpose_y=True) * (x.shape[-1] ** -0.5)\n"
    "s = paddle.where(keep, s, paddle.full_like(s, float('-inf')))\n"
    "return paddle.matmul(F.softmax(s), z)")
SPARSE = ("off = paddle.to_tensor({off}, dtype='int32')\n"
          "col = paddle.to_tensor({col}, dtype='int32')\n"
          "{masks}return F.sparse_attention(x, y, z, off, col{args})")
# (every row keeps an entry under the masks: the definition gives NaN for an
# emptied row, sampan zeros, tests/ops/cases_nn_attention.py)
OFF = [[[0, 2, 5, 7, 8], [0, 2, 4, 6, 8]]]
COL = [[[0, 1, 2, 0, 3, 2, 1, 3], [0, 1, 1, 2, 2, 3, 3, 0]]]
KP = [[1, 1, 0, 1]]
AM = [[1, 1, 1, 1], [0, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]]
KEEP = _keep(OFF, COL, 4)
SNOTE = "Paddle 2.6.2 has no CPU sparse_attention; recorded against its definition"
for dt, tol in (("float32", 1e-5), ("float64", 1e-6)):
    QKV = (f"{dt}[1,2,4,3]",) * 3
    F(f"sparse_attention.{dt}", SPARSE.format(off=OFF, col=COL, masks="", args=""), *QKV,
      grad=True, rtol=tol, atol=tol, note=SNOTE, paddle_code=SPARSE_PADDLE.format(keep=KEEP))
    masks = (f"kp = paddle.to_tensor({KP}, dtype='{dt}')\n"
             f"am = paddle.to_tensor({AM}, dtype='{dt}')\n")
    F(f"sparse_attention.masks.{dt}",
      SPARSE.format(off=OFF, col=COL, masks=masks, args=", key_padding_mask=kp, attn_mask=am"),
      *QKV, grad=True, rtol=tol, atol=tol, note=SNOTE,
      paddle_code=SPARSE_PADDLE.format(keep=_and(KEEP, KP, AM)))
F("sparse_attention.key_padding.float32",
  SPARSE.format(off=OFF, col=COL, masks=f"kp = paddle.to_tensor({KP}, dtype='float32')\n",
                args=", kp"), *(("float32[1,2,4,3]",) * 3), grad=True, rtol=1e-5, atol=1e-5,
  note=SNOTE, paddle_code=SPARSE_PADDLE.format(keep=_and(KEEP, KP)))
