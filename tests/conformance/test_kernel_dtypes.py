"""sampan's CPU kernel dtypes against real Paddle 2.6.2's, op by op.

``fixtures/kernel_dtypes.json`` holds, per op type sampan declares, the dtypes
of Paddle's CPU (PLAIN) kernels (recorded by ``tests/interop/conformance_kernels.py``; one
command: ``python -m tests.conformance.regen_kernels``).  Which dtypes an op
accepts is user-visible: a dtype Paddle has and sampan lacks is an error in
sampan only, a kernel Paddle lacks makes sampan silently accept a call Paddle
rejects (``paddle.isnan(bool_tensor)``, ``paddle.randn(dtype='int32')``).

The rules, for every op type both declare:
- sampan has every Paddle dtype numpy can represent (bfloat16 cannot; the
  complex dtypes are checked apart, with the gaps named in KNOWN_COMPLEX_GAP);
  for a grad op only
  float32/float64 are required;
- a forward op has no dtype beyond Paddle's, except the documented superset
  float16/int8/int16/uint8 (SUPERSET) -- and no integer dtype at all where
  Paddle has no integer kernel -- and the exceptions in KNOWN_EXTRA.
"""
import json
import os

import pytest

import sampan  # noqa: F401  (registers the kernels)
from sampan.kernels.registry import CPU
from sampan.ops import get_op, list_ops

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "fixtures", "kernel_dtypes.json")
REGEN = "python -m tests.conformance.regen_kernels"

NUMPY_DTYPES = frozenset({"float16", "float32", "float64", "int8", "int16", "int32",
                          "int64", "uint8", "bool"})
# Paddle's complex64 / complex128 kernels are checked apart (test_complex_kernels):
# every op has them where Paddle does (kernels/cpu/spectral_complex.py) but those
# in KNOWN_COMPLEX_GAP
COMPLEX = frozenset({"complex64", "complex128"})
INTS = frozenset({"int8", "int16", "int32", "int64", "uint8"})
# extra kernels sampan may keep: they accept only dtypes Paddle users cannot
# easily reach the op with (float16 on CPU, the small integer types)
SUPERSET = frozenset({"float16", "int8", "int16", "uint8"})
GRAD_REQUIRED = frozenset({"float32", "float64"})
# forward ops with a dtype Paddle 2.6.2 lacks, kept on purpose
KNOWN_EXTRA = {
    # Paddle's CPU clip_by_norm is float32 only, so ClipGradByNorm fails on a
    # float64 model there; sampan clips float64 gradients too
    "clip_by_norm": {"float64"},
    # no input and no dtype attribute: the kernel is found under the default
    # float32 key (it always writes uint8 bytes)
    "read_file": {"float32"},
}


def _load():
    if not os.path.exists(FIXTURE):
        pytest.fail(f"no fixture {FIXTURE}: run `{REGEN}`")
    with open(FIXTURE) as f:
        return json.load(f)["ops"]


PADDLE = _load() if os.path.exists(FIXTURE) else {}


def sampan_dtypes(op_type):
    return {k.dtype for k in get_op(op_type).kernels if k.backend == CPU}


def is_grad(op_type):
    return op_type.endswith("_grad")     # _grad, _grad_grad, _double_grad, _triple_grad


def violations(op_type, paddle_dtypes):
    """Problems of one op, as ``(kind, dtypes)`` pairs: ``missing`` (Paddle has
    a kernel sampan lacks) or ``extra`` (sampan has one Paddle lacks)."""
    mine, theirs = sampan_dtypes(op_type), set(paddle_dtypes)
    out = []
    need = (theirs & GRAD_REQUIRED) if is_grad(op_type) else (theirs & NUMPY_DTYPES)
    if need - mine:
        out.append(("missing", sorted(need - mine)))
    if not is_grad(op_type):
        allowed = theirs | KNOWN_EXTRA.get(op_type, set())
        allowed |= SUPERSET if theirs & INTS else (SUPERSET - INTS)
        if mine - allowed:
            out.append(("extra", sorted(mine - allowed)))
    return out


def test_fixture_covers_every_op():
    missing = sorted(set(list_ops()) - set(_load()))
    assert not missing, (f"{len(missing)} op types are not in {FIXTURE}: "
                         f"{missing}; record them: `{REGEN}`")


@pytest.mark.parametrize("op_type", sorted(t for t, e in PADDLE.items() if e))
def test_kernel_dtypes_match_paddle(op_type):
    try:
        get_op(op_type)
    except Exception:
        pytest.skip(f"sampan no longer declares {op_type}")
    bad = violations(op_type, PADDLE[op_type]["dtypes"])
    assert not bad, (
        f"op '{op_type}': CPU kernel dtypes {sorted(sampan_dtypes(op_type))} vs Paddle "
        f"2.6.2's {PADDLE[op_type]['dtypes']}: " +
        "; ".join(f"{kind} {dts}" for kind, dts in bad))


def test_known_extras_are_still_needed():
    """An exception that no longer applies is removed from KNOWN_EXTRA."""
    stale = {op: sorted(set(dts) - (sampan_dtypes(op) - set(PADDLE[op]["dtypes"])))
             for op, dts in KNOWN_EXTRA.items() if PADDLE.get(op)}
    stale = {op: d for op, d in stale.items() if d}
    assert not stale, f"KNOWN_EXTRA lists dtypes no longer extra: {stale}"


# ops without Paddle's complex kernels, each with the reason
KNOWN_COMPLEX_GAP = {}


def test_complex_kernels():
    lacking = sorted(t for t, e in PADDLE.items()
                     if e and not is_grad(t) and set(e["dtypes"]) & COMPLEX
                     and not sampan_dtypes(t) >= set(e["dtypes"]) & COMPLEX)
    assert lacking == sorted(KNOWN_COMPLEX_GAP), (
        f"ops lacking Paddle's complex kernels: {lacking}; known: {sorted(KNOWN_COMPLEX_GAP)} "
        "(add the kernels, or remove an op from KNOWN_COMPLEX_GAP once it has them)")
