"""Recurrent layers (Paddle 2.6's ``paddle.nn.layer.rnn``): the cells
(``SimpleRNNCell``, ``LSTMCell``, ``GRUCell`` over ``RNNCellBase``), the
wrappers running any cell over a sequence (``RNN``, ``BiRNN``: eagerly a
Python loop over the steps, in a Program a ``while`` op), and the fused
networks ``SimpleRNN``, ``LSTM``, ``GRU``, which are one ``rnn`` op each, as in
Paddle, with Paddle's parameter names (``weight_ih_l0``, ``bias_hh_l1_reverse``
beside the cells' own ``0.cell.weight_ih``) so state dicts interchange.
"""
import math
from functools import partial

from ... import tensor as _T
from ...ops import bind, get_op, is_graph_value
from ...ops.dtypes import get_default_dtype
from .. import functional as F
from .. import initializer as I
from .container import LayerList
from .layers import Layer

__all__ = ["RNNCellBase", "SimpleRNNCell", "LSTMCell", "GRUCell", "RNN", "BiRNN",
           "SimpleRNN", "LSTM", "GRU"]

_RNN = get_op("rnn")


# ------------------------------------------------------------------ structures
def _is_seq(x):
    return isinstance(x, (list, tuple))


def _flatten(x):
    if _is_seq(x):
        return [leaf for item in x for leaf in _flatten(item)]
    return [x]


def _pack(structure, flat, pos=0):
    if _is_seq(structure):
        items = []
        for s in structure:
            item, pos = _pack(s, flat, pos)
            items.append(item)
        if hasattr(structure, "_fields"):          # a namedtuple
            return type(structure)(*items), pos
        return type(structure)(items), pos
    return flat[pos], pos + 1


def _map(fn, *structures):
    flats = [_flatten(s) for s in structures]
    return _pack(structures[0], [fn(*xs) for xs in zip(*flats)])[0]


def _transpose_batch_time(x):
    return _T.transpose(x, [1, 0] + list(range(2, len(x.shape))))


def _maybe_copy(state, new_state, step_mask):
    """new_state where the step is valid, else the old state (Paddle's rule)."""
    return new_state * step_mask + state * (1.0 - step_mask)


# ------------------------------------------------------------------ rnn / birnn
def _rnn_eager(cell, inputs, states, sequence_length, time_major, is_reverse, kwargs):
    time_axis = 0 if time_major else 1
    steps = _flatten(inputs)[0].shape[time_axis]
    if not time_major:
        inputs = _map(_transpose_batch_time, inputs)
    mask = None
    if sequence_length is not None:
        mask = _T.transpose(F.sequence_mask(sequence_length, maxlen=steps,
                                            dtype=_flatten(inputs)[0].dtype), [1, 0])
    if is_reverse:
        inputs = _map(lambda x: _T.reverse(x, axis=[0]), inputs)
        mask = _T.reverse(mask, axis=[0]) if mask is not None else None
    outputs = []
    for i in range(steps):
        step_out, new_states = cell(_map(lambda x: x[i], inputs), states, **kwargs)
        if mask is not None:
            m = _T.unsqueeze(mask[i], 1)
            new_states = _map(partial(_maybe_copy, step_mask=m), states, new_states)
        states = new_states
        outputs.append(_flatten(step_out))
    final = [_T.stack([o[k] for o in outputs], axis=time_axis)
             for k in range(len(outputs[0]) if outputs else 0)]
    final = _pack(step_out, final)[0]
    if is_reverse:
        final = _map(lambda x: _T.reverse(x, axis=[time_axis]), final)
    return final, states


