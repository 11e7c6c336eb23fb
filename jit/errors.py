"""Errors of converted code, shown in the user's terms.

Converted functions are compiled under synthetic file names (registered with
``linecache``); each comes with a source map from its lines to the user's
file, line and function.  ``user_error(exc)`` rewrites an exception raised
while converted code was traced or run so that its message ends with the
user's frames: the outer ones one line each, the innermost with a five-line
window and a ``<--- HERE`` marker.  The exception keeps its type.
``map_error(exc)`` also rewrites an error of a program's run, from the
``Location`` its failing op keeps (``program.location``).

``ConversionError`` is what conversion and the runtime helpers raise for
code they cannot turn into a program (a tensor-conditioned recursion, a
variable bound on one side of a tensor ``if`` only, a loop variable that
changes type): the message names the construct and suggests a rewrite.
"""
import copy
import linecache
import os
import sys

from ..program.location import Location, register_location_mapper

__all__ = ["ConversionError", "Location", "register_source_map", "map_location",
           "user_error", "map_error", "caller_location"]

_WINDOW = 2            # lines shown on each side of the failing one


class ConversionError(Exception):
    """A construct to_static cannot express as a program (see the message)."""


_maps = {}             # synthetic file name -> {converted line: Location (program.location)}


def register_source_map(filename, line_map):
    """Remember where each line of converted file ``filename`` came from."""
    _maps[filename] = dict(line_map)


def map_location(filename, lineno):
    """The user's ``Location`` of line ``lineno`` of a converted file (None
    for any other file).  Lines without their own entry take the nearest
    mapped line above them."""
    m = _maps.get(filename)
    if m is None:
        return None
    for n in range(lineno, 0, -1):
        loc = m.get(n)
        if loc is not None:
            return loc
    return None


def caller_location(depth=1):
    """The user's location of the innermost converted frame on the stack,
    skipping ``depth`` frames (for messages raised by runtime helpers)."""
    f = sys._getframe(depth)
    while f is not None:
        loc = map_location(f.f_code.co_filename, f.f_lineno)
        if loc is not None:
            return loc
        f = f.f_back
    return None


# ----------------------------------------------------------------- rendering
def _window(loc):
    lines = []
    for n in range(max(1, loc.lineno - _WINDOW), loc.lineno + _WINDOW + 1):
        text = linecache.getline(loc.filename, n)
        if not text:
            continue
        lines.append((n, text.rstrip("\n")))
    if not lines:
        return []
    indent = min(len(t) - len(t.lstrip()) for _, t in lines if t.strip()) if any(
        t.strip() for _, t in lines) else 0
    width = len(str(lines[-1][0]))
    out = []
    for n, t in lines:
        mark = "    <--- HERE" if n == loc.lineno else ""
        out.append(f"      {n:>{width}}  {t[indent:]}{mark}")
    return out


def _one_line(loc):
    text = linecache.getline(loc.filename, loc.lineno).strip()
    return [f"    {loc}", f"      {text}"] if text else [f"    {loc}"]


def _user_frames(tb):
    """The user's locations along a traceback: converted frames mapped back,
    plus user frames outside sampan that were called from converted code."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    out, seen_converted = [], False
    while tb is not None:
        code = tb.tb_frame.f_code
        loc = map_location(code.co_filename, tb.tb_lineno)
        if loc is not None:
            seen_converted = True
            if not out or out[-1] != loc:
                out.append(loc)
        elif seen_converted and _is_user_file(code.co_filename, root):
            out.append(Location(code.co_filename, tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    return out


def _is_user_file(path, root):
    if path.startswith("<") or path.startswith(root):
        return False
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    return not any(p and path.startswith(p + os.sep) for p in prefixes)


def render(frames):
    """The text ``user_error`` appends: outer frames one line each, the last
    one with its window."""
    lines = ["", "", "(to_static) the error happened in your code:"]
    for loc in frames[:-1]:
        lines += _one_line(loc)
    last = frames[-1]
    lines.append(f"    {last}")
    lines += _window(last) or _one_line(last)[1:]
    return "\n".join(lines)


def _same_type(exc, message):
    try:
        new = type(exc)(message)
    except Exception:
        return None
    return new if str(new).find(message.split("\n", 1)[0]) >= 0 else None


def user_error(exc):
    """``exc`` re-expressed in the user's source (same type; the message gets
    the user's frames appended).  Returns ``exc`` itself when no converted
    frame is on its traceback or it was already rewritten."""
    if getattr(exc, "_sampan_user_frames", None) is not None:
        return exc
    frames = _user_frames(exc.__traceback__)
    if not frames:
        return exc
    message = str(exc.args[0]) if len(exc.args) == 1 else str(exc)
    message += render(frames)
    new = _same_type(exc, message)
    if new is None:                    # a type that cannot be rebuilt from a message
        exc.add_note(render(frames).strip("\n"))
        new = exc
    else:
        new.__cause__ = exc.__cause__
        new.__context__ = exc.__context__
        new.__suppress_context__ = exc.__suppress_context__
        new = new.with_traceback(exc.__traceback__)
    new._sampan_user_frames = frames
    return new


def map_error(exc):
    """An exception from converted code, shown at the user's line: raised while
    tracing, its traceback holds the converted frames (``user_error``); raised
    by the executor, the failing instruction's op carries the user's
    ``Location``.  ``exc`` itself when neither applies."""
    try:
        new = user_error(exc)
        if new is exc and getattr(exc, "instr", None) is not None:
            new = _op_error(exc)
        return new
    except Exception:            # never hide the original error behind a mapping bug
        return exc


def _op_error(exc):
    loc = getattr(exc.instr.op, "location", None)
    if loc is None or loc.filename.startswith("<") or \
            getattr(exc, "_sampan_user_frames", None):
        return exc
    error = getattr(exc.instr.op, "python_error", None)
    if error is not None:        # an assert op standing for the user's assert / raise
        return _python_error(error, render([loc]), exc)
    new = type(exc)(str(exc) + render([loc]), exc.instr, getattr(exc, "original", None))
    new._sampan_user_frames = [loc]
    return new.with_traceback(exc.__traceback__)


def _python_error(error, where, exc):
    """A fresh copy of ``error`` (what the user's code raises eagerly) with the
    user's line appended to its message; the op's failure is its cause."""
    new = copy.copy(error)
    first = new.args[0] if new.args else None
    new.args = ((first + where,) + new.args[1:] if isinstance(first, str) else
                (where.lstrip("\n"),) if not new.args else new.args)
    new._sampan_user_frames = True
    new.__cause__ = exc
    return new


# ops appended while tracing converted code record the user's line
register_location_mapper(map_location)
