"""The package's shape: every top-level folder is a layer of the map below,
imports (module- and function-level alike) only point down it, nothing imports
real ``paddle``, every module imports, and pyproject.toml lists every
subpackage (the root is the package, so setuptools cannot find them itself).

Imports are read with ``ast``, relative ones resolved against the file's own
package.  README.md's "Layers" table is this map in words.
"""
import ast
import importlib
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOT_PACKAGE = {"tests", "benchmarks", "examples", "build"}

# The layers, lowest first: each may import only the layers listed (all lower).
LAYERS = [
    ("ops", set()),
    ("ast_transforms", set()),
    ("utils", set()),
    ("kernels", {"ops"}),
    ("dygraph", {"ops", "kernels", "utils"}),
    ("program", {"ops", "kernels", "utils"}),
    ("executor", {"ops", "kernels", "utils", "program"}),
    ("tensor", {"ops", "kernels", "utils", "dygraph", "program"}),
    ("nn", {"ops", "kernels", "utils", "dygraph", "program", "tensor"}),
    ("distribution", {"ops", "kernels", "utils", "dygraph", "program", "tensor", "nn"}),
    ("optimizer", {"ops", "kernels", "utils", "dygraph", "program", "tensor", "nn"}),
    ("metric", {"ops", "tensor"}),
    ("device", {"ops", "kernels", "utils", "tensor"}),
    ("save_load", {"ops", "kernels", "utils", "dygraph", "program", "executor", "tensor",
                   "nn"}),
    ("static", {"ops", "kernels", "utils", "dygraph", "program", "executor", "tensor", "nn",
                "save_load"}),
    ("amp", {"ops", "kernels", "utils", "dygraph", "program", "executor", "tensor", "nn",
             "optimizer"}),
    ("jit", {"ops", "kernels", "utils", "dygraph", "program", "executor", "tensor", "nn",
             "save_load", "static", "ast_transforms"}),
    ("io", {"ops", "kernels", "utils", "dygraph", "program", "executor", "tensor", "nn", "jit"}),
    ("text", {"ops", "kernels", "utils", "dygraph", "program", "executor", "tensor", "nn", "jit",
              "io"}),
    ("vision", {"ops", "kernels", "utils", "dygraph", "program", "executor", "tensor", "nn",
                "save_load", "static", "jit", "io"}),
    ("hapi", {"ops", "kernels", "utils", "dygraph", "program", "executor", "tensor", "nn",
              "optimizer", "metric", "device", "save_load", "static", "amp", "jit", "io"}),
    ("inference", {"ops", "kernels", "utils", "dygraph", "program", "executor", "save_load"}),
    ("distributed", {"ops", "kernels", "utils", "dygraph", "program", "executor", "tensor", "nn",
                     "optimizer", "save_load", "static", "jit", "io"}),
    # cli also reaches jit (and what jit stands on) for `inspect --convert` (jit.report)
    ("cli", {"ops", "kernels", "utils", "program", "executor", "save_load", "inference",
             "jit", "ast_transforms", "dygraph", "tensor", "nn", "static"}),
]
# Paddle 2.6's legacy namespaces: re-exports of everything above, holding no logic
_ALL_AREAS = {a for a, _ in LAYERS}
LAYERS += [("base", set(_ALL_AREAS)), ("framework", _ALL_AREAS | {"base"})]
ALLOWED = dict(LAYERS)
ORDER = {area: i for i, (area, _) in enumerate(LAYERS)}


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
            if node.module or not node.level:  # `from .. import nn` imports sampan.nn only
                yield mod, node.lineno
            for a in node.names:
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


def _edges():
    """(file, line, importing area, imported module, imported area) of every
    import of one area by another (the package root imports anything)."""
    for path in _python_files(ROOT, package_only=True):
        area = _area_of_file(path)
        for mod, line in imported_modules(path):
            target = _area_of_module(mod)
            if target is not None and target != area and area != "<root>":
                yield os.path.relpath(path, ROOT), line, area, mod, target


def test_every_folder_is_a_layer_of_the_map():
    folders = {d for d in os.listdir(ROOT) if os.path.isfile(os.path.join(ROOT, d, "__init__.py"))
               and d not in NOT_PACKAGE}
    assert folders == set(ALLOWED), (f"folders off the map: {sorted(folders - set(ALLOWED))}; "
                                     f"on the map, missing: {sorted(set(ALLOWED) - folders)}")


def test_the_map_points_down():
    up = [(a, b) for a, allowed in LAYERS for b in allowed if ORDER[b] >= ORDER[a]]
    assert not up, f"layers allowed to import a layer at or above them: {up}"


def test_imports_follow_the_layers():
    bad = [f"{path}:{line}: {area}/ imports {mod} ({target}/ is not below it on the map)"
           for path, line, area, mod, target in _edges()
           if target != "<root>" and target not in ALLOWED.get(area, ())]
    bad += [f"{path}:{line}: {area}/ imports the package root ({mod})"
            for path, line, area, mod, target in _edges() if target == "<root>"]
    assert not bad, "imports against the layers (tests/test_imports.py LAYERS):\n" + \
        "\n".join(bad)


def test_readme_lists_the_layers_in_order():
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z_]+)/` \|", section, re.M)
    assert rows == [a for a, _ in LAYERS], rows


# the real-Paddle side of the oracle: scripts run in the side venv, never imported here
# (benchmarks/memory.py imports paddle only in the children it starts with the side venv's
# interpreter, to measure Paddle beside sampan)
ORACLE_SCRIPTS = (os.path.join("tests", "interop", ""), os.path.join("benchmarks", "memory.py"),
                  os.path.join("benchmarks", "lstm_paddle.py"),
                  os.path.join("benchmarks", "dataloader.py"))


def test_nothing_imports_paddle():
    bad = [f"{os.path.relpath(p, ROOT)}:{line}: {mod}"
           for p in _python_files(ROOT, package_only=False)
           if not any(o in os.path.relpath(p, ROOT) for o in ORACLE_SCRIPTS)
           for mod, line in imported_modules(p)
           if mod == "paddle" or mod.startswith("paddle.")]
    assert not bad, "real paddle imported:\n" + "\n".join(bad)


# PyTorch is a benchmark-only peer: one script runs it, in a Python that has it
PEER_SCRIPTS = (os.path.join("benchmarks", "peers_torch.py"),)


def test_only_the_peer_benchmark_imports_torch():
    bad = [f"{os.path.relpath(p, ROOT)}:{line}: {mod}"
           for p in _python_files(ROOT, package_only=False)
           if os.path.relpath(p, ROOT) not in PEER_SCRIPTS
           for mod, line in imported_modules(p)
           if mod == "torch" or mod.startswith("torch.")]
    assert not bad, "torch imported outside benchmarks/peers_torch.py:\n" + "\n".join(bad)


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
