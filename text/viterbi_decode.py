"""``paddle.text.viterbi_decode`` and the ``ViterbiDecoder`` layer: one op
record each call (ops/defs/text.py), so they run eagerly, in static Programs
and under to_static alike."""
from ..nn import Layer
from ..ops import bind, get_op

__all__ = ["viterbi_decode", "ViterbiDecoder"]

_OP = get_op("viterbi_decode")


def viterbi_decode(potentials, transition_params, lengths, include_bos_eos_tag=True, name=None):
    """(scores [batch], path [batch, max(lengths)] int64): the best tag sequence of
    each row of ``potentials`` [batch, seq_len, num_tags] under
    ``transition_params`` [num_tags, num_tags] (scores of moving from the row's tag
    to the column's).  ``lengths`` (int64 [batch]) are the rows' true lengths;
    positions past a row's length hold tag 0.  With ``include_bos_eos_tag`` the
    last tag is the start tag and the second to last the stop tag: row
    ``num_tags-1`` of the transitions scores the first tag, row ``num_tags-2``
    the last one."""
    if not isinstance(include_bos_eos_tag, bool):
        raise TypeError(f"viterbi_decode: include_bos_eos_tag must be a bool, got "
                        f"{type(include_bos_eos_tag).__name__}")
    scores, path = bind(_OP, (potentials, transition_params, lengths),
                        {"include_bos_eos_tag": include_bos_eos_tag})
    return scores, path


class ViterbiDecoder(Layer):
    """``viterbi_decode`` with the transitions held by the layer:
    ``ViterbiDecoder(transitions)(potentials, lengths) -> (scores, path)``."""

    def __init__(self, transitions, include_bos_eos_tag=True, name=None):
        super().__init__()
        self.transitions = transitions
        self.include_bos_eos_tag = include_bos_eos_tag
        self.name = name

    def forward(self, potentials, lengths):
        return viterbi_decode(potentials, self.transitions, lengths, self.include_bos_eos_tag,
                              self.name)
