"""The nn.RNN family's behaviour beyond the numbers (facts from running real
Paddle 2.6.2): errors, reprs, initial states, dropout between layers, the
ops a Program gets, parameter names, and RNN over a user-written cell eagerly
and under to_static (a while op)."""
import numpy as np
import pytest

import sampan as paddle
from sampan import static


@pytest.mark.parametrize("make,msg", [
    (lambda: paddle.nn.LSTM(4, 8, direction="backward"),
     "direction should be forward or bidirect (or bidirectional), received direction = "
     "backward"),
    (lambda: paddle.nn.SimpleRNN(4, 8, activation="sigmoid"), "Unknown activation 'sigmoid'"),
    (lambda: paddle.nn.LSTMCell(4, 0),
     "hidden_size of LSTMCell must be greater than 0, but now equals to 0"),
    (lambda: paddle.nn.SimpleRNNCell(4, 3, activation="sigmoid"),
     "activation for SimpleRNNCell should be tanh or relu, but get sigmoid"),
    (lambda: paddle.nn.BiRNN(paddle.nn.GRUCell(4, 3), paddle.nn.GRUCell(5, 3)),
     "input size of forward cell(4) does not equalsthat of backward cell(5)"),
])
def test_constructor_errors(make, msg):
    with pytest.raises(ValueError) as e:
        make()
    assert msg in str(e.value)


def test_no_proj_size_in_2_6():
    with pytest.raises(TypeError):                 # Paddle 2.6.2's LSTM has no proj_size
        paddle.nn.LSTM(4, 8, proj_size=2)


def test_bad_inputs_name_the_fault():
    with pytest.raises(ValueError, match="feature size"):
        paddle.nn.LSTM(4, 8)(paddle.randn([2, 5, 3]))
    with pytest.raises(ValueError, match="PreState"):
        paddle.nn.LSTM(4, 8)(paddle.randn([2, 5, 4]), (paddle.zeros([1, 2, 8]),))


def test_reprs():
    assert str(paddle.nn.LSTM(4, 8, num_layers=2, dropout=0.5, time_major=True)) == (
        "LSTM(4, 8, num_layers=2, time_major=True, dropout=0.5\n  (0): RNN(\n    (cell): "
        "LSTMCell(4, 8)\n  )\n  (1): RNN(\n    (cell): LSTMCell(8, 8)\n  )\n)")
    assert str(paddle.nn.SimpleRNNCell(4, 8, activation="relu")) == \
        "SimpleRNNCell(4, 8, activation=relu)"


def test_parameter_names_and_weight_list_order():
    m = paddle.nn.GRU(3, 4, num_layers=2, direction="bidirectional")
    keys = list(m.state_dict())
    assert keys[:4] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]
    assert keys[4] == "weight_ih_l0_reverse" and keys[16] == "0.cell_fw.weight_ih"
    assert len(m.parameters()) == 16
    sd = m.state_dict()
    assert sd["weight_hh_l1_reverse"] is sd["1.cell_bw.weight_hh"]
    names = [id(p) for p in m._all_weights]
    assert names[:4] == [id(sd[k]) for k in ("weight_ih_l0", "weight_hh_l0",
                                             "weight_ih_l0_reverse", "weight_hh_l0_reverse")]
    assert names[8:10] == [id(sd["bias_ih_l0"]), id(sd["bias_hh_l0"])]
    assert list(sd["weight_ih_l1"].shape) == [12, 8]


def test_initial_states():
    c = paddle.nn.LSTMCell(4, 8)
    x = paddle.randn([3, 4])
    s = c.get_initial_states(x)
    assert [t.shape for t in s] == [[3, 8], [3, 8]] and s[0].dtype == paddle.float32
    s = c.get_initial_states(x, shape=((5,), (6,)), dtype="float64", init_value=2.0)
    assert [t.shape for t in s] == [[3, 5], [3, 6]] and s[0].dtype == paddle.float64
    assert float(s[0][0, 0]) == 2.0
    assert paddle.nn.GRUCell(4, 8).get_initial_states(paddle.randn([2, 3, 4]),
                                                      batch_dim_idx=1).shape == [3, 8]
    y, (h, cc) = c(x)
    assert y.shape == [3, 8] and cc.shape == [3, 8]


