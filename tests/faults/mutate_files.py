"""Mutants of ``.pdiparams`` (rebuilt record by record) and ``.pdiparams.info`` (re-pickled).

Params classes (``params.*``): version words, TensorDesc lengths, LoD counts, dims, dtypes,
reordered/dropped/duplicated records, a last (or middle) tensor cut short, trailing bytes,
another model's file, plus valid variants (packed dims). Info classes (``info.*``): wrong
shapes of the dict, unknown or missing names, and a pickle that would run code (``os.mkdir``
of ``SENTINEL`` in the worker's folder: the campaign checks it never appears).
"""
import os
import pickle

import numpy as np

from . import MODELS
from . import regions as R
from .mutate import Builder, model_files


# ------------------------------------------------------------------ .pdiparams mutants
def _u32(v):
    return int(v & 0xFFFFFFFF).to_bytes(4, "little")


def _u64(v):
    return int(v & (1 << 64) - 1).to_bytes(8, "little")


def _record(dtype, dims, data, lod=(), desc=None, lod_version=0, tensor_version=0):
    desc = R.encode_desc(dtype, dims) if desc is None else desc
    out = _u32(lod_version) + _u64(len(lod))
    for level in lod:
        arr = np.asarray(level, "<u8").tobytes()
        out += _u64(len(arr)) + arr
    return out + _u32(tensor_version) + _u32(len(desc)) + desc + data


