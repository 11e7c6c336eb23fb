"""Pickle as Paddle's files use it, without running code from them.

``load``/``loads``: a restricted unpickler.  Plain data opcodes (dict, list, tuple, set, str,
bytes, int, float, bool, None) need no globals; the only globals a file may name are the ones
Paddle's files actually contain: numpy's array/scalar/dtype reconstruction
(``numpy.core.multiarray._reconstruct`` / ``scalar``, ``numpy.ndarray``, ``numpy.dtype``;
also the ``numpy._core`` spelling of numpy 2), ``builtins.tuple`` (how ``paddle.save`` writes a
bare tensor: ``tuple((name, ndarray))``), ``collections.OrderedDict``, a few builtin
containers, and ``_codecs.encode`` with latin-1 and ``builtins.bytes`` with no argument (how
protocol 2 stores bytes, and empty bytes).  Any other
global is refused with ``UnsafePickleError`` naming it, before anything is called; object
dtypes are refused too.

``dump``/``dumps``: a pickler writing the same structure Paddle (numpy 1.x) writes, whatever
numpy is installed: numpy's reconstruct functions are always named
``numpy.core.multiarray.*`` so real Paddle environments can read the files.  It writes only
what ``load`` accepts (sampan Tensors become ``tuple((name, ndarray))`` as in Paddle); other
objects raise ``TypeError``.  It streams: an ndarray is written with the opcodes numpy's own
``__reduce__`` gives it (``_reconstruct`` + a state holding ``arr.tobytes()``), byte for byte,
but the data goes to the file straight from the array's memory (``array_bytes``), so a
checkpoint is never held in memory a second time.  Protocol 2, which stores bytes as
``_codecs.encode(text, 'latin1')``, converts the text a chunk at a time.

Loading keeps one copy too: from a file, the unpickler reads each array's bytes once into a
new bytes object, and numpy's ``__setstate__`` adopts that object as the array's memory.
"""
import _compat_pickle
import codecs
import collections
import io
import pickle
import struct

import numpy as np

from . import array_bytes
from .array_bytes import byte_chunks
from .fileio import FormatError, describe
from ..dygraph.tensor import Tensor
from ..nn import Layer

_reconstruct = np.ndarray.__reduce__(np.zeros(0))[0]
_scalar = np.float32(0).__reduce__()[0]


class UnsafePickleError(FormatError, pickle.UnpicklingError):
    """A pickle names a global that loading would have to import or call."""


def _checked_dtype(*args):
    dt = np.dtype(*args)
    if dt.hasobject:
        raise UnsafePickleError(f"refusing a numpy object dtype ({dt}) in a pickle")
    return dt


def _latin1_encode(text, encoding="latin1", errors="strict"):
    # protocol 2 writes bytes as _codecs.encode(str, 'latin1'); nothing else is allowed
    if not isinstance(text, str) or codecs.lookup(encoding).name != "iso8859-1":
        raise UnsafePickleError(f"refusing _codecs.encode with encoding {encoding!r}")
    return codecs.encode(text, "latin1", errors)


def _empty_bytes(*args):
    # protocol 2 writes empty bytes (an empty array's data) as builtins.bytes()
    if args:
        raise UnsafePickleError("refusing builtins.bytes with arguments")
    return b""


_SAFE_GLOBALS = {
    ("numpy", "ndarray"): np.ndarray,
    ("numpy", "dtype"): _checked_dtype,
    ("builtins", "tuple"): tuple,
    ("builtins", "list"): list,
    ("builtins", "dict"): dict,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "complex"): complex,
    ("builtins", "bytearray"): bytearray,
    ("builtins", "bytes"): _empty_bytes,
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("_codecs", "encode"): _latin1_encode,
}
for _mod in ("numpy.core.multiarray", "numpy._core.multiarray"):
    _SAFE_GLOBALS[(_mod, "_reconstruct")] = _reconstruct
    _SAFE_GLOBALS[(_mod, "scalar")] = _scalar


