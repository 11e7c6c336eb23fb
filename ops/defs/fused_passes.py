"""Fused ops the build-strategy passes write (program/passes/, run by
``static.CompiledProgram``): Paddle 2.6's op types, slots and attributes.

- ``fused_elemwise_add_activation``: ``functor_list`` [unary, "elementwise_add"]
  is ``Out = unary(X + Y)`` (IntermediateOut = X + Y); ["elementwise_add",
  unary] is ``Out = X + unary(Y)`` (IntermediateOut = unary(Y)).  Unary
  functors: relu, tanh, scale (``x * scale``, no bias), gelu (Paddle's fused
  gelu is the tanh approximation), in the compounds Paddle implements
  (``COMPOUNDS``: not X + tanh(Y), X + gelu(Y), nor any sigmoid).  Its grad ``fused_elemwise_add_activation_grad`` (Paddle's
  slots: X, Y, Out, IntermediateOut, Out@GRAD -> X@GRAD, Y@GRAD,
  IntermediateOut@GRAD) takes ``functor_list`` with ``_grad`` suffixes.
- ``fused_gemm_epilogue``: ``Out = act(matmul(X, Y, trans_x, trans_y) + Bias)``,
  activation "none", "relu" or "gelu" (erf gelu); ReserveSpace keeps what the
  grad's ``activation_grad`` reads: relu's mask (bool; Paddle's GPU kernel
  keeps a bit mask), gelu's pre-activation values.  Without ReserveSpace (a
  program with no backward) the kernel works in one array.
  Grad: ``fused_gemm_epilogue_grad`` (DOut, X, Y, ReserveSpace -> DX, DY, DBias).
- ``fused_batch_norm_act`` / ``fused_bn_add_activation``: training-mode
  batch_norm (channel = last axis, as Paddle's NHWC-only ops) followed by
  ``act_type`` (relu), the second adding Z before the activation; running
  statistics updated in place like batch_norm.  Paddle registers them (and
  fused_gemm_epilogue) for GPU only; sampan's CPU kernels compute what
  batch_norm + [elementwise_add +] relu compute.
- ``merged_momentum`` / ``merged_adam``: Paddle's multi-tensor optimizer ops
  (one op updating a list of parameters), written by ``fuse_all_optimizer_ops``;
  ``sampan_merged_sgd`` is their sgd counterpart (Paddle has none; it fuses sgd
  through coalesced buffers).
"""
import functools

import numpy as np

from ..declare import defop, defgrad, GradOp, REQUIRED
from ..registry import Meta, OpError
from ..meta_rules import broadcast_shapes
from .linalg import matmul_infer

# ------------------------------------------------------------------ fused_elemwise_add_activation
ADD = "elementwise_add"
UNARY = ("relu", "tanh", "scale", "gelu")
_NOT_IMPLEMENTED = ("sigmoid",)
# the compounds Paddle 2.6.2 implements (others: "... has not been implemented")
COMPOUNDS = (("relu", ADD), (ADD, "relu"), ("tanh", ADD), ("scale", ADD), (ADD, "scale"),
             ("gelu", ADD))


def add_act_order(functors, op="fused_elemwise_add_activation", suffix=""):
    """(unary functor, whether it is applied after the add) of a ``functor_list``
    (cached: kernels ask at every call)."""
    return _order(tuple(functors), op, suffix)


@functools.lru_cache(maxsize=None)
def _order(functors, op, suffix):
    f = [s[:-len(suffix)] if suffix and s.endswith(suffix) else s for s in functors]
    if len(f) != 2:
        raise OpError(f"{op}: Invalid functor list size {len(f)}, which should be equal to 2 "
                      f"(got functor_list={list(functors)})")
    if ADD not in f:
        raise OpError(f"{op}: functor_list {list(functors)} has no elementwise_add; when "
                      f"FusedElemwiseAddActivation is used, elementwise_add must be one of "
                      f"its two functors")
    unary = f[1] if f[0] == ADD else f[0]
    if unary not in UNARY + _NOT_IMPLEMENTED:
        raise OpError(f"{op}: {unary} is not included in fused_list; supported unary "
                      f"functors: {list(UNARY)}")
    if tuple(f) not in COMPOUNDS:
        raise OpError(f"{op}: {','.join(f)} has not been implemented; the implemented "
                      f"functor lists are {[list(c) for c in COMPOUNDS]}")
    return unary, f[0] != ADD


