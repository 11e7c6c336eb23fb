"""Deterministic mutants of a reference model's files.

A ``Mutant`` replaces one file of the model (``pdmodel``, ``pdiparams`` or ``info``) with
``make()`` (bytes, or None to delete it). Its ``id`` (``model:file:class:detail``) is stable
across runs, and ``mutants(model, level)`` always lists the same mutants in the same order:
samples come from ``random.Random`` seeded by strings. ``full`` is the large local run; ``ci``
is a fixed subset of it (a few mutants of every class and file, ``CI_QUOTA``).

``change`` says how outputs may differ when a mutant loads and runs:
``never`` (they must equal the unmutated outputs), ``value`` (the file is a valid model with
other values, e.g. an attribute dropped whose default differs), ``auto`` (decided from the
bytes: ``.pdiparams`` changes confined to tensor data, ``.pdmodel`` changes that keep the
skeleton, see regions.py), ``wellformed`` (ops removed or reordered: allowed when the result
is still a well-formed program by wellformed.py's independent judge). ``expect_same`` marks
valid variants (packed dims, reordered vars, ...) that must load and give the same outputs: an
error on them is a false rejection.

This module holds the byte-level mutators (truncation at every region boundary and at other
offsets, byte and bit flips, zeroed and swapped regions, duplicated tails, empty, random and
missing files); mutate_struct.py the structural ones of ``.pdmodel``, mutate_files.py those of
``.pdiparams`` and ``.pdiparams.info``.
"""
import functools
import os
import random
from dataclasses import dataclass, field
from typing import Callable, Optional

from . import MODELS, MODELS_DIR
from . import regions as R

FILES = {"pdmodel": "model.pdmodel", "pdiparams": "model.pdiparams",
         "info": "model.pdiparams.info"}
LEVELS = ("ci", "full")


@dataclass(frozen=True)
class Mutant:
    id: str
    cls: str
    file: str
    make: Callable[[], Optional[bytes]] = field(compare=False, repr=False)
    change: str = "never"
    expect_same: bool = False

    @property
    def model(self):
        return self.id.split(":", 1)[0]


class ModelFiles:
    """The unmutated files of one reference model, parsed once."""

    def __init__(self, name):
        self.name = name
        self.dir = os.path.join(MODELS_DIR, name)
        self.bytes = {}
        for key, fname in FILES.items():
            with open(os.path.join(self.dir, fname), "rb") as fh:
                self.bytes[key] = fh.read()
        self.desc = R.pb.ProgramDesc()
        self.desc.ParseFromString(self.bytes["pdmodel"])
        self.regions = R.proto_regions(self.bytes["pdmodel"])
        self.records = R.param_records(self.bytes["pdiparams"])
        self.skeleton = R.skeleton(self.bytes["pdmodel"])


@functools.lru_cache(maxsize=None)
def model_files(name):
    return ModelFiles(name)


def pick(items, k, key):
    """A deterministic sample of ``k`` items (all when k is None), in their original order;
    a smaller ``k`` with the same key gives a prefix of the same shuffle."""
    items = list(items)
    if k is None or k >= len(items):
        return items
    order = list(range(len(items)))
    random.Random(key).shuffle(order)
    return [items[i] for i in sorted(order[:k])]


class Builder:
    """Collects the mutants of one model and file, with ids ``model:file:cls:detail``."""

    def __init__(self, mf, file):
        self.mf, self.file = mf, file
        self.data = mf.bytes[file]
        self.out = []

    def key(self, cls):
        return f"{self.mf.name}:{self.file}:{cls}"

    def add(self, cls, detail, make, change="never", expect_same=False, file=None):
        file = file or self.file
        self.out.append(Mutant(f"{self.mf.name}:{file}:{cls}:{detail}", cls, file, make,
                               change, expect_same))

    def sample(self, cls, items, full=None):
        """A deterministic sample of at most ``full`` items (None: all)."""
        return pick(items, full, self.key(cls))


