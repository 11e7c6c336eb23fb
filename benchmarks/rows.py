"""The row type of the benchmark table, and the collection of every row.

A row is one timed callable of one workload, reported as a ratio to one numpy
floor variant of the same workload (``../shared/perf/floor_numpy.py``), timed
in the same process, interleaved with it, and optionally shown beside PyTorch's
ratio on the same workload (``peer``: a variant of ``peers_torch.py``).  Rows
live in ``rows_*.py`` modules beside this file, each listing ``ROWS``; a new
engine (static, to_static, predictor) adds a module, nothing else changes.
"""
import importlib
import os
import pkgutil
from dataclasses import dataclass
from typing import Callable

HERE = os.path.dirname(os.path.abspath(__file__))


@dataclass(frozen=True)
class Row:
    label: str            # what the table shows, e.g. "W1 eager fwd"
    workload: str         # floor_numpy workload id: "w1", "w2", ...
    floor: str            # floor variant the ratio is taken against, e.g. "floor_fwd"
    target: float         # the ratio the row must stay at or under
    make: Callable        # make(paddle) -> (zero-arg callable, {check name: max abs diff})
    peer: str = ""        # PyTorch's variant of the workload shown beside it (peers_torch.py)


def all_rows():
    """Rows of every ``rows_*`` module, in module-name order then listing order."""
    rows = []
    for name in sorted(m.name for m in pkgutil.iter_modules([HERE])):
        if name.startswith("rows_"):
            rows.extend(importlib.import_module(name).ROWS)
    return rows
