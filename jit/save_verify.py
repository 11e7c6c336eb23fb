"""``jit.save(..., verify=True)``: load what was written and compare it with the model.

Before a save commits, ``save_load.atomic_set.write_file_set`` hands its staged files to
``StagedCheck``: they are linked (or copied) under their final names into a hidden folder
beside the target, loaded with ``jit.load`` (so the manifest is checked too) and run on
example inputs: the tensors given in ``input_spec``, else inputs generated from the specs
(standard normal for floats, 0/1 for integers and bools, every unknown dim 2).  Each
output is compared with the eager model's (the layer in eval mode with to_static off,
under ``no_grad``); a difference beyond the tolerance raises ``SaveVerificationError``
naming the method, the output and by how much, and the target files stay as they were.
"""
import contextlib
import os
import shutil
import tempfile

import numpy as np

from ..dygraph.tensor import Tensor
from ..dygraph.tensor import wrap
from ..ops.dtypes import to_np_dtype
from ..save_load.fileio import FormatError

__all__ = ["SaveVerificationError", "Case", "example_inputs", "StagedCheck", "TOLERANCE"]

# (rtol, atol) by the compared output's dtype kind/size
TOLERANCE = {2: (1e-2, 1e-2), 4: (1e-4, 1e-5), 8: (1e-7, 1e-9)}


class SaveVerificationError(ValueError):
    """The files a ``jit.save(verify=True)`` wrote do not reproduce the model."""


class Case:
    """One method to verify: its example inputs and the eager outputs it must give."""

    def __init__(self, method, inputs, expected, names):
        self.method, self.inputs, self.expected, self.names = method, inputs, expected, names


def example_inputs(variables, given=None, seed=0):
    """Arrays for the program inputs ``variables``: the eager Tensors of ``given`` where the
    caller passed some, else generated from each variable's shape and dtype."""
    rng = np.random.default_rng(seed)
    out = []
    for k, v in enumerate(variables):
        g = given[k] if given is not None and k < len(given) else None
        if isinstance(g, Tensor):
            out.append(np.asarray(g._host()))
            continue
        if isinstance(g, np.ndarray):
            out.append(g)
            continue
        shape = [2 if d is None or d < 0 else int(d) for d in v.shape]
        dt = getattr(v, "np_dtype", None)
        if dt is None and getattr(v, "dtype", None) is not None:      # an InputSpec
            dt = to_np_dtype(v.dtype)
        dt = np.dtype("float32") if dt is None else np.dtype(dt)
        if dt.kind == "f":
            a = rng.standard_normal(shape).astype(dt)
        elif dt.kind == "c":
            a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
        elif dt.kind == "b":
            a = rng.integers(0, 2, shape).astype(bool)
        else:
            a = rng.integers(0, 2, shape).astype(dt)
        out.append(a)
    return out


def flat_tensors(out):
    """The Tensors of a (nested) output in flattening order."""
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in flat_tensors(o)]
    if isinstance(out, dict):
        return [t for k in out for t in flat_tensors(out[k])]
    return []


def _numpy(t):
    return np.asarray(t._host() if isinstance(t, Tensor) else t)


def _compare(case, got, prefix):
    got = got if isinstance(got, (list, tuple)) else [got]
    if len(got) != len(case.expected):
        raise SaveVerificationError(
            f"jit.save(verify=True) {prefix}: the saved '{case.method}' returns {len(got)} "
            f"output(s), the model {len(case.expected)}; the files were not written")
    for k, (g, e) in enumerate(zip(got, case.expected)):
        g, e = _numpy(g), _numpy(e)
        name = case.names[k] if k < len(case.names) else f"#{k}"
        what = f"output {k} ('{name}') of '{case.method}'"
        if g.shape != e.shape or g.dtype != e.dtype:
            raise SaveVerificationError(
                f"jit.save(verify=True) {prefix}: {what} is {g.dtype}{list(g.shape)} when "
                f"loaded, the model gives {e.dtype}{list(e.shape)}; the files were not "
                f"written")
        if g.dtype.kind in "fc":
            rtol, atol = TOLERANCE.get(np.dtype(g.dtype).itemsize // (2 if g.dtype.kind ==
                                                                     "c" else 1),
                                       TOLERANCE[4])
            bad = ~np.isclose(g, e, rtol=rtol, atol=atol, equal_nan=True)
        else:
            rtol = atol = 0
            bad = g != e
        if np.any(bad):
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            diff = np.abs(g.astype(np.complex128 if g.dtype.kind == "c" else np.float64) -
                          e.astype(np.complex128 if e.dtype.kind == "c" else np.float64))
            raise SaveVerificationError(
                f"jit.save(verify=True) {prefix}: {what} differs from the eager model at "
                f"{int(np.count_nonzero(bad))} of {g.size} element(s): max abs diff "
                f"{float(np.nanmax(diff)):.6g}, first at index {list(idx)} (loaded "
                f"{g[idx]!r}, eager {e[idx]!r}; rtol {rtol}, atol {atol}); the files at "
                f"{prefix} were not written")