def _rnn_graph(cell, inputs, states, sequence_length, time_major, is_reverse, kwargs):
    """The steps as a ``while`` op, built as Paddle's static rnn builds it: a step
    counter, the step outputs and the states in tensor arrays (the states of
    step i at index i), the final states the last entries."""
    from ...ops import while_loop
    if not time_major:
        inputs = _map(_transpose_batch_time, inputs)
    max_len = _T.shape(_flatten(inputs)[0])[0]
    flat_states = _flatten(states)
    mask = None
    if sequence_length is not None:
        mask = _T.transpose(F.sequence_mask(sequence_length, maxlen=max_len,
                                            dtype=flat_states[0].dtype), [1, 0])
    if is_reverse:
        inputs = _map(lambda x: _T.reverse(x, axis=[0]), inputs)
        mask = _T.reverse(mask, axis=[0]) if mask is not None else None
    start = _T.zeros([], "int64")
    end = _T.cast(max_len, "int64")
    out_array = _T.create_array(_flatten(inputs)[0].dtype)
    state_arrays = [_T.create_array(s.dtype) for s in flat_states]
    first = []

    # The loop variable counts the steps left (from ``end`` down to 0), so the
    # index ``start`` of the initial states' writes stays 0 for their gradient.
    def cond(left):
        c = _T.less_than(start, left)
        if not first:                   # before the loop: the initial states at index 0
            first.append(True)
            for s, arr in zip(flat_states, state_arrays):
                _T.array_write(s, start, arr)
        return c

    def body(left):
        i = _T.cast(max_len, "int64") - left
        step_in = _map(lambda x: x[i], inputs)
        pre = _pack(states, [_T.array_read(arr, i) for arr in state_arrays])[0]
        out, new_states = cell(step_in, pre, **kwargs)
        if mask is not None:
            m = _T.unsqueeze(mask[i], 1)
            new_states = _map(partial(_maybe_copy, step_mask=m), pre, new_states)
        _T.array_write(out, i, out_array)
        nxt = i + 1
        for s, arr in zip(_flatten(new_states), state_arrays):
            _T.array_write(s, nxt, arr)
        return [left - 1]

    while_loop(cond, body, [end])
    out = _T.tensor_array_to_tensor(out_array, axis=0, use_stack=True)[0]
    stacked = [_T.tensor_array_to_tensor(arr, axis=0, use_stack=True)[0]
               for arr in state_arrays]
    final_states = _pack(states, [x[-1] for x in stacked])[0]
    if is_reverse:
        out = _T.reverse(out, axis=[0])
    if not time_major:
        out = _transpose_batch_time(out)
    return out, final_states


def rnn(cell, inputs, initial_states=None, sequence_length=None, time_major=False,
        is_reverse=False, **kwargs):
    """Run ``cell`` over the time steps of ``inputs``; returns (outputs, final_states)."""
    if initial_states is None:
        initial_states = cell.get_initial_states(batch_ref=inputs,
                                                 batch_dim_idx=1 if time_major else 0)
    graph = any(is_graph_value(x) for x in _flatten(inputs))
    run = _rnn_graph if graph else _rnn_eager
    return run(cell, inputs, initial_states, sequence_length, time_major, is_reverse, kwargs)


def birnn(cell_fw, cell_bw, inputs, initial_states=None, sequence_length=None,
          time_major=False, **kwargs):
    """A forward and a reverse ``rnn``, outputs concatenated on the last axis."""
    if initial_states is None:
        states_fw = cell_fw.get_initial_states(batch_ref=inputs,
                                               batch_dim_idx=1 if time_major else 0)
        states_bw = cell_fw.get_initial_states(batch_ref=inputs,
                                               batch_dim_idx=1 if time_major else 0)
    else:
        states_fw, states_bw = initial_states
    out_fw, states_fw = rnn(cell_fw, inputs, states_fw, sequence_length,
                            time_major=time_major, **kwargs)
    out_bw, states_bw = rnn(cell_bw, inputs, states_bw, sequence_length,
                            time_major=time_major, is_reverse=True, **kwargs)
    outputs = _map(lambda x, y: _T.concat([x, y], -1), out_fw, out_bw)
    return outputs, (states_fw, states_bw)


