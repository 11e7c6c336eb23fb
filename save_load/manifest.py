"""Self-verifying model files: the sidecar manifest ``<prefix>.sampan.json``.

Every model set sampan writes (``jit.save``, ``save_inference_model``) carries one JSON
file beside its Paddle files, written in the same atomic set (staged last, after every file
it describes): the manifest format version, sampan's version, for each method its model and
params files with the input/output specs, and for each file its size and sha256; for a
``.pdiparams`` also each tensor's name, dtype, shape, data offset and the crc32 of each
4 MiB block of its data bytes (a mismatch names the bytes that differ).
Paddle ignores the extra file, so real Paddle still loads the model.

Loading (``jit.load``, the Predictor, ``load_inference_model``: ``read_model``) checks a
model that has a manifest: the ``.pdmodel`` bytes against their sha256 (the file is small
and read anyway), the ``.pdiparams`` size, and every tensor's dtype, shape and block crc32s
over the arrays just read (zlib's crc32, on several threads for a large model: about as
much time as copying the bytes once more; ``benchmarks/manifest_cost.py``).  A mismatch
raises ``ManifestError`` naming the file and the tensor, never a silently wrong model.  A
model without a manifest (Paddle's own, or older sampan files) loads as before.
``verify_model`` (``sampan inspect --verify``) checks everything, every file's sha256 too.

A method saved with symbolic dimensions (program/symbolic.py: ``InputSpec(['B', 8])``)
also lists them, ``"symbols": {var name: [8, "B", "B*8"]}``, for the dims its ``.pdmodel``
keeps as -1; ``read_model`` puts them back on the loaded program's variables.
"""
import hashlib
import json
import os
import zlib

import numpy as np

from ..utils.version import __version__
from .fileio import FormatError, describe
from ..program.symbolic import attach, symbols_of

__all__ = ["SUFFIX", "ManifestError", "ManifestBuilder", "find_manifest", "read_model", "sidecars",
           "check_file", "verify_model", "tensor_crc"]

SUFFIX = ".sampan.json"
KIND = "sampan model manifest"
FORMAT_VERSION = 1


class ManifestError(FormatError):
    """A model file does not match the manifest written with it (changed after saving)."""


BLOCK = 1 << 22         # a tensor's data is checksummed in blocks of this many bytes
_POOL = {}              # pid -> the threads that checksum blocks (zlib drops the GIL)


def _byte_view(arr):
    """The data bytes of an array as a ``.pdiparams`` stores them (little-endian, C order)."""
    a = np.asarray(getattr(arr, "array", arr))
    if a.dtype.byteorder == ">" or (a.dtype.byteorder == "=" and not np.little_endian):
        a = a.astype(a.dtype.newbyteorder("<"))
    if not a.flags.c_contiguous:
        a = np.ascontiguousarray(a)
    return a.reshape(-1).view(np.uint8)


