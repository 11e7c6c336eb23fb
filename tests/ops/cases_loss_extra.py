"""Op-spec cases of the extra loss ops: log_loss (float32 only, as Paddle
registers it)."""
import numpy as np

from .spec import Case, rand


def ref_log_loss(Predicted, Labels, eps=1e-4):
    return (-Labels * np.log(Predicted + eps)
            - (1 - Labels) * np.log(1 - Predicted + eps)).astype(Predicted.dtype)


P = rand(5, 1, low=0.1, high=0.9, seed=301).astype("float32")
L = (rand(5, 1, seed=302) > 0).astype("float32")

CASES = [
    Case("log_loss", {"Predicted": P, "Labels": L}, {"epsilon": 1e-4},
         ref=ref_log_loss, grad=("Predicted",), rtol=1e-5, atol=1e-5, grad_tol=2e-2,
         eps=1e-3),
    Case("log_loss", {"Predicted": P, "Labels": rand(5, 1, low=0, high=1, seed=303)
                      .astype("float32")}, {"epsilon": 0.01},
         ref=lambda Predicted, Labels: ref_log_loss(Predicted, Labels, 0.01),
         grad=("Predicted",), atol=1e-5, grad_tol=2e-2, eps=1e-3, id="log_loss_soft_eps"),
]


# ------------------------------------------------------------------ warpctc
def _collapse(path, blank):
    out, prev = [], None
    for p in path:
        if p != prev and p != blank:
            out.append(p)
        prev = p
    return out


