"""Record ``fixtures/static_attrs.json`` from real PaddlePaddle 2.6.2 (runs INSIDE the
side venv; ``python -m tests.conformance.regen_attrs`` calls it):

    <venv python> tests/interop/conformance_attrs.py OUT_FILE [family ...]

For every case of every family whose modes include "static", the op types and
attributes of the Program it builds (``static_attrs.op_attrs``)."""
import json
import logging
import os
import sys
import tempfile

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "conformance")
sys.path.insert(0, HERE)

import paddle  # noqa: E402

import run_case  # noqa: E402
import static_attrs  # noqa: E402
from cases import families  # noqa: E402


def main(argv):
    out_file, wanted = argv[0], argv[1:]
    logging.disable(logging.WARNING)
    table = {}
    if os.path.isfile(out_file) and wanted:
        with open(out_file) as fh:
            table = json.load(fh)
    with tempfile.TemporaryDirectory() as tmp:
        for name, cases in sorted(families().items()):
            if wanted and name not in wanted:
                continue
            fns = run_case.load_functions(cases, tmp, name, paddle, paddle_side=True)
            fam = {}
            for case, fn in zip(cases, fns):
                if "static" not in case.modes or case.paddle_bug or case.paddle_code:
                    continue
                paddle.seed(0)
                got = static_attrs.op_attrs(paddle, fn, case)
                if got:
                    fam[case.id] = {"code": case.paddle_code or case.code, "ops": got}
            table[name] = fam
            print(f"{name}: {len(fam)} programs", flush=True)
    tmp_out = out_file + ".tmp"
    with open(tmp_out, "w") as fh:
        json.dump(table, fh, indent=0, sort_keys=True)
    os.replace(tmp_out, out_file)


if __name__ == "__main__":
    main(sys.argv[1:])
