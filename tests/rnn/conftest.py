"""The real-Paddle side venv fixture of the interop tier (tests/interop/conftest.py),
shared by the rnn tests that run sampan's files in real Paddle."""
from interop.conftest import paddle_side  # noqa: F401