def ref_warpctc(Logits, Label, LogitsLength, LabelLength, attrs):
    """Brute force: -log of the summed probability of every path (softmax over
    classes at each step) that collapses to the label."""
    import itertools
    blank = attrs.get("blank", 0)
    t_max, batch, n_class = Logits.shape
    loss = np.zeros((batch, 1), Logits.dtype)
    for b in range(batch):
        tb, lb = int(LogitsLength[b]), int(LabelLength[b])
        z = Logits[:tb, b].astype(np.float64)
        p = np.exp(z - z.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        want = list(Label[b, :lb])
        total = 0.0
        for path in itertools.product(range(n_class), repeat=tb):
            if _collapse(path, blank) == want:
                total += np.prod([p[t, c] for t, c in enumerate(path)])
        loss[b, 0] = -np.log(total)
    return loss


CTC_X = rand(4, 2, 3, seed=311)
CASES += [
    Case("warpctc", {"Logits": CTC_X, "Label": np.array([[1, 2], [2, 2]], "int32"),
                     "LogitsLength": np.array([4, 4], "int64"),
                     "LabelLength": np.array([2, 2], "int64")},
         {"blank": 0, "norm_by_times": False}, ref=ref_warpctc, grad=("Logits",),
         id="warpctc_repeat"),
    Case("warpctc", {"Logits": rand(5, 3, 3, seed=312),
                     "Label": np.array([[1, 0], [0, 0], [1, 1]], "int32"),
                     "LogitsLength": np.array([5, 3, 4], "int64"),
                     "LabelLength": np.array([2, 0, 1], "int64")},
         {"blank": 2, "norm_by_times": False}, ref=ref_warpctc, grad=("Logits",),
         id="warpctc_lengths_blank"),
    # norm_by_times scales the gradient by 1 / LogitsLength and not the loss (as
    # Paddle's warpctc_grad does), so no finite-difference check: the scaled
    # gradient is compared with Paddle's in conformance (ctc_loss.norm_by_times.*)
    Case("warpctc", {"Logits": rand(5, 2, 3, seed=314),
                     "Label": np.array([[1, 0], [1, 1]], "int32"),
                     "LogitsLength": np.array([5, 3], "int64"),
                     "LabelLength": np.array([2, 1], "int64")},
         {"blank": 2, "norm_by_times": True}, ref=ref_warpctc, grad=False,
         id="warpctc_norm_by_times"),
    Case("warpctc", {"Logits": rand(4, 2, 3, seed=313).astype("float32"),
                     "Label": np.array([[1], [2]], "int32"),
                     "LogitsLength": np.array([4, 2], "int64"),
                     "LabelLength": np.array([1, 1], "int64")},
         ref=ref_warpctc, grad=("Logits",), rtol=1e-5, atol=1e-5, grad_tol=2e-2, eps=1e-3,
         id="warpctc_float32"),
]


# ------------------------------------------------------------------ hierarchical_sigmoid
def ref_hsigmoid(X, W, Label, attrs, Bias=None, PathTable=None, PathCode=None):
    """Loop form: the sum over the path's nodes of softplus(z) - bit * z, plus
    log(2) for each position of the code width off the path (Paddle sums the
    softplus over the whole width)."""
    n_cls = attrs["num_classes"]
    lab = Label.reshape(-1)
    out = np.zeros((len(lab), 1))
    if PathTable is None:
        width = (n_cls - 1).bit_length()
    else:
        width = PathTable.shape[1]
    for i, y in enumerate(lab):
        if PathTable is None:
            c = int(y) + n_cls
            path = [((c >> (j + 1)) - 1, (c >> j) & 1) for j in range(c.bit_length() - 1)]
        else:
            path = []
            for node, bit in zip(PathTable[i], PathCode[i]):
                if node < 0:
                    break
                path.append((int(node), int(bit != 0)))
        total = (width - len(path)) * np.log(2.0)
        for node, bit in path:
            z = W[node] @ X[i] + (Bias[node, 0] if Bias is not None else 0.0)
            total += np.log1p(np.exp(z)) - bit * z
        out[i, 0] = total
    return out.astype(X.dtype)


HS_X = rand(4, 3, seed=321)
CASES += [
    Case("hierarchical_sigmoid", {"X": HS_X, "W": rand(5, 3, seed=322),
                                  "Label": np.array([0, 3, 5, 2], "int64"),
                                  "Bias": rand(5, 1, seed=323)},
         {"num_classes": 6}, ref=ref_hsigmoid, grad=("X", "W", "Bias"),
         outputs=("Out",), grad_outputs=("Out",), id="hsigmoid_default_tree"),
    Case("hierarchical_sigmoid", {"X": rand(3, 3, seed=324), "W": rand(4, 3, seed=325),
                                  "Label": np.array([[1], [2], [0]], "int64"),
                                  "PathTable": np.array([[0, 1, -1], [0, 2, 3], [0, 1, -1]]),
                                  "PathCode": np.array([[1, 0, -1], [0, 1, 1], [0, 1, -1]])},
         {"num_classes": 4}, ref=ref_hsigmoid, grad=("X", "W"),
         outputs=("Out",), grad_outputs=("Out",), id="hsigmoid_custom_tree"),
]


# ------------------------------------------------------------------ warprnnt
def ref_warprnnt(input, label, input_lengths, label_lengths, attrs):
    """Brute force: -log of the summed probability of every monotone path on
    the (t, u) lattice (blank: t + 1, label u: u + 1, a final blank at the
    corner), the input used as log-probabilities as Paddle's CPU op does."""
    import itertools
    blank = attrs.get("blank", 0)
    out = np.zeros(input.shape[0], input.dtype)
    for b in range(input.shape[0]):
        tb, ub = int(input_lengths[b]), int(label_lengths[b])
        lp = input[b].astype(np.float64)
        total = 0.0
        # choose the steps (among tb - 1 + ub moves) that emit labels
        for emits in itertools.combinations(range(tb - 1 + ub), ub):
            t = u = 0
            s = 0.0
            for k in range(tb - 1 + ub):
                if k in emits:
                    s += lp[t, u, label[b, u]]
                    u += 1
                else:
                    s += lp[t, u, blank]
                    t += 1
            s += lp[tb - 1, ub, blank]
            total += np.exp(s)
        out[b] = -np.log(total)
    return out


def _log_softmax(x):
    z = x - x.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


CASES += [
    Case("warprnnt", {"input": _log_softmax(rand(2, 4, 3, 5, seed=331)),
                      "label": np.array([[1, 2], [3, 0]], "int32"),
                      "input_lengths": np.array([4, 3], "int32"),
                      "label_lengths": np.array([2, 1], "int32")},
         {"blank": 0, "fastemit_lambda": 0.0}, ref=ref_warprnnt, grad=("input",),
         id="warprnnt_lengths"),
    Case("warprnnt", {"input": rand(1, 3, 3, 4, seed=332),
                      "label": np.array([[0, 1]], "int32"),
                      "input_lengths": np.array([3], "int32"),
                      "label_lengths": np.array([2], "int32")},
         {"blank": 3, "fastemit_lambda": 0.0}, ref=ref_warprnnt, grad=("input",),
         id="warprnnt_blank_last"),
    # FastEmit scales the label transitions' gradient by 1 + lambda and not the
    # loss (as Paddle's op), so no finite-difference check: conformance
    # rnnt_loss.fastemit.* compares that gradient with Paddle's
    Case("warprnnt", {"input": rand(1, 3, 2, 3, seed=333).astype("float32"),
                      "label": np.array([[2]], "int32"),
                      "input_lengths": np.array([3], "int32"),
                      "label_lengths": np.array([1], "int32")},
         {"blank": 0, "fastemit_lambda": 0.5}, ref=ref_warprnnt, grad=False,
         rtol=1e-5, atol=1e-5, id="warprnnt_fastemit_float32"),
]


# ------------------------------------------------------------------ margin_cross_entropy
def ref_mce(Logits, Label, attrs):
    m1, m2, m3, s = (attrs.get(k, d) for k, d in (("margin1", 1.0), ("margin2", 0.5),
                                                  ("margin3", 0.0), ("scale", 64.0)))
    lab = Label.reshape(-1)
    z = Logits.astype(np.float64).copy()
    r = np.arange(len(lab))
    z[r, lab] = np.cos(m1 * np.arccos(z[r, lab]) + m2) - m3
    z *= s
    e = np.exp(z - z.max(1, keepdims=True))
    p = e / e.sum(1, keepdims=True)
    return p, -np.log(p[r, lab]).reshape(-1, 1)


CASES += [
    Case("margin_cross_entropy", {"Logits": rand(4, 5, low=-0.9, high=0.9, seed=341),
                                  "Label": np.array([[1], [0], [4], [2]])},
         {"margin1": 1.0, "margin2": 0.5, "margin3": 0.0, "scale": 4.0}, ref=ref_mce,
         grad=("Logits",), grad_outputs=("Loss",), id="mce_arcface"),
    Case("margin_cross_entropy", {"Logits": rand(3, 4, low=-0.9, high=0.9, seed=342),
                                  "Label": np.array([[3], [3], [0]], "int32")},
         {"margin1": 0.8, "margin2": 0.1, "margin3": 0.2, "scale": 2.0}, ref=ref_mce,
         grad=("Logits",), grad_outputs=("Loss",), id="mce_margins"),
]
