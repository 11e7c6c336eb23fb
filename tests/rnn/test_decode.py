"""nn.BeamSearchDecoder + nn.dynamic_decode and nn.functional.gather_tree
against real Paddle 2.6.2 (tests/interop/record_rnn_beam.py): the same GRUCell,
embedding and output layer weights give Paddle's beams, lengths and scores."""
import os

import numpy as np
import pytest

import sampan as paddle

CASE = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                            "beam_case.npz"))


def _decoder():
    cell, emb, out = paddle.nn.GRUCell(6, 8), paddle.nn.Embedding(10, 6), paddle.nn.Linear(8, 10)
    for pre, layer in (("c.", cell), ("e.", emb), ("o.", out)):
        layer.set_state_dict({k[2:]: CASE[k] for k in CASE.files if k.startswith(pre)})
    return paddle.nn.BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=3,
                                       embedding_fn=emb, output_fn=out)


@pytest.mark.parametrize("tag,steps", [("max6", 6), ("full", 40)])
def test_beam_search_equals_paddle(tag, steps):
    ids, states, lengths = paddle.nn.dynamic_decode(_decoder(), inits=paddle.to_tensor(CASE["h0"]),
                                                    max_step_num=steps, return_length=True)
    np.testing.assert_array_equal(ids.numpy(), CASE[f"{tag}.ids"])
    np.testing.assert_array_equal(lengths.numpy(), CASE[f"{tag}.lengths"])
    np.testing.assert_allclose(states.log_probs.numpy(), CASE[f"{tag}.log_probs"], rtol=1e-5,
                               atol=1e-5)
    assert ids.dtype == paddle.int64


def test_output_time_major():
    ids, _ = paddle.nn.dynamic_decode(_decoder(), inits=paddle.to_tensor(CASE["h0"]),
                                      max_step_num=6, output_time_major=True)
    np.testing.assert_array_equal(ids.numpy(), CASE["max6.ids"].transpose(1, 0, 2))


def test_tile_beam_merge_with_batch():
    x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    y = paddle.nn.BeamSearchDecoder.tile_beam_merge_with_batch(x, 2)
    np.testing.assert_array_equal(y.numpy(), np.repeat(x.numpy(), 2, axis=0))


def test_gather_tree():
    ids = paddle.to_tensor([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]], dtype="int64")
    parents = paddle.to_tensor([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]],
                               dtype="int64")
    out = paddle.nn.functional.gather_tree(ids, parents)       # Paddle 2.6.2's result
    assert out.numpy().tolist() == [[[2, 2], [1, 6]], [[3, 3], [6, 1]], [[0, 1], [9, 0]]]


def test_gather_tree_errors():
    ids = paddle.zeros([3, 2, 2], "float32")
    with pytest.raises(RuntimeError):        # Paddle: NotFound, no float32 kernel
        paddle.nn.functional.gather_tree(ids, ids)
    with pytest.raises(ValueError):
        paddle.nn.functional.gather_tree(paddle.zeros([2, 2], "int64"),
                                         paddle.zeros([2, 2], "int64"))


def test_gather_tree_static_op():
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main):
            ids = paddle.static.data("ids", [3, 2, 2], "int64")
            par = paddle.static.data("par", [3, 2, 2], "int64")
            out = paddle.nn.functional.gather_tree(ids, par)
        assert [op.type for op in main.global_block().ops] == ["gather_tree"]
        exe = paddle.static.Executor()
        i = np.array([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]], "int64")
        p = np.array([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]], "int64")
        got, = exe.run(main, feed={"ids": i, "par": p}, fetch_list=[out])
        assert got.tolist() == [[[2, 2], [1, 6]], [[3, 3], [6, 1]], [[0, 1], [9, 0]]]
    finally:
        paddle.disable_static()


def test_beam_search_under_to_static_is_a_while_op():
    dec = _decoder()

    def decode(h0):
        ids, states, lengths = paddle.nn.dynamic_decode(dec, inits=h0, max_step_num=6,
                                                        return_length=True)
        return ids, lengths, states.log_probs

    sf = paddle.jit.to_static(decode, input_spec=[paddle.static.InputSpec([None, 8],
                                                                          "float32")])
    ids, lengths, log_probs = sf(paddle.to_tensor(CASE["h0"]))
    np.testing.assert_array_equal(ids.numpy(), CASE["max6.ids"])
    np.testing.assert_array_equal(lengths.numpy(), CASE["max6.lengths"])
    np.testing.assert_allclose(log_probs.numpy(), CASE["max6.log_probs"], rtol=1e-5, atol=1e-5)
    types = [op.type for op in sf.concrete_program.main_program.global_block().ops]
    assert "while" in types and "gather_tree" in types


class _BeamModel(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        dec = _decoder()
        self.cell, self.emb, self.out = dec.cell, dec.embedding_fn, dec.output_fn

    def forward(self, h0):
        dec = paddle.nn.BeamSearchDecoder(self.cell, 0, 1, 3, embedding_fn=self.emb,
                                          output_fn=self.out)
        ids, _ = paddle.nn.dynamic_decode(dec, inits=h0, max_step_num=6)
        return ids


@pytest.mark.parametrize("mode", ["inference", "jit_load"])
def test_exported_beam_search_runs_in_real_paddle(mode, paddle_side, tmp_path):
    from interop import harness
    net = _BeamModel()
    net.eval()
    prefix = str(tmp_path / "beam")
    paddle.jit.save(paddle.jit.to_static(
        net, input_spec=[paddle.static.InputSpec([None, 8], "float32", "h0")]), prefix)
    feeds = str(tmp_path / "feeds.npz")
    np.savez(feeds, h0=CASE["h0"])
    results = paddle_side.run([{"id": "beam", "kind": "run_model", "prefix": prefix,
                                "inputs": feeds, "modes": [mode]}], tmp_path)
    failure = harness.mode_failure(results, "beam", mode)
    assert failure is None, failure
    got = harness.job_outputs(str(tmp_path), "beam", mode)[0]
    np.testing.assert_array_equal(got, CASE["max6.ids"])
