"""LLVM IR text -> machine code for this host, for the kernels sampan writes as
IR (kernels/cpu/gemm_kernel.py, winograd_kernel.py, depthwise_kernel.py):
compiled once per process by llvmlite (numba's code generator; the optional
``fast`` extra) for the host CPU at -O3.  ``Emitter`` writes the IR lines of
the vector kernels (types, intrinsics, splats, integer linear combinations,
the relu/relu6 clamps).

``vector_lanes()`` says how wide the kernels' float32 vectors are here: 16 where
AVX-512 is present, 8 with AVX2 + FMA, None elsewhere, without llvmlite, or with
``SAMPAN_NUMBA=0`` (the callers then keep their numpy paths).  ``intrinsics(vw)``
names the masked memory intrinsics of that width in this LLVM's spelling (typed
pointers before LLVM 15, opaque ones after).
"""
import ctypes
import struct

import numpy as np

from .fused_elementwise import numba_available

__all__ = ["vector_lanes", "intrinsics", "compile_ir", "build", "c_types", "Emitter",
           "float_literal"]

_ENGINES = []          # (engine, module): the machine code lives as long as its engine


def _llvm():
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm


def vector_lanes(limit=None):
    """float32 lanes of the host's widest usable vectors (at most ``limit``), or None."""
    if not numba_available():
        return None
    try:
        features = _llvm().get_host_cpu_features()
    except Exception:           # no llvmlite, or one that cannot read the host
        return None
    if features.get("avx512f"):
        vw = 16
    elif features.get("avx2") and features.get("fma"):
        vw = 8
    else:
        return None
    return min(vw, limit or vw)


def intrinsics(vw):
    """Declarations and names of the masked load/store/gather/scatter of ``vw``
    floats: a dict with ``decl`` (IR text) and ``load``, ``store``, ``gather``,
    ``scatter`` (the intrinsic names)."""
    llvm = _llvm()
    opaque = llvm.llvm_version_info[0] >= 15
    v, m, pv = "<%d x float>" % vw, "<%d x i1>" % vw, "<%d x float*>" % vw
    mem = "p0" if opaque else "p0v%df32" % vw
    vec = "v%dp0" % vw if opaque else "v%dp0f32" % vw
    names = {"load": "llvm.masked.load.v%df32.%s" % (vw, mem),
             "store": "llvm.masked.store.v%df32.%s" % (vw, mem),
             "gather": "llvm.masked.gather.v%df32.%s" % (vw, vec),
             "scatter": "llvm.masked.scatter.v%df32.%s" % (vw, vec),
             "fma": "llvm.fma.v%df32" % vw}
    names["decl"] = "\n".join([
        "declare %s @%s(%s*, i32, %s, %s)" % (v, names["load"], v, m, v),
        "declare void @%s(%s, %s*, i32, %s)" % (names["store"], v, v, m),
        "declare %s @%s(%s, i32, %s, %s)" % (v, names["gather"], pv, m, v),
        "declare void @%s(%s, %s, i32, %s)" % (names["scatter"], v, pv, m),
        "declare %s @%s(%s, %s, %s)" % (v, names["fma"], v, v, v)])
    return names


def compile_ir(text, prototypes):
    """Compile the IR module ``text`` for this host (the code generator at -O3;
    no IR pass pipeline: the kernels' IR is written as it should run) and
    return ``{name: ctypes function}`` for each ``name -> ctypes.CFUNCTYPE(...)``
    of ``prototypes``.  Raises whatever llvmlite raises on IR it cannot build."""
    llvm = _llvm()
    module = llvm.parse_assembly(text)
    module.verify()
    machine = llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(), opt=3)
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    _ENGINES.append((engine, module))
    return {name: proto(engine.get_function_address(name))
            for name, proto in prototypes.items()}


def build(write, prototypes, lanes=None):
    """``(functions, vector lanes)``: the functions ``write(emitter)`` emits (an
    ``Emitter`` of the host's vector width, at most ``lanes``, with the
    intrinsics declared) compiled for ``prototypes`` (``compile_ir``); None
    where there is no such width or llvmlite cannot build the IR."""
    vw = vector_lanes(lanes)
    if vw is None:
        return None
    try:
        names = intrinsics(vw)
        e = Emitter(vw, names)
        e.lines.append(names["decl"])
        write(e)
        return compile_ir("\n".join(e.lines), prototypes), vw
    except Exception:           # an llvmlite that cannot build this IR
        return None


def c_types(*kinds):
    """ctypes argument types from letters: p pointer, i int64, f float32."""
    table = {"p": ctypes.c_void_p, "i": ctypes.c_int64, "f": ctypes.c_float}
    return ctypes.CFUNCTYPE(None, *(table[k] for k in kinds))


def float_literal(x):
    """An LLVM float literal (the double spelling of a float32 value)."""
    return "0x%016X" % struct.unpack("<Q", struct.pack("<d", float(np.float32(x))))[0]