class RestrictedUnpickler(pickle.Unpickler):
    """An Unpickler whose ``find_class`` knows only ``_SAFE_GLOBALS``."""

    def __init__(self, file, source=None, **kw):
        super().__init__(file, encoding=kw.pop("encoding", "latin1"), **kw)
        self._source = describe(source if source is not None else file)

    def find_class(self, module, name):
        # protocol-2 pickles from Python 2 name builtins '__builtin__' etc.
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        found = _SAFE_GLOBALS.get((module, name))
        if found is None:
            raise UnsafePickleError(
                f"{self._source}: refusing to load global '{module}.{name}': only tensors, "
                "numpy arrays, containers and Python scalars may be loaded (loading never "
                "runs code from a file)")
        return found

    def persistent_load(self, pid):
        raise UnsafePickleError(f"{self._source}: refusing a persistent id in the pickle")


def load(file, source=None):
    """Unpickle one object from a binary file object, refusing unsafe globals.

    Malformed data raises FormatError naming ``source`` (default: the file's name)."""
    where = describe(source if source is not None else file)
    try:
        return RestrictedUnpickler(file, source=where).load()
    except UnsafePickleError as exc:
        if not str(exc).startswith(where):
            raise UnsafePickleError(f"{where}: {exc}") from None
        raise
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, KeyError, IndexError,
            AttributeError, MemoryError, OverflowError, UnicodeDecodeError) as exc:
        raise FormatError(f"{where}: not a valid pickle ({type(exc).__name__}: {exc})") from None


def loads(data, source=None):
    return load(io.BytesIO(data), source if source is not None else "<in-memory data>")


# ---------------------------------------------------------------- writing
# name written for each global the pickler meets (Paddle's files come from numpy 1.x)
_WRITE_NAMES = {
    id(_reconstruct): ("numpy.core.multiarray", "_reconstruct"),
    id(_scalar): ("numpy.core.multiarray", "scalar"),
    id(np.ndarray): ("numpy", "ndarray"),
    id(np.dtype): ("numpy", "dtype"),
    id(tuple): ("builtins", "tuple"),
    id(list): ("builtins", "list"),
    id(dict): ("builtins", "dict"),
    id(set): ("builtins", "set"),
    id(frozenset): ("builtins", "frozenset"),
    id(complex): ("builtins", "complex"),
    id(bytearray): ("builtins", "bytearray"),
    id(bytes): ("builtins", "bytes"),
    id(collections.OrderedDict): ("collections", "OrderedDict"),
    id(codecs.encode): ("_codecs", "encode"),
}
_PLAIN = (type(None), bool, int, float, str, bytes, bytearray, complex, tuple, list, dict,
          set, frozenset, collections.OrderedDict)


def _tensor_class():
    return Tensor


def _is_layer(obj):
    return isinstance(obj, Layer)


class _ArrayData:
    """Stands for an ndarray's data bytes (``arr.tobytes(order)``) in its pickled state."""
    __slots__ = ("array", "nbytes")

    def __init__(self, array):
        self.array = array  # its C-order bytes are the data (arr, or arr.T for Fortran)
        self.nbytes = array.nbytes


class _Latin1Text:
    """Stands for ``str(data, 'latin1')``: how protocol 2 stores bytes."""
    __slots__ = ("data",)

    def __init__(self, data):
        self.data = data


_STAND_INS = (_ArrayData, _Latin1Text)  # saved by the pickler's own dispatch entries


def _array_reduce(arr):
    """numpy's ``arr.__reduce__()`` with the data left in the array."""
    # (_reconstruct, (ndarray, (0,), b'b')) exactly as numpy builds them, fresh each time
    func, args, state = np.ndarray.__reduce__(np.empty(0, arr.dtype))
    fortran = arr.flags.f_contiguous and not arr.flags.c_contiguous  # PyArray_ISFORTRAN
    if arr.nbytes <= 0xff:
        # numpy's own bytes: the empty and 1-byte ones are CPython singletons that the
        # memo shares between arrays, and the file must do the same
        data = arr.tobytes("A")
    else:
        data = _ArrayData(arr.T if fortran else arr)
    return func, args, (state[0], arr.shape, arr.dtype, fortran, data)


