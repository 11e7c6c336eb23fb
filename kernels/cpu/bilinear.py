"""Double and triple grads of bilinear ops, derived from the op's forward and
first-order grad (matmul_v2, bmm through matmul_v2's, mul, elementwise_mul,
the convolutions).

An op ``Out = f(A, B)``, linear in A and in B, has the first-order grad
``(dA, dB) = g(A, B, dOut)``, where dA reads only B and dOut (A gives its
shape) and dB only A and dOut; ``g(., b, d).dA`` is the adjoint of
``a -> f(a, b)`` at ``d``.  Its higher-order grads follow from f and g alone.

double grad, given the gradients ddA, ddB of dA, dB::

    dA' = g(A, ddB, dOut).dA        dB' = g(ddA, B, dOut).dB
    ddOut = f(ddA, B) + f(A, ddB)

triple grad, given the gradients tA, tB, tO of dA', dB', ddOut::

    A:    g(A, ddB, tO).dA          B:    g(ddA, B, tO).dB
    dOut: f(tA, ddB) + f(ddA, tB)
    ddA:  g(ddA, tB, dOut).dA + g(ddA, B, tO).dA
    ddB:  g(tA, ddB, dOut).dB + g(A, ddB, tO).dB

An absent (None) incoming gradient is zero: its terms drop out, and a result
with no term left is zeros.  The kernels' slots are in this order (A, B, dOut,
ddA, ddB[, tA, tB, tO]) -> (A', B', dOut'[, ddA', ddB']), which is the slot
order of every op registered here (ops/defs).
"""
import numpy as np

from ..registry import kernel, FLOATS

__all__ = ["Bilinear", "register"]


def _total(terms, like):
    terms = [t for t in terms if t is not None]
    if not terms:
        return np.zeros_like(like)
    out = terms[0]
    for t in terms[1:]:
        out = out + t
    return out


class Bilinear:
    """``f(a, b, attrs) -> out`` and ``g(a, b, dout, attrs, need) -> (da, db)``."""

    def __init__(self, f, g):
        self.f, self.g = f, g

    def _f(self, a, b, attrs):
        return None if a is None or b is None else self.f(a, b, attrs)

    def _ga(self, a, b, d, attrs):
        return None if b is None or d is None else self.g(a, b, d, attrs, (True, False))[0]

    def _gb(self, a, b, d, attrs):
        return None if a is None or d is None else self.g(a, b, d, attrs, (False, True))[1]

    def double(self, a, b, dout, dda, ddb, attrs, want):
        da = _total([self._ga(a, ddb, dout, attrs)], a) if want[0] else None
        db = _total([self._gb(dda, b, dout, attrs)], b) if want[1] else None
        ddout = _total([self._f(dda, b, attrs), self._f(a, ddb, attrs)], dout) \
            if want[2] else None
        return da, db, ddout

    def triple(self, a, b, dout, dda, ddb, ta, tb, to, attrs, want):
        ga, gb, f = self._ga, self._gb, self._f
        res = [None] * 5
        if want[0]:
            res[0] = _total([ga(a, ddb, to, attrs)], a)
        if want[1]:
            res[1] = _total([gb(dda, b, to, attrs)], b)
        if want[2]:
            res[2] = _total([f(ta, ddb, attrs), f(dda, tb, attrs)], dout)
        if want[3]:
            res[3] = _total([ga(a, tb, dout, attrs), ga(a, b, to, attrs)], a)
        if want[4]:
            res[4] = _total([gb(ta, b, dout, attrs), gb(a, b, to, attrs)], b)
        return tuple(res)


def register(bl, double_types, triple_types=(), dtypes=FLOATS):
    """Register ``bl``'s double grad under ``double_types`` and its triple grad
    under ``triple_types``."""
    @kernel(*double_types, dtypes=dtypes)
    def double(ins, attrs, need):
        return bl.double(*ins, attrs, need or (True,) * 3)

    if triple_types:
        @kernel(*triple_types, dtypes=dtypes)
        def triple(ins, attrs, need):
            return bl.triple(*ins, attrs, need or (True,) * 5)
    return double