_FEA_ATTRS = (("functor_list", "STRINGS", REQUIRED), ("axis", "INT", -1),
              ("scale", "FLOAT", 0.0), ("save_intermediate_out", "BOOLEAN", False))


def _fea_infer(metas, attrs):
    x, y = metas
    _, after = add_act_order(attrs["functor_list"])
    shape = broadcast_shapes(x.shape, y.shape, attrs["axis"])
    inter = Meta(shape, x.dtype) if after else Meta(y.shape, y.dtype)
    return Meta(shape, x.dtype), inter


def _fea_grad_infer(metas, attrs):
    x, y, out, inter, dout = metas
    add_act_order(attrs["functor_list"], "fused_elemwise_add_activation_grad", "_grad")
    return (x or dout, y, inter)


def _fea_grad_attrs(attrs):
    out = dict(attrs)
    out["functor_list"] = [f + "_grad" for f in attrs["functor_list"]]
    return out


defgrad("fused_elemwise_add_activation_grad", "X? Y Out? IntermediateOut? Out@GRAD",
        "X@GRAD? Y@GRAD? IntermediateOut@GRAD?", _FEA_ATTRS, infer=_fea_grad_infer)
defop("fused_elemwise_add_activation", "X Y", "Out IntermediateOut~", _FEA_ATTRS,
      infer=_fea_infer, same_dtype=("X", "Y"),
      grad=GradOp("fused_elemwise_add_activation_grad",
                  {"X": "X", "Y": "Y", "Out": "Out", "IntermediateOut": "IntermediateOut",
                   "Out@GRAD": "Out@GRAD"},
                  {"X@GRAD": "X@GRAD", "Y@GRAD": "Y@GRAD"}, _fea_grad_attrs))

# ------------------------------------------------------------------ fused_gemm_epilogue
GEMM_ACTS = ("none", "relu", "gelu")
_GEMM_ATTRS = (("trans_x", "BOOLEAN", False), ("trans_y", "BOOLEAN", False),
               ("activation", "STRING", "none"))


def _gemm_infer(metas, attrs):
    x, y, b = metas
    if attrs["activation"] not in GEMM_ACTS:
        raise OpError(f"fused_gemm_epilogue: activation must be one of {list(GEMM_ACTS)}, "
                      f"got '{attrs['activation']}'")
    if len(y.shape) != 2 or len(x.shape) < 2:
        raise OpError(f"fused_gemm_epilogue: needs X of rank >= 2 and a 2-D Y, got shapes "
                      f"{list(x.shape)} and {list(y.shape)}")
    (out,) = matmul_infer((x, y), attrs)
    n = out.shape[-1]
    if len(b.shape) != 1 or -1 not in (n, b.shape[0]) and b.shape[0] != n:
        raise OpError(f"fused_gemm_epilogue: Bias must be 1-D with {n} elements (Out's last "
                      f"dim), got shape {list(b.shape)}")
    act = attrs["activation"]
    reserve = None if act == "none" else Meta(out.shape, np.dtype("bool")) if act == "relu" \
        else out
    return out, reserve


def _gemm_grad_attrs(attrs):
    act = attrs["activation"]
    return {"trans_x": attrs["trans_x"], "trans_y": attrs["trans_y"],
            "activation_grad": "none" if act == "none" else act + "_grad"}


def _gemm_grad_infer(metas, attrs):
    dout, x, y, _ = metas
    if attrs["activation_grad"] not in ("none", "relu_grad", "gelu_grad"):
        raise OpError(f"fused_gemm_epilogue_grad: activation_grad must be 'none', "
                      f"'relu_grad' or 'gelu_grad', got '{attrs['activation_grad']}'")
    return x, y, Meta((dout.shape[-1],), dout.dtype)


defgrad("fused_gemm_epilogue_grad", "DOut X Y ReserveSpace?", "DX? DY? DBias?",
        (("trans_x", "BOOLEAN", False), ("trans_y", "BOOLEAN", False),
         ("activation_grad", "STRING", "none")),
        infer=_gemm_grad_infer, dtype_from="DOut")
