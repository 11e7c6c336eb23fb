"""``paddle.nn`` recurrent networks: SimpleRNN / LSTM / GRU (one ``rnn`` op:
modes, layers, directions, time_major, sequence_length, initial states),
the cells SimpleRNNCell / LSTMCell / GRUCell, RNN and BiRNN over cells, and
``paddle.nn.functional.gather_tree``; with the errors Paddle raises.

Weights are set deterministically in the case code: ``ParamAttr``s with
``Assign`` initializers of arrays made from ``np.sin`` / ``np.cos``; input
and hidden sizes are equal (4) so every weight of a unidirectional stack,
and every first-layer weight of a bidirectional one, has one shape.  Cases
build their layers in the code (no to_static: sampan binds a to_static
program to parameters created before the call; tests/rnn covers to_static)."""
from spec import C

CASES = []
H = 4


def L(id, code, *args, modes=("eager", "static"), **kw):
    CASES.append(C(id, code, *args, modes=modes, **kw))


def _attrs(gates):
    n = gates * H
    return ("import numpy as np\n"
            f"W = paddle.ParamAttr(initializer=paddle.nn.initializer.Assign("
            f"(np.sin(np.arange({n * H}) * 0.37) * 0.5).reshape({n}, {H}).astype('float32')))\n"
            f"U = paddle.ParamAttr(initializer=paddle.nn.initializer.Assign("
            f"(np.cos(np.arange({n * H}) * 0.53) * 0.5).reshape({n}, {H}).astype('float32')))\n"
            f"B = paddle.ParamAttr(initializer=paddle.nn.initializer.Assign("
            f"(np.sin(np.arange({n}) * 0.9) * 0.2).astype('float32')))\n")


NETS = {"lstm": ("paddle.nn.LSTM", 4), "gru": ("paddle.nn.GRU", 3),
        "simple_rnn": ("paddle.nn.SimpleRNN", 1),
        "simple_rnn_relu": ("paddle.nn.SimpleRNN", 1)}
SEQ = "paddle.to_tensor(np.array([5, 2, 4], 'int64'))"
X = "float32[3,5,4]"
XT = "float32[5,3,4]"

for name, (cls, gates) in NETS.items():
    act = ", activation='relu'" if name == "simple_rnn_relu" else ""
    net = (_attrs(gates) + f"m = {cls}({H}, {H}{{}}{act}, weight_ih_attr=W, weight_hh_attr=U, "
           f"bias_ih_attr=B, bias_hh_attr=B)\n")
    L(f"{name}.plain", net.format("") + "return m(x)", X, grad=True)
    L(f"{name}.two_layers", net.format(", num_layers=2") + "return m(x)", X, grad=True)
    L(f"{name}.bidirect", net.format(", direction='bidirect'") + "return m(x)", X, grad=True)
    L(f"{name}.bidirectional.seq", net.format(", direction='bidirectional'") +
      f"return m(x, sequence_length={SEQ})", X, grad=True)
    L(f"{name}.time_major.seq", net.format(", num_layers=2, time_major=True") +
      f"return m(x, sequence_length={SEQ})", XT, grad=True)
    init = "(y, z)" if gates == 4 else "y"
    st = ["float32[2,3,4]", "float32[2,3,4]"] if gates == 4 else ["float32[2,3,4]"]
    L(f"{name}.initial_states", net.format(", num_layers=2") + f"return m(x, {init})", X, *st,
      grad=True)
    L(f"{name}.float64_input", net.format("") + "return m(x)", "float64[3,5,4]",
      modes=("eager",))

LSTM = _attrs(4) + ("m = paddle.nn.LSTM(4, 4, weight_ih_attr=W, weight_hh_attr=U, "
                    "bias_ih_attr=B, bias_hh_attr=B)\n")
