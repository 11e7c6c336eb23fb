"""``.pdiparams.info`` (FORMAT.md §4): a protocol-2 pickle of one dict
``{variable name: {"structured_name": str, "stop_gradient": bool, "trainable": bool}}``
describing each persistable tensor of ``.pdiparams``.  Read through the restricted unpickler
and checked entry by entry; written atomically.  Optional for loading (Paddle never needs it);
its key order carries no meaning."""
from . import safe_pickle
from .fileio import FormatError, atomic_open, describe, ensure_parent

PROTOCOL = 2
_FIELDS = (("structured_name", str), ("stop_gradient", bool), ("trainable", bool))


def make_entry(structured_name, stop_gradient=False, trainable=True):
    """One value of the info dict, keys in the order Paddle writes them."""
    return {"structured_name": str(structured_name), "stop_gradient": bool(stop_gradient),
            "trainable": bool(trainable)}


def _check(info, where):
    if not isinstance(info, dict):
        raise FormatError(f"{where}: expected a dict of variable entries, found "
                          f"{type(info).__name__}")
    for name, entry in info.items():
        if not isinstance(name, str):
            raise FormatError(f"{where}: variable name {name!r} is not a string")
        if not isinstance(entry, dict):
            raise FormatError(f"{where}: entry of {name!r} is a {type(entry).__name__}, "
                              "expected a dict")
        for key, kind in _FIELDS:
            if key in entry and not isinstance(entry[key], kind):
                raise FormatError(f"{where}: {name!r}[{key!r}] is {entry[key]!r}, expected "
                                  f"a {kind.__name__}")
        if "structured_name" not in entry:
            raise FormatError(f"{where}: entry of {name!r} has no 'structured_name'")
    return info


def read_params_info(path):
    """The info dict of a ``.pdiparams.info`` file (FormatError when malformed)."""
    where = describe(path)
    with open(path, "rb") as fh:
        info = safe_pickle.load(fh, where)
    return _check(info, where)


def dump_params_info(info, fh, where="<params info>"):
    """Write ``{name: entry}`` (entries from ``make_entry`` or plain dicts), checked, to the
    binary file object ``fh``."""
    _check(info, where)
    safe_pickle.dump(info, fh, PROTOCOL)


def write_params_info(path, info):
    """Write ``{name: entry}`` (entries from ``make_entry`` or plain dicts) atomically."""
    ensure_parent(path)
    with atomic_open(path) as fh:       # a bad entry raises here, before the file is replaced
        dump_params_info(info, fh, describe(path))


def structured_names(info):
    """{variable name: structured name} from an info dict."""
    return {name: entry["structured_name"] for name, entry in info.items()}