def block_crcs(arrays):
    """For each array, the crc32 of each ``BLOCK`` bytes of its data (one for an empty
    one); the blocks of a large model are summed on several threads."""
    views = [_byte_view(a) for a in arrays]
    jobs = [v[i:i + BLOCK] for v in views for i in range(0, max(v.nbytes, 1), BLOCK)]
    workers = min(8, os.cpu_count() or 1)
    if workers > 1 and len(jobs) > 1 and sum(v.nbytes for v in views) >= 2 * BLOCK:
        pool = _POOL.get(os.getpid())
        if pool is None:            # per process: a forked child cannot use its parent's
            from concurrent.futures import ThreadPoolExecutor
            pool = _POOL[os.getpid()] = ThreadPoolExecutor(workers, "sampan-crc32")
        crcs = list(pool.map(zlib.crc32, jobs))
    else:
        crcs = [zlib.crc32(j) for j in jobs]
    out, k = [], 0
    for v in views:
        n = max(1, -(-v.nbytes // BLOCK))
        out.append(crcs[k:k + n])
        k += n
    return out


def tensor_crc(arr):
    """The block crc32s of one array's data (``block_crcs``)."""
    return block_crcs([arr])[0]


def _dtype_name(arr):
    a = getattr(arr, "array", arr)
    return np.dtype(a.dtype).name


def _record_layout(name, value):
    """(header length, data array) of the tensor's ``.pdiparams`` record."""
    from .pdiparams import _record_parts
    head, data = _record_parts(value, name)
    return len(head), data


def _specs(program, names):
    block = program.global_block()
    out = []
    for n in names:
        v = block._find_var_recursive(n)
        dt = v.np_dtype.name if v is not None and v.np_dtype is not None else None
        out.append({"name": n, "dtype": dt,
                    "shape": [int(d) for d in v.shape] if v is not None else None})
    return out


# ----------------------------------------------------------------- writing
class _HashingFile:
    """A binary file's ``write`` that also counts and hashes the bytes."""

    def __init__(self, fh):
        self.fh, self.sha, self.size = fh, hashlib.sha256(), 0

    def write(self, data):
        self.sha.update(data)
        self.size += memoryview(data).nbytes
        return self.fh.write(data)

    def __getattr__(self, name):        # flush, fileno, tell ... of the real file
        return getattr(self.fh, name)


class ManifestBuilder:
    """Collects what a model set's manifest says while its files are described, then wraps
    the set's writers (``wrap``) so each file's size and sha256 are taken as it is written
    and the manifest is staged last."""

    def __init__(self, prefix):
        self.prefix = os.fspath(prefix)
        self.methods = {}
        self.tensors = {}               # params file basename -> [tensor entries]
        self.files = {}                 # basename -> {"size", "sha256"}

    def add_model(self, method, model_path, params_path, program, params, feeds, fetches):
        """One method's files: ``params`` ({name: array}) is what its ``.pdiparams`` holds
        (none: no params file)."""
        entry = {"model": os.path.basename(model_path),
                 "params": os.path.basename(params_path) if params else None,
                 "inputs": _specs(program, feeds), "outputs": _specs(program, fetches)}
        version = program.desc.version.version if program.desc.HasField("version") else None
        entry["program_version"] = int(version) if version is not None else None
        symbols = symbols_of(program)
        if symbols:         # {var: [dim or expression]}: what the .pdmodel keeps as -1
            entry["symbols"] = symbols
        self.methods[method] = entry
        if params:
            entries, pos = [], 0
            names = sorted(params)
            for n, crcs in zip(names, block_crcs([params[n] for n in names])):
                head, data = _record_layout(n, params[n])
                entries.append({"name": n, "dtype": _dtype_name(params[n]),
                                "shape": [int(d) for d in np.shape(data)],
                                "data_offset": pos + head, "crc32": crcs})
                pos += head + data.nbytes
            self.tensors[os.path.basename(params_path)] = entries

    def wrap(self, files):
        """``{path: write(fh)}`` of the set -> the same writers hashing what they write, and
        the manifest's writer last."""
        out = {}
        for path, write in files.items():
            out[path] = self._hashing(os.path.basename(path), write)
        out[self.prefix + SUFFIX] = self._write_manifest
        return out

    def _hashing(self, name, write):
        def run(fh):
            hf = _HashingFile(fh)
            write(hf)
            self.files[name] = {"size": hf.size, "sha256": hf.sha.hexdigest()}
        return run

    def _write_manifest(self, fh):
        files = {}
        for name, meta in sorted(self.files.items()):
            files[name] = dict(meta)
            if name in self.tensors:
                files[name]["tensors"] = self.tensors[name]
        body = {"kind": KIND, "format_version": FORMAT_VERSION, "sampan_version": __version__,
                "formats": {"pdmodel": "ProgramDesc (protobuf)",
                            "pdiparams": "save_combine LoDTensor v0"},
                "crc32_block_bytes": BLOCK,
                "methods": self.methods, "files": files}
        fh.write(_dump(body))


def _dump(body):
    text = json.dumps(body, sort_keys=True, indent=1)
    digest = hashlib.sha256(text.encode()).hexdigest()
    return (text[:-1].rstrip() + f',\n "manifest_sha256": "{digest}"\n}}\n').encode()


# ----------------------------------------------------------------- reading
class Manifest:
    """A parsed manifest (``find_manifest``)."""

    def __init__(self, path, body):
        self.path, self.body = path, body
        self.folder = os.path.dirname(path)
        self.files = body["files"]

    def entry(self, path):
        return self.files.get(os.path.basename(os.fspath(path)))

    def symbols(self, model_path):
        """``{var name: [dim, ...]}``: the symbolic dims the method saved in
        ``model_path`` recorded (empty for files written without symbols)."""
        name = os.path.basename(os.fspath(model_path))
        for method in self.body.get("methods", {}).values():
            if isinstance(method, dict) and method.get("model") == name:
                table = method.get("symbols")
                return table if isinstance(table, dict) else {}
        return {}

    def _fail(self, path, what):
        return ManifestError(
            f"{describe(path)}: {what}; the manifest {self.path} (written with the file by "
            f"sampan {self.body.get('sampan_version')}) says otherwise, so the file was "
            f"changed or damaged after it was saved. Save the model again (or, if another "
            f"tool rewrote these files on purpose, delete {self.path}).")

    def check_bytes(self, path, data):
        e = self.entry(path)
        if e is None:
            return
        if len(data) != e["size"]:
            raise self._fail(path, f"{len(data)} bytes, expected {e['size']}")
        digest = hashlib.sha256(data).hexdigest()
        if digest != e["sha256"]:
            raise self._fail(path, f"sha256 {digest[:16]}..., expected {e['sha256'][:16]}...")

    def check_file(self, path):
        """Size and sha256 of a whole file, read in chunks."""
        e = self.entry(path)
        if e is None:
            return
        if not os.path.isfile(path):
            raise self._fail(path, "the file is missing")
        size = os.path.getsize(path)
        if size != e["size"]:
            raise self._fail(path, f"{size} bytes, expected {e['size']}")
        sha = hashlib.sha256()
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 22), b""):
                sha.update(chunk)
        if sha.hexdigest() != e["sha256"]:
            raise self._fail(path, f"sha256 {sha.hexdigest()[:16]}..., expected "
                                   f"{e['sha256'][:16]}...")

    def check_params(self, path, arrays):
        """The tensors read from ``path`` ({name: array}) against their entries."""
        e = self.entry(path)
        if e is None or "tensors" not in e:
            return
        if isinstance(path, (str, os.PathLike)) and os.path.getsize(path) != e["size"]:
            raise self._fail(path, f"{os.path.getsize(path)} bytes, expected {e['size']}")
        want = e["tensors"]
        if [t["name"] for t in want] != list(sorted(arrays)):
            raise self._fail(path, f"holds the tensors {sorted(arrays)[:5]}, expected "
                                   f"{[t['name'] for t in want][:5]}")
        for k, t in enumerate(want):
            a = arrays[t["name"]]
            if _dtype_name(a) != t["dtype"] or list(np.shape(a)) != t["shape"]:
                raise self._fail(path, f"tensor #{k} ({t['name']}) is {_dtype_name(a)}"
                                       f"{list(np.shape(a))}, expected {t['dtype']}{t['shape']}")
        block = self.body.get("crc32_block_bytes", BLOCK)
        if block != BLOCK:
            raise self._fail(path, f"the manifest sums blocks of {block} bytes, this sampan "
                                   f"{BLOCK}")
        for k, (t, crcs) in enumerate(zip(want, block_crcs([arrays[t["name"]]
                                                            for t in want]))):
            if crcs != t["crc32"]:
                j = next(i for i, (c, w) in enumerate(zip(crcs, t["crc32"])) if c != w)
                at, nbytes = t.get("data_offset"), arrays[t["name"]].nbytes
                span = ""
                if isinstance(at, int):
                    lo, hi = at + j * BLOCK, at + min(nbytes, (j + 1) * BLOCK) - 1
                    span = f" (bytes {lo}..{hi} of the file differ)"
                raise self._fail(path, f"tensor #{k} ({t['name']}): its values changed{span}, "
                                       f"crc32 {crcs[j]:08x}, expected {t['crc32'][j]:08x}"
                                       f"{_looks_like(want, k, crcs)}")


