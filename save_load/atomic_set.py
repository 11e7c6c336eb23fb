"""Saving several files as one unit (a model's ``.pdmodel`` + ``.pdiparams`` +
``.pdiparams.info`` + its other methods' files; ``static.save``'s three files), and no
temporary file of a killed writer left behind.

Before, every file was written to a temp name and renamed on its own: a kill between two
renames left new weights beside the old program (it loads and runs a model nobody saved),
and a killed writer's hidden temp files stayed in the folder for good.

The protocol, for a writer with pid P saving the set S at prefix ``D/B``:

1. each new file is written to ``D/.<name>.<H>-<P>.<token>.tmp`` (H: a hash of the host
   name), flushed and fsynced;
2. holding an exclusive ``flock`` on the folder D: finish any interrupted commit found in D
   (below) and delete dead writers' temps of B; write the journal
   ``D/.B.<H>-<P>.<token>.save-journal`` (each temp -> final name with the temp's inode and
   size, the files the new set drops, a checksum); fsync it and D;
3. rename every temp onto its final name, delete the dropped files, fsync D;
4. delete the journal, unlock.

The journal exists exactly while the set may be half-renamed, and everything it names was
complete on disk before it was written.  Because a live writer holds the lock for as long as
its journal exists, a journal seen under the lock belongs to a dead writer: the next save or
load in D (loads run ``reading``) rolls it forward: every temp still there is renamed, every
one gone must be its final file already (same inode and size), the dropped files go.  If a
temp is gone and its final file is not it (someone deleted it), the set mixes two saves:
loads of it raise ``InterruptedSaveError`` naming the files (the journal stays, so every load
says so) until a save of the whole set replaces it.  A torn journal (its writer was killed
while writing it: bad checksum) means no rename happened: it is deleted and the old set
stands.  Temps whose writer is dead (``kill(pid, 0)``; a zombie counts as dead, a reused pid
only delays the clean-up) are deleted; a live writer's never are, nor another machine's.

Loads hold a shared lock on the folder while they read, so they never see half a commit;
concurrent saves of one prefix are serialized by the lock (the last one wins, whole).  A
file system without ``flock`` (or Windows) keeps steps 1-4 and the roll-forward (journals of
dead writers only) but not the serialization.  One file alone (``atomic_open``) is one
rename: no journal, but the same temp names, lock and clean-up.
"""
import contextlib
import hashlib
import json
import os
import re
import secrets
import socket
import time

from .fileio import FormatError

try:
    import fcntl
except ImportError:                 # Windows: no flock
    fcntl = None

__all__ = ["write_file_set", "atomic_open", "reading", "InterruptedSaveError"]

_WRITER = r"(?P<host>[0-9a-f]{6})-(?P<pid>\d+)\.(?P<token>[0-9a-f]{8})"
_TEMP_RE = re.compile(r"^\.(?P<final>.+)\." + _WRITER + r"\.tmp$")
_JOURNAL_RE = re.compile(r"^\.(?P<prefix>.+)\." + _WRITER + r"\.save-journal$")
# the machine a writer runs on: its pid means nothing on another one (a shared folder)
_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:6]
_JOURNAL_KIND = "sampan save journal"

LOCK_TIMEOUT_S = 120.0     # a lock held longer than this is an error, not a wait
_HOOK = None               # tests: called with each step's name ("staged", "journal", ...)
_HELD = {}                 # fd -> pid of the process that took the lock on it


class InterruptedSaveError(FormatError):
    """A save of a set of files was interrupted and cannot be completed: the files on disk
    are a mix of two saves.  The message names them and says how to recover."""


def _step(name):
    if _HOOK is not None:
        _HOOK(name)


# ------------------------------------------------------------------ names
def _token():
    return secrets.token_hex(4)


def _writer_tag():
    return f"{_HOST}-{os.getpid()}.{_token()}"


def _temp_name(final_name):
    return f".{final_name}.{_writer_tag()}.tmp"


def _journal_name(base):
    return f".{base}.{_writer_tag()}.save-journal"


