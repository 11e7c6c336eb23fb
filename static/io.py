"""``paddle.static``'s in-memory model I/O (Paddle 2.6's ``paddle/static/io.py``):
``normalize_program``, ``serialize_program`` / ``deserialize_program``,
``serialize_persistables`` / ``deserialize_persistables``, ``save_to_file`` /
``load_from_file``.

The bytes are Paddle's: a program is a serialized ProgramDesc (the inference
layout of ``save_inference_model``: pruned, scaled outputs, feed/fetch ops), and
persistables are the combined ``.pdiparams`` format (the tensors sorted by name),
so ``save_to_file(prefix + ".pdmodel", serialize_program(...))`` and the same for
``.pdiparams`` make a model real Paddle loads.

Difference: Paddle's ``normalize_program`` also appends the ``scale`` ops of the
outputs to the caller's program; sampan leaves the caller's program untouched
(everything happens on a copy).
"""
import io
import os
import warnings

from ..executor.scope import global_scope
from ..ops import is_graph_value
from ..program.framework import Program
from ..program.program_guard import default_main_program
from ..save_load import pdiparams
from ..save_load.inference_model import scope_values, _set_in_scope
from ..save_load.program_io import (parse_program, program_bytes, persistable_names,
                                    load_params)
from ..save_load.prune import inference_program

__all__ = ["normalize_program", "serialize_program", "deserialize_program",
           "serialize_persistables", "deserialize_persistables", "save_to_file",
           "load_from_file"]


def _as_list(vs, what):
    if vs is None:
        raise ValueError(f"{what} should not be None.")
    vs = list(vs) if isinstance(vs, (list, tuple)) else [vs]
    if not vs or not all(is_graph_value(v) for v in vs):
        raise TypeError(f"{what} type must be a Variable or a list of Variable.")
    return vs


def _program(program):
    program = default_main_program() if program is None else program
    program = getattr(program, "_program", program)
    if not isinstance(program, Program):
        raise TypeError(f"program type must be `base.Program`, but received "
                        f"`{type(program)}`")
    return program


def normalize_program(program, feed_vars, fetch_vars, **kwargs):
    """The inference form of ``program`` for ``feed_vars`` -> ``fetch_vars``: test mode,
    pruned to what the outputs need, each non-bool output copied by
    ``scale(1.0)`` into ``save_infer_model/scale_<i>.tmp_0``, feed/fetch ops added."""
    if not isinstance(getattr(program, "_program", program), Program):
        raise TypeError(f"program type must be `base.Program`, but received "
                        f"`{type(program)}`")
    program = _program(program)
    feeds = _as_list(feed_vars, "feed_vars")
    fetches = _as_list(fetch_vars, "fetch_vars")
    for op in program.global_block().ops:
        if op.type == "auc":
            warnings.warn("Be sure that you have set auc states to 0 before saving "
                          "inference model.")
            break
    infer, _ = inference_program(program, [v.name for v in feeds],
                                 [v.name for v in fetches])
    infer._bound = dict(getattr(program, "_bound", {}) or {})
    return infer


def serialize_program(feed_vars, fetch_vars, **kwargs):
    """The serialized ProgramDesc (bytes) of the normalized ``program`` (kwarg;
    default the main program)."""
    _as_list(feed_vars, "feed_vars")
    _as_list(fetch_vars, "fetch_vars")
    program = normalize_program(_program(kwargs.get("program")), feed_vars, fetch_vars)
    return program_bytes(program)


def _persistable_bytes(program, scope=None):
    names = persistable_names(program)
    if not names:
        warnings.warn("no variable in your model, please ensure there are any variables in "
                      "your model to save")
        return None
    values = scope_values(program, scope)
    buf = io.BytesIO()
    pdiparams.write_records(buf, ((n, values[n]) for n in names))
    return buf.getvalue()


def serialize_persistables(feed_vars, fetch_vars, executor, **kwargs):
    """The persistables the normalized program needs, in the combined ``.pdiparams``
    byte format (sorted by name); None (with a warning) when there are none."""
    _as_list(feed_vars, "feed_vars")
    _as_list(fetch_vars, "fetch_vars")
    program = normalize_program(_program(kwargs.get("program")), feed_vars, fetch_vars)
    return _persistable_bytes(program, kwargs.get("scope"))


def deserialize_program(data):
    """The Program of serialized ProgramDesc bytes (checked strictly)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"deserialize_program expects bytes, got {type(data).__name__}")
    return parse_program(bytes(data), "<program bytes>")


def deserialize_persistables(program, data, executor):
    """Put the tensors of ``data`` (``.pdiparams`` bytes) into the global scope for
    ``program``'s persistable variables (each checked against its variable)."""
    if not isinstance(getattr(program, "_program", program), Program):
        raise TypeError(f"program type must be `base.Program`, but received "
                        f"`{type(program)}`")
    program = getattr(program, "_program", program)
    if data is None:
        if persistable_names(program):
            raise ValueError("Required 'data' shall be not None if program contains "
                             "parameter, but received 'data' is None.")
        return
    arrays = load_params(program, bytes(data), "<program>")
    _set_in_scope(global_scope(), arrays)


def save_to_file(path, content):
    """Write ``content`` (bytes) to ``path``."""
    if not isinstance(content, bytes):
        raise ValueError("'content' type should be bytes.")
    with open(os.fspath(path), "wb") as f:
        f.write(content)


def load_from_file(path):
    """The bytes of the file at ``path``."""
    with open(os.fspath(path), "rb") as f:
        return f.read()