defop("fused_gemm_epilogue", "X Y Bias", "Out ReserveSpace?", _GEMM_ATTRS,
      infer=_gemm_infer, same_dtype=("X", "Y", "Bias"),
      grad=GradOp("fused_gemm_epilogue_grad",
                  {"DOut": "Out@GRAD", "X": "X", "Y": "Y", "ReserveSpace": "ReserveSpace"},
                  {"DX": "X@GRAD", "DY": "Y@GRAD", "DBias": "Bias@GRAD"}, _gemm_grad_attrs))

# ------------------------------------------------------------------ fused batch_norm + act
BN_ACTS = ("relu",)
_FBN_ATTRS = (("momentum", "FLOAT", 0.9), ("epsilon", "FLOAT", 1e-5),
              ("act_type", "STRING", "relu"))


def _check_act(op, attrs):
    if attrs["act_type"] not in BN_ACTS:
        raise OpError(f"{op}: act_type must be one of {list(BN_ACTS)}, got "
                      f"'{attrs['act_type']}'")


def _fbn_infer(op, with_z):
    def infer(metas, attrs):
        _check_act(op, attrs)
        x = metas[0]
        z, rest = (metas[1], metas[2:]) if with_z else (None, metas[1:])
        if not 2 <= len(x.shape) <= 5:
            raise OpError(f"{op}: input X must have rank 2 to 5, got shape {list(x.shape)}")
        if z is not None and tuple(z.shape) != tuple(x.shape) and -1 not in z.shape + x.shape:
            raise OpError(f"{op}: input Z must have X's shape {list(x.shape)}, got "
                          f"{list(z.shape)}")
        c = x.shape[-1]
        for m, slot in zip(rest, ("Scale", "Bias", "Mean", "Variance")):
            if len(m.shape) != 1 or (c >= 0 and m.shape[0] >= 0 and m.shape[0] != c):
                raise OpError(f"{op}: input {slot} must be 1-D with {c} entries (X's last, "
                              f"channel dim), got shape {list(m.shape)}")
        scale, mean, var = rest[0], rest[2], rest[3]
        stat = Meta((c,), scale.dtype)
        return (Meta(x.shape, x.dtype), mean, var, stat, stat, None)     # (no ReserveSpace)
    return infer


def _fbn_grad_infer(with_z):
    def infer(metas, attrs):
        x, scale, bias = metas[0], metas[1], metas[2]
        return (x, x, scale, bias) if with_z else (x, scale, bias)
    return infer


_FBN_GRAD_IN = "X Scale Bias Y SavedMean SavedVariance ReserveSpace? Y@GRAD"
_FBN_USES = {s: s for s in ("X", "Scale", "Bias", "Y", "SavedMean", "SavedVariance",
                            "ReserveSpace", "Y@GRAD")}


def _fbn_grad_attrs(attrs):
    return {"epsilon": attrs["epsilon"], "act_type": attrs["act_type"]}


_FBN_GRAD_ATTRS = (("epsilon", "FLOAT", 1e-5), ("act_type", "STRING", "relu"))
defgrad("fused_batch_norm_act_grad", _FBN_GRAD_IN, "X@GRAD Scale@GRAD? Bias@GRAD?",
        _FBN_GRAD_ATTRS, infer=_fbn_grad_infer(False), dtype_from="X")
defop("fused_batch_norm_act", "X Scale Bias Mean Variance",
      "Y MeanOut VarianceOut SavedMean SavedVariance ReserveSpace?", _FBN_ATTRS,
      infer=_fbn_infer("fused_batch_norm_act", False),
      grad=GradOp("fused_batch_norm_act_grad", _FBN_USES,
                  {"X@GRAD": "X@GRAD", "Scale@GRAD": "Scale@GRAD", "Bias@GRAD": "Bias@GRAD"},
                  _fbn_grad_attrs),
      inplace={"MeanOut": "Mean", "VarianceOut": "Variance"},
      no_grad_inputs=("Mean", "Variance"))

defgrad("fused_bn_add_activation_grad", _FBN_GRAD_IN,
        "X@GRAD Z@GRAD? Scale@GRAD? Bias@GRAD?", _FBN_GRAD_ATTRS,
        infer=_fbn_grad_infer(True), dtype_from="X")