def _looks_like(want, k, crc):
    for j, other in enumerate(want):
        if j != k and other["crc32"] == crc and other["shape"] == want[k]["shape"]:
            return f"; they are the values of tensor #{j} ({other['name']}): tensors swapped?"
    return ""


def _parse(path):
    with open(path, "rb") as fh:
        data = fh.read()
    text = data.decode("utf-8", "replace")
    head, sep, tail = text.rpartition(',\n "manifest_sha256": "')
    body = None
    if sep and tail.endswith('"\n}\n'):
        digest = tail[:-len('"\n}\n')]
        if hashlib.sha256((head + "\n}").encode()).hexdigest() == digest:
            try:
                body = json.loads(head + "\n}")
            except ValueError:
                body = None
    if not isinstance(body, dict) or body.get("kind") != KIND or \
            not isinstance(body.get("files"), dict):
        raise ManifestError(f"{path}: the model's manifest is damaged (its checksum does not "
                            f"match or it is not a sampan manifest); save the model again or "
                            f"delete the file to load without the checks it gives")
    if body.get("format_version") != FORMAT_VERSION:
        raise ManifestError(f"{path}: manifest format version {body.get('format_version')}, "
                            f"this sampan ({__version__}) reads version {FORMAT_VERSION}")
    return Manifest(path, body)


