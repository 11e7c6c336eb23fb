"""numpy kernels of the ops declared in ops/defs/static_builders.py: row_conv,
data_norm, nce (and its samplers), lookup_table, l1_norm, with their grads."""
import numpy as np

from ...ops import OpError
from ...ops.defs.static_builders import dn_channels
from ..random import rng_for
from ..registry import kernel

F = ("float32", "float64")
F32 = ("float16", "float32")          # Paddle's CPU row_conv and l1_norm are float32 only


# ------------------------------------------------------------------ row_conv
def _seq3(x):
    return x[None] if x.ndim == 2 else x


@kernel("row_conv", dtypes=F32)
def row_conv(ins, attrs, need):
    x, f = ins
    x3 = _seq3(x)
    t = x3.shape[1]
    out = np.zeros_like(x3)
    for w in range(min(f.shape[0], t)):
        out[:, :t - w] += x3[:, w:] * f[w]
    return (out.reshape(x.shape),)


@kernel("row_conv_grad", dtypes=F)
def row_conv_grad(ins, attrs, need):
    x, f, g = ins
    x3, g3 = _seq3(x), _seq3(g)
    t = x3.shape[1]
    dx = np.zeros_like(x3) if need is None or need[0] else None
    df = np.zeros_like(f) if need is None or need[1] else None
    for w in range(min(f.shape[0], t)):
        if dx is not None:
            dx[:, w:] += g3[:, :t - w] * f[w]
        if df is not None:
            df[w] = (g3[:, :t - w] * x3[:, w:]).sum(axis=(0, 1))
    return (None if dx is None else dx.reshape(x.shape)), df


# ------------------------------------------------------------------ data_norm
_MIN_PRECISION = 1e-7


def _shown(x, slot_dim):
    """(N, C) bool: the entries of slots whose first entry (the show count) is
    not zero."""
    n, c = x.shape
    heads = x[:, ::slot_dim]
    keep = ~((heads > -_MIN_PRECISION) & (heads < _MIN_PRECISION))
    return np.repeat(keep, slot_dim, axis=1)[:, :c]


@kernel("data_norm", dtypes=F)
def data_norm(ins, attrs, need):
    sw, b, x, bsize, bsum, bsq = ins
    dn_channels(x.shape, attrs)
    means = (bsum / bsize).astype(x.dtype)
    scales = np.sqrt(bsize / bsq).astype(x.dtype)
    y = (x - means) * scales
    if attrs["enable_scale_and_shift"]:
        y = y * sw + b
    slot = attrs["slot_dim"]
    if slot > 0 and x.shape[0] > 0:
        y = np.where(_shown(x, slot), y, 0)
    return y.astype(x.dtype, copy=False), means, scales


@kernel("data_norm_grad", dtypes=F)
def data_norm_grad(ins, attrs, need):
    sw, b, x, means, scales, g = ins
    eps = np.float32(attrs["epsilon"]).astype(x.dtype)
    slot = attrs["slot_dim"]
    scale_shift = attrs["enable_scale_and_shift"]
    n = x.shape[0]
    shown = _shown(x, slot) if slot > 0 and n > 0 else None
    dsw = db = None
    if not scale_shift:
        dx = g * scales
    else:
        gm = g if shown is None else np.where(shown, g, 0)
        dx = gm * scales * sw
        db = gm.sum(axis=0)
        dsw = ((x - means) * scales * gm).sum(axis=0)
    if shown is not None:
        cnt = shown.sum(axis=0).astype(x.dtype)
        s = np.where(shown, x, 0).sum(axis=0)
        sq = np.where(shown, (x - means) ** 2, 0).sum(axis=0)
        seen = cnt >= 1
        safe = np.where(seen, cnt, 1)
        dsize = np.where(seen, 1, 0).astype(x.dtype)
        dsum = np.where(seen, s / safe, 0)
        dsq = np.where(seen, sq / safe + cnt * eps, 0)
    else:
        dsize = np.full(means.shape, n, x.dtype)
        dsum = x.sum(axis=0)
        dsq = ((x - means) ** 2).sum(axis=0) + dsize * eps
    cast = (lambda a: None if a is None else np.asarray(a).astype(x.dtype, copy=False))
    return tuple(cast(a) for a in (dx, dsize, dsum, dsq, dsw, db))


# ------------------------------------------------------------------ nce
class _Sampler:
    """Paddle's samplers over classes [0, k): uniform, log-uniform (Zipf-like:
    P(v) = log((v + 2) / (v + 1)) / log(k)), and a custom distribution drawn
    through its alias table (Walker's method, the tables built by the
    builder)."""

    def __init__(self, attrs, probs, alias, alias_probs):
        self.k = attrs["num_total_classes"]
        self.kind = attrs["sampler"]
        self.probs, self.alias, self.alias_probs = probs, alias, alias_probs
        if self.kind == 2:
            for name, a in (("CustomDistProbs", probs), ("CustomDistAlias", alias),
                            ("CustomDistAliasProbs", alias_probs)):
                if a.size != self.k:
                    raise OpError(f"nce: {name} must hold num_total_classes ({self.k}) "
                                  f"values, got {a.size}")

    def sample(self, rng, shape):
        k = self.k
        if self.kind == 0:
            return rng.integers(0, k, shape)
        if self.kind == 1:
            v = np.exp(rng.uniform(0.0, 1.0, shape) * np.log(k)).astype(np.int64) - 1
            return np.clip(v, 0, k - 1)
        idx = rng.integers(0, k, shape)
        p = rng.uniform(0.0, 1.0, shape)
        alias = self.alias.reshape(-1).astype(np.int64)[idx]
        return np.where((p < self.alias_probs.reshape(-1)[idx]) | (alias < 0), idx, alias)

    def probability(self, v):
        if self.kind == 0:
            return np.full(v.shape, 1.0 / self.k)
        if self.kind == 1:
            return np.log((v + 2.0) / (v + 1.0)) / np.log(self.k)
        return self.probs.reshape(-1)[v].astype(np.float64)


