"""sampan's public names against Paddle 2.6.2's (``../shared/paddle-reference/
api-2.6.2.json``: ``__all__`` of each namespace and ``dir(paddle.Tensor)``, taken from
the real package).  The namespaces of the tensor surface and of the layer, optimizer and
training surface must be complete: a missing name is allowed only when listed below with its
reason (the LoD ``static.nn.sequence_*`` functions exist and raise: sampan has no LoD tensors).  The other namespaces are counted, not
enforced (their issues list them).

    python tests/test_api_coverage.py        # the coverage table of every namespace
"""
import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
API = os.path.join(os.path.dirname(ROOT), "shared", "paddle-reference", "api-2.6.2.json")

ENFORCED = ("", "Tensor", "linalg", "fft", "signal", "device", "jit", "regularizer",
            # the layer, optimizer and training surface (issue 13)
            "nn", "nn.functional", "nn.initializer", "optimizer", "optimizer.lr", "amp",
            "autograd", "metric", "static", "static.nn",
            # the training toolkit (paddle.Model, summary, flops: hapi/)
            "callbacks",
            # the deployment engine (issue 23), paddle.utils' helpers, paddle.hub
            "inference", "utils", "hub",
            # paddle.distribution, paddle.text
            "distribution", "text")

# name (in namespace "" unless "ns:name") -> why sampan has no such name
ALLOWED_MISSING = {}


def _api():
    if not os.path.isfile(API):
        pytest.skip(f"{API} is not there (../shared beside the repository)")
    with open(API) as fh:
        return json.load(fh)


def _namespace(ns):
    import sampan
    if ns == "":
        return sampan
    if ns == "Tensor":
        return sampan.Tensor
    obj = sampan
    for part in ns.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def coverage(api=None):
    """{namespace: (names sampan has, names missing)}."""
    api = api or _api()
    out = {}
    for ns, names in api.items():
        obj = _namespace(ns)
        have = [n for n in names if obj is not None and hasattr(obj, n)]
        out[ns] = (have, [n for n in names if n not in have])
    return out


def table(cov):
    lines = [f"{'namespace':20} {'sampan':>7} {'paddle':>7}  missing"]
    for ns, (have, miss) in sorted(cov.items()):
        total = len(have) + len(miss)
        lines.append(f"{ns or 'paddle':20} {len(have):>7} {total:>7}  {len(miss)}")
    return "\n".join(lines)


def _key(ns, name):
    return name if ns == "" else f"{ns}:{name}"


@pytest.mark.parametrize("ns", ENFORCED)
def test_the_enforced_namespaces_are_complete(ns):
    cov = coverage()
    missing = [n for n in cov[ns][1] if _key(ns, n) not in ALLOWED_MISSING]
    assert not missing, (f"{len(missing)} of Paddle 2.6.2's names missing in "
                         f"{ns or 'paddle'}: {' '.join(missing)}\n{table(cov)}")


def test_allowed_missing_names_are_still_missing():
    cov = coverage()
    have = {_key(ns, n) for ns, (names, _) in cov.items() for n in names}
    stale = sorted(k for k in ALLOWED_MISSING if k in have)
    assert not stale, f"sampan has these now; remove them from ALLOWED_MISSING: {stale}"


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(ROOT))
    print(table(coverage()))
