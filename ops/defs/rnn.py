"""Recurrent ops: ``rnn`` (Paddle's fused multi-layer RNN: modes LSTM, GRU,
RNN_RELU, RNN_TANH, one or two directions, dropout between layers, padded
sequences through SequenceLength) with its grad, and ``gather_tree`` (the
backtrace of beam search, no grad).

``rnn`` works time-major: Input is ``[T, B, input_size]``, Out
``[T, B, D * hidden_size]`` (D = 2 when ``is_bidirec``), each State tensor
``[num_layers * D, B, hidden_size]`` (one for GRU and the simple RNNs, two --
h then c -- for LSTM).  WeightList holds every weight matrix first, then every
bias, each group ordered by (layer, direction) and within that ih before hh:
``[W_ih(l0), W_hh(l0), W_ih(l0 rev), W_hh(l0 rev), W_ih(l1), ..., b_ih(l0),
b_hh(l0), ...]`` (the order nn.LSTM's ``_all_weights`` has).  Gate blocks in
the weights are i, f, c, o for LSTM and r, z, c for GRU.

Outputs past a sequence's length are zero and its final states are those of
its last valid step (the reverse direction starts at that step).  DropoutState
holds the seed of the dropout masks between layers (so the grad draws the same
masks); Reserve is Paddle's workspace slot, kept for the file format.
"""
import numpy as np

from ..declare import defop, defgrad, grad_op
from ..registry import Meta, OpError

MODES = {"LSTM": (4, 2), "GRU": (3, 1), "RNN_RELU": (1, 1), "RNN_TANH": (1, 1)}

_RNN_ATTRS = (("dropout_prob", "FLOAT", 0.0), ("is_bidirec", "BOOLEAN", False),
              ("input_size", "INT", 10), ("hidden_size", "INT", 100),
              ("num_layers", "INT", 1), ("mode", "STRING", "RNN_TANH"),
              ("seed", "INT", 0), ("is_test", "BOOLEAN", False))


def rnn_geometry(attrs):
    """(gates per step, state tensors, directions, layers, hidden) of the attrs."""
    mode = attrs["mode"]
    if mode not in MODES:
        raise OpError(f"rnn: mode must be one of {sorted(MODES)}, got '{mode}'")
    gates, n_states = MODES[mode]
    layers, hidden = attrs["num_layers"], attrs["hidden_size"]
    if layers < 1:
        raise OpError(f"rnn: num_layers must be at least 1, got {layers}")
    if hidden < 1:
        raise OpError(f"rnn: hidden_size must be positive, got {hidden}")
    p = attrs["dropout_prob"]
    if not 0.0 <= p <= 1.0:
        raise OpError(f"rnn: dropout_prob must be in [0, 1], got {p}")
    return gates, n_states, 2 if attrs["is_bidirec"] else 1, layers, hidden


def check_rnn_inputs(x, states, weights, seq, attrs):
    """Paddle's checks of the rnn op's inputs (anything with ``shape``: Metas or
    arrays): rank, state count and shapes, weight count and the first weight.
    Returns the geometry (see ``rnn_geometry``)."""
    geometry = gates, n_states, d, layers, hidden = rnn_geometry(attrs)
    if len(x.shape) != 3:
        raise OpError(f"rnn: Input must be 3-D [seq_len, batch, input_size], got shape "
                      f"{list(x.shape)}")
    if len(states) != n_states:
        raise OpError(f"rnn: mode {attrs['mode']} takes {n_states} PreState tensor(s), "
                      f"got {len(states)}")
    if len(weights) != 4 * layers * d:
        raise OpError(f"rnn: WeightList must hold 4 * num_layers * directions = "
                      f"{4 * layers * d} tensors, got {len(weights)}")
    for what, items in (("PreState", states), ("WeightList", weights)):
        for k, w in enumerate(items):
            if w.dtype != x.dtype:
                raise OpError(f"rnn: {what}[{k}] has dtype {w.dtype} but Input has dtype "
                              f"{x.dtype}; they must match")
    t, b, i = x.shape
    for k, s in enumerate(states):
        if len(s.shape) != 3 or (s.shape[0] >= 0 and s.shape[0] != layers * d) or \
                (s.shape[2] >= 0 and s.shape[2] != hidden):
            raise OpError(f"rnn: PreState[{k}] must have shape [num_layers * directions, "
                          f"batch, hidden_size] = [{layers * d}, {b}, {hidden}], got "
                          f"{list(s.shape)}")
    w0 = weights[0].shape
    if len(w0) == 2 and w0[0] >= 0 and w0[0] != gates * hidden:
        raise OpError(f"rnn: WeightList[0] (layer 0's input weight) must have "
                      f"{gates} * hidden_size = {gates * hidden} rows for mode "
                      f"{attrs['mode']}, got shape {list(w0)}")
    if len(w0) == 2 and w0[1] >= 0 and i >= 0 and w0[1] != i:
        raise OpError(f"rnn: WeightList[0] has {w0[1]} columns but Input's feature size "
                      f"is {i}")
    if seq is not None and len(seq.shape) != 1:
        raise OpError(f"rnn: SequenceLength must be 1-D [batch], got shape "
                      f"{list(seq.shape)}")
    return geometry


def _rnn_infer(metas, attrs):
    x, states, weights, seq = metas
    _, _, d, _, hidden = check_rnn_inputs(x, states, weights, seq, attrs)
    t, b, _ = x.shape
    u8 = np.dtype("uint8")
    return (Meta((t, b, d * hidden), x.dtype), Meta((-1,), u8),
            [Meta(tuple(s.shape), x.dtype) for s in states], Meta((-1,), u8))


defgrad("rnn_grad", "Input PreState* WeightList* SequenceLength? Out DropoutState? Reserve "
        "Out@GRAD State@GRAD*?", "Input@GRAD? PreState@GRAD*? WeightList@GRAD*?",
        _RNN_ATTRS, no_need_buffer=("Reserve",), dtype_from="Input")
defop("rnn", "Input PreState* WeightList* SequenceLength?", "Out DropoutState? State* Reserve~",
      _RNN_ATTRS, infer=_rnn_infer,
      grad=grad_op("rnn_grad", uses=("Input", "PreState", "WeightList", "SequenceLength",
                                     "Out", "DropoutState", "Reserve"),
                   gouts=("Out", "State"), wrt=("Input", "PreState", "WeightList")),
      random=True, no_grad_inputs=("SequenceLength",))


# ------------------------------------------------------------------ gather_tree
def _gather_tree_infer(metas, attrs):
    ids, parents = metas
    if len(ids.shape) != 3:
        raise OpError(f"gather_tree: Ids must be 3-D [max_time, batch_size, beam_size], got "
                      f"shape {list(ids.shape)}")
    if tuple(ids.shape) != tuple(parents.shape):
        raise OpError(f"gather_tree: Ids and Parents must have one shape, got "
                      f"{list(ids.shape)} and {list(parents.shape)}")
    if ids.dtype != parents.dtype:
        raise OpError(f"gather_tree: Ids and Parents must have one dtype, got {ids.dtype} "
                      f"and {parents.dtype}")
    return (Meta(tuple(ids.shape), ids.dtype),)


defop("gather_tree", "Ids Parents", "Out", infer=_gather_tree_infer)