def _belongs(name, bases):
    """Whether file ``name`` is ``<base>`` or ``<base>.<anything>`` for one of ``bases``."""
    return any(name == b or name.startswith(b + ".") for b in bases)


def _listdir(folder):
    try:
        return os.listdir(folder)
    except OSError:
        return []


# ------------------------------------------------------------------ liveness
def _alive(pid, host=_HOST):
    """Whether process ``pid`` of machine ``host`` may still be writing (unsure counts as
    alive: a temp of another machine is left to that machine's next save or load)."""
    if pid == os.getpid() or host != _HOST:
        return True
    if os.name != "posix":
        return True                 # no safe probe: os.kill would end the process there
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True                 # EPERM: it exists, owned by another user
    return not _zombie(pid)


def _zombie(pid):
    """A killed process its parent has not reaped yet still answers kill(pid, 0)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2:][:1] in (b"Z", b"X")


# ------------------------------------------------------------------ folder lock
class _Folder:
    """An open folder: ``fd`` for fsync (None when it cannot be opened), ``locked``."""

    def __init__(self, path, fd, locked):
        self.path, self.fd, self.locked = path, fd, locked

    def sync(self):
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.fsync(self.fd)


def _open_dir(folder):
    try:
        return os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return None


def _flock(fd, folder, exclusive):
    """Take the folder's lock (polling, so a stuck holder becomes an error, not a hang);
    False when the file system has no flock."""
    if fcntl is None:
        return False
    mode = (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB
    deadline, pause = time.monotonic() + LOCK_TIMEOUT_S, 0.001
    while True:
        try:
            fcntl.flock(fd, mode)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"{folder}: another process has held this folder's model-save lock for "
                    f"{LOCK_TIMEOUT_S:.0f} s (a save or load in progress, or a stopped "
                    f"process); retry when it is done") from None
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
        except OSError:
            return False


@contextlib.contextmanager
def _folder_lock(folder, exclusive):
    fd = _open_dir(folder)
    if fd is not None:
        _HELD[fd] = os.getpid()
    try:
        locked = fd is not None and _flock(fd, folder, exclusive)
        yield _Folder(folder, fd, locked)
    finally:
        # a forked child closed its inherited copy already (_forget_inherited)
        if fd is not None and _HELD.pop(fd, None) == os.getpid():
            os.close(fd)            # closing releases the flock


def _forget_inherited():
    """In a forked child: close the parent's lock descriptors, or the child would hold
    the parent's locks for as long as it lives."""
    for fd in list(_HELD):
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_inherited)


# ------------------------------------------------------------------ staging
@contextlib.contextmanager
def _new_temp(final):
    """(file object, temp path) of a new temp file beside ``final``; flushed and fsynced
    when the block ends, deleted when it raises."""
    folder, name = os.path.split(final)
    tmp = os.path.join(folder, _temp_name(name))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    fh = os.fdopen(os.open(tmp, flags, 0o666), "wb")     # 0o666: the umask applies
    try:
        with fh:
            yield fh, tmp
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        _discard([tmp])
        raise


def _stage(final, write):
    with _new_temp(final) as (fh, tmp):
        write(fh)
    return tmp


def _discard(paths):
    for p in paths:
        with contextlib.suppress(OSError):
            os.remove(p)


def _remove_if_there(path):
    with contextlib.suppress(FileNotFoundError):
        os.remove(path)


# ------------------------------------------------------------------ the journal
def _journal_bytes(base, staged, drop):
    renames = []
    for final, tmp in staged.items():
        st = os.stat(tmp)
        renames.append({"temp": os.path.basename(tmp), "final": os.path.basename(final),
                        "inode": st.st_ino, "size": st.st_size})
    body = json.dumps({"kind": _JOURNAL_KIND, "version": 1, "prefix": base,
                       "pid": os.getpid(), "renames": renames,
                       "remove": [os.path.basename(p) for p in drop]}, sort_keys=True)
    return (body + "\n" + hashlib.sha256(body.encode()).hexdigest() + "\n").encode()