# ------------------------------------------------------------------ byte-level helpers
def _flip(data, off, mask):
    b = bytearray(data)
    b[off] ^= mask
    return bytes(b)


def _zero(data, start, end):
    return data[:start] + bytes(end - start) + data[end:]


def _swap(data, a, b):
    """Swap the adjacent ranges a=(s, m) and b=(m, e)."""
    (s, m), (_, e) = a, b
    return data[:s] + data[m:e] + data[s:m] + data[e:]


def _cut_points(mf, file, data):
    if file == "pdmodel":
        return R.boundaries(mf.regions, len(data))
    if file == "pdiparams":
        cuts = {p.start for r in mf.records for p in r.parts} | \
            {p.end for r in mf.records for p in r.parts}
        for r in mf.records:             # inside the data too: a last tensor cut short
            d = R.part(r, "data")
            cuts.update((d.start + 1, (d.start + d.end) // 2, d.end - 1))
        return sorted(c for c in cuts if 0 < c < len(data))
    return R.pickle_boundaries(data)


def _zones(mf, file, data):
    """(label, start, end) ranges worth zeroing/flipping: header parts and payloads for
    .pdiparams, field payloads for .pdmodel, opcode runs for the pickle."""
    if file == "pdiparams":
        return [(f"rec{r.index}.{p.name}", p.start, p.end) for r in mf.records
                for p in r.parts if p.end > p.start]
    if file == "pdmodel":
        return [(r.path, r.value, r.end) for r in mf.regions if r.end > r.value]
    cuts = [0] + R.pickle_boundaries(data) + [len(data)]
    return [(f"op@{a}", a, b) for a, b in zip(cuts, cuts[1:])]


def _siblings(mf, file, data):
    """Pairs of adjacent ranges whose swap keeps the file's length: sibling protobuf fields,
    adjacent tensor records, adjacent pickle opcodes."""
    if file == "pdmodel":
        regs = mf.regions
        by_end = {}
        for r in regs:
            by_end.setdefault((r.end, r.path.rsplit(".", 1)[0] if "." in r.path else ""), r)
        pairs = []
        for r in regs:
            parent = r.path.rsplit(".", 1)[0] if "." in r.path else ""
            left = by_end.get((r.start, parent))
            if left is not None:
                pairs.append((f"{left.path}<>{r.path}", (left.start, r.start), (r.start, r.end)))
        return pairs
    if file == "pdiparams":
        rs = mf.records
        return [(f"rec{a.index}<>rec{b.index}", (a.start, b.start), (b.start, b.end))
                for a, b in zip(rs, rs[1:])]
    cuts = [0] + R.pickle_boundaries(data) + [len(data)]
    return [(f"op@{a}<>op@{b}", (a, b), (b, c)) for a, b, c in zip(cuts, cuts[1:], cuts[2:])]


def _payload_zone(file, label):
    return file == "pdiparams" and label.endswith(".data")


# ------------------------------------------------------------------ byte-level mutators
def byte_mutants(mf, file):
    b = Builder(mf, file)
    data = b.data
    n = len(data)
    cuts = _cut_points(mf, file, data)
    for c in b.sample("truncate.boundary", cuts, 3000):
        b.add("truncate.boundary", f"@{c}", lambda c=c: data[:c])
    offs = sorted(set(random.Random(b.key("offsets")).sample(range(1, n), min(n - 1, 400))))
    for c in b.sample("truncate.offset", offs, 200):
        b.add("truncate.offset", f"@{c}", lambda c=c: data[:c])

    zones = _zones(mf, file, data)
    rng = random.Random(b.key("flip"))
    flips = []
    for label, s, e in zones:
        off = rng.randrange(s, e)
        flips.append((label, off, rng.randrange(1, 256), 1 << rng.randrange(8)))
    if file == "pdiparams":
        head = [f for f in flips if not _payload_zone(file, f[0])]
        pay = [f for f in flips if _payload_zone(file, f[0])]
        extra = [(f"rec{r.index}.data", off, rng.randrange(1, 256), 0) for r in mf.records
                 for off in (rng.randrange(*R.part(r, "data")[1:]),)]
        groups = (("flip.header", head, None), ("flip.payload", pay + extra, 60))
    else:
        groups = (("flip.byte", flips, 600),)
    for cls, items, k_full in groups:
        for label, off, mask, _ in b.sample(cls, items, k_full):
            b.add(cls, f"{label}@{off}^{mask:02x}", lambda o=off, m=mask: _flip(data, o, m),
                  change="auto")
    if file != "pdiparams":
        for label, off, _, bit in b.sample("flip.bit", flips, 400):
            b.add("flip.bit", f"{label}@{off}^{bit:02x}", lambda o=off, m=bit: _flip(data, o, m),
                  change="auto")

    zcls = "zero.region"
    for label, s, e in b.sample(zcls, [z for z in zones if any(data[z[1]:z[2]])], 300):
        cls = ("zero.payload" if _payload_zone(file, label) else "zero.header") \
            if file == "pdiparams" else zcls
        b.add(cls, f"{label}[{s}:{e}]", lambda s=s, e=e: _zero(data, s, e), change="auto")
    pairs = [(lb, ra, rb) for lb, ra, rb in _siblings(mf, file, data)
             if data[ra[0]:ra[1]] != data[rb[0]:rb[1]]]
    for label, ra, rb in b.sample("swap.regions", pairs, 300):
        b.add("swap.regions", f"{label}", lambda ra=ra, rb=rb: _swap(data, ra, rb),
              change="auto")
    for k in sorted({1, 8, 64, max(1, n // 3)}):
        b.add("dup.tail", f"+{k}", lambda k=k: data + data[-k:])
    b.add("empty", "0", lambda: b"")
    b.add("missing", "-", lambda: None)
    for size in (n, 7, 64):
        b.add("random", f"{size}b",
              lambda size=size: random.Random(f"{b.key('random')}{size}").randbytes(size))
    return b.out


# ------------------------------------------------------------------ the registry
def mutants(model, level="ci"):
    """Every mutant of a reference model at a level (``ci`` or ``full``), in a fixed order."""
    from . import mutate_files, mutate_struct
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    mf = model_files(model)
    out = []
    for file in FILES:
        out += byte_mutants(mf, file)
    out += mutate_struct.program_mutants(mf)
    out += mutate_files.params_mutants(mf)
    out += mutate_files.info_mutants(mf)
    if level == "ci":
        out = _ci_subset(model, out)
    ids = [m.id for m in out]
    if len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})
        raise AssertionError(f"duplicate mutant ids: {dup[:5]}")
    return out


# CI takes at most this many mutants of each (model, file, class); the rest of a class
# comes from the same deterministic shuffle as the full run, so CI is a subset of it
CI_QUOTA = {"truncate.boundary": 8, "flip.byte": 4, "flip.header": 6, "params.cut_last": 4,
            "params.dims": 4, "params.dtype": 3, "struct.drop_attr": 4, "struct.sub_block": 3}
CI_DEFAULT = 2
CI_ALL = ("valid.", "info.exploit", "params.trailing", "params.other_model")


def _ci_subset(model, out):
    groups = {}
    for m in out:
        groups.setdefault((m.file, m.cls), []).append(m)
    keep = set()
    for (file, cls), ms in groups.items():
        k = None if cls.startswith(CI_ALL) else CI_QUOTA.get(cls, CI_DEFAULT)
        keep.update(m.id for m in pick(ms, k, f"ci:{model}:{file}:{cls}"))
    return [m for m in out if m.id in keep]


def all_mutants(models=MODELS, level="ci"):
    return [m for name in models for m in mutants(name, level)]


def by_id(mutant_id, level="full"):
    """The mutant with this id (looked up in the ``full`` set, which contains ``ci``)."""
    model = mutant_id.split(":", 1)[0]
    for m in _index(model, level):
        if m.id == mutant_id:
            return m
    raise KeyError(mutant_id)


@functools.lru_cache(maxsize=None)
def _index(model, level):
    return tuple(mutants(model, level))