def split_states(states, bidirectional=False, state_components=1):
    """[L*D, N, C] state tensor(s) -> the per-layer (per-direction) cell states."""
    if state_components == 1:
        states = _T.unstack(states)
        return states if not bidirectional else list(zip(states[::2], states[1::2]))
    if len(states) != state_components:
        raise ValueError(f"split_states: expected {state_components} state tensors, got "
                         f"{len(states)}")
    states = list(zip(*[_T.unstack(s) for s in states]))
    return states if not bidirectional else list(zip(states[::2], states[1::2]))


def concat_states(states, bidirectional=False, state_components=1):
    """The inverse of ``split_states``."""
    flat = _flatten(states)
    if state_components == 1:
        return _T.stack(flat)
    return tuple(_T.stack(flat[i::state_components]) for i in range(state_components))


# ------------------------------------------------------------------ cells
class RNNCellBase(Layer):
    """Base of the cells: ``get_initial_states`` from ``state_shape`` / ``state_dtype``."""

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0,
                           batch_dim_idx=0):
        batch_ref = _flatten(batch_ref)[0]
        shapes = self.state_shape if shape is None else shape

        def is_shape(s):
            return _is_seq(s) and all(isinstance(v, int) for v in s)

        def to_shapes(s):
            if is_shape(s):
                return [list(s) if s and s[0] == -1 else [-1] + list(s)]
            return type(s)(to_shapes(x)[0] if is_shape(x) else to_shapes(x) for x in s)

        def walk(s, fn):
            if is_shape(s):
                return fn(s)
            return type(s)(walk(x, fn) for x in s)

        if dtype is None:
            try:
                dtype = self.state_dtype
            except NotImplementedError:
                dtype = get_default_dtype()
        dtypes = _flatten(dtype)
        batch = batch_ref.shape[batch_dim_idx]
        if batch is None or batch < 0:
            batch = _T.shape(batch_ref)[batch_dim_idx]
        leaves = []

        def make(s):
            full = list(s) if s and s[0] == -1 else [-1] + list(s)
            full[0] = batch
            dt = dtypes[len(leaves)] if len(dtypes) > 1 else dtypes[0]
            t = _T.full(full, init_value, dt)
            leaves.append(t)
            return t
        return walk(shapes, make) if not is_shape(shapes) else make(shapes)

    @property
    def state_shape(self):
        raise NotImplementedError("Please add implementaion for `state_shape` in the used cell.")

    @property
    def state_dtype(self):
        raise NotImplementedError("Please add implementaion for `state_dtype` in the used cell.")


def _cell_params(cell, gates, input_size, hidden_size, attrs):
    """weight_ih, weight_hh, bias_ih, bias_hh of a cell, Paddle's initializers; an
    attr of False gives a fixed parameter (ones / zeros) without gradient."""
    if hidden_size <= 0:
        raise ValueError(f"hidden_size of {type(cell).__name__} must be greater than 0, but "
                         f"now equals to {hidden_size}")
    std = 1.0 / math.sqrt(hidden_size)
    specs = (("weight_ih", (gates * hidden_size, input_size), False, 1.0),
             ("weight_hh", (gates * hidden_size, hidden_size), False, 1.0),
             ("bias_ih", (gates * hidden_size,), True, 0.0),
             ("bias_hh", (gates * hidden_size,), True, 0.0))
    for (name, shape, is_bias, fixed), attr in zip(specs, attrs):
        if attr is not False:
            p = cell.create_parameter(shape, attr, is_bias=is_bias,
                                      default_initializer=I.Uniform(-std, std))
        else:
            p = cell.create_parameter(shape, None, is_bias=is_bias,
                                      default_initializer=I.Constant(fixed))
            p.stop_gradient = True
        setattr(cell, name, p)
    cell.input_size = input_size
    cell.hidden_size = hidden_size


def _proj(x, w, b):
    y = _T.matmul(x, w, transpose_y=True)
    return y + b if b is not None else y


