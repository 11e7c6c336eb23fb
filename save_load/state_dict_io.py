"""``sampan.save`` / ``sampan.load``: Paddle 2.x's ``paddle.save``/``paddle.load`` files.

Layout (as real Paddle 2.6 writes it, see shared/paddle-reference/state-dicts):
* A *state dict* (a dict whose values are all tensors, or dicts holding no tensors, e.g.
  ``Layer.state_dict()``, ``Optimizer.state_dict()``) is pickled as a plain dict with every
  tensor replaced by its numpy array, plus the entry ``"StructuredToParameterName@@"``:
  ``{key: tensor.name}`` for the tensor entries.  With protocol 2/3, arrays too big for one
  pickle op are split into ``key@@.<i>`` slices described by ``"UnpackBigParamInfor@@"``.
* Anything else (a tensor, a list, a dict with Python values ...) is pickled as is, each
  tensor written as ``tuple((tensor.name, ndarray))``.
* ``use_binary_format=True`` writes one tensor as a ``.pdiparams``-style record.

Loading unpickles with the restricted unpickler (no code from a file ever runs) and turns
arrays back into Tensors: for state dicts the entries named in the name table (which is
dropped unless ``keep_name_table=True``), otherwise every ``(name, ndarray)`` tuple, or, when
there are none, every ndarray.  ``return_numpy=True`` keeps numpy arrays.  A path prefix of a
``jit.save`` model (``prefix.pdiparams`` exists) loads its parameters as a dict keyed by
structured name (from ``.pdiparams.info``) or variable name.
"""
import functools
import io
import math
import os
import warnings

import numpy as np

from . import pdiparams, safe_pickle
from .atomic_set import reading
from .fileio import FormatError, atomic_open, ensure_parent
from ..dygraph.tensor import Tensor
from ..nn import Layer
from ..ops import constant
from ..program.proto import framework_pb2 as pb
from ..tensor.creation_base import get_device, to_tensor

NAME_TABLE = "StructuredToParameterName@@"
UNPACK_INFO = "UnpackBigParamInfor@@"
_SAVE_CONFIGS = ("use_binary_format", "pickle_protocol")
_LOAD_CONFIGS = ("return_numpy", "keep_name_table", "model_filename", "params_filename")
_MAX_PICKLE_BYTES = 2 ** 30 - 1  # protocol 2/3 cannot hold one object >= 4 GiB


def _is_memory_buffer(path):
    return isinstance(path, io.BytesIO)


def _contains(obj, pred):
    if pred(obj):
        return True
    if isinstance(obj, dict):
        return any(_contains(v, pred) for v in obj.values())
    if isinstance(obj, (list, tuple, set)):
        return any(_contains(v, pred) for v in obj)
    return False


def is_state_dict(obj):
    """Paddle's test: every value is a tensor, or a dict that holds no tensor/Layer."""
    if not isinstance(obj, dict):
        return False
    tensor, layer = Tensor, Layer

    def paddle_object(v):
        return isinstance(v, tensor) or (layer and isinstance(v, layer))
    for value in obj.values():
        if isinstance(value, dict):
            if any(_contains(v, paddle_object) for v in value.values()):
                return False
        elif not isinstance(value, tensor):
            return False
    return True


def _to_numpy(t):
    return np.asarray(t._host())  # the tensor's own array: pickling streams it, no copy


def _build_saved_state_dict(state_dict):
    tensor = Tensor
    saved, names = {}, {}
    for key, value in state_dict.items():
        if isinstance(value, tensor):
            if not value._is_initialized():
                raise ValueError(f"The saved tensor {key!r} is not initialized.")
            saved[key] = _to_numpy(value)
            names[key] = value.name
        else:
            saved[key] = value
    saved[NAME_TABLE] = names
    return saved


def _unpack_big_arrays(saved, protocol):
    """Split arrays that protocol 2/3 cannot pickle in one piece (Paddle's layout)."""
    if protocol >= 4:
        return saved
    info = {}
    for key, value in list(saved.items()):
        if not isinstance(value, np.ndarray):
            continue
        per_slice = _MAX_PICKLE_BYTES // max(value.dtype.itemsize, 1)
        if value.size <= per_slice:
            continue
        flat = value.reshape(-1)
        parts = [f"{key}@@.{i}" for i in range(math.ceil(value.size / per_slice))]
        info[key] = {"OriginShape": value.shape, "slices": parts}
        del saved[key]
        for i, part in enumerate(parts):
            saved[part] = flat[i * per_slice:(i + 1) * per_slice]
    if info:
        saved[UNPACK_INFO] = info
    return saved


