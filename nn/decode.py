"""``paddle.nn.BeamSearchDecoder`` and ``paddle.nn.dynamic_decode`` (Paddle
2.6's nn/decode.py): a decoder steps a cell; dynamic_decode runs the steps
until every sequence has finished (or ``max_step_num``), then the decoder's
``finalize`` (beam search: ``gather_tree`` over the chosen ids and parents)."""
import collections
import warnings

import numpy as np

from .. import tensor as _T
from ..ops import is_graph_value
from ..ops.dtypes import get_default_dtype
from . import functional as F
from .layer.rnn import _flatten, _map, _pack

__all__ = ["Decoder", "BeamSearchDecoder", "dynamic_decode"]


class Decoder:
    """The interface dynamic_decode drives: initialize, step, finalize."""

    def initialize(self, inits):
        raise NotImplementedError

    def step(self, time, inputs, states, **kwargs):
        raise NotImplementedError

    def finalize(self, outputs, final_states, sequence_lengths):
        raise NotImplementedError

    @property
    def tracks_own_finished(self):
        return False


class BeamSearchDecoder(Decoder):
    """Beam search over a cell: keeps ``beam_size`` hypotheses per batch entry,
    scored by summed log-probabilities; finished beams only extend with
    ``end_token`` at no cost."""

    def __init__(self, cell, start_token, end_token, beam_size, embedding_fn=None,
                 output_fn=None):
        self.cell = cell
        self.embedding_fn = embedding_fn
        self.output_fn = output_fn
        self.start_token = start_token
        self.end_token = end_token
        self.beam_size = beam_size

    @staticmethod
    def tile_beam_merge_with_batch(x, beam_size):
        """[batch, ...] -> [batch * beam_size, ...], each entry repeated beam_size times."""
        x = _T.unsqueeze(x, [1])
        times = [1] * len(x.shape)
        times[1] = beam_size
        x = _T.tile(x, times)
        return _T.reshape(x, [-1] + list(x.shape[2:]))

    def _split_batch_beams(self, x):
        return _T.reshape(x, [-1, self.beam_size] + list(x.shape[1:]))

    def _merge_batch_beams(self, x):
        return _T.reshape(x, [-1] + list(x.shape[2:]))

    def _expand_to_beam_size(self, x):
        x = _T.unsqueeze(x, [1])
        times = [1] * len(x.shape)
        times[1] = self.beam_size
        return _T.tile(x, times)

    def _mask_probs(self, probs, finished):
        finished = _T.cast(finished, probs.dtype)
        return (_T.multiply(_T.tile(_T.unsqueeze(finished, [2]), [1, 1, self.vocab_size]),
                            self.noend_mask_tensor)
                - _T.multiply(probs, _T.unsqueeze(finished - 1, [2])))

    def _gather(self, x, indices, batch_size):
        batch_pos = _T.tile(_T.unsqueeze(_T.arange(0, batch_size, 1, dtype=indices.dtype), [1]),
                            [1, self.beam_size])
        coords = _T.stack([batch_pos, indices], axis=2)
        coords.stop_gradient = True
        return _T.gather_nd(x, coords)

    OutputWrapper = collections.namedtuple("OutputWrapper",
                                           ("scores", "predicted_ids", "parent_ids"))
    StateWrapper = collections.namedtuple("StateWrapper",
                                          ("cell_states", "log_probs", "finished", "lengths"))

    def initialize(self, initial_cell_states):
        self.kinf = 1e9
        state = _flatten(initial_cell_states)[0]
        self.batch_size = state.shape[0]
        if self.batch_size is None or self.batch_size < 0:
            self.batch_size = _T.shape(state)[0]
        self.start_token_tensor = _T.full([1], self.start_token, "int64")
        self.end_token_tensor = _T.full([1], self.end_token, "int64")
        init_cell_states = _map(self._expand_to_beam_size, initial_cell_states)
        init_inputs = _T.full([self.batch_size, self.beam_size], self.start_token, "int64")
        log_probs = _T.tile(_T.to_tensor(np.array([[0.0] + [-self.kinf] * (self.beam_size - 1)],
                                                  "float32")), [self.batch_size, 1])
        if get_default_dtype() == "float64":
            log_probs = _T.cast(log_probs, "float64")
        init_finished = _T.full([self.batch_size, self.beam_size], False, "bool")
        init_lengths = _T.zeros_like(init_inputs)
        if self.embedding_fn:
            init_inputs = self.embedding_fn(init_inputs)
        return (init_inputs, self.StateWrapper(init_cell_states, log_probs, init_finished,
                                               init_lengths), init_finished)

    def _beam_search_step(self, time, logits, next_cell_states, beam_state):
        self.vocab_size = logits.shape[-1]
        self.vocab_size_tensor = _T.full([1], self.vocab_size, "int64")
        noend = [-self.kinf] * self.vocab_size
        noend[self.end_token] = 0
        self.noend_mask_tensor = _T.to_tensor(np.array(noend, "float32"))
        if get_default_dtype() == "float64":
            self.noend_mask_tensor = _T.cast(self.noend_mask_tensor, "float64")
        step_log_probs = _T.log(F.softmax(logits))
        step_log_probs = self._mask_probs(step_log_probs, beam_state.finished)
        log_probs = _T.add(step_log_probs, _T.unsqueeze(beam_state.log_probs, [2]))
        scores = _T.reshape(log_probs, [-1, self.beam_size * self.vocab_size])
        topk_scores, topk_indices = _T.topk(scores, k=self.beam_size)
        beam_indices = _T.floor_divide(topk_indices, self.vocab_size_tensor)
        token_indices = _T.remainder(topk_indices, self.vocab_size_tensor)
        next_log_probs = self._gather(scores, topk_indices, self.batch_size)
        next_cell_states = _map(lambda x: self._gather(x, beam_indices, self.batch_size),
                                next_cell_states)
        next_finished = self._gather(beam_state.finished, beam_indices, self.batch_size)
        next_lengths = self._gather(beam_state.lengths, beam_indices, self.batch_size)
        next_lengths = next_lengths + _T.cast(_T.logical_not(next_finished),
                                              beam_state.lengths.dtype)
        next_finished = _T.logical_or(next_finished,
                                      _T.equal(token_indices, self.end_token_tensor))
        return (self.OutputWrapper(topk_scores, token_indices, beam_indices),
                self.StateWrapper(next_cell_states, next_log_probs, next_finished,
                                  next_lengths))

    def step(self, time, inputs, states, **kwargs):
        inputs = _map(self._merge_batch_beams, inputs)
        cell_states = _map(self._merge_batch_beams, states.cell_states)
        cell_outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        cell_outputs = _map(self._split_batch_beams, cell_outputs)
        next_cell_states = _map(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        out, state = self._beam_search_step(time, cell_outputs, next_cell_states, states)
        sample_ids = out.predicted_ids
        sample_ids.stop_gradient = True
        next_inputs = self.embedding_fn(sample_ids) if self.embedding_fn else sample_ids
        return out, state, next_inputs, state.finished

    def finalize(self, outputs, final_states, sequence_lengths):
        return F.gather_tree(outputs.predicted_ids, outputs.parent_ids), final_states

    @property
    def tracks_own_finished(self):
        return True


def _maybe_copy(state, new_state, step_mask):
    """state where ``step_mask`` (finished) is set, else new_state."""
    dtype = state.dtype
    is_bool = str(dtype).endswith("bool")
    if is_bool:
        state, new_state = _T.cast(state, "float32"), _T.cast(new_state, "float32")
    step_mask = _T.unsqueeze(_T.cast(step_mask, state.dtype), [1])
    step_mask.stop_gradient = True
    new_state = _T.multiply(state, step_mask) - _T.multiply(new_state, step_mask - 1)
    return _T.cast(new_state, dtype) if is_bool else new_state


def dynamic_decode(decoder, inits=None, max_step_num=None, output_time_major=False,
                   impute_finished=False, is_test=False, return_length=False, **kwargs):
    """Run ``decoder`` step by step from ``decoder.initialize(inits)`` until every
    sequence has finished or ``max_step_num`` steps are done; returns
    (final_outputs, final_states[, sequence_lengths])."""
    inputs, states, finished = decoder.initialize(inits)
    if any(is_graph_value(v) for v in _flatten([inputs, states, finished])):
        final_outputs, final_states, sequence_lengths = _decode_graph(
            decoder, inputs, states, finished, max_step_num, impute_finished, is_test, kwargs)
        return _finish(decoder, final_outputs, final_states, sequence_lengths,
                       output_time_major, return_length)
    sequence_lengths = _T.cast(_T.zeros_like(finished), "int64")
    outputs = []
    step_idx = 0
    step_tensor = _T.full([1], 0, "int64")
    while not bool(np.asarray(_T.all(finished).numpy())):
        step_out, next_states, next_inputs, next_finished = decoder.step(
            step_tensor, inputs, states, **kwargs)
        if not decoder.tracks_own_finished:
            next_finished = _T.logical_or(next_finished, finished)
            next_lengths = _T.add(sequence_lengths,
                                  _T.cast(_T.logical_not(finished), sequence_lengths.dtype))
            if impute_finished:
                next_states = _map(lambda x, y: _maybe_copy(x, y, finished), states,
                                   next_states)
        else:
            if not hasattr(next_states, "lengths"):
                warnings.warn("`next_states` has no `lengths` attribute, the returned "
                              "`sequence_lengths` would be all zeros.")
            next_lengths = getattr(next_states, "lengths", sequence_lengths)
        outputs.append(step_out)
        inputs, states, finished, sequence_lengths = (next_inputs, next_states, next_finished,
                                                      next_lengths)
        step_tensor = _T.increment(step_tensor, 1.0)
        step_idx += 1
        if max_step_num is not None and step_idx > max_step_num:
            break
    flat = [_flatten(o) for o in outputs]
    final_outputs = [_T.stack([f[k] for f in flat], axis=0) for k in range(len(flat[0]))]
    final_outputs = _pack(outputs[0], final_outputs)[0]
    return _finish(decoder, final_outputs, states, sequence_lengths, output_time_major,
                   return_length)


def _finish(decoder, final_outputs, final_states, sequence_lengths, output_time_major,
            return_length):
    try:
        final_outputs, final_states = decoder.finalize(final_outputs, final_states,
                                                       sequence_lengths)
    except NotImplementedError:
        pass
    if not output_time_major:
        final_outputs = _map(lambda x: _T.transpose(x, [1, 0] + list(range(2, len(x.shape)))),
                             final_outputs)
    if return_length:
        return final_outputs, final_states, sequence_lengths
    return final_outputs, final_states


def _decode_graph(decoder, inputs, states, finished, max_step_num, impute_finished, is_test,
                  kwargs):
    """The decoding loop as a ``while`` op (Paddle's declarative dynamic_decode):
    the step counter, finished flags, lengths, inputs and states are loop
    variables; each step's outputs go to tensor arrays of the enclosing block."""
    from ..ops import while_loop
    from ..program.program_guard import default_main_program
    finished.stop_gradient = True
    step = _T.full([1], 0, "int64")
    limit = _T.full([1], max_step_num, "int64") if max_step_num is not None else None
    lengths = _T.cast(_T.zeros_like(finished), "int64")
    lengths.stop_gradient = True
    flat_in, flat_st = _flatten(inputs), _flatten(states)
    n_in = len(flat_in)
    arrays, out_struct = [], []

    def cond(step, fin, lens, *rest):
        go = _T.logical_not(_T.all(fin))
        if limit is not None and out_struct:          # after a step: within max_step_num
            go = _T.logical_and(go, _T.less_equal(step, limit))
        return go

    def body(step, fin, lens, *flat):
        ins, sts = _pack(inputs, list(flat[:n_in]))[0], _pack(states, list(flat[n_in:]))[0]
        outputs, next_states, next_inputs, next_fin = decoder.step(step, ins, sts, **kwargs)
        if not decoder.tracks_own_finished:
            next_fin = _T.logical_or(next_fin, fin)
            next_lens = _T.add(lens, _T.cast(_T.logical_not(fin), lens.dtype))
            if impute_finished:
                next_states = _map(lambda x, y: _maybe_copy(x, y, fin), sts, next_states)
        else:
            next_lens = getattr(next_states, "lengths", lens)
        flat_out = _flatten(outputs)
        if not out_struct:                             # the arrays live outside the loop
            out_struct.append(outputs)
            prog = default_main_program()
            here = prog.current_block_idx
            prog.current_block_idx = prog.current_block().parent_idx
            arrays.extend(_T.create_array(o.dtype) for o in flat_out)
            prog.current_block_idx = here
        for o, arr in zip(flat_out, arrays):
            _T.array_write(o, step, arr)
        return ([step + 1, next_fin, next_lens] + _flatten(next_inputs)
                + _flatten(next_states))

    res = while_loop(cond, body, [step, finished, lengths] + flat_in + flat_st)
    final_outputs = _pack(out_struct[0], [_T.tensor_array_to_tensor(a, axis=0,
                                                                    use_stack=True)[0]
                                          for a in arrays])[0]
    return final_outputs, _pack(states, list(res[3 + n_in:]))[0], res[2]
