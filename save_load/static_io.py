"""``sampan.static.save`` / ``load`` (and ``load_program_state`` /
``set_program_state``): a static program's state as Paddle 2.x writes it.

``save(program, model_path)`` writes three files:
* ``model_path.pdparams``: a pickle of ``{name: ndarray}`` for every Parameter;
* ``model_path.pdopt``: the same for the other persistable variables (optimizer
  accumulators, learning rates ...), data variables and feed/fetch holders excluded;
* ``model_path.pdmodel``: the serialized ProgramDesc.
Values come from the global scope (or the eager tensors bound to the program).
The three files are written as one unit (``atomic_set``): a save killed at any
instant leaves the old state or the new one, never a mix.

Loading reads pickles through the restricted unpickler only (no code from a file
runs) and checks every variable's presence, dtype and shape before anything is
written to the scope.
"""
import os

import numpy as np

from ..executor.scope import global_scope
from ..program.variable import Parameter, tensor_desc
from ..ops.dtypes import ENUM_TO_NP
from ..program.proto import framework_pb2 as pb
from . import safe_pickle
from .atomic_set import reading, write_file_set
from .manifest import SUFFIX as MANIFEST_SUFFIX
from .fileio import FormatError
from .program_io import program_bytes
from .state_dict_io import _pack_big_arrays, _unpack_big_arrays, _check_protocol
from ..kernels.transform import to_backend

__all__ = ["save", "load", "load_program_state", "set_program_state"]

_NOT_STATE = (pb.VarType.FEED_MINIBATCH, pb.VarType.FETCH_LIST, pb.VarType.READER,
              pb.VarType.RAW)


def _is_parameter(v):
    return isinstance(v, Parameter)


def _is_optimizer_var(v):
    """Paddle's is_belong_to_optimizer: persistable, not a Parameter, not fed data."""
    return (v.persistable and not isinstance(v, Parameter) and not v.need_check_feed
            and not v.is_data and v.type not in _NOT_STATE)


def _state_vars(program, pred):
    seen, out = set(), []
    for v in program.list_vars():
        if pred(v) and v.name not in seen:
            seen.add(v.name)
            out.append(v)
    return out


def _value(program, scope, name):
    t = program._bound.get(name)
    if t is not None:
        return np.array(t._host())
    sv = scope.find_var(name)
    a = sv.get() if sv is not None else None
    if a is None:
        raise ValueError(f"variable '{name}' has no value in the scope; run the startup "
                         f"program first")
    return np.array(a) if type(a) is np.ndarray else np.array(_cpu(a))


def _cpu(a):
    return to_backend(a, "CPU")


def _prefix(model_path):
    path = os.fspath(model_path)
    for suffix in (".pdparams", ".pdopt", ".pdmodel"):
        if path.endswith(suffix):
            return path[:-len(suffix)]
    return path


def save(program, model_path, protocol=4, **configs):
    """Write ``.pdparams``, ``.pdopt`` and ``.pdmodel`` for ``program``'s state."""
    if os.path.basename(os.fspath(model_path)) == "":
        raise ValueError("The input model_path MUST be format of dirname/filename "
                         f"[dirname\\filename in Windows system], but received {model_path!r}")
    if configs.get("pickle_protocol") is not None:
        protocol = configs["pickle_protocol"]
    _check_protocol(protocol)
    program = getattr(program, "_program", program)
    scope = global_scope()
    model_path = os.fspath(model_path)
    params = {v.name: _value(program, scope, v.name)
              for v in _state_vars(program, _is_parameter)}
    opt = {v.name: _value(program, scope, v.name)
           for v in _state_vars(program, _is_optimizer_var)}
    blobs = {model_path + ".pdparams": safe_pickle.dumps(_unpack_big_arrays(params, protocol),
                                                          protocol),
             model_path + ".pdopt": safe_pickle.dumps(_unpack_big_arrays(opt, protocol),
                                                       protocol),
             model_path + ".pdmodel": program_bytes(program, op_versions=False)}
    # all bytes built before any file is touched; the three files land as one unit
    # a jit.save manifest here described the .pdmodel this replaces: it goes with it
    write_file_set(model_path, {path: _writer(data) for path, data in blobs.items()},
                   [model_path + MANIFEST_SUFFIX])