def _write_journal(folder, base, staged, drop):
    path = os.path.join(folder, _journal_name(base))
    data = _journal_bytes(base, staged, drop)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                 0o666)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    return path


def _plain_name(name):
    return isinstance(name, str) and name not in ("", ".", "..") and \
        os.sep not in name and (os.altsep is None or os.altsep not in name)


def _valid_rename(e, prefix):
    if not isinstance(e, dict) or not _plain_name(e.get("temp")) or \
            not _plain_name(e.get("final")):
        return False
    m = _TEMP_RE.match(e["temp"])
    return bool(m) and m["final"] == e["final"] and _belongs(e["final"], [prefix]) and \
        all(isinstance(e.get(k), int) for k in ("inode", "size"))


def _parse_journal(data, name_prefix):
    """The journal's content, or None when it is torn or not a sampan journal."""
    parts = data.split(b"\n")
    if len(parts) != 3 or parts[2] != b"" or \
            hashlib.sha256(parts[0]).hexdigest().encode() != parts[1]:
        return None
    try:
        j = json.loads(parts[0])
    except ValueError:
        return None
    if not isinstance(j, dict) or j.get("kind") != _JOURNAL_KIND or \
            j.get("prefix") != name_prefix or not isinstance(j.get("renames"), list) or \
            not isinstance(j.get("remove"), list):
        return None
    if not all(_valid_rename(e, name_prefix) for e in j["renames"]):
        return None
    if not all(_plain_name(n) and (_belongs(n, [name_prefix]) or _JOURNAL_RE.match(n))
               for n in j["remove"]):
        return None
    return j


