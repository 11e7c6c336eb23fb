"""Complex tensors, ``sampan.fft`` and ``sampan.signal`` beyond the recorded
conformance cases: the modules import as Paddle's do, the gradient convention
(numbers recorded from Paddle 2.6.2), a static Program with append_backward
against the eager tape, to_static training gradients, and the saved model
loaded back by jit.load and the inference Predictor."""
import os

import numpy as np
import pytest

import sampan as paddle


def test_modules_import_like_paddles():
    import sampan.fft
    import sampan.signal
    from sampan import fft, signal
    assert sampan.fft is fft is paddle.fft and sampan.signal is signal is paddle.signal
    assert {"fft", "rfft", "fftshift", "fftfreq"} <= set(dir(fft))
    assert callable(signal.stft) and callable(signal.istft) and callable(signal.frame)
    assert not hasattr(paddle, "rfft") and not hasattr(paddle, "stft")
    assert callable(paddle.Tensor.stft) and callable(paddle.Tensor.istft)


def test_python_complex_numbers_take_the_default_dtype():
    assert paddle.to_tensor(1 + 2j).dtype == paddle.complex64
    assert paddle.to_tensor(np.array([1 + 2j])).dtype == paddle.complex128
    assert paddle.to_tensor([np.complex128(1 + 2j)]).dtype == paddle.complex128
    paddle.set_default_dtype("float64")
    try:
        assert paddle.to_tensor([1j, 2]).dtype == paddle.complex128
    finally:
        paddle.set_default_dtype("float32")


# x = [1+2j, 3-1j] (complex64); gradients of real losses as Paddle 2.6.2 gives them
# (dL/dRe + i dL/dIm)
PADDLE_GRADS = {
    "abs_sq": (lambda x: (x * x.conj()).real().sum(), [2 + 4j, 6 - 2j]),
    "abs": (lambda x: paddle.abs(x).sum(), [0.4472136 + 0.8944272j, 0.9486833 - 0.3162278j]),
    "real": (lambda x: x.real().sum(), [1, 1]),
    "imag": (lambda x: x.imag().sum(), [1j, 1j]),
    "mul": (lambda x: (x * paddle.to_tensor([2 + 1j, 1 - 1j])).real().sum(), [2 - 1j, 1 + 1j]),
    "exp": (lambda x: paddle.exp(x).real().sum(),
            [-1.1312044 - 2.4717267j, 10.852262 + 16.901396j]),
    "fft": (lambda x: paddle.fft.fft(x).real().sum(), [2, 0]),
    "angle": (lambda x: paddle.angle(x).sum(), [-0.4 + 0.2j, 0.1 + 0.3j]),
    "sum_abs": (lambda x: paddle.sum(x).abs(), [0.9701425 + 0.2425356j] * 2),
}


@pytest.mark.parametrize("name", sorted(PADDLE_GRADS))
def test_gradient_convention_is_paddles(name):
    fn, want = PADDLE_GRADS[name]
    x = paddle.to_tensor(np.array([1 + 2j, 3 - 1j], "complex64"), stop_gradient=False)
    fn(x).backward()
    assert x.grad.dtype == paddle.complex64
    np.testing.assert_allclose(x.grad.numpy(), np.array(want, "complex64"), rtol=1e-5)


def _composite(X, Y):
    c = paddle.complex(X, Y)
    f = paddle.fft.fft(c, norm="ortho")
    r = paddle.fft.rfft(X, axis=0)
    i = paddle.fft.irfft(f, n=10)
    a = (paddle.angle(c) + paddle.real(f).sum() + paddle.imag(r).sum() + i.sum()
         + paddle.abs(c).sum() + paddle.fft.hfftn(c, s=[3, 5]).sum())
    spec = paddle.signal.stft(X, 4, hop_length=2)
    back = paddle.signal.istft(spec * paddle.complex(X[0, :3], X[1, :3]).unsqueeze(-1), 4,
                               hop_length=2)
    return (a.sum() + paddle.as_real(paddle.conj(c)).sum() + paddle.abs(spec).sum()
            + paddle.signal.overlap_add(paddle.signal.frame(X, 3, 2), 2).sum() + back.sum())