def _writer(data):
    return lambda fh: fh.write(data)


def _read_dict(path):
    with open(path, "rb") as fh:
        obj = safe_pickle.load(fh, path)
    if not isinstance(obj, dict):
        raise FormatError(f"{path}: expected a pickled dict of name -> array, found "
                          f"{type(obj).__name__}")
    obj = _pack_big_arrays(obj, path)
    for k, v in obj.items():
        if not isinstance(v, np.ndarray):
            raise FormatError(f"{path}: entry {k!r} is a {type(v).__name__}, not an array")
    return obj


def load_program_state(model_path, var_list=None):
    """{name: ndarray} from ``model_path.pdparams`` (and ``.pdopt`` when present)."""
    prefix = _prefix(model_path)
    pfile = prefix + ".pdparams"
    with reading(prefix):
        if not os.path.isfile(pfile):
            raise ValueError(f"Parameter file [{pfile}] not exits")
        state = _read_dict(pfile)
        if os.path.isfile(prefix + ".pdopt"):
            state.update(_read_dict(prefix + ".pdopt"))
    if var_list is not None:
        names = {getattr(v, "name", v) for v in var_list}
        state = {k: v for k, v in state.items() if k in names}
    return state


def _checked(var, arr, source):
    td = tensor_desc(var.desc)
    if td is None:
        return arr
    want = ENUM_TO_NP.get(td.data_type)
    if want is not None and arr.dtype != want:
        raise ValueError(f"{source}: '{var.name}' holds {arr.dtype} values, the program's "
                         f"variable is {want}")
    shape = tuple(td.dims)
    if len(shape) != arr.ndim or any(d != -1 and d != s for d, s in zip(shape, arr.shape)):
        raise ValueError(f"{source}: {var.name} receives a shape {list(arr.shape)}, but the "
                         f"expected shape is {list(shape)}.")
    return arr


def set_program_state(program, state_dict):
    """Put the arrays of ``state_dict`` into the scope for ``program``'s persistables
    (shape/dtype checked first).  Returns the names of persistables left unset."""
    program = getattr(program, "_program", program)
    todo = {}
    for v in _state_vars(program, lambda v: _is_parameter(v) or _is_optimizer_var(v)):
        if v.name in state_dict:
            todo[v.name] = _checked(v, np.asarray(state_dict[v.name]), "set_program_state")
    _put(program, todo)
    return [v.name for v in _state_vars(program, lambda v: _is_parameter(v) or
                                        _is_optimizer_var(v)) if v.name not in todo]


def _put(program, arrays):
    scope = global_scope()
    for name, arr in arrays.items():
        t = program._bound.get(name)
        if t is not None and getattr(t, "_alias", None) is not None:
            t._write_shared(arr)        # an eager tensor with views: they see it
        elif t is not None:
            t._data = arr
        else:
            scope.var(name).set(arr)


def load(program, model_path, executor=None, var_list=None):
    """Load ``model_path.pdparams`` (and ``.pdopt`` when the program has optimizer
    state) into the global scope for ``program``'s variables."""
    program = getattr(program, "_program", program)
    prefix = _prefix(model_path)
    with reading(prefix):
        todo = _read_state(program, prefix, var_list)
    _put(program, todo)


def _read_state(program, prefix, var_list):
    """{name: checked array} for ``program``'s state variables from the prefix's files."""
    pfile, ofile = prefix + ".pdparams", prefix + ".pdopt"
    if not os.path.isfile(pfile):
        raise ValueError(f"Parameter file [{pfile}] not exits")
    wanted = None if var_list is None else {getattr(v, "name", v) for v in var_list}
    todo = {}
    groups = [(pfile, _state_vars(program, _is_parameter))]
    opt_vars = _state_vars(program, _is_optimizer_var)
    if opt_vars:
        if not os.path.isfile(ofile):
            raise ValueError(f"Optimizer file [{ofile}] not exits")
        groups.append((ofile, opt_vars))
    for path, vs in groups:
        if wanted is not None:
            vs = [v for v in vs if v.name in wanted]
        if not vs:
            continue
        saved = _read_dict(path)
        for v in vs:
            if v.name not in saved:
                raise ValueError(f"Can not find [{v.name}] in model file [{path}]")
            todo[v.name] = _checked(v, saved[v.name], path)
    return todo