def params_mutants(mf):
    b = Builder(mf, "pdiparams")
    data, recs = b.data, mf.records
    chunks = [data[r.start:r.end] for r in recs]
    raw = [data[R.part(r, "data").start:R.part(r, "data").end] for r in recs]

    def with_record(i, new):
        return lambda: b"".join(chunks[:i]) + new() + b"".join(chunks[i + 1:])

    def rebuild(i, **kw):
        r = recs[i]
        args = dict(dtype=r.dtype, dims=r.dims, data=raw[i])
        args.update(kw)
        return with_record(i, lambda: _record(**args))

    last, mid = len(recs) - 1, len(recs) // 2
    picks = sorted({0, mid, last})
    for i in picks:
        t = f"rec{i}"
        for v in (1, 0xFFFFFFFF):
            b.add("params.version.lod", f"{t}={v}", rebuild(i, lod_version=v))
            b.add("params.version.tensor", f"{t}={v}", rebuild(i, tensor_version=v))
        d = R.encode_desc(recs[i].dtype, recs[i].dims)
        for label, fake in (("+1", len(d) + 1), ("-1", len(d) - 1), ("0", 0),
                            ("max", 0x7FFFFFFF), ("neg", -1)):
            b.add("params.desc_len", f"{t}{label}", with_record(
                i, lambda i=i, d=d, fake=fake: _record(recs[i].dtype, recs[i].dims, raw[i],
                                                       desc=d)[:16] + _u32(fake) + d + raw[i]))
        b.add("params.lod", f"{t}/count=1-no-data", with_record(
            i, lambda i=i: _u32(0) + _u64(1) + chunks[i][12:]))
        b.add("params.lod", f"{t}/count=2^40", with_record(
            i, lambda i=i: _u32(0) + _u64(1 << 40) + chunks[i][12:]))
        n0 = recs[i].dims[0] if recs[i].dims else 1
        b.add("params.lod", f"{t}/one-level", rebuild(i, lod=[[0, n0]]))   # Paddle accepts
        dims = recs[i].dims
        variants = {"first+1-data": dict(dims=[dims[0] + 1] + dims[1:],
                                         data=raw[i] + raw[i][:len(raw[i]) // dims[0]]),
                    "first+1": dict(dims=[dims[0] + 1] + dims[1:]),
                    "reversed": dict(dims=dims[::-1]), "append1": dict(dims=dims + [1]),
                    "scalar": dict(dims=[], data=raw[i][:recs[i].elsize]),
                    "negative": dict(dims=[-dims[0]] + dims[1:]),
                    "huge": dict(dims=[1 << 40] + dims[1:])}
        if len(dims) == 1 or dims[::-1] == dims:
            variants.pop("reversed")
        for label, kw in variants.items():
            b.add("params.dims", f"{t}/{label}", rebuild(i, **kw))
        f32 = np.frombuffer(raw[i], "<f4") if recs[i].dtype == 5 else None
        dts = {"INT32": dict(dtype=2), "FP16": dict(dtype=4), "bad99": dict(dtype=99),
               "LOD_TENSOR7": dict(dtype=7)}
        if f32 is not None:
            dts["FP64-data"] = dict(dtype=6, data=f32.astype("<f8").tobytes())
        for label, kw in dts.items():
            b.add("params.dtype", f"{t}/{label}", rebuild(i, **kw))
        b.add("params.desc", f"{t}/packed-dims", rebuild(
            i, desc=R.encode_desc(recs[i].dtype, recs[i].dims, packed=True)), expect_same=True)
        b.add("params.desc", f"{t}/unknown-field", rebuild(
            i, desc=R.encode_desc(recs[i].dtype, recs[i].dims) + b"\x18\x01"))
    # order and count of records
    for i in range(len(recs) - 1):
        if chunks[i] != chunks[i + 1]:
            b.add("params.reorder", f"swap{i}-{i + 1}", lambda i=i: b"".join(
                chunks[:i] + [chunks[i + 1], chunks[i]] + chunks[i + 2:]), change="auto")
    b.add("params.reorder", "reversed", lambda: b"".join(chunks[::-1]), change="auto")
    b.add("params.reorder", "rotate", lambda: b"".join(chunks[1:] + chunks[:1]), change="auto")
    for i in picks:
        b.add("params.drop_record", f"rec{i}", lambda i=i: b"".join(chunks[:i] + chunks[i + 1:]))
        b.add("params.dup_record", f"rec{i}", lambda i=i: b"".join(
            chunks[:i + 1] + [chunks[i]] + chunks[i + 1:]))
    # a tensor cut short (the last: what Paddle 2.6.2 misses; a middle one shifts the rest)
    el, n = recs[last].elsize, len(raw[last])
    for label, cut in (("1", 1), ("elsize", el), ("half", n // 2), ("all", n)):
        b.add("params.cut_last", label, lambda cut=cut: data[:len(data) - cut])
    dm = R.part(recs[mid], "data")
    b.add("params.cut_middle", f"rec{mid}/-{recs[mid].elsize}",
          lambda: data[:dm.end - recs[mid].elsize] + data[dm.end:])
    for label, extra in (("1", b"\x00"), ("16zeros", bytes(16)), ("dup_last", chunks[last]),
                         ("record", _record(5, [2], bytes(8)))):
        b.add("params.trailing", label, lambda extra=extra: data + extra)
    for other in MODELS:
        if other != mf.name:
            b.add("params.other_model", other,
                  lambda other=other: model_files(other).bytes["pdiparams"])
    return b.out


# ------------------------------------------------------------------ .pdiparams.info mutants
class _Exploit:
    """Pickles to a call of ``os.mkdir(path)``: a loader that unpickles freely runs it."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.mkdir, (self.path,))


SENTINEL = "sampan_fault_pickle_ran"


def info_mutants(mf):
    b = Builder(mf, "info")
    info = pickle.loads(b.data)     # the unmutated reference file: trusted input
    names = sorted(info)
    first = names[0]

    def dump(obj, proto=2):
        return lambda: pickle.dumps(obj, protocol=proto)
    b.add("info.shape", "list", dump(list(info.items())))
    b.add("info.shape", "entry-not-dict", dump({**info, first: "weight"}))
    b.add("info.shape", "trainable-str", dump({**info, first: {**info[first],
                                                                 "trainable": "yes"}}))
    b.add("info.shape", "no-structured-name", dump({**info, first: {
        k: v for k, v in info[first].items() if k != "structured_name"}}))
    b.add("info.shape", "int-key", dump({**info, 7: info[first]}))
    b.add("info.keys", "unknown-name", dump({**info, "sampan_fault_var": info[first]}))
    b.add("info.keys", "missing-entry", dump({k: v for k, v in info.items() if k != first}))
    b.add("info.keys", "empty", dump({}))
    b.add("valid.info_protocol", "4", dump(info, 4), expect_same=True)
    b.add("info.exploit", "os.mkdir", lambda: pickle.dumps(
        {first: _Exploit(SENTINEL)}, protocol=2))   # relative: the worker's scratch dir
    return b.out
