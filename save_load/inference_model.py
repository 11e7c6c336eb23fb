"""``sampan.static.save_inference_model`` / ``load_inference_model`` and the
writer every saver shares (``write_model``).

Saving: the program becomes an inference program (``prune.inference_program``:
test mode, only what the outputs need, Paddle's feed/fetch/scale layout), its
persistables are taken from the scope (or from the eager tensors bound to the
program), checked against their variables, and written as ``<prefix>.pdiparams``
(sorted by name; no file when there are none) and ``<prefix>.pdmodel``, as one
unit (``atomic_set``: a killed save leaves the old model or the new one).
``save_inference_model`` writes no ``.pdiparams.info`` (as Paddle's static
saver) and drops a stale one; ``jit.save`` passes one.  Both write the set's
manifest ``<prefix>.sampan.json`` (``manifest``), which loads check when present.

Loading is strict (``program_io``): any fault raises ``FormatError`` naming
the file and the variable; parameters go into the global scope.  It reads under
``atomic_set.reading``: a save of the model killed half-way is finished first
(or reported by ``InterruptedSaveError`` naming the files).
"""
import os

import numpy as np

from ..executor.scope import global_scope
from ..program.program_guard import default_main_program
from ..program.variable import tensor_desc
from ..ops import is_graph_value
from ..ops.dtypes import ENUM_TO_NP
from . import pdiparams
from .atomic_set import reading, write_file_set
from .manifest import ManifestBuilder, read_model, sidecars
from .params_info import dump_params_info
from .program_io import (feed_fetch_targets, load_params, model_paths, parse_program,
                         persistable_names, program_bytes, read_program)
from .prune import inference_program
from ..kernels.transform import to_backend

__all__ = ["save_inference_model", "load_inference_model", "write_model", "model_files",
           "scope_values", "normalize_prefix"]


# ----------------------------------------------------------------- saving
def normalize_prefix(path_prefix):
    """Paddle's checks on a save prefix: a non-empty path that is not a directory."""
    if not isinstance(path_prefix, (str, os.PathLike)):
        raise ValueError(f"path_prefix must be a str, got {type(path_prefix).__name__}")
    path_prefix = os.fspath(path_prefix)
    if not path_prefix or path_prefix.endswith(("/", os.sep)) or os.path.isdir(path_prefix):
        raise ValueError(f"'path_prefix' should not be a directory: {path_prefix!r}; give "
                         f"a prefix like 'dir/model' (writes dir/model.pdmodel ...)")
    return os.path.normpath(path_prefix)


def _var_list(vs, what):
    if vs is None:
        raise ValueError(f"{what} must be a Variable or a list of Variables, got None")
    if not isinstance(vs, (list, tuple)):
        vs = [vs]
    out = []
    for v in vs:
        if not is_graph_value(v):
            raise ValueError(f"{what} must hold static Variables (from static.data or the "
                             f"ops of the program), got {type(v).__name__}")
        out.append(v.name)
    return out


def scope_values(program, scope=None):
    """{name: ndarray} of the program's persistables: eager tensors bound to the
    program first, then the scope; checked against the variables' dtype/shape."""
    scope = global_scope() if scope is None else scope
    bound = getattr(program, "_bound", {}) or {}
    out = {}
    for name in persistable_names(program):
        t = bound.get(name)
        if t is not None:
            a = t._data
        else:
            sv = scope.find_var(name)
            a = sv.get() if sv is not None else None
        if a is None:
            raise ValueError(f"persistable variable '{name}' has no value in the scope; run "
                             f"the startup program (exe.run(startup_program)) before saving")
        a = np.asarray(a) if type(a) is np.ndarray else np.asarray(_to_cpu(a))
        _check_value(program, name, a)
        out[name] = a
    return out


def _to_cpu(a):
    return to_backend(a, "CPU")


def _check_value(program, name, a):
    for b in program.blocks:
        v = b.vars.get(name)
        if v is None:
            continue
        td = tensor_desc(v.desc)
        want = ENUM_TO_NP.get(td.data_type) if td is not None else None
        dims = list(td.dims) if td is not None else []
        if want is not None and a.dtype != want:
            raise ValueError(f"persistable '{name}' holds {a.dtype} values, its variable is "
                             f"{want}")
        if len(dims) != a.ndim or any(d != -1 and d != s for d, s in zip(dims, a.shape)):
            raise ValueError(f"persistable '{name}' holds shape {list(a.shape)}, its "
                             f"variable is declared {dims}")
        return