class Emitter:
    """IR lines with ``{V}`` (float vector), ``{M}`` (mask), ``{I}`` (i64
    vector), ``{P}`` (vector of pointers), ``{VW}``, ``{LANES}`` (0 .. VW-1),
    ``{ZERO}`` (a splat's shuffle mask) and the intrinsics' names (``{LOAD}``,
    ``{STORE}``, ``{GATHER}``, ``{SCATTER}``, ``{FMA}``) filled in."""

    def __init__(self, vw, names):
        self.vw, self.lines, self.n = vw, [], 0
        self.f = dict(V="<%d x float>" % vw, M="<%d x i1>" % vw, I="<%d x i64>" % vw,
                      P="<%d x float*>" % vw, VW=vw, ZERO="<%d x i32> zeroinitializer" % vw,
                      LANES="<%s>" % ", ".join("i64 %d" % i for i in range(vw)),
                      LOAD=names["load"], STORE=names["store"], GATHER=names["gather"],
                      SCATTER=names["scatter"], FMA=names["fma"])

    def __call__(self, *lines, **kw):
        for s in lines:
            self.lines.append(("" if s.endswith(":") else "  ") + s.format(**self.f, **kw))

    def splat(self, name, scalar, ty):
        vt = {"float": "{V}", "i64": "{I}", "i1": "{M}", "i32": "<{VW} x i32>"}[ty]
        self(name + "s = insertelement " + vt + " undef, " + ty + " " + scalar + ", i32 0",
             name + " = shufflevector " + vt + " " + name + "s, " + vt + " undef, {ZERO}")

    def const(self, x):
        """The float vector literal with ``x`` in every lane."""
        return "<%s>" % ", ".join(["float " + float_literal(x)] * self.vw)

    def combo(self, row, terms):
        """``sum_k row[k] * terms[k]`` (integer coefficients, zeros skipped)."""
        acc = None
        for coef, term in zip(row, terms):
            if coef == 0:
                continue
            if abs(coef) != 1:
                self.n += 1
                scaled = "%%s%d" % self.n
                self("{r} = fmul {V} {a}, {c}", r=scaled, a=term, c=self.const(abs(coef)))
                term = scaled
            self.n += 1
            r = "%%s%d" % self.n
            if acc is None:
                if coef > 0:
                    acc = term
                    continue
                self("{r} = fneg {V} {a}", r=r, a=term)
            else:
                self("{r} = {op} {V} {a}, {b}", r=r, op="fsub" if coef < 0 else "fadd",
                     a=acc, b=term)
            acc = r
        return acc

    def clamp_setup(self):
        """Splat the clamp arguments %lo, %hi (float) and %tie (i64) of the
        function being written (conv_epilogue.CLAMPS: lo, hi, tie)."""
        self.splat("%lov", "%lo", "float")
        self.splat("%hiv", "%hi", "float")
        self("%tieb = icmp ne i64 %tie, 0",
             "%tiez = select i1 %tieb, float 0.0, float -0.0")
        self.splat("%tiev", "%tiez", "float")

    def clamp(self, tag, value):
        """``value`` clamped as conv_epilogue's compiled pass does: below lo (or
        equal to it with tie) -> lo, above hi -> hi, NaN kept; returns its name.
        Three instructions (max, add, min; the masks of a literal "or equal"
        took a dozen with AVX2): equal but different values are only -0.0 and
        +0.0, and tie comes only with lo = +0.0 (relu), so it is adding +0.0
        (-0.0 -> +0.0, nothing else changes; without tie -0.0, the identity)."""
        self("%lt{k} = fcmp olt {V} {v}, %lov",
             "%c0{k} = select {M} %lt{k}, {V} %lov, {V} {v}",
             "%c1{k} = fadd {V} %c0{k}, %tiev",
             "%gt{k} = fcmp ogt {V} %c1{k}, %hiv",
             "%c2{k} = select {M} %gt{k}, {V} %hiv, {V} %c1{k}", k=tag, v=value)
        return "%c2" + tag

    def transpose(self, tag, rows):
        """The VW x VW transpose of ``rows`` (VW vector names): log2(VW) stages,
        each swapping the off-diagonal blocks of every 2h x 2h block (one
        two-input shuffle per row); returns the VW column names."""
        n = self.vw
        assert len(rows) == n
        h = n // 2
        while h:
            lo = ", ".join("i32 %d" % (j if not j & h else n + j - h) for j in range(n))
            hi = ", ".join("i32 %d" % (j + h if not j & h else n + j) for j in range(n))
            new = list(rows)
            for i in range(n):
                if i & h:
                    continue
                a, b = rows[i], rows[i + h]
                new[i], new[i + h] = "%%%s_%d_%d" % (tag, h, i), "%%%s_%d_%d" % (tag, h, i + h)
                self("{r} = shufflevector {V} {a}, {V} {b}, <{VW} x i32> <{m}>",
                     r=new[i], a=a, b=b, m=lo)
                self("{r} = shufflevector {V} {a}, {V} {b}, <{VW} x i32> <{m}>",
                     r=new[i + h], a=a, b=b, m=hi)
            rows = new
            h //= 2
        return rows
