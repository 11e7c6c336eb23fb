"""A fused elementwise expression run as a compiled loop nest the compiler can
vectorize (kernels/cpu/fused_elementwise.py builds the expressions).

``numba.vectorize`` makes a numpy ufunc whose inner loop takes any strides,
so LLVM keeps it scalar: measured 2-10x slower than numpy's own SIMD loops on
a hard_swish of a conv output.  Most calls of a fused expression are over
C-contiguous arrays whose broadcasting is simple: a conv output plus a
per-channel bias, a row minus its mean.  ``LoopKernel`` merges the output's
axes into at most ``MAX_GROUPS`` groups, consecutive axes along which every
input is either full or broadcast the same way, and runs one loop per group
with the scalar function inlined (``out[i, j] = f(x0[i, j], x1[0, j])``):
unit-stride inner loops the compiler vectorizes (hard_swish over 1.6M floats
0.17 ms, numpy 1.7 ms, the ufunc 2.0 ms).  One loop nest is compiled per
broadcast pattern and cached.  Anything else (an input that is not a
C-contiguous array of the dtype, more groups, small arrays where a Python
frame costs more than the loop) calls the ufunc: the same scalar function,
the same numbers.
"""
import numpy as np

__all__ = ["LoopKernel", "in_place", "MIN_SIZE", "MAX_GROUPS"]

MIN_SIZE = 2048     # fewer output elements: the ufunc (no plan to look up)
MAX_GROUPS = 3

_ndarray = np.ndarray


class LoopKernel:
    """Callable like the ufunc ``uf`` it stands for (positional array inputs,
    numpy broadcasting, a new output of ``dtype``)."""

    def __init__(self, scalar, uf, n_in, dtype, numba):
        self.scalar = numba.njit(inline="always")(scalar)
        self.uf = uf
        self.n_in = n_in
        self.dtype = dtype
        self.numba = numba
        self.plans = {}          # input shapes -> (grouped shapes, out shape, loop) or None
        self.loops = {}          # broadcast pattern -> compiled loop nest

    def __call__(self, *xs):
        dt = self.dtype
        for x in xs:
            if type(x) is not _ndarray or x.dtype is not dt or not x.flags.c_contiguous:
                return self.uf(*xs)
        key = tuple(x.shape for x in xs)
        plan = self.plans.get(key, False)
        if plan is False:
            plan = self._plan(key)
            if len(self.plans) >= 256:
                self.plans.clear()
            self.plans[key] = plan
        if plan is None:
            return self.uf(*xs)
        shapes, out_shape, grouped, loop = plan
        out = np.empty(grouped, dt)
        loop(*[x.reshape(s) for x, s in zip(xs, shapes)], out)
        return out.reshape(out_shape)

    def _plan(self, shapes):
        """(per-input grouped shapes, output shape, grouped output shape, loop)
        for inputs of ``shapes``, or None (the ufunc)."""
        try:
            out = np.broadcast_shapes(*shapes)
        except ValueError:
            return None
        size = 1
        for d in out:
            size *= d
        if size < MIN_SIZE:
            return None
        nd = len(out)
        padded = [(1,) * (nd - len(s)) + tuple(s) for s in shapes]
        groups = []                # [pattern, size] per group of merged axes
        for d in range(nd):
            if out[d] == 1:
                continue
            pattern = tuple(p[d] != 1 for p in padded)
            if groups and groups[-1][0] == pattern:
                groups[-1][1] *= out[d]
            else:
                groups.append([pattern, out[d]])
        if not groups or len(groups) > MAX_GROUPS:
            return None
        pattern = tuple(g[0] for g in groups)
        loop = self.loops.get(pattern)
        if loop is None:
            loop = self.loops[pattern] = self._compile(pattern)
        grouped = tuple(g[1] for g in groups)
        in_shapes = [tuple(g[1] if g[0][k] else 1 for g in groups) for k in range(len(shapes))]
        return in_shapes, out, grouped, loop

    def _compile(self, pattern):
        """The loop nest of one broadcast pattern (per group, per input: full?).
        The innermost loop reads one-dimensional row views and scalars hoisted
        out of it (numba's multi-dimensional indexing there kept LLVM from
        vectorizing: 22x slower on a LayerNorm's normalize)."""
        n, g = self.n_in, len(pattern)
        lines = [f"def loop({', '.join(f'x{k}' for k in range(n))}, out):"]
        for d in range(g - 1):
            lines.append("    " * (d + 1) + f"for i{d} in range(out.shape[{d}]):")
        ind = "    " * g
        outer = [f"i{d}" for d in range(g - 1)]

        def at(k, last):
            return ", ".join([i if pattern[d][k] else "0" for d, i in enumerate(outer)] + last)
        lines.append(ind + (f"o = out[{', '.join(outer)}]" if outer else "o = out"))
        reads = []
        for k in range(n):
            if pattern[-1][k]:                 # full along the inner group: a row
                lines.append(ind + (f"r{k} = x{k}[{at(k, [])}]" if outer else f"r{k} = x{k}"))
                reads.append(f"r{k}[j]")
            else:                              # broadcast along it: one value
                lines.append(ind + f"r{k} = x{k}[{at(k, ['0'])}]")
                reads.append(f"r{k}")
        lines.append(ind + f"for j in range(out.shape[{g - 1}]):")
        lines.append(ind + f"    o[j] = f({', '.join(reads)})")
        ns = {"f": self.scalar}
        exec(compile("\n".join(lines) + "\n", "<fused loop>", "exec"), ns)
        return self.numba.njit(nogil=True)(ns["loop"])


def in_place(scalar, numba, dtype):
    """``fn(x)`` applying the one-argument ``scalar`` to every element of the
    C-contiguous array ``x`` of ``dtype`` in place (the caller checks contiguity
    and dtype); returns x.
    Each result is multiplied by a 1 that comes as an argument (exact for every
    value; LLVM cannot fold it away): where ``scalar`` returns its argument
    unchanged (leaky_relu above 0), LLVM would drop that store as a no-op and
    vectorize the rest as masked stores, slow on AMD (leaky_relu in place on
    32x16x32x32 maps 0.29 -> 0.05 ms on Zen 3)."""
    f = numba.njit(inline="always")(scalar)

    @numba.njit(nogil=True)
    def loop(flat, one):
        for j in range(flat.size):
            flat[j] = f(flat[j]) * one

    one = np.dtype(dtype).type(1)

    def fn(x):
        loop(x.reshape(-1), one)
        return x
    return fn