def sidecars(model_path):
    """Where the manifest of ``model_path`` may be: ``<prefix>.sampan.json`` for
    ``<prefix>.pdmodel``, and ``<prefix>.sampan.json`` for ``<prefix>.<method>.pdmodel``
    (loads pass these to ``atomic_set.reading`` with the model's files)."""
    model_path = os.fspath(model_path)
    stem = model_path[:-len(".pdmodel")] if model_path.endswith(".pdmodel") else model_path
    candidates = [stem + SUFFIX]
    head, dot, _ = os.path.basename(stem).rpartition(".")
    if dot and head:
        candidates.append(os.path.join(os.path.dirname(stem), head + SUFFIX))
    return candidates


def find_manifest(model_path):
    """The manifest describing ``model_path`` (``<prefix>.pdmodel`` or
    ``<prefix>.<method>.pdmodel``), or None when the model has none."""
    for c in sidecars(model_path):
        if os.path.isfile(c):
            m = _parse(c)
            if m.entry(model_path) is not None:
                return m
    return None


def read_model(model, pfile, extra=()):
    """``(program, {name: array})`` of a model, read strictly (``program_io``) and, when it
    has a manifest, checked against it (``extra``: more files of the set to check whole)."""
    from .program_io import load_params, parse_program, read_program
    man = find_manifest(model) if isinstance(model, (str, os.PathLike)) else None
    if man is None:
        program = read_program(model)
        return program, load_params(program, pfile, model)
    with open(model, "rb") as fh:
        data = fh.read()
    man.check_bytes(model, data)
    program = parse_program(data, describe(model))
    attach(program, man.symbols(model))         # symbolic dims back onto the variables
    params = load_params(program, pfile, model)
    if pfile and isinstance(pfile, (str, os.PathLike)):
        man.check_params(pfile, params)
    for p in extra:
        man.check_file(p)
    return program, params


def check_file(model, path):
    """Check one more file of ``model``'s set whole (size, sha256) when it has a manifest."""
    man = find_manifest(model)
    if man is not None:
        man.check_file(path)


def verify_model(model, pfile):
    """Everything about a saved model: ``(manifest path or None, [problems])``.  With a
    manifest: every file it lists (size, sha256), every tensor (dtype, shape, crc32) and
    the specs; always: the strict load."""
    problems = []
    try:
        man = find_manifest(model)
    except FormatError as exc:
        return None, [str(exc)]
    if man is not None:
        for name in sorted(man.files):
            try:
                man.check_file(os.path.join(man.folder, name))
            except FormatError as exc:
                problems.append(str(exc))
    try:
        program, _ = read_model(model, pfile)
        if man is not None:
            _check_specs(man, model, program)
    except (FormatError, ValueError, OSError) as exc:
        msg = str(exc)
        if msg not in problems and not any(msg.split(";")[0] in p for p in problems):
            problems.append(msg)
    return (man.path if man is not None else None), problems


def _check_specs(man, model, program):
    from .program_io import feed_fetch_targets
    feeds, fetches = feed_fetch_targets(program, model)
    for method in man.body.get("methods", {}).values():
        if method.get("model") == os.path.basename(model):
            if [s["name"] for s in method["inputs"]] != list(feeds) or \
                    [s["name"] for s in method["outputs"]] != list(fetches):
                raise man._fail(model, f"inputs {list(feeds)} / outputs {list(fetches)} do "
                                       f"not match the manifest's specs")