defop("fused_bn_add_activation", "X Z Scale Bias Mean Variance",
      "Y MeanOut VarianceOut SavedMean SavedVariance ReserveSpace?", _FBN_ATTRS,
      infer=_fbn_infer("fused_bn_add_activation", True),
      grad=GradOp("fused_bn_add_activation_grad", _FBN_USES,
                  {"X@GRAD": "X@GRAD", "Z@GRAD": "Z@GRAD", "Scale@GRAD": "Scale@GRAD",
                   "Bias@GRAD": "Bias@GRAD"}, _fbn_grad_attrs),
      inplace={"MeanOut": "Mean", "VarianceOut": "Variance"},
      no_grad_inputs=("Mean", "Variance"))

# ------------------------------------------------------------------ merged optimizer ops


def _merged_infer(op, lists, n_out):
    """Each output list takes the metas of the input list it updates."""
    gi = lists["Grad"]
    def infer(metas, attrs):
        params = metas[0]
        n = len(params)
        for name, i in lists.items():
            if metas[i] is not None and len(metas[i]) not in ((1, n) if name == "LearningRate"
                                                              else (n,)):
                raise OpError(f"{op}: input {name} has {len(metas[i])} tensors but Param has "
                              f"{n}")
        for k, (p, g) in enumerate(zip(params, metas[gi])):
            if -1 not in p.shape + g.shape and tuple(p.shape) != tuple(g.shape):
                raise OpError(f"{op}: Grad[{k}] has shape {list(g.shape)}, Param[{k}] "
                              f"{list(p.shape)}")
        return n_out(metas)
    return infer


defop("merged_momentum", "Param* Grad* Velocity* LearningRate* MasterParam*?",
      "ParamOut* VelocityOut* MasterParamOut*?",
      (("mu", "FLOAT", REQUIRED), ("use_nesterov", "BOOLEAN", False),
       ("regularization_method", "STRINGS", []), ("regularization_coeff", "FLOATS", []),
       ("multi_precision", "BOOLEAN", False), ("rescale_grad", "FLOAT", 1.0)),
      infer=_merged_infer("merged_momentum", {"Grad": 1, "Velocity": 2, "LearningRate": 3},
                          lambda m: (m[0], m[2], m[4] or None)),
      inplace={"ParamOut": "Param", "VelocityOut": "Velocity",
               "MasterParamOut": "MasterParam"},
      no_grad_inputs=("Param", "Grad", "Velocity", "LearningRate", "MasterParam"))

defop("merged_adam", "Param* Grad* LearningRate* Moment1* Moment2* Beta1Pow* Beta2Pow* "
      "MasterParam*?",
      "ParamOut* Moment1Out* Moment2Out* Beta1PowOut* Beta2PowOut* MasterParamOut*?",
      (("beta1", "FLOAT", 0.9), ("beta2", "FLOAT", 0.999), ("epsilon", "FLOAT", 1e-8),
       ("multi_precision", "BOOLEAN", False), ("use_global_beta_pow", "BOOLEAN", False)),
      infer=_merged_infer("merged_adam", {"Grad": 1, "LearningRate": 2, "Moment1": 3,
                                          "Moment2": 4, "Beta1Pow": 5, "Beta2Pow": 6},
                          lambda m: (m[0], m[3], m[4], m[5], m[6], m[7] or None)),
      inplace={"ParamOut": "Param", "Moment1Out": "Moment1", "Moment2Out": "Moment2",
               "Beta1PowOut": "Beta1Pow", "Beta2PowOut": "Beta2Pow",
               "MasterParamOut": "MasterParam"},
      no_grad_inputs=("Param", "Grad", "LearningRate", "Moment1", "Moment2", "Beta1Pow",
                      "Beta2Pow", "MasterParam"))

defop("sampan_merged_sgd", "Param* LearningRate* Grad*", "ParamOut*",
      infer=_merged_infer("sampan_merged_sgd", {"LearningRate": 1, "Grad": 2},
                          lambda m: (m[0],)),
      inplace={"ParamOut": "Param"}, no_grad_inputs=("Param", "LearningRate", "Grad"))