L("lstm.bad_feature_size", LSTM + "return m(x)", "float32[3,5,3]")
L("lstm.one_state", LSTM + "return m(x, (y,))", X, "float32[1,3,4]", modes=("eager",))
L("lstm.state_shape", LSTM + "return m(x, (y, y))", X, "float32[2,3,4]", modes=("eager",))
L("lstm.bad_direction", "return paddle.nn.LSTM(4, 4, direction='backward')(x)", X)
L("simple_rnn.bad_activation", "return paddle.nn.SimpleRNN(4, 4, activation='gelu')(x)", X)
L("gru_cell.zero_hidden", "return paddle.nn.GRUCell(4, 0)(x)", "float32[3,4]")

# ------------------------------------------------------------------ cells, RNN, BiRNN
CELLS = {"lstm_cell": ("paddle.nn.LSTMCell", 4), "gru_cell": ("paddle.nn.GRUCell", 3),
         "simple_rnn_cell": ("paddle.nn.SimpleRNNCell", 1)}
for name, (cls, gates) in CELLS.items():
    cell = _attrs(gates) + (f"c = {cls}({H}, {H}, weight_ih_attr=W, weight_hh_attr=U, "
                            f"bias_ih_attr=B, bias_hh_attr=B)\n")
    cell2 = cell.replace("c = ", "d = ")
    L(f"{name}.step", cell + "return c(x)", "float32[3,4]", grad=True)
    state = "(y, z)" if gates == 4 else "y"
    st = ["float32[3,4]", "float32[3,4]"] if gates == 4 else ["float32[3,4]"]
    L(f"{name}.step.states", cell + f"return c(x, {state})", "float32[3,4]", *st, grad=True)
    L(f"{name}.rnn", cell + "return paddle.nn.RNN(c)(x)", X, grad=True)
    L(f"{name}.rnn.reverse.seq", cell + f"return paddle.nn.RNN(c, is_reverse=True)"
      f"(x, sequence_length={SEQ})", X, grad=True)
    L(f"{name}.rnn.time_major", cell + "return paddle.nn.RNN(c, time_major=True)(x)", XT)
    L(f"{name}.birnn.seq", cell + cell2 + f"return paddle.nn.BiRNN(c, d)"
      f"(x, sequence_length={SEQ})", X, grad=True)
    L(f"{name}.initial_states", cell + "return c.get_initial_states(x)", "float32[3,4]")

# ------------------------------------------------------------------ gather_tree
GT = ("ids = paddle.to_tensor(np.array([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]], "
      "'{0}'))\npar = paddle.to_tensor(np.array([[[0, 0], [1, 1]], [[1, 0], [1, 0]], "
      "[[0, 0], [0, 1]]], '{0}'))\n")
L("gather_tree.int64", "import numpy as np\n" + GT.format("int64") +
  "return paddle.nn.functional.gather_tree(ids, par)", modes=("eager", "static", "to_static"))
L("gather_tree.int32", "import numpy as np\n" + GT.format("int32") +
  "return paddle.nn.functional.gather_tree(ids, par)")
L("gather_tree.float", "return paddle.nn.functional.gather_tree(x, x)", "float32[3,2,2]",
  modes=("eager",))
L("gather_tree.rank2", "return paddle.nn.functional.gather_tree(x, x)", "int64[3,2]|idx2",
  modes=("eager",))

# ------------------------------------------------------------------ buffers
# the RNN layers' dropout state: a uint8 non-persistable buffer (listed by
# named_buffers, not in the state_dict)
for name, make in (("LSTM", "paddle.nn.LSTM(4, 8)"),
                   ("GRU_bidirect", "paddle.nn.GRU(4, 8, num_layers=2, direction='bidirect')"),
                   ("SimpleRNN", "paddle.nn.SimpleRNN(4, 8)")):
    L(f"{name}.buffers", f"m = {make}\nb = dict(m.named_buffers())\n"
      "return sorted(b), b['_dropout_state'].dtype == paddle.uint8, "
      "'_dropout_state' in m.state_dict(), len(m.buffers())", modes=("eager",))