def _pack_big_arrays(loaded, where):
    info = loaded.pop(UNPACK_INFO, None)
    if info is None:
        return loaded
    try:
        for key, entry in info.items():
            slices = list(entry["slices"])
            parts = [loaded[p] for p in slices]
            size = sum(p.size for p in parts)
            dtype = functools.reduce(np.promote_types, [p.dtype for p in parts])
            del parts
            out = np.empty(tuple(entry["OriginShape"]), dtype)
            if out.size != size:
                raise ValueError(f"{key!r}: {size} values for shape {out.shape}")
            flat, at = out.reshape(-1), 0
            for part in slices:  # each slice is freed once copied: one slice extra at most
                piece = loaded.pop(part).reshape(-1)
                flat[at:at + piece.size] = piece
                at += piece.size
            loaded[key] = out
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise FormatError(f"{where}: corrupt {UNPACK_INFO} entry ({exc})") from None
    return loaded


def _check_protocol(protocol):
    if not isinstance(protocol, int) or isinstance(protocol, bool):
        raise ValueError(f"The 'protocol' MUST be `int`, but received {type(protocol)}")
    if protocol < 2 or protocol > 4:
        raise ValueError(f"Expected 1<'protocol'<5, but received protocol={protocol}")


def _write(path, write):
    """Run ``write(fh)`` on a binary file that replaces ``path`` once complete, or on the
    ``io.BytesIO`` ``path`` itself (restored as it was if writing fails)."""
    if _is_memory_buffer(path):
        _write_buffer(path, write)
        return
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"path must be a file path or io.BytesIO, got {type(path).__name__}")
    if os.path.basename(os.fspath(path)) == "":
        raise ValueError("The input path MUST be format of dirname/filename "
                         f"[dirname\\filename in Windows system], but received {path!r}")
    ensure_parent(path)
    with atomic_open(path) as fh:
        write(fh)


def _write_buffer(buf, write):
    start = buf.tell()
    end = buf.seek(0, io.SEEK_END)
    buf.seek(start)
    if start != end:  # writing over existing data: build it aside, then copy it in
        tmp = io.BytesIO()
        write(tmp)
        buf.write(tmp.getbuffer())
        return
    try:
        write(buf)
    except BaseException:
        buf.seek(start)
        buf.truncate()
        raise


def save(obj, path, protocol=4, **configs):
    """Save a state dict, tensor or nested container of tensors/Python values (paddle.save).

    The pickle is streamed to the file, every array's data straight from its memory, so
    saving holds no second copy of the tensors (``safe_pickle``)."""
    for key in configs:
        if key not in _SAVE_CONFIGS:
            raise ValueError(f"The additional config ({key}) of `paddle.save` is not supported.")
    if configs.get("pickle_protocol") is not None:
        warnings.warn("'pickle_protocol' is a deprecated argument. Please use 'protocol' "
                      "instead.")
        protocol = configs["pickle_protocol"]
    _check_protocol(protocol)
    if configs.get("use_binary_format", False):
        if not isinstance(obj, Tensor):
            raise NotImplementedError("use_binary_format=True saves only a Tensor, got "
                                      f"{type(obj).__name__}")
        _write(path, lambda fh: pdiparams.write_records(fh, [(obj.name, obj._host())]))
        return
    layer = Layer
    if layer and isinstance(obj, layer):
        raise ValueError("paddle do not support saving `paddle.nn.Layer` object.")
    if is_state_dict(obj):
        if not obj:
            warnings.warn("The input state dict is empty, no need to save.")
        payload = _unpack_big_arrays(_build_saved_state_dict(obj), protocol)
    else:
        payload = obj
    _write(path, lambda fh: safe_pickle.dump(payload, fh, protocol))


# ---------------------------------------------------------------- load
def _walk(obj, pred, convert):
    """Paddle's _parse_every_object: convert matching items inside dict/list/tuple/set."""
    if pred(obj):
        return convert(obj)
    if isinstance(obj, dict):
        for key in list(obj):
            obj[key] = _walk(obj[key], pred, convert)
        return obj
    if isinstance(obj, list):
        return [_walk(v, pred, convert) for v in obj]
    if isinstance(obj, tuple):
        return tuple(_walk(v, pred, convert) for v in obj)
    if isinstance(obj, set):
        return {_walk(v, pred, convert) for v in obj}
    return obj


def _from_tensor_tuple(obj):
    return isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], str) \
        and isinstance(obj[1], np.ndarray)


def _array_to_tensor(arr, return_numpy, name=None, adopted=None):
    """A Tensor of a loaded array.  ``adopted``: ids of the arrays already in a Tensor;
    an array met for the first time becomes the Tensor's memory as it is (it is the
    file's data, held by nothing else), one met again is copied (to_tensor), so no two
    loaded Tensors share memory."""
    if return_numpy:
        return arr
    if adopted is not None and get_device() == "cpu" and type(arr) is np.ndarray \
            and id(arr) not in adopted:
        adopted[id(arr)] = arr  # kept: ids stay unique while loading
        t = constant(arr)
    else:
        t = to_tensor(arr)
    if name is not None:
        t.name = name
    return t


