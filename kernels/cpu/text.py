"""numpy kernel of viterbi_decode (ops/defs/text.py).

The forward pass runs over the whole batch for max(Length) steps, as Paddle's
CPU kernel does: a row stops changing once its length is used up (its scores
are carried unchanged), ties go to the lowest tag (first maximum), and with
``include_bos_eos_tag`` the stop row of Transition is added at the step where
a row ends.  Path holds each row's tags at positions < length, zeros after; a
row of length <= 0 has score ``max(Input[b, 0] (+ start row))`` and a zero
path, as in Paddle.
"""
import numpy as np

from ...ops import Meta, OpError, get_op
from ...ops.errors import OUT_OF_RANGE
from ..registry import register_kernel

_INFER = get_op("viterbi_decode").infer_meta


@register_kernel("viterbi_decode", ("float32", "float64"))
def viterbi_decode(ins, attrs, need):
    x, trans, lengths = ins
    _INFER(tuple(Meta(a.shape, a.dtype) for a in ins), attrs)
    batch, seq_len, tags = x.shape
    lengths = np.asarray(lengths, np.int64)
    max_len = int(lengths.max()) if batch else 0
    if max_len <= 0:
        raise OpError(f"viterbi_decode: the largest Length must be positive, got "
                      f"{lengths.tolist()}")
    if max_len > seq_len:
        raise OpError(f"viterbi_decode: a Length ({max_len}) exceeds the sequence length "
                      f"({seq_len}) of Input", kind=OUT_OF_RANGE)
    dt = x.dtype
    left = lengths.copy()
    alpha = x[:, 0, :].copy()
    include = attrs["include_bos_eos_tag"]
    if include:
        start, stop = trans[tags - 1], trans[tags - 2]
        alpha = alpha + start
        alpha = alpha + (left == 1).astype(dt)[:, None] * stop
    back = np.empty((max(max_len - 1, 0), batch, tags), np.int64)
    for i in range(1, max_len):
        left = left - 1
        total = alpha[:, :, None] + trans[None]          # [batch, from, to]
        arg = total.argmax(1)
        back[i - 1] = arg
        best = np.take_along_axis(total, arg[:, None, :], 1)[:, 0]
        live = (left > 0).astype(dt)[:, None]
        alpha = live * (best + x[:, i]) + (1 - live) * alpha
        if include:
            alpha = alpha + (left == 1).astype(dt)[:, None] * stop
    last = alpha.argmax(1)
    scores = np.take_along_axis(alpha, last[:, None], 1)[:, 0]
    path = np.zeros((batch, max_len), np.int64)
    rows = np.arange(batch)
    tag = last.copy()
    # walk back from each row's last position; a row joins when the walk reaches it
    for p in range(max_len - 1, -1, -1):
        tag = np.where(lengths - 1 == p, last, tag)
        on = lengths > p
        path[on, p] = tag[on]
        if p:
            tag = np.where(on, back[p - 1][rows, tag], tag)
    return scores, path
