"""The progress bar ``Model.fit``/``evaluate``/``predict`` print (Paddle's
``ProgressBar`` format, character for character).

verbose=1: one line redrawn in place (``\\b``s and ``\\r`` on a terminal or
any POSIX system, a new line otherwise)::

    step  4/5 [=======================>......] - loss: 0.8672 - acc: 0.4375 - ETA: 0s - 2ms/step

verbose=2 (or 3): one line per update, no bar and no ETA::

    step 4/5 - loss: 0.8672 - acc: 0.4375 - 837us/step

Numbers print as ``%.4f`` (``%.4e`` at or below 1e-3 in magnitude); lists
of numbers print one after another.  Output goes to ``file`` (default: the
``sys.stdout`` of the moment, so ``contextlib.redirect_stdout`` catches it).
"""
import os
import shutil
import sys
import time

import numpy as np

__all__ = ["ProgressBar"]


def _max_width():
    cols = shutil.get_terminal_size()[0]
    cols = cols if cols > 0 else 80
    return min(int(cols * 0.6), cols - 50)


def format_values(values):
    """`` - name: v ...`` for each (name, value) pair."""
    info = ""
    for k, val in values:
        info += f" - {k}:"
        for v in (val if isinstance(val, list) else [val]):
            if isinstance(v, np.ndarray) and v.size == 1 and v.dtype in (np.float32, np.float64):
                v = v.item()
            if isinstance(v, (float, np.float32, np.float64)):
                info += f" {v:.4f}" if abs(v) > 1e-3 else f" {v:.4e}"
            else:
                info += f" {v}"
    return info


def _rate(per_unit, name):
    if per_unit >= 1 or per_unit == 0:
        return f" - {per_unit:.0f}s/{name}"
    if per_unit >= 1e-3:
        return f" - {per_unit * 1e3:.0f}ms/{name}"
    return f" - {per_unit * 1e6:.0f}us/{name}"


def _eta(seconds):
    if seconds > 3600:
        return "%d:%02d:%02d" % (seconds // 3600, (seconds % 3600) // 60, seconds % 60)
    if seconds > 60:
        return "%d:%02d" % (seconds // 60, seconds % 60)
    return "%ds" % seconds


class ProgressBar:
    """A bar over ``num`` steps (``None``: unknown length, steps counted)."""

    def __init__(self, num=None, width=30, verbose=1, start=True, file=None, name="step"):
        if isinstance(num, int) and num <= 0:
            raise TypeError("num should be None or integer (> 0)")
        self._num = num
        self._width = min(width, _max_width())
        self._total_width = 0
        self._verbose = verbose
        self._file = file
        self._start = time.time() if start else 0.0
        self._last_update = 0
        self.name = name
        out = self.file
        self._dynamic_display = ((hasattr(out, "isatty") and out.isatty())
                                 or "ipykernel" in sys.modules or os.name == "posix"
                                 or "PYCHARM_HOSTED" in os.environ)

    @property
    def file(self):
        return self._file if self._file is not None else sys.stdout

    def start(self):
        self.file.flush()
        self._start = time.time()

    def _bar(self, current):
        if self._num is None:
            return self.name + " %3d" % current
        digits = int(np.log10(self._num)) + 1
        text = (self.name + " %" + str(digits) + "d/%d [") % (current, self._num)
        filled = int(self._width * float(current) / self._num)
        if filled > 0:
            text += "=" * (filled - 1) + (">" if current < self._num else "=")
        return text + "." * (self._width - filled) + "]"

    def update(self, current_num, values=()):
        """Draw step ``current_num`` with ``values`` ((name, value) pairs)."""
        now = time.time()
        per_unit = (now - self._start) / current_num if current_num else 0
        fps = _rate(per_unit, self.name)
        out = self.file
        if self._verbose == 1:
            prev = self._total_width
            out.write(("\b" * prev + "\r") if self._dynamic_display else "\n")
            bar = self._bar(current_num)
            self._total_width = len(bar)
            out.write(bar)
            info = format_values(values)
            if self._num is not None and current_num < self._num:
                info += " - ETA: " + _eta(per_unit * (self._num - current_num))
            info += fps
            self._total_width += len(info)
            if prev > self._total_width:
                info += " " * (prev - self._total_width)
            if self._num is None or current_num >= self._num:
                info += "\n"
            out.write(info)
            out.flush()
            self._last_update = now
        elif self._verbose in (2, 3):
            if self._num:
                digits = int(np.log10(self._num)) + 1
                count = (self.name + " %" + str(digits) + "d/%d") % (current_num, self._num)
            else:
                count = self.name + " %3d" % current_num
            out.write(count + format_values(values) + fps + "\n")
            out.flush()
