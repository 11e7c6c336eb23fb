"""Sequence decoding for ``paddle.text``: viterbi_decode.

``viterbi_decode(Input [batch, seq, tags], Transition [tags, tags],
Length [batch] int64) -> Scores [batch], Path [batch, max(Length)] int64``,
attribute ``include_bos_eos_tag``: the highest scoring tag sequence of each
row under emission scores ``Input`` and transition scores ``Transition[from,
to]``.  With ``include_bos_eos_tag`` the last tag is the start tag (row
``tags-1`` scores the first step) and the second to last the stop tag (row
``tags-2`` scores the last step).  The width of Path is the largest length,
known only when the op runs.  The op has no gradient (as in Paddle).
"""
from ..declare import defop
from ..meta_rules import INT64
from ..registry import Meta, OpError


def _dims(meta, rank, what):
    if len(meta.shape) != rank:
        raise OpError(f"viterbi_decode: {what} must have rank {rank}, got shape "
                      f"{list(meta.shape)}")
    return meta.shape


def viterbi_infer(metas, attrs):
    x, trans, length = metas
    b, _, tags = _dims(x, 3, "Input (potentials, [batch_size, seq_len, num_tags])")
    t_rows, _ = _dims(trans, 2, "Transition ([num_tags, num_tags])")
    (lb,) = _dims(length, 1, "Length ([batch_size])")
    if length.dtype != INT64:
        raise OpError(f"viterbi_decode: Length must be int64, got {length.dtype}")
    if x.dtype != trans.dtype:
        raise OpError(f"viterbi_decode: Transition ({trans.dtype}) must have the dtype of "
                      f"Input ({x.dtype})")
    if -1 not in (tags, t_rows) and tags != t_rows:
        raise OpError(f"viterbi_decode: the number of tags of Input ({tags}) and of "
                      f"Transition ({t_rows}) must be equal")
    if -1 not in (b, lb) and b != lb:
        raise OpError(f"viterbi_decode: the batch size of Input ({b}) and Length ({lb}) "
                      f"must be equal")
    batch = b if b != -1 else lb
    return (Meta((batch,), x.dtype), Meta((batch, -1), INT64))


defop("viterbi_decode", "Input Transition Length", "Scores Path",
      (("include_bos_eos_tag", "BOOLEAN", True),), infer=viterbi_infer)