def test_given_initial_states_are_used():
    m = paddle.nn.SimpleRNN(3, 4, num_layers=2)
    x = paddle.randn([2, 5, 3])
    h0 = paddle.randn([2, 2, 4])
    out, h = m(x, h0)
    out0, _ = m(x)
    assert not np.allclose(out.numpy(), out0.numpy())
    layer0, _ = paddle.nn.RNN(m[0].cell)(x, h0[0])
    layer1, _ = paddle.nn.RNN(m[1].cell)(layer0, h0[1])
    np.testing.assert_allclose(out.numpy(), layer1.numpy(), rtol=1e-5, atol=1e-6)


def test_dropout_between_layers():
    m = paddle.nn.GRU(4, 8, num_layers=2, dropout=0.5)
    x = paddle.randn([2, 5, 4])
    m.train()
    a, b = m(x)[0], m(x)[0]
    assert float((a - b).abs().max()) > 0
    x.stop_gradient = False
    m(x)[0].sum().backward()                 # the grad replays the forward's masks
    assert x.grad is not None
    m.eval()
    a, b = m(x)[0], m(x)[0]
    assert float((a - b).abs().max()) == 0.0


def test_split_and_concat_states():
    from sampan.nn.layer.rnn import split_states, concat_states
    h, c = paddle.randn([4, 2, 3]), paddle.randn([4, 2, 3])
    parts = split_states((h, c), bidirectional=True, state_components=2)
    assert len(parts) == 2 and len(parts[0]) == 2 and len(parts[0][1]) == 2
    back = concat_states(parts, bidirectional=True, state_components=2)
    np.testing.assert_array_equal(back[0].numpy(), h.numpy())
    np.testing.assert_array_equal(back[1].numpy(), c.numpy())


def test_static_program_ops():
    paddle.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data("x", [2, 5, 4], "float32")
            out, (h, c) = paddle.nn.LSTM(4, 3, num_layers=2, direction="bidirect")(x)
        types = [op.type for op in main.global_block().ops]
        # Paddle 2.6.2 appends: fill_constant x2, transpose2, rnn, transpose2
        assert types == ["fill_constant", "fill_constant", "transpose2", "rnn", "transpose2"]
        op = main.global_block().ops[3]
        assert op.attr("mode") == "LSTM" and op.attr("is_bidirec") and \
            op.attr("num_layers") == 2 and op.attr("hidden_size") == 3 and \
            op.attr("input_size") == 4 and op.attr("is_test") is False
        assert op.input_names == ["Input", "PreState", "WeightList", "SequenceLength"]
        assert list(out.shape) == [2, 5, 6] and list(h.shape) == [4, 2, 3]
    finally:
        paddle.disable_static()


class PeepholeCell(paddle.nn.RNNCellBase):
    """A user-written cell with a two-part state."""

    def __init__(self, size):
        super().__init__()
        self.lin = paddle.nn.Linear(2 * size, size)
        self.size = size

    def forward(self, x, states):
        h, n = states
        h = paddle.tanh(self.lin(paddle.concat([x, h], -1)))
        return h * 2.0, (h, n + 1.0)

    @property
    def state_shape(self):
        return ((self.size,), (1,))


def test_user_cell_eager_and_to_static():
    paddle.seed(1)
    net = paddle.nn.RNN(PeepholeCell(3))
    x = paddle.randn([2, 6, 3])
    lens = paddle.to_tensor(np.array([6, 4], "int64"))
    out, (h, n) = net(x, sequence_length=lens)
    assert n.numpy()[:, 0].tolist() == [6.0, 4.0]
    sf = paddle.jit.to_static(lambda a, b: net(a, sequence_length=b))
    out2, (h2, n2) = sf(x, lens)
    np.testing.assert_allclose(out2.numpy(), out.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h2.numpy(), h.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(n2.numpy(), n.numpy())
