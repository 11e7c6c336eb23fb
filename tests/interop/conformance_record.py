"""Record the conformance fixtures from real PaddlePaddle 2.6.2.

Runs INSIDE the side venv (never in sampan's process):

    <venv python> tests/interop/conformance_record.py OUT_DIR [family ...]

For each case family (``cases/<family>.py``) it runs every case eager, as a
static Program and under ``paddle.jit.to_static(full_graph=True)``, and writes
``OUT_DIR/<family>.json``: ``{case id: {"code", "args", mode: result}}``
(see run_case.py for a result's shape).  ``regen.py`` is the one command that
finds the venv and calls this.
"""
import json
import logging
import multiprocessing
import os
import sys
import tempfile

# the case tables and runner live in tests/conformance (numpy + stdlib only)
HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "conformance")
sys.path.insert(0, HERE)

import paddle  # noqa: E402

import run_case  # noqa: E402
from cases import families  # noqa: E402


CASE_TIMEOUT = 20.0     # seconds; Paddle hangs on a few inputs (int ** negative int)


def _worker(name, cases, workdir, start, conn):
    """Run cases[start:] in a child process, sending (index, entry) per case."""
    fns = run_case.load_functions(cases, workdir, name, paddle, paddle_side=True)
    for k in range(start, len(cases)):
        case = cases[k]
        paddle.seed(0)
        entry = {"code": case.paddle_code or case.code, "args": list(case.args)}
        entry.update(run_case.run_one(paddle, fns[k], case))
        conn.send((k, entry))
    conn.send((None, None))


def record_family(name, cases, out_dir, workdir):
    """All cases of a family, in a child process that is restarted past a
    case that hangs (recorded as the error ``Hang``)."""
    table, start = {}, 0
    ctx = multiprocessing.get_context("fork")
    while start < len(cases):
        parent, child = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_worker, args=(name, cases, workdir, start, child))
        proc.start()
        child.close()
        while True:
            if not parent.poll(CASE_TIMEOUT):
                proc.kill()
                proc.join()
                case = cases[start]
                hang = {"ok": False, "error": "Hang",
                        "msg": "did not finish in %d s" % CASE_TIMEOUT}
                table[case.id] = {"code": case.paddle_code or case.code,
                                  "args": list(case.args), **{m: hang for m in case.modes}}
                print("hang: %s" % case.id, flush=True)
                start += 1
                break
            try:
                k, entry = parent.recv()
            except EOFError:            # the child died (a crash): record and go on
                proc.join()
                case = cases[start]
                crash = {"ok": False, "error": "Crash", "msg": "exit code %s" % proc.exitcode}
                table[case.id] = {"code": case.paddle_code or case.code,
                                  "args": list(case.args), **{m: crash for m in case.modes}}
                start += 1
                break
            if k is None:
                proc.join()
                start = len(cases)
                break
            table[cases[k].id] = entry
            start = k + 1
    path = os.path.join(out_dir, name + ".json")
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:      # one case a line: small, readable diffs
        fh.write('{"paddle": %s, "cases": {\n' % json.dumps(paddle.__version__))
        fh.write(",\n".join("%s: %s" % (json.dumps(k), json.dumps(table[k], sort_keys=True))
                            for k in sorted(table)))
        fh.write("\n}}\n")
    os.replace(tmp, path)
    return len(table)


def main(argv):
    out_dir, only = argv[0], set(argv[1:])
    os.makedirs(out_dir, exist_ok=True)
    logging.disable(logging.WARNING)
    with tempfile.TemporaryDirectory() as work:
        for name, cases in families(only or None).items():
            n = record_family(name, cases, out_dir, work)
            print(f"{name}: {n} cases", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
