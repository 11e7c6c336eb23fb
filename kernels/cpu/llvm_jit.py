"""LLVM IR text -> machine code for this host, for the kernels sampan writes as
IR (kernels/cpu/gemm_kernel.py, kernels/cpu/winograd_kernel.py): compiled once
per process by llvmlite (numba's code generator; the optional ``fast`` extra)
for the host CPU at -O3.

``vector_lanes()`` says how wide the kernels' float32 vectors are here: 16 where
AVX-512 is present, 8 with AVX2 + FMA, None elsewhere, without llvmlite, or with
``SAMPAN_NUMBA=0`` (the callers then keep their numpy paths).  ``intrinsics(vw)``
names the masked memory intrinsics of that width in this LLVM's spelling (typed
pointers before LLVM 15, opaque ones after).
"""
import ctypes

from .fused_elementwise import numba_available

__all__ = ["vector_lanes", "intrinsics", "compile_ir", "c_types"]

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
    """Compile the IR module ``text`` for this host; returns ``{name: ctypes
    function}`` for each ``name -> ctypes.CFUNCTYPE(...)`` of ``prototypes``.
    Raises whatever llvmlite raises on IR it cannot build."""
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


def c_types(*kinds):
    """ctypes argument types from letters: p pointer, i int64, f float32."""
    table = {"p": ctypes.c_void_p, "i": ctypes.c_int64, "f": ctypes.c_float}
    return ctypes.CFUNCTYPE(None, *(table[k] for k in kinds))
