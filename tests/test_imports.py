"""The package's shape: import edges between the top-level folders point the way
ARCHITECTURE.md says, nothing imports real ``paddle``, every module imports,
and pyproject.toml lists every subpackage (the root is the package, so
setuptools cannot find them itself).

Imports are read with ``ast`` (function-level imports included), relative ones
resolved against the file's own package.
"""
import ast
import importlib
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOT_PACKAGE = {"tests", "benchmarks", "examples", "build"}

# area -> the sampan areas it may import besides itself (None: no rule)
ALLOWED = {
    "ops": set(),
    "kernels": {"ops"},
    "executor": {"static", "ops", "kernels"},
    "ast_transforms": set(),
}
# area -> areas it must never import
FORBIDDEN = {"dygraph": {"static"}, "static": {"dygraph"}}


def _skip_dir(name):
    return name.startswith((".", "__")) or name.endswith(".egg-info")


def _python_files(top, package_only):
    for d, dirs, files in os.walk(top):
        rel = os.path.relpath(d, ROOT)
        dirs[:] = sorted(x for x in dirs if not _skip_dir(x) and
                         not (package_only and rel == "." and x in NOT_PACKAGE))
        for f in sorted(files):
            if f.endswith(".py"):
                yield os.path.join(d, f)


def _module_parts(path):
    """('sampan', 'dygraph', 'tensor') for dygraph/tensor.py; __init__ is its package."""
    rel = os.path.relpath(path, ROOT)[:-3].split(os.sep)
    if rel[-1] == "__init__":
        rel = rel[:-1]
    return ["sampan"] + rel, path.endswith("__init__.py")


def imported_modules(path):
    """Absolute dotted names of everything ``path`` imports (sampan or not)."""
    parts, is_pkg = _module_parts(path)
    package = parts if is_pkg else parts[:-1]
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module
            yield mod, node.lineno
            for a in node.names:   # `from .. import nn` imports sampan.nn
                yield f"{mod}.{a.name}", node.lineno
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and getattr(node.func, "attr", getattr(node.func, "id", "")) in
              ("import_module", "__import__")):
            yield node.args[0].value, node.lineno


def _area_of_module(name):
    parts = name.split(".")
    if parts[0] != "sampan":
        return None
    if len(parts) == 1:
        return "<root>"
    if os.path.isdir(os.path.join(ROOT, parts[1])) or os.path.isfile(
            os.path.join(ROOT, parts[1] + ".py")):
        return parts[1]
    return "<root>"   # `from sampan import to_tensor`: a name of the root package


def _area_of_file(path):
    rel = os.path.relpath(path, ROOT).split(os.sep)
    return rel[0] if len(rel) > 1 else "<root>"


def test_import_edges_follow_the_architecture():
    bad = []
    for path in _python_files(ROOT, package_only=True):
        area = _area_of_file(path)
        for mod, line in imported_modules(path):
            target = _area_of_module(mod)
            if target is None or target == area:
                continue
            allowed, forbidden = ALLOWED.get(area), FORBIDDEN.get(area, set())
            if (allowed is not None and target not in allowed) or target in forbidden:
                bad.append(f"{os.path.relpath(path, ROOT)}:{line}: {area}/ imports {mod}")
    assert not bad, "forbidden import edges (see ARCHITECTURE.md):\n" + "\n".join(bad)


# the real-Paddle side of the oracle: scripts run in the side venv, never imported here
# (benchmarks/memory.py imports paddle only in the children it starts with the side venv's
# interpreter, to measure Paddle beside sampan)
ORACLE_SCRIPTS = (os.path.join("tests", "interop", ""), os.path.join("benchmarks", "memory.py"))


def test_nothing_imports_paddle():
    bad = [f"{os.path.relpath(p, ROOT)}:{line}: {mod}"
           for p in _python_files(ROOT, package_only=False)
           if not any(o in os.path.relpath(p, ROOT) for o in ORACLE_SCRIPTS)
           for mod, line in imported_modules(p)
           if mod == "paddle" or mod.startswith("paddle.")]
    assert not bad, "real paddle imported:\n" + "\n".join(bad)


def _package_dirs():
    for path in _python_files(ROOT, package_only=True):
        if path.endswith("__init__.py"):
            yield ".".join(_module_parts(path)[0])


def test_pyproject_lists_every_subpackage():
    tomllib = pytest.importorskip("tomllib")   # Python >= 3.11
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        cfg = tomllib.load(f)["tool"]["setuptools"]
    assert cfg["package-dir"] == {"sampan": "."}
    listed, found = set(cfg["packages"]), set(_package_dirs())
    assert not found - listed, f"add to pyproject.toml packages: {sorted(found - listed)}"
    assert not listed - found, f"listed but missing: {sorted(listed - found)}"


@pytest.mark.parametrize("module", sorted(
    ".".join(_module_parts(p)[0]) for p in _python_files(ROOT, package_only=True)))
def test_every_module_imports(module):
    importlib.import_module(module)
