"""The program fuzzer with graph breaks: programs of tests/fuzz/gen.py with a
value read and a numpy call inserted in the entry function (a Python branch
and a trip count decided by them), run eagerly and through to_static's
default mode (full_graph=False), compared by tests/fuzz/worker.py (values and
input gradients, on inputs taking both sides of the program's conditions)."""
import random
import re

import pytest

from tests.fuzz import worker
from tests.fuzz.gen import generate

SEEDS = range(0, 48)

# inserted at one top-level statement of `f` (x: the first parameter, a float tensor)
READS = (
    ["_gb0 = float(np.tanh(x.numpy()).mean())",          # numpy call + value read
     "if _gb0 > 0.0:",
     "    x = x * 0.5 + _gb0",
     "else:",
     "    x = x - _gb0"],
    ["_gb1 = int(abs(x.sum().item()) * 3) % 3",          # a trip count read with .item()
     "for _gbi in range(_gb1):",
     "    x = paddle.tanh(x) + 0.25"],
    ["_gb2 = x.tolist()",                                 # tolist, a Python number back in
     "x = x * (1.0 + 0.1 * len(_gb2))"],
)


def with_breaks(source, seed):
    """``source`` with one or two reads inserted in ``f`` (before its first
    top-level return, after a top-level statement)."""
    rng = random.Random(seed)
    lines = source.split("\n")
    lines.insert(lines.index("import sampan as paddle") + 1, "import numpy as np")
    start = next(i for i, t in enumerate(lines) if t.startswith("def f("))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("    return"))
    spots = [start] + [i for i in range(start + 1, end)
                       if re.match(r"    \S", lines[i]) and not lines[i].rstrip().endswith(":")
                       and (i + 1 >= len(lines) or not lines[i + 1].startswith("     "))]
    picks = sorted(rng.sample(spots, min(len(spots), rng.choice((1, 2)))), reverse=True)
    for at in picks:
        block = rng.choice(READS)
        lines[at + 1:at + 1] = ["    " + t for t in block]
    return "\n".join(lines)


class _Default:
    """to_static's default mode; ``get_traced_count`` counts the broken keys
    too (the worker fails a check that went through no trace)."""

    made = []

    def __init__(self, fn):
        from sampan.jit import to_static
        self.sf = to_static(fn)
        _Default.made.append(self.sf)

    def __call__(self, *args):
        return self.sf(*args)

    def get_traced_count(self):
        return len(self.sf.program_cache) + len(self.sf._broken)


worker.STATIC_IMPLS.setdefault("sampan_default_breaks", _Default)


@pytest.mark.parametrize("seed", list(SEEDS))
def test_fuzz_program_with_breaks_matches_eager(seed, tmp_path):
    prog = generate(seed)
    if prog.second_order:
        pytest.skip("second-order programs: covered by the main campaign")
    source = with_breaks(prog.source, seed)
    res = worker.check_program(source, seed, static="sampan_default_breaks", k=3,
                               directory=str(tmp_path))
    assert res["status"] == worker.AGREE, (res, source)
    assert _Default.made[-1]._broken, "the inserted reads did not break the graph"
