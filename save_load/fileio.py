"""What every file format here shares: ``FormatError`` (a file that does not hold what its
format says) and atomic writing (a temp file in the target folder, then ``os.replace``, so a
failed save never leaves a half-written file under the final name)."""
import contextlib
import os
import tempfile


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


def _default_mode():
    # the permissions a plain open() would give; mkstemp's 0600 would surprise users
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextlib.contextmanager
def atomic_open(path):
    """Open a binary temp file beside ``path``; on success it replaces ``path``.

    On any exception the temp file is removed and ``path`` is left untouched."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _default_mode())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise


def ensure_parent(path):
    """Create the folder that will hold ``path`` (Paddle's savers do the same)."""
    folder = os.path.dirname(os.fspath(path))
    if folder:
        os.makedirs(folder, exist_ok=True)
