"""``paddle.hub``: models published as a ``hubconf.py`` in a repository.

A repository (a local folder, or a GitHub / Gitee repository named
``owner/name[:branch]``) holds a ``hubconf.py`` whose public callables are its
entries; ``dependencies = [...]`` in it names the packages they need.

- ``list(repo_dir)``: the entries (callables whose name does not start with _);
- ``help(repo_dir, model)``: an entry's docstring;
- ``load(repo_dir, model, **kwargs)``: ``entry(**kwargs)``, once the
  dependencies import.

A remote repository is fetched as its archive (``archive/<branch>.zip`` from
GitHub, ``repository/archive/<branch>.zip`` from Gitee; branch ``main`` on
GitHub and ``master`` on Gitee unless given) into Paddle's cache,
``~/.cache/paddle/hub/<owner>_<name>_<branch>`` (``/`` in the branch as
``_``), and taken from there while it exists (``force_reload=True`` fetches
it again).  The archive is unpacked beside the cache and moved into place
whole, so an interrupted fetch leaves no half repository.
"""
import importlib.util
import os
import shutil
import sys
import tempfile
import urllib.request
import zipfile

__all__ = ["list", "help", "load"]

HUB_DIR = os.path.expanduser(os.path.join("~", ".cache", "paddle", "hub"))
SOURCES = ("github", "gitee", "local")


def _check_source(source):
    if source not in SOURCES:
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "gitee" | '
                         f'"local".')


def _parse_repo(repo, source):
    """(owner, name, branch) of ``owner/name[:branch]``."""
    branch = "main" if source == "github" else "master"
    if ":" in repo:
        repo, branch = repo.split(":", 1)
    owner, sep, name = repo.partition("/")
    if not sep or not owner or not name or "/" in name:
        raise ValueError(f"hub: a {source} repository is 'owner/name[:branch]', got {repo!r}")
    return owner, name, branch


def _archive_url(owner, name, branch, source):
    if source == "github":
        return f"https://github.com/{owner}/{name}/archive/{branch}.zip"
    return f"https://gitee.com/{owner}/{name}/repository/archive/{branch}.zip"


def _fetch(repo, source, force_reload):
    """The local folder of remote repository ``repo``: the cached one, or the
    archive downloaded and unpacked into the cache."""
    owner, name, branch = _parse_repo(repo, source)
    target = os.path.join(HUB_DIR, "_".join([owner, name, branch.replace("/", "_")]))
    if os.path.isdir(target) and not force_reload:
        sys.stderr.write(f"Using cache found in {target}\n")
        return target
    os.makedirs(HUB_DIR, exist_ok=True)
    url = _archive_url(owner, name, branch, source)
    with tempfile.TemporaryDirectory(dir=HUB_DIR) as tmp:
        archive = os.path.join(tmp, "repo.zip")
        try:
            with urllib.request.urlopen(url, timeout=60) as resp, open(archive, "wb") as out:
                shutil.copyfileobj(resp, out)
        except OSError as e:
            raise RuntimeError(
                f"hub: downloading {url} failed ({e}); put the repository's files in "
                f"{target} to use it from the cache, or load it with source='local'") from None
        try:
            with zipfile.ZipFile(archive) as z:
                tops = {n.split("/", 1)[0] for n in z.namelist() if n.strip("/")}
                z.extractall(os.path.join(tmp, "x"))
        except zipfile.BadZipFile:
            raise RuntimeError(f"hub: {url} did not give a zip archive") from None
        if len(tops) != 1:
            raise RuntimeError(f"hub: the archive of {url} holds {len(tops)} top folders, "
                               f"expected the repository's one")
        if os.path.isdir(target):
            shutil.rmtree(target)
        os.replace(os.path.join(tmp, "x", tops.pop()), target)
    return target


def _hubconf(repo_dir, source, force_reload):
    """The repository's ``hubconf.py`` as a module (imported with the repository
    on sys.path, so it can import its own modules; not left in sys.modules)."""
    _check_source(source)
    if source != "local":
        repo_dir = _fetch(repo_dir, source, force_reload)
    path = os.path.join(os.fspath(repo_dir), "hubconf.py")
    if not os.path.isfile(path):
        raise RuntimeError(f"hub: {repo_dir} has no hubconf.py (a hub repository names its "
                           f"entries in one)")
    spec = importlib.util.spec_from_file_location("hubconf", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(path))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(os.path.dirname(path))
    return module


def _entry(module, model):
    fn = getattr(module, model, None) if isinstance(model, str) else None
    if fn is None or not callable(fn):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn


def list(repo_dir, source="github", force_reload=False):  # noqa: A001 (Paddle's name)
    """The names of the repository's entries (its hubconf's public callables)."""
    module = _hubconf(repo_dir, source, force_reload)
    return [n for n in dir(module) if not n.startswith("_") and callable(getattr(module, n))]


def help(repo_dir, model, source="github", force_reload=False):  # noqa: A001 (Paddle's name)
    """The docstring of entry ``model``."""
    return _entry(_hubconf(repo_dir, source, force_reload), model).__doc__


def load(repo_dir, model, source="github", force_reload=False, **kwargs):
    """``model(**kwargs)`` of the repository, once its ``dependencies`` import."""
    module = _hubconf(repo_dir, source, force_reload)
    deps = getattr(module, "dependencies", None) or []
    missing = [d for d in deps if importlib.util.find_spec(d) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    return _entry(module, model)(**kwargs)
