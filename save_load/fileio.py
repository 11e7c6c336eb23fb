"""What every file format here shares: ``FormatError`` (a file that does not hold what its
format says) and atomic writing (a temp file in the target folder, then ``os.replace``, so a
failed save never leaves a half-written file under the final name; the protocol, and writing
several files as one unit, live in ``atomic_set``)."""
import os


class FormatError(ValueError):
    """A file (or byte string) is truncated, corrupt or not of the expected format.

    The message names the file and, where it applies, the tensor or entry at fault."""


def describe(source):
    """How to name a data source in messages: a path, or a stand-in for in-memory data."""
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    name = getattr(source, "name", None)
    return name if isinstance(name, str) else "<in-memory data>"


def blame(exc, source):
    """Name ``source`` (a loaded model's file) in an error raised while running it, once;
    returns ``exc`` (same type and traceback) for ``raise``."""
    where = describe(source)
    if exc.args and isinstance(exc.args[0], str) and where not in exc.args[0]:
        exc.args = (f"{where}: {exc.args[0]}",) + exc.args[1:]
    return exc


def atomic_open(path):
    """Open a binary temp file beside ``path``; on success it replaces ``path``.

    On any exception the temp file is removed and ``path`` is left untouched; a killed
    writer's temp file is removed by the next save of ``path`` (``atomic_set``, which
    also writes sets of files as one unit)."""
    from .atomic_set import atomic_open as staged_open     # atomic_set imports this module
    return staged_open(path)


def ensure_parent(path):
    """Create the folder that will hold ``path`` (Paddle's savers do the same)."""
    folder = os.path.dirname(os.fspath(path))
    if folder:
        os.makedirs(folder, exist_ok=True)
