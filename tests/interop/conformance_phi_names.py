"""Record real PaddlePaddle 2.6.2's phi kernel name of every op type.

Runs INSIDE the side venv (never in sampan's process); imports only paddle and
the standard library:

    <venv python> tests/interop/conformance_phi_names.py OPS_JSON OUT_JSON

``OPS_JSON`` holds the op types (a JSON list: sampan's ``sampan.ops.list_ops()``);
``OUT_JSON`` gets ``{"paddle": version, "names": {op type: phi kernel name}}``
for the op types whose name differs (``paddle.inference._get_phi_kernel_name``:
``elementwise_add`` -> ``add``; the others map to themselves).  One command,
from the repository root:

    python -m tests.conformance.regen_phi_names
"""
import json
import sys

import paddle
from paddle.inference import _get_phi_kernel_name


def main(ops_file, out_file):
    with open(ops_file) as f:
        ops = json.load(f)
    names = {}
    for op in ops:
        phi = _get_phi_kernel_name(op)
        if phi != op:
            names[op] = phi
    with open(out_file, "w") as f:
        json.dump({"paddle": paddle.__version__, "names": dict(sorted(names.items()))}, f,
                  indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