def _restore_tensors(obj, return_numpy, keep_name_table):
    adopted = {}
    if isinstance(obj, dict) and NAME_TABLE in obj:
        table = obj[NAME_TABLE]
        for key in table if isinstance(table, dict) else ():
            if isinstance(obj.get(key), np.ndarray):
                obj[key] = _array_to_tensor(obj[key], return_numpy, adopted=adopted)
        if not keep_name_table:
            del obj[NAME_TABLE]
        return obj
    if _contains(obj, _from_tensor_tuple):
        return _walk(obj, _from_tensor_tuple,
                     lambda t: _array_to_tensor(t[1], return_numpy, t[0], adopted))
    return _walk(obj, lambda v: isinstance(v, np.ndarray),
                 lambda a: _array_to_tensor(a, return_numpy, adopted=adopted))


def _load_model_prefix(prefix, configs):
    """State dict of a jit.save model (``prefix.pdmodel`` + ``prefix.pdiparams``)."""
    from . import params_info
    model = prefix + ".pdmodel"
    params = prefix + ".pdiparams"
    if configs.get("model_filename") or configs.get("params_filename"):
        folder = prefix
        model = os.path.join(folder, configs.get("model_filename") or "__model__")
        params = os.path.join(folder, configs["params_filename"]) \
            if configs.get("params_filename") else None
    if params is None or not os.path.isfile(params):
        raise ValueError(f"The ``path`` ({prefix}) to load model not exists.")
    info = params + ".info"
    info = params_info.read_params_info(info) if os.path.isfile(info) else None
    if os.path.isfile(model):
        prog = pb.ProgramDesc()
        try:
            prog.ParseFromString(open(model, "rb").read())
        except Exception as exc:  # protobuf's DecodeError has no common base with ValueError
            raise FormatError(f"{model}: not a ProgramDesc ({exc})") from None
        names = [v.name for b in prog.blocks for v in b.vars
                 if v.persistable and v.type.type not in (pb.VarType.FEED_MINIBATCH,
                                                          pb.VarType.FETCH_LIST)]
    elif info is not None:
        names = list(info)
    else:
        raise ValueError(f"{prefix}: found {params} but neither {model} nor {params}.info "
                         "to name its tensors")
    arrays = pdiparams.load_pdiparams(params, names)
    if info is None:
        return arrays
    missing = [n for n in arrays if n not in info]
    if missing:
        raise FormatError(f"{params}.info has no entry for {missing[0]!r}")
    return {info[n]["structured_name"]: a for n, a in arrays.items()}


def _load_non_pickle(fh, where):
    """A single binary tensor (use_binary_format=True), else a clear error."""
    try:
        record = pdiparams.read_single_tensor(fh)
    except FormatError:
        raise FormatError(f"`paddle.load` can not parse the file: {where} (neither a pickle "
                          "nor a single binary tensor)") from None
    return record.array


def _load_stream(fh, where, return_numpy):
    """(loaded object, True) for a pickle at ``fh``'s position, else (tensor, False)."""
    start = fh.tell()
    first = fh.read(1)
    fh.seek(start)
    if first != b"\x80":  # every pickle of protocol >= 2 starts with PROTO
        return _array_to_tensor(_load_non_pickle(fh, where), return_numpy, adopted={}), False
    return safe_pickle.load(fh, where), True


def load(path, **configs):
    """Load what ``save`` (or paddle.save) wrote; tensors come back as sampan Tensors.

    Each array is read from the file once, into the memory it keeps (``safe_pickle``)."""
    for key in configs:
        if key not in _LOAD_CONFIGS:
            raise ValueError(f"The additional config ({key}) of `paddle.load` is not supported.")
    return_numpy = bool(configs.get("return_numpy", False))
    keep_name_table = bool(configs.get("keep_name_table", False))
    if _is_memory_buffer(path):
        where = "<in-memory buffer>"
        obj, pickled = _load_stream(path, where, return_numpy)
    elif isinstance(path, (str, os.PathLike)) and os.path.isfile(path):
        where = os.fspath(path)
        with reading(where), open(where, "rb") as fh:     # after a killed save: cleaned
            obj, pickled = _load_stream(fh, where, return_numpy)
    elif isinstance(path, (str, os.PathLike)):
        return _load_model_prefix(os.fspath(path), configs)
    else:
        raise ValueError(f"path must be a file path or io.BytesIO, got {type(path).__name__}")
    if not pickled:
        return obj
    if isinstance(obj, dict):
        obj = _pack_big_arrays(obj, where)
    return _restore_tensors(obj, return_numpy, keep_name_table)
