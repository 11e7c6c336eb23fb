"""A text classifier with a 2-layer bidirectional LSTM exported by real Paddle
2.6.2 (tests/interop/record_rnn_model.py: its own ``rnn`` op program) runs in
sampan's Predictor and jit.load with Paddle's outputs, and the loaded
TranslatedLayer fine-tunes (its rnn op gets gradients)."""
import os

import numpy as np

import sampan as paddle
from sampan import inference

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
PREFIX = os.path.join(HERE, "paddle_lstm")
IO = np.load(os.path.join(HERE, "paddle_lstm_io.npz"))


def test_paddle_program_has_the_rnn_op():
    prog = paddle.jit.load(PREFIX).program()
    types = [op.type for op in prog.global_block().ops]
    assert types.count("rnn") == 1
    op = next(op for op in prog.global_block().ops if op.type == "rnn")
    assert op.attr("mode") == "LSTM" and op.attr("num_layers") == 2 and op.attr("is_bidirec")
    assert len(op.input("WeightList")) == 16 and len(op.output("State")) == 2


def test_paddle_lstm_model_in_predictor():
    pred = inference.create_predictor(inference.Config(PREFIX + ".pdmodel",
                                                       PREFIX + ".pdiparams"))
    assert list(pred.get_input_names()) == ["ids", "lengths"]
    pred.get_input_handle("ids").copy_from_cpu(IO["ids"])
    pred.get_input_handle("lengths").copy_from_cpu(IO["lengths"])
    pred.run()
    got = pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu()
    np.testing.assert_allclose(got, IO["out"], rtol=1e-5, atol=1e-6)


def test_paddle_lstm_model_jit_load_and_fine_tune():
    layer = paddle.jit.load(PREFIX)
    layer.eval()
    out = layer(paddle.to_tensor(IO["ids"]), paddle.to_tensor(IO["lengths"]))
    np.testing.assert_allclose(out.numpy(), IO["out"], rtol=1e-5, atol=1e-6)
    layer.train()
    opt = paddle.optimizer.Adam(learning_rate=0.05, parameters=layer.parameters())
    label = paddle.to_tensor(np.array([0, 1, 2, 1], "int64"))
    losses = []
    for _ in range(8):
        logits = layer(paddle.to_tensor(IO["ids"]), paddle.to_tensor(IO["lengths"]))
        loss = paddle.nn.functional.cross_entropy(logits, label)
        loss.backward()
        grads = [p.grad for p in layer.parameters() if p.grad is not None]
        assert len(grads) == len(layer.parameters())
        opt.step()
        opt.clear_grad()
        losses.append(float(loss.numpy()))
    assert losses[-1] < losses[0] * 0.8, losses


def test_sampan_export_writes_paddles_rnn_op(tmp_path):
    """jit.save of the same model writes the rnn op Paddle wrote: slots, attrs
    (with their values), and the WeightList order by parameter role."""
    from . import models
    net = models.build(paddle, "text_classifier")
    net.eval()
    prefix = str(tmp_path / "m")
    paddle.jit.save(paddle.jit.to_static(net, input_spec=models.input_spec(paddle,
                                                                           "text_classifier")),
                    prefix)

    def rnn_op(path):
        prog = paddle.jit.load(path).program()
        return next(op for op in prog.global_block().ops if op.type == "rnn")

    ours, theirs = rnn_op(prefix), rnn_op(PREFIX)
    assert sorted(ours.input_names) == sorted(theirs.input_names)
    assert sorted(ours.output_names) == sorted(theirs.output_names)
    for name in ("mode", "num_layers", "is_bidirec", "input_size", "hidden_size",
                 "dropout_prob", "is_test", "seed"):
        assert ours.attr(name) == theirs.attr(name), name
    for slot in theirs.input_names:
        assert len(ours.input(slot)) == len(theirs.input(slot)), slot
    for slot in theirs.output_names:
        assert len(ours.output(slot)) == len(theirs.output(slot)), slot