class SimpleRNNCell(RNNCellBase):
    """h = act(x W_ih^T + b_ih + h W_hh^T + b_hh), act tanh or relu."""

    def __init__(self, input_size, hidden_size, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        _cell_params(self, 1, input_size, hidden_size,
                     (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr))
        if activation not in ("tanh", "relu"):
            raise ValueError(f"activation for SimpleRNNCell should be tanh or relu, but get "
                             f"{activation}")
        self.activation = activation
        self._activation_fn = _T.tanh if activation == "tanh" else F.relu

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        h = self._activation_fn(_proj(inputs, self.weight_ih, self.bias_ih)
                                + _proj(states, self.weight_hh, self.bias_hh))
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        return s + (f", activation={self.activation}" if self.activation != "tanh" else "")


class LSTMCell(RNNCellBase):
    """Gates i, f, c, o (in that order in the weights); returns h, (h, c)."""

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        _cell_params(self, 4, input_size, hidden_size,
                     (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr))
        self._gate_activation = F.sigmoid
        self._activation = _T.tanh

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        pre_hidden, pre_cell = states
        gates = _proj(inputs, self.weight_ih, self.bias_ih)
        gates = gates + _proj(pre_hidden, self.weight_hh, self.bias_hh)
        i, f, c, o = _T.split(gates, num_or_sections=4, axis=-1)
        i, f, o = self._gate_activation(i), self._gate_activation(f), self._gate_activation(o)
        c = f * pre_cell + i * self._activation(c)
        h = o * self._activation(c)
        return h, (h, c)

    @property
    def state_shape(self):
        return ((self.hidden_size,), (self.hidden_size,))

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}"


class GRUCell(RNNCellBase):
    """Gates r, z, c (in that order); the reset gate applies after the matmul."""

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        _cell_params(self, 3, input_size, hidden_size,
                     (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr))
        self._gate_activation = F.sigmoid
        self._activation = _T.tanh

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        pre_hidden = states
        x_gates = _proj(inputs, self.weight_ih, self.bias_ih)
        h_gates = _proj(pre_hidden, self.weight_hh, self.bias_hh)
        x_r, x_z, x_c = _T.split(x_gates, 3, axis=1)
        h_r, h_z, h_c = _T.split(h_gates, 3, axis=1)
        r = self._gate_activation(x_r + h_r)
        z = self._gate_activation(x_z + h_z)
        c = self._activation(x_c + r * h_c)
        h = (pre_hidden - c) * z + c
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}"


# ------------------------------------------------------------------ wrappers
class RNN(Layer):
    """Any cell over a sequence (``is_reverse``: from the last step)."""

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        self.cell = cell
        if not hasattr(self.cell, "call"):
            self.cell.call = self.cell.forward
        self.is_reverse = is_reverse
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return rnn(self.cell, inputs, initial_states=initial_states,
                   sequence_length=sequence_length, time_major=self.time_major,
                   is_reverse=self.is_reverse, **kwargs)


class BiRNN(Layer):
    """A forward and a backward cell over a sequence, outputs concatenated."""

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        self.cell_fw = cell_fw
        self.cell_bw = cell_bw
        if cell_fw.input_size != cell_bw.input_size:
            raise ValueError(f"input size of forward cell({cell_fw.input_size}) does not "
                             f"equalsthat of backward cell({cell_bw.input_size})")
        for cell in (self.cell_fw, self.cell_bw):
            if not hasattr(cell, "call"):
                cell.call = cell.forward
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        if isinstance(initial_states, (list, tuple)) and len(initial_states) != 2:
            raise AssertionError("length of initial_states should be 2 when it is a "
                                 "list/tuple")
        return birnn(self.cell_fw, self.cell_bw, inputs, initial_states, sequence_length,
                     self.time_major, **kwargs)


# ------------------------------------------------------------------ fused networks
_BIDIRECTIONAL = ("bidirectional", "bidirect")