def _labels2(label):
    return label.reshape(label.shape[0], -1)


def _q(attrs, sampler, labels, dtype):
    return (sampler.probability(labels) * attrs["num_neg_samples"]).astype(dtype)


@kernel("nce", dtypes=F)
def nce(ins, attrs, need):
    x, label, w, b, sw, probs, alias, alias_probs = ins
    sampler = _Sampler(attrs, probs, alias, alias_probs)
    lab = _labels2(label).astype(np.int64)
    n, ntrue = lab.shape
    nneg = attrs["num_neg_samples"]
    custom = attrs["custom_neg_classes"]
    if custom:
        neg = np.tile(np.asarray(custom, np.int64), (n, 1))
    else:
        neg = sampler.sample(rng_for(attrs), (n, nneg)).astype(np.int64)
    labels = np.concatenate([lab, neg], axis=1)
    k = attrs["num_total_classes"]
    if labels.size and (labels.min() < 0 or labels.max() >= k):
        bad = labels[(labels < 0) | (labels >= k)].reshape(-1)[0]
        raise OpError(f"nce: label {int(bad)} is out of range [0, {k})")
    logit = np.einsum("nd,nsd->ns", x, w[labels])
    if b is not None:
        logit = logit + b.reshape(-1)[labels]
    o = 1.0 / (1.0 + np.exp(-logit))
    q = _q(attrs, sampler, labels, x.dtype)
    cost = np.concatenate([-np.log(o[:, :ntrue] / (o[:, :ntrue] + q[:, :ntrue])),
                           -np.log(q[:, ntrue:] / (o[:, ntrue:] + q[:, ntrue:]))], axis=1)
    wt = 1.0 if sw is None else sw.reshape(n, 1)
    out = (cost * wt).sum(axis=1, keepdims=True)
    return out.astype(x.dtype), o.astype(x.dtype), labels


@kernel("nce_grad", dtypes=F)
def nce_grad(ins, attrs, need):
    x, label, w, b, sw, probs, alias, alias_probs, o, labels, g = ins
    sampler = _Sampler(attrs, probs, alias, alias_probs)
    n, ntrue = _labels2(label).shape
    q = _q(attrs, sampler, labels, x.dtype)
    d = np.where(np.arange(labels.shape[1]) < ntrue, q / (o + q) * (o - 1),
                 o * (1 - o) / (o + q))
    wt = 1.0 if sw is None else sw.reshape(n, 1)
    d = (d * wt * g.reshape(n, 1)).astype(x.dtype)
    flat = labels.reshape(-1)
    dx = dw = db = None
    if need is None or need[0]:
        dx = np.einsum("ns,nsd->nd", d, w[labels]).astype(x.dtype)
    if need is None or need[1]:
        dw = np.zeros_like(w)
        np.add.at(dw, flat, (d[:, :, None] * x[:, None, :]).reshape(flat.size, -1))
    if b is not None and (need is None or need[2]):
        db = np.zeros(b.size, x.dtype)
        np.add.at(db, flat, d.reshape(-1))
        db = db.reshape(b.shape)
    return dx, dw, db


# ------------------------------------------------------------------ lookup_table
def _ids(ids, vocab):
    flat = ids.reshape(ids.shape[:-1]) if ids.ndim else ids
    if flat.size and (flat.min() < 0 or flat.max() >= vocab):
        bad = flat[(flat < 0) | (flat >= vocab)].reshape(-1)[0]
        raise OpError(f"lookup_table: id {int(bad)} is out of range for a table of {vocab} "
                      f"rows (ids must be in [0, {vocab - 1}])")
    return flat


@kernel("lookup_table", dtypes=("float16",) + F + ("int8", "int16"))
def lookup_table(ins, attrs, need):
    w, ids = ins
    flat = _ids(ids, w.shape[0])
    out = w[flat]
    pad = attrs["padding_idx"]
    if pad != -1:
        out[flat == pad] = 0
    return (out,)


@kernel("lookup_table_grad", dtypes=F)
def lookup_table_grad(ins, attrs, need):
    w, ids, g = ins
    flat = ids.reshape(-1)
    dw = np.zeros(w.shape, g.dtype)
    np.add.at(dw, flat, g.reshape(flat.size, w.shape[1]))
    pad = attrs["padding_idx"]
    if pad != -1:
        dw[pad] = 0
    return (dw,)


# ------------------------------------------------------------------ l1_norm
@kernel("l1_norm", dtypes=F32)
def l1_norm(ins, attrs, need):
    x = ins[0]
    return (np.asarray(np.abs(x).sum(), x.dtype),)


@kernel("l1_norm_grad", dtypes=F)
def l1_norm_grad(ins, attrs, need):
    x, g = ins
    return ((np.sign(x) * g).astype(x.dtype),)
