"""Nested structures of branch / loop values (lists, tuples, dicts of leaves), as
cond and while_loop see them: flatten, rebuild, compare, describe."""
from ...ops import is_graph_value

__all__ = ["flatten", "pack_sequence_as", "map_structure", "same_structure", "describe"]


def _is_seq(x):
    return isinstance(x, (list, tuple, dict))


def _items(x):
    if isinstance(x, dict):
        return [x[k] for k in sorted(x)]
    return list(x)


def flatten(x):
    """The leaves of ``x`` in order (dict values by sorted key)."""
    if not _is_seq(x):
        return [x]
    out = []
    for v in _items(x):
        out.extend(flatten(v))
    return out


def _pack(structure, flat, pos):
    if not _is_seq(structure):
        return flat[pos], pos + 1
    vals = []
    for v in _items(structure):
        packed, pos = _pack(v, flat, pos)
        vals.append(packed)
    if isinstance(structure, dict):            # the values by sorted key, the keys in order
        by_key = dict(zip(sorted(structure), vals))
        return type(structure)((k, by_key[k]) for k in structure), pos
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):    # namedtuple
        return type(structure)(*vals), pos
    return type(structure)(vals), pos


def pack_sequence_as(structure, flat):
    """``structure`` with its leaves replaced by ``flat`` (in flatten's order)."""
    flat = list(flat)
    packed, pos = _pack(structure, flat, 0)
    if pos != len(flat):
        raise ValueError(f"pack_sequence_as: the structure has {pos} leaves, got {len(flat)}")
    return packed


def map_structure(fn, *structures):
    first = structures[0]
    leaves = [flatten(s) for s in structures]
    return pack_sequence_as(first, [fn(*xs) for xs in zip(*leaves)])


def same_structure(a, b):
    """Whether ``a`` and ``b`` nest the same way (leaf types are not compared)."""
    if _is_seq(a) != _is_seq(b):
        return False
    if not _is_seq(a):
        return True
    if isinstance(a, dict) != isinstance(b, dict):
        return False
    if isinstance(a, dict) and sorted(a) != sorted(b):
        return False
    ia, ib = _items(a), _items(b)
    return len(ia) == len(ib) and all(same_structure(x, y) for x, y in zip(ia, ib))


def _leaf(x):
    if x is None:
        return "None"
    if is_graph_value(x):
        return f"Variable '{x.name}'"
    if hasattr(x, "_data"):
        return "Tensor"
    return f"{type(x).__name__} {x!r:.20}"


def describe(x):
    """A short text of a structure: ``(Variable 'a', [Variable 'b', int 1])``."""
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {describe(x[k])}" for k in sorted(x)) + "}"
    if isinstance(x, tuple):
        return "(" + ", ".join(describe(v) for v in x) + ("," if len(x) == 1 else "") + ")"
    if isinstance(x, list):
        return "[" + ", ".join(describe(v) for v in x) + "]"
    return _leaf(x)
