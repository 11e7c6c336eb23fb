"""numpy kernels of the extra loss ops: log_loss (float32 only, as Paddle
registers it)."""
import numpy as np

from ...ops import OpError
from ..registry import kernel


@kernel("log_loss", dtypes=("float32",))
def log_loss(ins, attrs, need):
    p, lab = ins
    if p.ndim != 2:
        raise OpError(f"log_loss: the dimensions of Input(Predicted) must be 2, but received "
                      f"shape {list(p.shape)}")
    if p.shape[1] != 1:
        raise OpError(f"log_loss: each row of Input(Predicted) contains a real value, so the "
                      f"2nd dimension of Input(Predicted) must be 1, but got {p.shape[1]}")
    if p.shape != lab.shape:
        raise OpError(f"log_loss: Predicted {list(p.shape)} and Labels {list(lab.shape)} must "
                      f"have the same shape")
    eps = np.asarray(attrs["epsilon"], p.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = -lab * np.log(p + eps) - (1 - lab) * np.log(1 - p + eps)
    return (out.astype(p.dtype, copy=False),)


@kernel("log_loss_grad", dtypes=("float32",))
def log_loss_grad(ins, attrs, need):
    p, lab, g = ins
    eps = np.asarray(attrs["epsilon"], p.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = g * (-lab / (p + eps) + (1 - lab) / (1 - p + eps))
    return (d.astype(p.dtype, copy=False),)


# ------------------------------------------------------------------ warpctc
def _lse(*xs):
    """log(sum(exp(x))) over arrays of one shape, -inf where all are -inf."""
    m = np.maximum.reduce(xs)
    safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(sum(np.exp(x - safe) for x in xs))


def _shift(a, k):
    """``a`` moved k places right (k < 0: left), -inf where nothing moves in."""
    out = np.full(a.shape, -np.inf)
    n = len(a)
    if k >= 0 and k < n:
        out[k:] = a[:n - k]
    elif k < 0 and -k < n:
        out[:k] = a[-k:]
    return out


def _ctc_one(lp, lab, blank):
    """CTC of one sequence: log-probabilities ``lp`` [T, C] (log-softmax of the
    logits), labels ``lab``.  Returns (loss, d loss / d logits [T, C])."""
    t_len = lp.shape[0]
    ext = np.full(2 * len(lab) + 1, blank, dtype=np.int64)
    ext[1::2] = lab
    s_len = len(ext)
    # transitions from s - 2 skip a blank between two different labels
    skip = np.zeros(s_len, bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    ninf = -np.inf
    e = lp[:, ext]                                   # [T, S]
    alpha = np.full((t_len, s_len), ninf)
    beta = np.full((t_len, s_len), ninf)
    alpha[0, 0] = e[0, 0]
    if s_len > 1:
        alpha[0, 1] = e[0, 1]
    for t in range(1, t_len):
        a = alpha[t - 1]
        a2 = np.where(skip, _shift(a, 2), ninf)
        alpha[t] = _lse(a, _shift(a, 1), a2) + e[t]
    beta[-1, -1] = e[-1, -1]
    if s_len > 1:
        beta[-1, -2] = e[-1, -2]
    skip_next = np.zeros(s_len, bool)                 # s -> s + 2 allowed
    skip_next[:-2] = skip[2:]
    for t in range(t_len - 2, -1, -1):
        b = beta[t + 1]
        b2 = np.where(skip_next, _shift(b, -2), ninf)
        beta[t] = _lse(b, _shift(b, -1), b2) + e[t]
    logp = _lse(alpha[-1, -1], alpha[-1, -2]) if s_len > 1 else alpha[-1, -1]
    # posterior of each class at each step: sum over s with ext[s] == c of
    # alpha * beta / y (alpha and beta both hold y[t, ext[s]])
    ab = alpha + beta - e                              # [T, S], log
    post = np.full(lp.shape, ninf)
    for c in np.unique(ext):
        cols = ab[:, ext == c]
        post[:, c] = _lse(*cols.T)
    with np.errstate(invalid="ignore", over="ignore"):
        grad = np.exp(lp) - np.exp(post - logp)
    return -logp, grad


def _ctc_args(ins, attrs):
    logits, label, logits_len, label_len = ins
    if logits_len is None or label_len is None:
        raise OpError("warpctc: LogitsLength and LabelLength must be given (sampan has no "
                      "LoD tensors)")
    if logits.ndim != 3 or label.ndim != 2:
        raise OpError(f"warpctc: Logits must be 3-D and Label 2-D, got shapes "
                      f"{list(logits.shape)} and {list(label.shape)}")
    t_max, batch, n_class = logits.shape
    blank = attrs["blank"]
    if not 0 <= blank < n_class:
        raise OpError(f"warpctc: blank must be in [0, {n_class}), got {blank}")
    if label.shape[0] != batch or logits_len.size != batch or label_len.size != batch:
        raise OpError(f"warpctc: Label, LogitsLength and LabelLength must have batch_size "
                      f"{batch} rows, got {label.shape[0]}, {logits_len.size} and "
                      f"{label_len.size}")
    lens = logits_len.reshape(-1).astype(np.int64)
    llens = label_len.reshape(-1).astype(np.int64)
    if (lens < 1).any() or (lens > t_max).any():
        raise OpError(f"warpctc: LogitsLength must be in [1, {t_max}], got {lens.tolist()}")
    if (llens < 0).any() or (llens > label.shape[1]).any():
        raise OpError(f"warpctc: LabelLength must be in [0, {label.shape[1]}], got "
                      f"{llens.tolist()}")
    return logits, label, lens, llens, blank


@kernel("warpctc", dtypes=("float32", "float64"))
def warpctc(ins, attrs, need):
    logits, label, lens, llens, blank = _ctc_args(ins, attrs)
    t_max, batch, n_class = logits.shape
    x = logits.astype(np.float64)
    loss = np.zeros((batch, 1), np.float64)
    grad = np.zeros(x.shape, np.float64)
    for b in range(batch):
        tb = int(lens[b])
        z = x[:tb, b]
        z = z - z.max(axis=1, keepdims=True)
        lp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        lab = label[b, :int(llens[b])].astype(np.int64)
        if ((lab < 0) | (lab >= n_class)).any():
            raise OpError(f"warpctc: label values must be in [0, {n_class}), got "
                          f"{lab.tolist()} in row {b}")
        loss[b, 0], grad[:tb, b] = _ctc_one(lp, lab, blank)
    return loss.astype(logits.dtype), grad.astype(logits.dtype)


@kernel("warpctc_grad", dtypes=("float32", "float64"))
def warpctc_grad(ins, attrs, need):
    wgrad, logits, logits_len, gloss = ins
    scale = gloss.reshape(1, -1, 1).astype(wgrad.dtype)
    if attrs["norm_by_times"] and logits_len is not None:
        scale = scale / logits_len.reshape(1, -1, 1).astype(wgrad.dtype)
    return ((wgrad * scale).astype(logits.dtype, copy=False),)


# ------------------------------------------------------------------ hierarchical_sigmoid
def _hs_paths(label, num_classes, table, code):
    """(node index [N, width], bit [N, width] bool, on-path mask [N, width]):
    the default complete binary tree (Paddle's SimpleCode: c = label +
    num_classes, node (c >> (j + 1)) - 1, bit c & (1 << j)) or the custom
    tree of PathTable / PathCode (a path ends at its first negative node)."""
    lab = label.reshape(-1).astype(np.int64)
    if table is not None:
        idx = table.astype(np.int64)
        mask = np.cumprod(idx >= 0, axis=1).astype(bool)
        bits = (code.astype(np.int64) != 0) & mask
        return np.where(mask, idx, 0), bits, mask
    width = max(num_classes - 1, 1).bit_length()
    if ((lab < 0) | (lab >= num_classes)).any():
        raise OpError(f"hierarchical_sigmoid: labels must be in [0, {num_classes}), got "
                      f"{lab.tolist()}")
    c = lab + num_classes
    length = np.array([int(v).bit_length() - 1 for v in c])
    j = np.arange(width)
    mask = j[None, :] < length[:, None]
    idx = np.where(mask, (c[:, None] >> (j[None, :] + 1)) - 1, 0)
    bits = ((c[:, None] >> j[None, :]) & 1).astype(bool) & mask
    return idx, bits, mask


@kernel("hierarchical_sigmoid", dtypes=("float32", "float64"))
def hierarchical_sigmoid(ins, attrs, need):
    x, w, label, table, code, bias = ins
    idx, bits, mask = _hs_paths(label, int(attrs["num_classes"]), table, code)
    if mask.any() and idx[mask].max() >= w.shape[0]:
        raise OpError(f"hierarchical_sigmoid: a path reaches node {int(idx[mask].max())} but "
                      f"W has {w.shape[0]} rows")
    pre = np.einsum("nkd,nd->nk", w[idx], x)
    if bias is not None:
        pre = pre + bias.reshape(-1)[idx]
    pre = np.clip(np.where(mask, pre, 0), -40.0, 40.0)
    out = -np.where(bits, pre, 0).sum(axis=1, keepdims=True)
    pre = np.log1p(np.exp(pre))
    # Paddle sums the softplus over the whole width, the off-path zeros too
    out = out + pre.sum(axis=1, keepdims=True)
    return out.astype(x.dtype), pre.astype(x.dtype), w


@kernel("hierarchical_sigmoid_grad", dtypes=("float32", "float64"))
def hierarchical_sigmoid_grad(ins, attrs, need):
    x, w, label, table, code, bias, pre, gout = ins
    idx, bits, mask = _hs_paths(label, int(attrs["num_classes"]), table, code)
    g = 1.0 - 1.0 / np.exp(pre)                       # sigmoid of the clipped logits
    g = np.where(mask, (g - bits) * gout.reshape(-1, 1), 0)
    gx = np.einsum("nk,nkd->nd", g, w[idx]).astype(x.dtype)
    gw = np.zeros_like(w)
    np.add.at(gw, idx[mask], g[mask][:, None] * np.broadcast_to(
        x[:, None, :], idx.shape + (x.shape[1],))[mask])
    gb = None
    if bias is not None and (need is None or need[2]):
        gb = np.zeros(bias.size, bias.dtype)
        np.add.at(gb, idx[mask], g[mask])
        gb = gb.reshape(bias.shape)
    return gx, gw.astype(w.dtype), gb


# ------------------------------------------------------------------ warprnnt
def _rnnt_one(lp, lab, blank, lam):
    """RNN-T of one sequence over log-probabilities ``lp`` [T, U, V] (used as
    given: Paddle's CPU warprnnt applies no log-softmax) and labels ``lab``
    (U - 1 of them).  Returns (loss, gradient [T, U, V]); FastEmit scales the
    label transitions' gradient by 1 + lambda (not the loss)."""
    t_len, u_len, _ = lp.shape
    ninf = -np.inf
    lp_blank = lp[:, :, blank]                                   # [T, U]
    lp_label = np.full((t_len, u_len), ninf)
    if u_len > 1:
        lp_label[:, :-1] = lp[:, np.arange(u_len - 1), lab]      # emit lab[u] at (t, u)
    alpha = np.full((t_len, u_len), ninf)
    beta = np.full((t_len, u_len), ninf)
    for t in range(t_len):
        for u in range(u_len):
            if t == 0 and u == 0:
                alpha[0, 0] = 0.0
                continue
            a = alpha[t - 1, u] + lp_blank[t - 1, u] if t > 0 else ninf
            b = alpha[t, u - 1] + lp_label[t, u - 1] if u > 0 else ninf
            alpha[t, u] = _lse(np.asarray(a), np.asarray(b))
    loglike = alpha[-1, -1] + lp_blank[-1, -1]
    for t in range(t_len - 1, -1, -1):
        for u in range(u_len - 1, -1, -1):
            if t == t_len - 1 and u == u_len - 1:
                beta[t, u] = lp_blank[t, u]
                continue
            a = beta[t + 1, u] + lp_blank[t, u] if t < t_len - 1 else ninf
            b = beta[t, u + 1] + lp_label[t, u] if u < u_len - 1 else ninf
            beta[t, u] = _lse(np.asarray(a), np.asarray(b))
    grad = np.zeros(lp.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        gb = np.zeros((t_len, u_len))
        gb[:-1] = -np.exp(alpha[:-1] + lp_blank[:-1] + beta[1:] - loglike)
        gb[-1, -1] = -np.exp(alpha[-1, -1] + lp_blank[-1, -1] - loglike)
        grad[:, :, blank] += gb
        if u_len > 1:
            gl = -(1.0 + lam) * np.exp(alpha[:, :-1] + lp_label[:, :-1] + beta[:, 1:]
                                       - loglike)
            for u in range(u_len - 1):
                grad[:, u, lab[u]] += gl[:, u]
    return -loglike, grad


@kernel("warprnnt", dtypes=("float32", "float64"))
def warprnnt(ins, attrs, need):
    x, label, in_len, lab_len = ins
    if x.ndim != 4 or label.ndim != 2:
        raise OpError(f"warprnnt: input must be 4-D and label 2-D, got shapes "
                      f"{list(x.shape)} and {list(label.shape)}")
    batch, t_max, u_max, n_class = x.shape
    blank = attrs["blank"]
    if not 0 <= blank < n_class:
        raise OpError(f"warprnnt: blank must be in [0, {n_class}), got {blank}")
    lens = in_len.reshape(-1).astype(np.int64)
    llens = lab_len.reshape(-1).astype(np.int64)
    if lens.size != batch or llens.size != batch or label.shape[0] != batch:
        raise OpError(f"warprnnt: label, input_lengths and label_lengths must have "
                      f"{batch} rows")
    if (lens < 1).any() or (lens > t_max).any() or (llens < 0).any() \
            or (llens + 1 > u_max).any() or (llens > label.shape[1]).any():
        raise OpError(f"warprnnt: lengths out of range: input_lengths {lens.tolist()} "
                      f"(at most {t_max}), label_lengths {llens.tolist()} (at most "
                      f"{min(u_max - 1, label.shape[1])})")
    lam = float(attrs["fastemit_lambda"])
    loss = np.zeros(batch, np.float64)
    grad = np.zeros(x.shape, np.float64)
    for b in range(batch):
        tb, ub = int(lens[b]), int(llens[b]) + 1
        lab = label[b, :ub - 1].astype(np.int64)
        if ((lab < 0) | (lab >= n_class)).any():
            raise OpError(f"warprnnt: label values must be in [0, {n_class}), got "
                          f"{lab.tolist()} in row {b}")
        loss[b], grad[b, :tb, :ub] = _rnnt_one(x[b, :tb, :ub].astype(np.float64), lab,
                                               blank, lam)
    return loss.astype(x.dtype), grad.astype(x.dtype)


@kernel("warprnnt_grad", dtypes=("float32", "float64"))
def warprnnt_grad(ins, attrs, need):
    x, in_len, wgrad, gloss = ins
    return ((wgrad * gloss.reshape(-1, 1, 1, 1)).astype(x.dtype, copy=False),)


# ------------------------------------------------------------------ margin_cross_entropy
def _mce_check(x, label, attrs):
    if attrs["nranks"] != 1:
        raise OpError("margin_cross_entropy: sampan runs one rank (nranks must be 1), got "
                      f"nranks={attrs['nranks']}")
    lab = label.reshape(-1).astype(np.int64)
    if x.ndim != 2 or lab.size != x.shape[0]:
        raise OpError(f"margin_cross_entropy: Logits [N, C] and Label [N, 1] expected, got "
                      f"{list(x.shape)} and {list(label.shape)}")
    if ((lab < 0) | (lab >= x.shape[1])).any():
        raise OpError(f"margin_cross_entropy: label values must be in [0, {x.shape[1]}), "
                      f"got {lab.tolist()}")
    return lab


@kernel("margin_cross_entropy", dtypes=("float16", "float32", "float64"))
def margin_cross_entropy(ins, attrs, need):
    """Paddle's GPU kernel on one rank: the label's cosine x becomes
    cos(m1 * acos(x) + m2) - m3, every logit is multiplied by scale, then
    softmax cross entropy."""
    x, label = ins
    lab = _mce_check(x, label, attrs)
    rows = np.arange(x.shape[0])
    z = x.astype(np.float64)
    t = np.clip(z[rows, lab], -1.0, 1.0)
    z[rows, lab] = np.cos(attrs["margin1"] * np.arccos(t) + attrs["margin2"]) \
        - attrs["margin3"]
    z = z * attrs["scale"]
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    loss = -logp[rows, lab].reshape(-1, 1)
    return np.exp(logp).astype(x.dtype), loss.astype(x.dtype)


@kernel("margin_cross_entropy_grad", dtypes=("float32", "float64"))
def margin_cross_entropy_grad(ins, attrs, need):
    x, label, softmax, gloss = ins
    lab = _mce_check(x, label, attrs)
    rows = np.arange(x.shape[0])
    g = softmax.astype(np.float64).copy()
    g[rows, lab] -= 1.0
    g = g * gloss.reshape(-1, 1)
    m1, m2 = attrs["margin1"], attrs["margin2"]
    if abs(m1 - 1.0) > 1e-8 or abs(m2) > 1e-8:
        t = x[rows, lab].astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            g[rows, lab] *= m1 * np.sin(m1 * np.arccos(t) + m2) / np.sqrt(1.0 - t * t)
    return ((g * attrs["scale"]).astype(x.dtype),)
