"""``paddle.hapi``: the high-level API (``paddle.Model``, ``paddle.callbacks``,
``paddle.summary``, ``paddle.flops``), written over nn, optimizer, metric,
io and jit.

Files: ``model.py`` (Model and its eager batch steps), ``callbacks.py``,
``progressbar.py`` (the printed bar), ``summary.py``, ``flops.py``.
"""
from .model import Model, Input  # noqa: F401
from .summary import summary
from .flops import flops
from . import callbacks  # noqa: F401

__all__ = ["Model", "summary", "flops"]