@contextlib.contextmanager
def _staged_copy(prefix, staged):
    """A hidden folder beside ``prefix`` holding the staged files under their final names
    (hard links; copies where links fail)."""
    folder, base = os.path.split(os.path.abspath(prefix))
    tmp = tempfile.mkdtemp(prefix=f".{base}.verify-", dir=folder)
    try:
        for final, temp in staged.items():
            dst = os.path.join(tmp, os.path.basename(final))
            try:
                os.link(temp, dst)
            except OSError:
                shutil.copyfile(temp, dst)
        yield os.path.join(tmp, base)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class StagedCheck:
    """``check`` of ``write_file_set``: loads the staged set and runs ``cases``."""

    def __init__(self, prefix, cases):
        self.prefix, self.cases = prefix, cases

    def __call__(self, staged):
        from .translated_layer import load
        with _staged_copy(self.prefix, staged) as where:
            try:
                loaded = load(where)
            except (FormatError, ValueError) as exc:
                raise SaveVerificationError(
                    f"jit.save(verify=True) {self.prefix}: the written files do not load "
                    f"({exc}); the files were not written") from exc
            loaded.eval()
            from ..dygraph import no_grad
            with no_grad():
                for case in self.cases:
                    got = loaded._call(case.method, [wrap(a) for a in case.inputs])
                    _compare(case, got, self.prefix)


@contextlib.contextmanager
def _eager_eval(layer):
    """The layer in eval mode, to_static off, no gradients; restored afterwards."""
    from ..dygraph import no_grad
    from .static_function import enable_to_static, to_static_enabled
    modes = [(lay, lay.training) for lay in [layer] + list(layer.sublayers())] \
        if layer is not None else []
    was = to_static_enabled()
    if layer is not None:
        layer.eval()
    enable_to_static(False)
    try:
        with no_grad():
            yield
    finally:
        enable_to_static(was)
        for lay, training in modes:
            lay.training = training


def _case(method, call, variables, out_names, picked, given, layer):
    inputs = example_inputs(variables, given)
    with _eager_eval(layer):
        flat = flat_tensors(call(*[wrap(a) for a in inputs]))
    if len(flat) != len(out_names):
        raise SaveVerificationError(
            f"jit.save(verify=True): the eager '{method}' returns {len(flat)} tensor(s), its "
            f"program {len(out_names)} ({out_names}); cannot match them to verify")
    expected = [_numpy(flat[out_names.index(n)]) for n in picked]
    return Case(method, inputs, expected, picked)


def layer_case(layer, method, concrete, picked, given=None):
    """The case of a Layer's method from its concrete program (``picked``: the saved
    outputs' names among the program's)."""
    call = layer if method == "forward" else getattr(layer, method)
    return _case(method, call, list(concrete.inputs), [v.name for v in concrete.outputs],
                 picked, given, layer)


def translated_case(layer, method, names, picked):
    """The case of a loaded (``TranslatedLayer``) method saved again (``names``: its
    outputs under their saved names)."""
    m = layer._methods[method]
    return _case(method, lambda *xs: layer._call(method, xs), m.input_vars, names, picked,
                 None, layer)


def function_case(sf, concrete, picked, given=None):
    """The case of a plain function: its eager version on the example inputs."""
    return _case("forward", sf.dygraph_function, list(concrete.inputs),
                 [v.name for v in concrete.outputs], picked, given, None)