def _data():
    rng = np.random.default_rng(3)
    return rng.random((4, 6)).astype("float32") + 0.5, rng.random((4, 6)).astype("float32")


def _eager():
    xv, yv = _data()
    X = paddle.to_tensor(xv, stop_gradient=False)
    Y = paddle.to_tensor(yv, stop_gradient=False)
    loss = _composite(X, Y)
    loss.backward()
    return float(loss), X.grad.numpy(), Y.grad.numpy()


def test_static_program_backward_matches_the_tape():
    want = _eager()
    xv, yv = _data()
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [4, 6], "float32")
            y = paddle.static.data("y", [4, 6], "float32")
            x.stop_gradient = y.stop_gradient = False
            loss = _composite(x, y)
            paddle.static.append_backward(loss)
        types = [op.type for op in main.global_block().ops]
        for t in ("fft_c2c_grad", "fft_r2c_grad", "fft_c2r_grad", "complex_grad", "real_grad",
                  "imag_grad", "angle_grad", "frame_grad", "overlap_add_grad", "as_complex"):
            assert t in types, t
        exe = paddle.static.Executor()
        got = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss, "x@GRAD", "y@GRAD"])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(float(got[0]), want[0], rtol=1e-5)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-4, atol=1e-4)


def test_to_static_gradients_match_eager():
    want = _eager()
    xv, yv = _data()
    X = paddle.to_tensor(xv, stop_gradient=False)
    Y = paddle.to_tensor(yv, stop_gradient=False)
    loss = paddle.jit.to_static(_composite)(X, Y)
    loss.backward()
    np.testing.assert_allclose(float(loss), want[0], rtol=1e-5)
    np.testing.assert_allclose(X.grad.numpy(), want[1], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(Y.grad.numpy(), want[2], rtol=1e-4, atol=1e-4)


class _Spectrogram(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(5 * 9, 2)

    def forward(self, x):
        spec = paddle.signal.stft(x, 8, hop_length=4)
        back = paddle.fft.irfft(paddle.fft.rfft(x) * (0.5 + 1j), n=32)
        return self.fc(paddle.flatten(paddle.abs(spec), 1)), back


def test_saved_spectral_model_runs_in_jit_load_and_the_predictor(tmp_path):
    from sampan.inference import Config, create_predictor
    paddle.seed(1)
    layer = _Spectrogram()
    layer.eval()
    x = np.random.default_rng(0).standard_normal((3, 32)).astype("float32")
    want = [o.numpy() for o in layer(paddle.to_tensor(x))]
    prefix = str(tmp_path / "spectrogram")
    spec = [paddle.static.InputSpec([None, 32], "float32", "x")]
    paddle.jit.save(paddle.jit.to_static(layer, input_spec=spec), prefix)
    got = paddle.jit.load(prefix)(paddle.to_tensor(x))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-5, atol=1e-5)
    pred = create_predictor(Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    pred.get_input_handle(pred.get_input_names()[0]).copy_from_cpu(x)
    pred.run()
    outs = [pred.get_output_handle(n).copy_to_cpu() for n in pred.get_output_names()]
    for g, w in zip(outs, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    assert os.path.getsize(prefix + ".pdmodel") > 0


def test_complex_constants_in_a_static_program():
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main):
            c = paddle.to_tensor([1 + 2j, -3j])
            d = c * (2 - 1j)
        assert [op.type for op in main.global_block().ops][:3] == \
            ["assign_value", "assign_value", "complex"]
        got = paddle.static.Executor().run(main, fetch_list=[c, d])
    finally:
        paddle.disable_static()
    assert got[0].dtype == np.complex64
    np.testing.assert_allclose(got[1], np.array([1 + 2j, -3j]) * (2 - 1j), rtol=1e-6)