class RNNBase(LayerList):
    """A stack of RNN / BiRNN layers of one cell type, run as one ``rnn`` op."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.dropout = dropout
        self.num_directions = 2 if direction in _BIDIRECTIONAL else 1
        self.time_major = time_major
        self.num_layers = num_layers
        self.state_components = 2 if mode == "LSTM" else 1
        kwargs = {"weight_ih_attr": weight_ih_attr, "weight_hh_attr": weight_hh_attr,
                  "bias_ih_attr": bias_ih_attr, "bias_hh_attr": bias_hh_attr}
        if mode == "LSTM":
            cls = LSTMCell
        elif mode == "GRU":
            cls = GRUCell
        else:
            cls = SimpleRNNCell
            kwargs["activation"] = self.activation
        if direction == "forward":
            self.append(RNN(cls(input_size, hidden_size, **kwargs), False, time_major))
            for _ in range(1, num_layers):
                self.append(RNN(cls(hidden_size, hidden_size, **kwargs), False, time_major))
        elif direction in _BIDIRECTIONAL:
            self.append(BiRNN(cls(input_size, hidden_size, **kwargs),
                              cls(input_size, hidden_size, **kwargs), time_major))
            for _ in range(1, num_layers):
                self.append(BiRNN(cls(2 * hidden_size, hidden_size, **kwargs),
                                  cls(2 * hidden_size, hidden_size, **kwargs), time_major))
        else:
            raise ValueError(f"direction should be forward or bidirect (or bidirectional), "
                             f"received direction = {direction}")
        params = self.parameters()
        # Paddle's flag (all weights and biases present); paddle.summary lists such a
        # LayerList as one row
        self.could_use_cudnn = len(params) == num_layers * 4 * self.num_directions
        names = []
        for layer in range(num_layers):
            for d in range(self.num_directions):
                suffix = "_reverse" if d == 1 else ""
                names += [f"{n}_l{layer}{suffix}" for n in
                          ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
        for name, p in zip(names, params):
            setattr(self, name, p)
        self.flatten_parameters()
        # Paddle's layer keeps the rnn op's dropout state here: a uint8 tensor
        # attribute, so a non-persistable buffer (named_buffers lists it, the
        # state_dict does not); the op's DropoutState output is not kept in it
        self._dropout_state = self.create_variable(dtype="uint8")

    def flatten_parameters(self):
        """The WeightList order of the ``rnn`` op: weights by (layer, direction),
        then biases likewise."""
        params = self.parameters(include_sublayers=False)
        n = len(params)
        self._all_weights = [None] * n
        for i, p in enumerate(params):
            offset = 0 if i % 4 < 2 else n // 2
            self._all_weights[offset + (i // 4) * 2 + i % 2] = p

    def forward(self, inputs, initial_states=None, sequence_length=None):
        batch_index = 1 if self.time_major else 0
        if initial_states is None:
            batch = inputs.shape[batch_index]
            if batch is None or batch < 0:
                batch = _T.shape(inputs)[batch_index]
            shape = [self.num_layers * self.num_directions, batch, self.hidden_size]
            initial_states = tuple(_T.full(shape, 0, inputs.dtype)
                                   for _ in range(self.state_components))
        elif not isinstance(initial_states, (list, tuple)):
            initial_states = [initial_states]
        if not self.time_major:
            inputs = _T.transpose(inputs, [1, 0, 2])
        attrs = {"dropout_prob": float(self.dropout), "is_bidirec": self.num_directions == 2,
                 "input_size": self.input_size, "hidden_size": self.hidden_size,
                 "num_layers": self.num_layers, "mode": self.mode,
                 "is_test": not self.training}
        out, _, state, _ = bind(_RNN, (inputs, list(initial_states), self._all_weights,
                                       sequence_length), attrs)
        if not self.time_major:
            out = _T.transpose(out, [1, 0, 2])
        return out, tuple(state) if len(state) > 1 else state[0]

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.time_major is not False:
            s += f", time_major={self.time_major}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        return s


class SimpleRNN(RNNBase):
    """Elman RNN (``rnn`` op mode RNN_TANH or RNN_RELU)."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        if activation == "tanh":
            mode = "RNN_TANH"
        elif activation == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown activation '{activation}'")
        self.activation = activation
        super().__init__(mode, input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)


class LSTM(RNNBase):
    """Multi-layer LSTM (``rnn`` op mode LSTM); returns outputs, (h, c)."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)


class GRU(RNNBase):
    """Multi-layer GRU (``rnn`` op mode GRU)."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