def _utf8_size(data):
    """Length of ``str(bytes, 'latin1').encode('utf-8')``: bytes >= 0x80 take two."""
    return data.nbytes + sum(int(np.count_nonzero(c >= 0x80))
                             for c in byte_chunks(data.array, array_bytes.CHUNK))


class _PaddlePickler(pickle._Pickler):
    """The pure-Python pickler (so global names can be chosen) limited to loadable data."""

    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self._tensor = _tensor_class()

    def reducer_override(self, obj):
        t = type(obj)
        if t in _PLAIN or t in _STAND_INS or id(obj) in _WRITE_NAMES:
            return NotImplemented
        if isinstance(obj, self._tensor):
            return tuple, ((obj.name, np.asarray(obj._host())),)
        if t is np.ndarray or isinstance(obj, (np.generic, np.dtype)):
            dt = obj if isinstance(obj, np.dtype) else obj.dtype
            if dt.hasobject:
                raise TypeError(f"cannot save a numpy array of object dtype ({dt})")
            if t is np.ndarray:
                return _array_reduce(obj)
            return NotImplemented
        if _is_layer(obj):
            raise ValueError("paddle do not support saving `paddle.nn.Layer` object.")
        raise TypeError(f"cannot save an object of type {t.__module__}.{t.__qualname__}: only "
                        "tensors, numpy arrays, containers and Python scalars are supported")

    # save_bytes for an array's data, writing the same opcodes without the bytes object
    def save_array_data(self, obj):
        n = obj.nbytes
        if self.proto < 3:
            self.save_reduce(codecs.encode, (_Latin1Text(obj), "latin1"), obj=obj)
            return
        if n > 0xffffffff and self.proto >= 4:  # (n > 0xff: smaller data is real bytes)
            self._write_raw(pickle.BINBYTES8 + struct.pack("<Q", n), obj.array)
        elif n >= self.framer._FRAME_SIZE_TARGET:
            self._write_raw(pickle.BINBYTES + struct.pack("<I", n), obj.array)
        else:
            self.write(pickle.BINBYTES + struct.pack("<I", n) + obj.array.tobytes())
        self.memoize(obj)
    dispatch[_ArrayData] = save_array_data

    # save_str (protocol 2) for str(data, 'latin1'), converted a chunk at a time
    def save_latin1_text(self, obj):
        n = _utf8_size(obj.data)
        header = pickle.BINUNICODE + struct.pack("<I", n)
        if n >= self.framer._FRAME_SIZE_TARGET:
            self._write_raw(header, obj.data.array, utf8=True)
        else:
            self.write(header + obj.data.array.tobytes().decode("latin1").encode("utf-8"))
        self.memoize(obj)
    dispatch[_Latin1Text] = save_latin1_text

    def _write_raw(self, header, arr, utf8=False):
        """``_write_large_bytes(header, payload)`` with the payload taken from ``arr``."""
        pieces = byte_chunks(arr, array_bytes.CHUNK if utf8 else None)
        if utf8:
            pieces = (bytes(p).decode("latin1").encode("utf-8") for p in pieces)
        self._write_large_bytes(header, next(pieces, b""))  # ends the current frame
        for piece in pieces:
            self.framer.file_write(piece)

    def save_global(self, obj, name=None):
        names = _WRITE_NAMES.get(id(obj))
        if names is None:
            raise TypeError(f"cannot save global {obj!r}")
        module, name = names
        if self.proto >= 4:
            self.save(module)
            self.save(name)
            self.write(pickle.STACK_GLOBAL)
        else:
            if self.proto < 3:  # Python 2's names, as pickle's fix_imports writes them
                module, name = _compat_pickle.REVERSE_NAME_MAPPING.get((module, name),
                                                                       (module, name))
                module = _compat_pickle.REVERSE_IMPORT_MAPPING.get(module, module)
            self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode("utf-8"))
        self.memoize(obj)


def dump(obj, file, protocol=4):
    _PaddlePickler(file, protocol).dump(obj)


def dumps(obj, protocol=4):
    buf = io.BytesIO()
    dump(obj, buf, protocol)
    return buf.getvalue()
