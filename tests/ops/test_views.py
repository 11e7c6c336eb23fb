"""Which kernels may return their input's memory.

An eager result that shares an input's array sees every in-place write into
that array (an optimizer's update of a parameter, batch norm's running
statistics): that is right only for Paddle's view ops, whose results share
storage by definition (and take part in dygraph/aliases.py's bookkeeping),
and for outputs an op declares as written in place (``OpDef.inplace``).  Any
other op must return new memory: ``paddle.split(w, 2)[0]`` is a copy in
Paddle and must not change when the optimizer steps ``w``."""
import numpy as np
import pytest

from sampan.dygraph.tensor import Tensor
from sampan.ops import get_op

from .spec import all_cases
from .test_op_table import _run

# Paddle 2.6's eager view ops (the kernels of reshape, indexing, transpose ...)
VIEW_OPS = {"reshape2", "flatten_contiguous_range", "squeeze2", "unsqueeze2", "transpose2",
            "slice", "strided_slice", "tensor_unfold", "unbind", "view_shape", "as_strided",
            "diagonal"}
# ops that hand their input on unchanged by definition (control flow and sync points)
PASS_THROUGH = {"select_input", "select_output", "barrier", "c_sync_calc_stream",
                "c_sync_comm_stream"}

CASES = [c for c in all_cases() if c.op not in VIEW_OPS | PASS_THROUGH]


def _arrays(values):
    out = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out.append([t._data for t in v if isinstance(t, Tensor)])
        else:
            out.append([v._data] if isinstance(v, Tensor) else [])
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.name() for c in CASES])
def test_results_do_not_share_an_input_unless_declared(case):
    op, ins, outs = _run(case)
    op = get_op(case.op)
    in_arrays = _arrays(ins)
    for k, (slot, arrays) in enumerate(zip(op.outputs, _arrays(outs))):
        if slot.intermediate:
            continue
        allowed = op.inplace.get(slot.name)
        for a in arrays:
            for j, (islot, ia) in enumerate(zip(op.inputs, in_arrays)):
                if islot.name == allowed:
                    continue
                for b in ia:
                    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
                        assert not np.shares_memory(a, b), (
                            f"{case.name()}: output {slot.name} shares the memory of input "
                            f"{islot.name}")