def model_files(path_prefix, program, params, info=None, manifest=None, method="forward"):
    """The files of an inference model at ``path_prefix``, for ``atomic_set.write_file_set``:
    ``({path: write(fh)}, [paths the new set drops])``.  ``<prefix>.pdiparams`` when the
    program has persistables, ``.pdiparams.info`` when ``info`` is given (else a stale one
    of an earlier save is dropped: it would describe other parameters), ``.pdmodel``."""
    model, pfile = path_prefix + ".pdmodel", path_prefix + ".pdiparams"
    names = persistable_names(program)
    if sorted(params) != names:
        raise ValueError(f"params {sorted(params)[:5]} do not match the program's "
                         f"persistables {names[:5]}")
    model_data = program_bytes(program)      # a program that cannot be saved fails first
    files, drop = {}, []
    if names:
        files[pfile] = lambda fh: pdiparams.write_records(fh, ((n, params[n]) for n in names))
    else:
        drop.append(pfile)
    if names and info is not None:
        files[pfile + ".info"] = lambda fh: dump_params_info(info, fh, pfile + ".info")
    else:
        drop.append(pfile + ".info")
    files[model] = lambda fh: fh.write(model_data)
    if manifest is not None:            # the set's manifest (save_load.manifest) describes it
        feeds, fetches = feed_fetch_targets(program, model)
        manifest.add_model(method, model, pfile, program, params, feeds, fetches)
    return files, drop


def write_model(path_prefix, program, params, info=None):
    """Write ``<prefix>.pdiparams`` (if any params), ``.pdiparams.info`` (if ``info``)
    and ``<prefix>.pdmodel`` as one unit (``atomic_set``); stale params/info files of an
    earlier save at this prefix go when the new model has none.  Returns the written
    paths."""
    manifest = ManifestBuilder(path_prefix)
    files, drop = model_files(path_prefix, program, params, info, manifest)
    return write_file_set(path_prefix, manifest.wrap(files), drop)


def save_inference_model(path_prefix, feed_vars, fetch_vars, executor, **kwargs):
    """Save the part of ``program`` (default: the main program) that computes
    ``fetch_vars`` from ``feed_vars`` as ``<path_prefix>.pdmodel`` + ``.pdiparams``."""
    path_prefix = normalize_prefix(path_prefix)
    feed_names = _var_list(feed_vars, "feed_vars")
    fetch_names = _var_list(fetch_vars, "fetch_vars")
    program = kwargs.get("program")
    program = default_main_program() if program is None else program
    program = getattr(program, "_program", program)
    scope = kwargs.get("scope")          # (sampan extra) default: the global scope
    infer, _ = inference_program(program, feed_names, fetch_names,
                                 clip_extra=kwargs.get("clip_extra", True))
    infer._bound = {k: t for k, t in getattr(program, "_bound", {}).items()}
    params = scope_values(infer, scope)
    infer._bound = {}
    return write_model(path_prefix, infer, params)


# ----------------------------------------------------------------- loading
def _set_in_scope(scope, params):
    for name, arr in params.items():
        sv = scope.var(name)
        if sv._bound is not None:       # stood for an eager tensor: stop writing through it
            sv.bind(None)
        sv.set(arr)


def load_inference_model(path_prefix, executor, **kwargs):
    """``[program, feed_target_names, fetch_targets]`` of a saved inference model;
    its parameters are loaded into the global scope."""
    model_filename = kwargs.get("model_filename")
    params_filename = kwargs.get("params_filename")
    if path_prefix is None:             # Paddle: the two kwargs hold the files' bytes
        if not isinstance(model_filename, (bytes, bytearray)):
            raise ValueError("with path_prefix=None, model_filename must hold the model's "
                             "bytes")
        program = parse_program(model_filename, "<model bytes>")
        params = load_params(program, params_filename or b"", "<model bytes>")
        where = "<model bytes>"
    else:
        if not isinstance(path_prefix, (str, os.PathLike)):
            raise ValueError(f"path_prefix must be a str, got {type(path_prefix).__name__}")
        model, pfile = model_paths(os.fspath(path_prefix), model_filename, params_filename)
        with reading(model, pfile, *sidecars(model)):   # checked against its manifest, if any
            program, params = read_model(model, pfile)
        where = model
    feeds, fetches = feed_fetch_targets(program, where)
    program._source = where
    _set_in_scope(global_scope(), params)
    block = program.global_block()
    return [program, list(feeds), [block.var(n) for n in fetches]]
