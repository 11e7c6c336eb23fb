"""Op-spec cases: sampan_fc, sampan_fc_packed, sampan_conv2d_fusion,
sampan_conv2d_winograd, sampan_conv2d_packed and sampan_concat_shuffle (the
fused ops of the inference passes), against numpy references (conv: a direct
loop over windows; concat_shuffle: concat, reshape, transpose, split)."""
import numpy as np

from .spec import Case, rand


def _fc(relu):
    def ref(Input, W, Bias):
        out = np.matmul(Input, W) + Bias
        return np.maximum(out, 0) if relu else out
    return ref


CASES = [
    Case("sampan_fc", {"Input": rand(4, 3, seed=1), "W": rand(3, 5, seed=2),
                       "Bias": rand(5, seed=3)}, ref=_fc(False), grad=False),
    Case("sampan_fc", {"Input": rand(2, 4, 3, seed=4), "W": rand(3, 5, seed=5),
                       "Bias": rand(5, seed=6)}, {"activation_type": "relu"},
         ref=_fc(True), grad=False, id="sampan_fc_relu_3d"),
]


def _conv_ref(act, alpha=0.0, stride=1, pad=1, groups=1):
    def ref(Input, Filter, Bias):
        n, c, h, w = Input.shape
        o, cg, kh, kw = Filter.shape
        x = np.pad(Input.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        ho = (h + 2 * pad - kh) // stride + 1
        wo = (w + 2 * pad - kw) // stride + 1
        out = np.zeros((n, o, ho, wo))
        per = o // groups
        for oc in range(o):
            g = oc // per
            xs = x[:, g * cg:(g + 1) * cg]
            for i in range(ho):
                for j in range(wo):
                    win = xs[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
                    out[:, oc, i, j] = (win * Filter[oc]).sum(axis=(1, 2, 3))
        out += Bias.reshape(1, o, 1, 1)
        acts = {"": lambda v: v, "relu": lambda v: np.maximum(v, 0),
                "relu6": lambda v: np.clip(v, 0, 6), "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
                "hard_swish": lambda v: v * np.clip(v + 3, 0, 6) / 6,
                "swish": lambda v: v / (1 + np.exp(-v)),
                "leaky_relu": lambda v: np.where(v > 0, v, v * alpha)}
        return acts[act](out).astype(Input.dtype)
    return ref


def _conv_case(act, stride=1, groups=1, alpha=0.0, seed=10):
    c = 4
    return Case("sampan_conv2d_fusion",
                {"Input": rand(2, c, 6, 5, seed=seed) * 3,
                 "Filter": rand(6, c // groups, 3, 3, seed=seed + 1),
                 "Bias": rand(6, seed=seed + 2)},
                {"strides": [stride, stride], "paddings": [1, 1], "groups": groups,
                 "activation": act, "alpha": alpha},
                ref=_conv_ref(act, alpha, stride, 1, groups), grad=False,
                id=f"sampan_conv2d_fusion_{act or 'none'}_s{stride}_g{groups}")


CASES += [_conv_case(a) for a in ("", "relu", "relu6", "sigmoid", "hard_swish", "swish")]
CASES += [_conv_case("leaky_relu", alpha=0.1), _conv_case("relu", stride=2),
          _conv_case("hard_swish", groups=2)]


def _winograd_case(act, shape, seed, k=3):
    """sampan_conv2d_winograd takes the filter the pass transformed (a k x k
    one: F(4x4, 3x3) or F(2x2, 5x5)); the reference convolves with the original
    one (rounding of the transforms: rtol 3e-5)."""
    from sampan.kernels.cpu.winograd import filter_transform
    n, c, h, w = shape
    filt = rand(5, c, k, k, seed=seed + 1)
    return Case("sampan_conv2d_winograd",
                {"Input": rand(*shape, seed=seed) * 3, "Filter": filter_transform(filt),
                 "Bias": rand(5, seed=seed + 2)},
                {"paddings": [k // 2, k // 2], "activation": act, "kernel_size": k},
                ref=lambda Input, Filter, Bias: _conv_ref(act, pad=k // 2)(Input, filt, Bias),
                grad=False, rtol=3e-5, atol=3e-5,
                id=f"sampan_conv2d_winograd{k}_{act or 'none'}_{h}x{w}")


CASES += [_winograd_case("", (2, 4, 6, 5), 20), _winograd_case("relu", (1, 3, 9, 11), 30),
          _winograd_case("hard_swish", (3, 2, 4, 4), 40),
          _winograd_case("relu6", (2, 3, 7, 9), 80, k=5),
          _winograd_case("swish", (1, 2, 5, 4), 90, k=5)]


def _packed_fc_case(relu, lead, seed, plain=False):
    """sampan_fc_packed takes W in column blocks of 32, each block's K rows
    contiguous (a host whose GEMM kernel has another block width unpacks it);
    ``plain``: W as it was in the optional Plain slot too."""
    k, n, blk = 6, 40, 32
    w = rand(k, n, seed=seed + 1)
    packed = np.zeros((2, k, blk), w.dtype)
    for j in range(2):
        part = w[:, j * blk:(j + 1) * blk]
        packed[j, :, :part.shape[1]] = part
    ins = {"Input": rand(*lead, k, seed=seed), "W": packed, "Bias": rand(n, seed=seed + 2)}
    if plain:
        ins["Plain"] = w
    return Case("sampan_fc_packed", ins,
                {"activation_type": "relu" if relu else "", "out_features": n},
                ref=lambda Input, W, Bias, Plain=None: _fc(relu)(Input, w, Bias), grad=False,
                rtol=1e-5, atol=1e-5,
                id=f"sampan_fc_packed_{'relu' if relu else 'none'}{'_plain' if plain else ''}")


CASES += [_packed_fc_case(False, (3,), 50), _packed_fc_case(True, (2, 5), 60),
          _packed_fc_case(True, (4,), 70, plain=True)]


def _packed_case(act, stride, n, seed, dtype="float64", k=1, groups=1, c=5, o=70,
                 in_map=False):
    """sampan_conv2d_packed takes the filter and, per group, its (K, O/g)
    transpose in column blocks of the transposed GEMM kernels' width (16, 32 or
    48 with AVX-512; a host without those kernels runs the filter as it is)."""
    from sampan.kernels.cpu import gemm_transposed
    og = o // groups
    filt = rand(o, c // groups, k, k, seed=seed + 1, dtype=dtype)
    width = gemm_transposed.width(og) if gemm_transposed.available() else 48
    kk = filt[0].size
    packed = np.zeros((groups, -(-og // width), kk, width), filt.dtype)
    for g in range(groups):
        wt = filt[g * og:(g + 1) * og].reshape(og, kk).T
        for j in range(packed.shape[1]):
            part = wt[:, j * width:(j + 1) * width]
            packed[g, j, :, :part.shape[1]] = part
    pad = k // 2
    ins = {"Input": rand(n, c, 6, 7, seed=seed, dtype=dtype) * 3, "Filter": filt,
           "PackedFilter": packed, "Bias": rand(o, seed=seed + 2, dtype=dtype)}
    attrs = {"strides": [stride, stride], "paddings": [pad, pad], "groups": groups,
             "activation": act}
    conv = _conv_ref(act, stride=stride, pad=pad, groups=groups)

    def ref(Input, Filter, PackedFilter, Bias, InScale=None, InShift=None):
        if InScale is not None:     # DenseNet's BN-ReLU before the conv
            Input = np.maximum(Input * InScale[:, None, None] + InShift[:, None, None], 0)
        return conv(Input, Filter, Bias)

    if in_map:
        ins.update(InScale=rand(c, seed=seed + 3, dtype=dtype) + 1.5,
                   InShift=rand(c, seed=seed + 4, dtype=dtype))
        attrs["in_activation"] = "relu"
    return Case("sampan_conv2d_packed", ins, attrs, ref=ref, grad=False, rtol=1e-5, atol=1e-5,
                id=f"sampan_conv2d_packed_{act or 'none'}_k{k}_g{groups}_s{stride}_n{n}_{dtype}"
                   + ("_in_map" if in_map else ""))


CASES += [_packed_case("relu", 1, 1, 70, "float32"), _packed_case("", 2, 2, 80, "float32"),
          _packed_case("relu", 1, 1, 75), _packed_case("hard_swish", 1, 2, 90),
          _packed_case("relu6", 2, 1, 100, "float32", k=3, groups=2, c=6, o=40),
          _packed_case("", 1, 2, 110, "float32", k=3, c=4, o=20),
          _packed_case("relu", 1, 1, 120, "float32", in_map=True),
          _packed_case("", 1, 2, 130, in_map=True)]


def _concat_shuffle_ref(g, sections):
    def ref(X):
        y = np.concatenate(X, axis=1)
        n, c = y.shape[:2]
        z = y.reshape((n, g, c // g) + y.shape[2:]).swapaxes(1, 2).reshape(y.shape)
        return tuple([np.split(z, np.cumsum(sections)[:-1], axis=1)])
    return ref


CASES += [
    Case("sampan_concat_shuffle", {"X": [rand(2, 4, 3, 3, seed=90), rand(2, 4, 3, 3, seed=91)]},
         {"group": 2, "sections": [4, 4]}, ref=_concat_shuffle_ref(2, [4, 4]), grad=False),
    Case("sampan_concat_shuffle", {"X": [rand(1, 2, 5, seed=92), rand(1, 4, 5, seed=93)]},
         {"group": 3, "sections": [6]}, ref=_concat_shuffle_ref(3, [6]), grad=False,
         id="sampan_concat_shuffle_3d_one_output"),
]