class _Journal:
    """A journal file found in a folder: its name's parts and (once read) its content."""

    def __init__(self, folder, name, m):
        self.folder, self.name = folder, name
        self.path = os.path.join(folder, name)
        self.prefix, self.pid, self.host = m["prefix"], int(m["pid"]), m["host"]
        self.content = None

    def read(self):
        """False when the journal is gone (another process finished it)."""
        try:
            with open(self.path, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            return False
        self.content = _parse_journal(data, self.prefix)
        return True

    def finals(self):
        c = self.content or {}
        return [e["final"] for e in c.get("renames", [])] + \
            [n for n in c.get("remove", []) if not _JOURNAL_RE.match(n)]

    def related(self, bases):
        """Whether it may concern the files ``bases`` (files or prefixes)."""
        if self.content is None:
            return _belongs(self.prefix, bases) or any(_belongs(b, [self.prefix])
                                                       for b in bases)
        return any(_belongs(f, bases) for f in self.finals())

    def temps(self):
        return {e["temp"] for e in (self.content or {}).get("renames", [])}

    def __repr__(self):
        return self.path


def _journals(folder, names):
    return [_Journal(folder, n, m) for n in sorted(names) if (m := _JOURNAL_RE.match(n))]


def _published(final, e):
    try:
        st = os.stat(final)
    except OSError:
        return False
    return st.st_ino == e["inode"] and st.st_size == e["size"]


def _lost_files(j):
    """The final files whose new version is neither staged nor in place any more."""
    lost = []
    for e in j.content["renames"]:
        tmp, final = (os.path.join(j.folder, e[k]) for k in ("temp", "final"))
        if not os.path.lexists(tmp) and not _published(final, e):
            lost.append(final)
    return lost


def _interrupted_error(j, lost):
    new = [os.path.join(j.folder, e["final"]) for e in j.content["renames"]
           if os.path.join(j.folder, e["final"]) not in lost]
    return InterruptedSaveError(
        f"{os.path.join(j.folder, j.prefix)}: a save of this model (process {j.pid}) was "
        f"interrupted and cannot be completed: the new version of {', '.join(lost)} is gone "
        f"(its temp file was deleted), so these files now mix two saves"
        f"{' (' + ', '.join(new) + ' are from the interrupted save)' if new else ''}. "
        f"Save the model again to replace the whole set, or delete {j.path} to use the "
        f"files as they are.")


def _roll_forward(j, folder_handle):
    """Finish a dead writer's commit (the caller checked nothing is lost)."""
    for e in j.content["renames"]:
        tmp, final = (os.path.join(j.folder, e[k]) for k in ("temp", "final"))
        with contextlib.suppress(FileNotFoundError):    # gone: renamed before the kill
            os.replace(tmp, final)
    for name in j.content["remove"]:
        _remove_if_there(os.path.join(j.folder, name))
    folder_handle.sync()
    _remove_if_there(j.path)
    folder_handle.sync()


def _settle(j, folder_handle, bases, covered):
    """Deal with one stale journal; returns True when it is a broken one that the caller's
    save (``covered``: the file names it writes or drops) will replace."""
    if j.content is None:                       # torn: no rename happened
        _remove_if_there(j.path)
        return False
    lost = _lost_files(j)
    if lost:
        if covered is not None and set(j.finals()) <= covered:
            return True
        if covered is None and j.related(bases):
            raise _interrupted_error(j, lost)
        return False                            # broken, left for the loads that need it
    try:
        _roll_forward(j, folder_handle)
    except OSError as exc:
        if not j.related(bases):
            return False
        raise InterruptedSaveError(
            f"{os.path.join(j.folder, j.prefix)}: a save of this model (process {j.pid}) "
            f"was interrupted and finishing it failed ({exc}); the files "
            f"{', '.join(os.path.join(j.folder, f) for f in j.finals())} may mix two saves "
            f"until {j.path} is completed by a save or load with write access") from exc
    return False


def _recover_locked(folder_handle, bases, covered=None):
    """Roll forward the folder's stale journals and delete dead writers' temps of ``bases``.
    For a save (``covered`` given), returns the broken journals its commit replaces; for
    a load, a broken journal of ``bases`` raises ``InterruptedSaveError``."""
    folder = folder_handle.path
    stale = [j for j in _journals(folder, _listdir(folder))
             if (folder_handle.locked or not _alive(j.pid, j.host)) and j.read()]
    # a broken journal that a later save replaced goes when that save's journal is finished
    replaced = {n for j in stale if j.content for n in j.content["remove"]}
    superseded = []
    for j in stale:
        if j.name not in replaced and _settle(j, folder_handle, bases, covered):
            superseded.append(j)
    names = [j.name for j in superseded]
    _sweep_temps(folder, bases, names)
    return names


def _sweep_temps(folder, bases, superseded):
    names = _listdir(folder)
    kept = set()                                # temps a remaining journal still names
    for j in _journals(folder, names):
        if j.name not in superseded and j.read():
            kept |= j.temps()
    for name in names:
        m = _TEMP_RE.match(name)
        if m and name not in kept and _belongs(m["final"], bases) and \
                not _alive(int(m["pid"]), m["host"]):
            _remove_if_there(os.path.join(folder, name))


def _stale_things(folder, bases):
    """Whether the folder holds a journal, or a dead writer's temp of ``bases``."""
    for name in _listdir(folder):
        if _JOURNAL_RE.match(name):
            return True
        m = _TEMP_RE.match(name)
        if m and _belongs(m["final"], bases) and not _alive(int(m["pid"]), m["host"]):
            return True
    return False


def _recover(folder, bases):
    if _stale_things(folder, bases):
        with _folder_lock(folder, exclusive=True) as fh:
            _recover_locked(fh, bases)


# ------------------------------------------------------------------ commit
def _commit(folder, base, staged, removes):
    """Publish ``staged`` ({final path: temp path}) and delete ``removes`` as one unit."""
    with _folder_lock(folder, exclusive=True) as fh:
        journal = None
        try:
            covered = {os.path.basename(p) for p in list(staged) + list(removes)}
            superseded = _recover_locked(fh, [base], covered)
            drop = [p for p in removes if os.path.lexists(p)] + \
                [os.path.join(folder, n) for n in superseded]
            if len(staged) + len(drop) > 1:
                journal = _write_journal(folder, base, staged, drop)
                fh.sync()
                _step("journal")
        except BaseException:
            if journal is None:
                _discard(staged.values())
            raise
        try:
            _publish(fh, staged, drop)
        except BaseException:
            if journal is None:             # one rename, not done: nothing changed
                _discard(staged.values())
            raise                           # else the journal finishes it on the next access
        if journal is not None:
            # not fsynced: a journal that comes back after a power cut finds its temps
            # renamed and its files in place, so finishing it again changes nothing; the
            # next commit here fsyncs the folder before it touches any file
            os.remove(journal)
            _step("done")


def _publish(folder_handle, staged, drop):
    for final, tmp in staged.items():
        os.replace(tmp, final)
        _step("renamed")
    for p in drop:
        _remove_if_there(p)
    if drop:
        _step("removed")
    folder_handle.sync()


def _member(path, folder, base, prefix):
    full = os.path.abspath(os.fspath(path))
    if os.path.dirname(full) != folder or not _belongs(os.path.basename(full), [base]):
        raise ValueError(f"{os.fspath(path)} cannot be saved as part of the file set "
                         f"{prefix}: a set's files are <prefix> or <prefix>.<suffix>")
    return full


def write_file_set(prefix, writers, remove=(), check=None):
    """Write the files ``{path: write(fh)}`` and delete the files ``remove`` as one unit:
    after a kill at any instant, the next load or save of ``prefix`` finds the old set or
    the new one (see the module's docstring).  Each ``write`` gets a binary file object.
    Every path must be ``prefix`` or ``prefix.<suffix>``.  ``check({final: temp})``, when
    given, runs on the staged files before the commit: if it raises, the temps go and the
    old set stays untouched.  Returns the written paths."""
    prefix = os.fspath(prefix)
    full = os.path.abspath(prefix)
    folder, base = os.path.split(full)
    files = {_member(p, folder, base, prefix): w for p, w in writers.items()}
    removes = [m for m in (_member(p, folder, base, prefix) for p in remove)
               if m not in files]
    os.makedirs(folder, exist_ok=True)
    staged = {}
    try:
        for final, write in files.items():
            staged[final] = _stage(final, write)
            _step("staged")
        if check is not None:
            check(dict(staged))
    except BaseException:
        _discard(staged.values())
        raise
    _commit(folder, base, staged, removes)
    return [os.fspath(p) for p in writers]


@contextlib.contextmanager
def atomic_open(path):
    """Open a binary temp file beside ``path``; when the block ends it replaces ``path``.

    On any exception the temp file is removed and ``path`` is left untouched."""
    final = os.path.abspath(os.fspath(path))
    with _new_temp(final) as (fh, tmp):
        yield fh
    try:
        _step("staged")
    except BaseException:
        _discard([tmp])
        raise
    _commit(os.path.dirname(final), os.path.basename(final), {final: tmp}, ())


# ------------------------------------------------------------------ loading
def _by_folder(paths):
    groups = {}
    for p in paths:
        if p is None or isinstance(p, (bytes, bytearray, memoryview)) or p == "":
            continue
        folder, name = os.path.split(os.path.abspath(os.fspath(p)))
        groups.setdefault(folder, set()).add(name)
    return groups


def _related_journal(folder, bases):
    for j in _journals(folder, _listdir(folder)):
        if j.read() and j.related(bases):
            return True
    return False


@contextlib.contextmanager
def reading(*paths):
    """Around a load of the files (or prefixes) ``paths``: finish any interrupted save
    there first (or raise ``InterruptedSaveError`` naming the files when that cannot be
    done), delete dead writers' temps, and hold the folders' shared locks while the
    caller reads, so a save committing meanwhile is seen whole or not at all."""
    groups = _by_folder(paths)
    for _ in range(3):
        for folder, bases in groups.items():
            _recover(folder, bases)
        with contextlib.ExitStack() as stack:
            held = [(f, stack.enter_context(_folder_lock(f, exclusive=False)))
                    for f in sorted(groups)]
            # under the lock a journal means its writer died after _recover looked
            if not any(h.locked and _related_journal(f, groups[f]) for f, h in held):
                yield
                return
    raise InterruptedSaveError(f"{', '.join(map(os.fspath, paths))}: saves of these files "
                               f"keep being interrupted while they are read; retry")
