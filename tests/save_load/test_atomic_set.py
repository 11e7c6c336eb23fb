"""The file-set protocol of ``save_load.atomic_set``: a writer killed at each step (a
forked child that ``os._exit``s at an injected point) leaves, once the next load or save
has looked, the complete old set or the complete new one and no temp file; torn and broken
journals; live writers' temps kept; concurrent writers and readers; single-file saves."""
import os
import signal
import time

import pytest

from sampan.save_load import atomic_set as S

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

KILLED = 77
OLD = {"m.a": b"old a", "m.b": b"old b" * 1000, "m.c": b"old c", "m.d": b"old only"}
NEW = {"m.a": b"new a", "m.b": b"new b" * 3000, "m.c": b"new c"}       # drops m.d


def _in_child(fn):
    """Run ``fn`` in a forked child; its exit status (KILLED when a hook killed it)."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            fn()
        except BaseException:           # noqa: BLE001 - reported by the exit status
            code = 3
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _kill_at(step, nth=1):
    seen = [0]

    def hook(name):
        if name == step:
            seen[0] += 1
            if seen[0] == nth:
                os._exit(KILLED)
    return hook


def _write(folder, files, remove=()):
    writers = {os.path.join(folder, n): (lambda data: lambda fh: fh.write(data))(d)
               for n, d in files.items()}
    return S.write_file_set(os.path.join(folder, "m"), writers,
                            [os.path.join(folder, n) for n in remove])


def _save_new(folder):
    _write(folder, NEW, remove=["m.d"])


def _visible(folder):
    return {n: open(os.path.join(folder, n), "rb").read()
            for n in sorted(os.listdir(folder)) if not n.startswith(".")}


def _hidden(folder):
    return sorted(n for n in os.listdir(folder) if n.startswith("."))


def _loaded(folder):
    with S.reading(os.path.join(folder, "m")):
        return _visible(folder)


def _dead_pid():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


@pytest.fixture
def folder(tmp_path):
    _write(str(tmp_path), OLD)
    assert _visible(str(tmp_path)) == OLD and _hidden(str(tmp_path)) == []
    return str(tmp_path)


def test_a_set_is_written_whole(folder):
    _save_new(folder)
    assert _visible(folder) == NEW and _hidden(folder) == []


# (step, occurrence) -> the set a later load must see
KILL_POINTS = [(("staged", 1), OLD), (("staged", 2), OLD), (("staged", 3), OLD),
               (("journal", 1), NEW), (("renamed", 1), NEW), (("renamed", 2), NEW),
               (("renamed", 3), NEW), (("removed", 1), NEW), (("done", 1), NEW)]


@pytest.mark.parametrize("point,want", KILL_POINTS, ids=[f"{s}{n}" for (s, n), _ in KILL_POINTS])
@pytest.mark.parametrize("then", ["load", "save"])
def test_killed_at_each_step(folder, monkeypatch, point, want, then):
    def child():
        S._HOOK = _kill_at(*point)
        _save_new(folder)
    assert _in_child(child) == KILLED
    if point == ("renamed", 1):     # the dangerous state is really on disk
        on_disk = _visible(folder)
        assert on_disk["m.a"] == NEW["m.a"] and on_disk["m.b"] == OLD["m.b"]
    if then == "load":
        assert _loaded(folder) == want
    else:                           # the next save finishes (or drops) the killed one first
        third = {n: b"third " + d for n, d in NEW.items()}
        _write(folder, third)
        want = dict(want, **third)
        assert _visible(folder) == want
    assert _hidden(folder) == []


def test_killed_while_writing_a_file(folder):
    def child():
        def half(fh):
            fh.write(b"half of b")
            fh.flush()
            os._exit(KILLED)
        S.write_file_set(os.path.join(folder, "m"),
                         {os.path.join(folder, "m.a"): lambda fh: fh.write(b"new a"),
                          os.path.join(folder, "m.b"): half})
    assert _in_child(child) == KILLED
    assert len(_hidden(folder)) == 2            # m.a staged, m.b half-written
    assert _loaded(folder) == OLD and _hidden(folder) == []


def test_torn_journal_means_nothing_was_renamed(folder, monkeypatch):
    def child():
        real = S._journal_bytes
        monkeypatch.setattr(S, "_journal_bytes", lambda *a: real(*a)[:40])
        S._HOOK = _kill_at("journal")
        _save_new(folder)
    assert _in_child(child) == KILLED
    assert any(n.endswith(".save-journal") for n in _hidden(folder))
    assert _loaded(folder) == OLD and _hidden(folder) == []


def _broken(folder):
    """A killed commit whose staged copy of m.b was deleted by hand."""
    def child():
        S._HOOK = _kill_at("journal")
        _save_new(folder)
    assert _in_child(child) == KILLED
    temp = next(n for n in _hidden(folder) if n.startswith(".m.b."))
    os.remove(os.path.join(folder, temp))


def test_a_lost_temp_is_reported_naming_the_files(folder):
    _broken(folder)
    os.replace(os.path.join(folder, next(n for n in _hidden(folder) if n.startswith(".m.a."))),
               os.path.join(folder, "m.a"))     # half-renamed, and m.b's new copy gone
    with pytest.raises(S.InterruptedSaveError) as err:
        _loaded(folder)
    msg = str(err.value)
    assert os.path.join(folder, "m.b") in msg and os.path.join(folder, "m.a") in msg
    assert "Save the model again" in msg
    with pytest.raises(S.InterruptedSaveError):     # and again: the journal stays
        _loaded(folder)
    # a save of only part of the set does not hide it
    S.write_file_set(os.path.join(folder, "m"),
                     {os.path.join(folder, "m.c"): lambda fh: fh.write(b"c3")})
    with pytest.raises(S.InterruptedSaveError):
        _loaded(folder)
    # a save of the whole set replaces it
    _save_new(folder)
    assert _loaded(folder) == NEW and _hidden(folder) == []


def test_a_save_replacing_a_broken_set_is_itself_killed(folder):
    _broken(folder)

    def child():
        S._HOOK = _kill_at("journal")
        _save_new(folder)
    assert _in_child(child) == KILLED
    assert len([n for n in _hidden(folder) if n.endswith(".save-journal")]) == 2
    assert _loaded(folder) == NEW and _hidden(folder) == []


def test_loads_of_other_prefixes_are_not_blocked_by_a_broken_set(folder):
    _broken(folder)
    other = os.path.join(folder, "other")
    S.write_file_set(other, {other + ".x": lambda fh: fh.write(b"x")})
    with S.reading(other):
        assert open(other + ".x", "rb").read() == b"x"


def test_a_failed_rename_is_finished_by_the_next_access(folder, monkeypatch):
    real, calls = os.replace, [0]

    def flaky(a, b):
        calls[0] += 1
        if calls[0] == 2:
            raise OSError("I/O error")
        real(a, b)
    monkeypatch.setattr(S.os, "replace", flaky)
    with pytest.raises(OSError, match="I/O error"):
        _save_new(folder)
    monkeypatch.setattr(S.os, "replace", real)
    assert any(n.endswith(".save-journal") for n in _hidden(folder))
    assert _loaded(folder) == NEW and _hidden(folder) == []


def test_a_failing_writer_leaves_the_old_set(folder):
    def boom(fh):
        fh.write(b"partial")
        raise OSError("disk full")
    with pytest.raises(OSError, match="disk full"):
        S.write_file_set(os.path.join(folder, "m"),
                         {os.path.join(folder, "m.a"): lambda fh: fh.write(b"x"),
                          os.path.join(folder, "m.b"): boom})
    assert _visible(folder) == OLD and _hidden(folder) == []


def test_only_dead_writers_temps_are_removed(folder):
    sleeper = os.fork()
    if sleeper == 0:
        time.sleep(30)
        os._exit(0)
    try:
        dead, here = _dead_pid(), S._HOST
        live_tmp = f".m.a.{here}-{sleeper}.0123abcd.tmp"
        dead_tmp = f".m.b.{here}-{dead}.0123abcd.tmp"
        elsewhere = "ffffff" if here != "ffffff" else "eeeeee"
        remote_tmp = f".m.b.{elsewhere}-{dead}.0123abcd.tmp"  # another machine's: its pid
        other_tmp = f".other.pdmodel.{here}-{dead}.0123abcd.tmp"  # another prefix: not ours
        not_ours = ".m.a.tmp"                                   # no pid: never touched
        for n in (live_tmp, dead_tmp, remote_tmp, other_tmp, not_ours):
            open(os.path.join(folder, n), "wb").close()
        assert _loaded(folder) == OLD
        assert _hidden(folder) == sorted([live_tmp, remote_tmp, other_tmp, not_ours])
    finally:
        os.kill(sleeper, signal.SIGKILL)
        os.waitpid(sleeper, 0)


def test_a_zombie_writer_counts_as_dead():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    try:
        deadline = time.monotonic() + 5
        while S._alive(pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not S._alive(pid)
    finally:
        os.waitpid(pid, 0)
    assert S._alive(os.getpid())


def test_a_killed_single_file_save_is_cleaned_by_the_next(tmp_path):
    path = str(tmp_path / "w.pdparams")
    with S.atomic_open(path) as fh:
        fh.write(b"one")

    def child():
        with S.atomic_open(path) as fh:
            fh.write(b"two, half")
            fh.flush()
            os._exit(KILLED)
    assert _in_child(child) == KILLED
    assert len(_hidden(str(tmp_path))) == 1
    with S.atomic_open(path) as fh:
        fh.write(b"three")
    assert _visible(str(tmp_path)) == {"w.pdparams": b"three"} and _hidden(str(tmp_path)) == []


def test_paths_outside_the_set_are_refused(tmp_path):
    with pytest.raises(ValueError, match="cannot be saved as part of the file set"):
        S.write_file_set(str(tmp_path / "m"), {str(tmp_path / "n.pdmodel"): lambda fh: None})
    with pytest.raises(ValueError, match="cannot be saved as part of the file set"):
        S.write_file_set(str(tmp_path / "m"),
                         {str(tmp_path / "sub" / "m.pdmodel"): lambda fh: None})


def test_a_lock_is_not_inherited_by_a_forked_child(tmp_path):
    import fcntl
    r, w = os.pipe()
    with S._folder_lock(str(tmp_path), exclusive=True) as held:
        assert held.locked
        child = os.fork()
        if child == 0:
            os.write(w, b"up")          # the at-fork handler has run
            time.sleep(3)
            os._exit(0)
    os.read(r, 2)
    os.close(r)
    os.close(w)
    try:
        fd = os.open(str(tmp_path), os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)    # the child must not hold it
        finally:
            os.close(fd)
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)


def test_concurrent_writers_and_readers_see_whole_sets(tmp_path):
    folder = str(tmp_path)
    names = ["m.a", "m.b", "m.c"]

    def writer(tag):
        for i in range(25):
            data = f"{tag}{i:03d}|".encode()
            _write(folder, {n: data * (200 if n == "m.b" else 1) for n in names})
    _write(folder, {n: b"start|" for n in names})
    kids = []
    for tag in ("p", "q"):
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                writer(tag)
            except BaseException:       # noqa: BLE001
                code = 3
            os._exit(code)
        kids.append(pid)
    status, reads = {}, 0
    while len(status) < len(kids):
        got = _loaded(folder)
        assert len({got[n][:len(got["m.a"])] for n in names}) == 1, got
        reads += 1
        for k in kids:
            if k not in status:
                done, st = os.waitpid(k, os.WNOHANG)
                if done:
                    status[k] = os.waitstatus_to_exitcode(st)
    assert list(status.values()) == [0, 0] and reads > 0
    assert _hidden(folder) == []
