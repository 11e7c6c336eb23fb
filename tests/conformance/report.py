"""Where sampan and the recorded Paddle results differ, counted by class:

    python -m tests.conformance.report [family ...] [--list CLASS]

Classes: ``error`` (one side raised), ``error_class`` (both raised, sampan's
error not of Paddle's builtin class), ``kind``, ``dtype``, ``shape``,
``value``, ``ops`` (static op sequence), ``grad``.  Runs the cases the way
test_conformance.py does; used to measure progress and for closing notes.
"""
import collections
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import sampan  # noqa: E402

import compare  # noqa: E402
import run_case  # noqa: E402
from cases import families  # noqa: E402


def classify(text):
    for key, cls in (("promotion warning", "warning"), ("error class", "error_class"),
                     ("raised", "error"),
                     ("returned", "error"), (": kind", "kind"), (": dtype", "dtype"),
                     (": shape", "shape"), ("ops ", "ops"), ("items vs", "shape")):
        if key in text:
            return cls
    return "value"


def run(names):
    found = collections.defaultdict(list)
    total = 0
    with tempfile.TemporaryDirectory() as work:
        for fam, cases in families(names or None).items():
            with open(os.path.join(HERE, "fixtures", fam + ".json")) as fh:
                fixture = json.load(fh)["cases"]
            fns = run_case.load_functions(cases, work, fam, sampan)
            for case, fn in zip(cases, fns):
                total += 1
                entry = fixture.get(case.id)
                if entry is None:
                    found["unrecorded"].append((case.id, ""))
                    continue
                got = run_case.run_one(sampan, fn, case)
                seen = set()
                for mode in case.modes:
                    want, ops = compare.expected(entry, mode, case.rtol, case.atol, case)
                    diffs = compare.diff_results(got[mode], want, case.rtol, case.atol)
                    if not diffs and got[mode].get("ok") and want.get("ok"):
                        diffs = compare.diff_warnings(got[mode], want)
                    if not diffs and ops is not None and got[mode].get("ops") != ops:
                        diffs = [f"ops {got[mode].get('ops')} vs Paddle's {ops}"]
                    for d in diffs[:1]:
                        cls = classify(d)
                        if cls not in seen:
                            seen.add(cls)
                            found[cls].append((case.id, f"{mode}: {d}"))
                if case.grad and entry["eager"].get("grad") is not None:
                    for d in _grad_diffs(got["eager"].get("grad"), entry["eager"]["grad"],
                                         case)[:1]:
                        found["grad"].append((case.id, f"eager: {d}"))
    return total, found


def _grad_diffs(got_g, want_g, case):
    """The gradient differences of a grad=True case (as test_conformance.py checks)."""
    if got_g is None:
        return [f"grad: none computed (the eager call failed) vs Paddle's {want_g}"]
    if isinstance(want_g, dict) or isinstance(got_g, dict):
        if isinstance(want_g, dict) != isinstance(got_g, dict):
            return [f"grad: {got_g} vs Paddle's {want_g}"]
        return []
    out = []
    for k, (g, w) in enumerate(zip(got_g, want_g)):
        if (g is None) != (w is None):
            out.append(f"grad[{k}]: {g} vs Paddle's {w}")
        elif w is not None:
            out += compare.diff_values(g, w, case.rtol, case.atol, f"grad[{k}]")
    return out


def main(argv):
    names = [a for a in argv if not a.startswith("--")]
    show = argv[argv.index("--list") + 1] if "--list" in argv else None
    if show:
        names.remove(show)
    total, found = run(names)
    print(f"{total} cases")
    for cls, items in sorted(found.items()):
        print(f"  {cls}: {len(items)} cases")
    if show:
        for cid, d in found.get(show, []):
            print(f"{cid}: {d}")


if __name__ == "__main__":
    main(sys.argv[1:])
