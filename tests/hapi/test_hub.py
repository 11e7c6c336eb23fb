"""paddle.hub over a hubconf.py: a local repository (entries, docstrings,
dependencies, a sibling module hubconf imports; the answers and errors Paddle
2.6.2 gives on the same repository), and a remote one taken from Paddle's cache
or fetched as its archive (the download replaced by a local zip)."""
import io
import os
import sys
import zipfile

import pytest

import sampan as paddle
from sampan.hapi import hub as hub_mod

HUBCONF = '''
dependencies = ["json"]
from helper import scale_of

def tiny(scale=1.0):
    """A tiny model entry."""
    return ("tiny", scale_of(scale))

def _private():
    return 1

CONST = 3

class Net:
    def __init__(self, n=2):
        self.n = n
'''


def _repo(root, deps=None):
    os.makedirs(root, exist_ok=True)
    text = HUBCONF if deps is None else HUBCONF.replace('["json"]', repr(deps))
    with open(os.path.join(root, "hubconf.py"), "w") as f:
        f.write(text)
    with open(os.path.join(root, "helper.py"), "w") as f:
        f.write("def scale_of(s):\n    return s * 10\n")
    return str(root)


def test_local_repository(tmp_path):
    """Entries are hubconf's public callables, what it imports included (Paddle
    lists them too)."""
    repo = _repo(tmp_path / "repo")
    assert paddle.hub.list(repo, source="local") == ["Net", "scale_of", "tiny"]
    assert paddle.hub.help(repo, "tiny", source="local") == "A tiny model entry."
    assert paddle.hub.load(repo, "tiny", source="local", scale=2.0) == ("tiny", 20.0)
    assert paddle.hub.load(repo, "Net", source="local", n=5).n == 5
    assert paddle.hub.load(repo, "_private", source="local") == 1      # as Paddle: loadable
    assert "hubconf" not in sys.modules and str(tmp_path / "repo") not in sys.path


def test_local_repository_errors(tmp_path):
    repo = _repo(tmp_path / "repo")
    for name in ("nope", "CONST"):
        with pytest.raises(RuntimeError, match=f"Cannot find callable {name} in hubconf"):
            paddle.hub.load(repo, name, source="local")
    with pytest.raises(RuntimeError, match="Cannot find callable nope"):
        paddle.hub.help(repo, "nope", source="local")
    with pytest.raises(ValueError, match='Unknown source: "bad"'):
        paddle.hub.load(repo, "tiny", source="bad")
    with pytest.raises(RuntimeError, match="has no hubconf.py"):
        paddle.hub.list(str(tmp_path / "missing"), source="local")
    needy = _repo(tmp_path / "needy", deps=["json", "no_such_dep_xyz"])
    assert "tiny" in paddle.hub.list(needy, source="local")     # list does not check
    with pytest.raises(RuntimeError, match="Missing dependencies: no_such_dep_xyz"):
        paddle.hub.load(needy, "tiny", source="local")


def test_remote_repository_from_cache_and_from_its_archive(tmp_path, monkeypatch):
    monkeypatch.setattr(hub_mod, "HUB_DIR", str(tmp_path / "hub"))
    # cached: owner_name_branch, branch "main" by default on GitHub, "/" as "_"
    _repo(tmp_path / "hub" / "me_models_main")
    assert paddle.hub.load("me/models", "tiny", scale=1.0) == ("tiny", 10.0)
    _repo(tmp_path / "hub" / "me_models_release_2.0")
    assert paddle.hub.list("me/models:release/2.0") == ["Net", "scale_of", "tiny"]

    # fetched: GitHub's archive has one top folder, moved into the cache whole
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:      # (its helper module named apart: an imported
        # module stays in sys.modules, in Paddle too, so a second helper.py would be shadowed)
        z.writestr("models-master/hubconf.py", HUBCONF.replace("helper", "helper2"))
        z.writestr("models-master/helper2.py", "def scale_of(s):\n    return -s\n")
    urls = []

    def fake_urlopen(url, timeout=None):
        urls.append(url)
        return io.BytesIO(buf.getvalue())
    monkeypatch.setattr(hub_mod.urllib.request, "urlopen", fake_urlopen)
    assert paddle.hub.load("me/models", "tiny", source="gitee", scale=3.0) == ("tiny", -3.0)
    assert urls == ["https://gitee.com/me/models/repository/archive/master.zip"]
    assert sorted(os.listdir(tmp_path / "hub" / "me_models_master")) == ["helper2.py",
                                                                         "hubconf.py"]
    paddle.hub.load("me/models", "tiny", source="gitee")           # from the cache now
    assert len(urls) == 1
    paddle.hub.load("me/models", "tiny", source="gitee", force_reload=True)
    assert len(urls) == 2


def test_remote_repository_without_network_says_where_to_put_it(tmp_path, monkeypatch):
    monkeypatch.setattr(hub_mod, "HUB_DIR", str(tmp_path / "hub"))

    def no_network(url, timeout=None):
        raise OSError("Name or service not known")
    monkeypatch.setattr(hub_mod.urllib.request, "urlopen", no_network)
    with pytest.raises(RuntimeError, match="downloading https://github.com/me/models/archive/"
                                           "dev.zip failed.*me_models_dev"):
        paddle.hub.load("me/models:dev", "tiny")
    assert os.listdir(tmp_path / "hub") == []          # nothing half-written
    with pytest.raises(ValueError, match="'owner/name\\[:branch\\]'"):
        paddle.hub.list("just-a-name")
