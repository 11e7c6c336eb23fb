"""Every public name sampan exposes in ``sampan``, on ``sampan.Tensor`` and in
``sampan.nn.functional`` is exercised by at least one conformance case (its
name appears as ``paddle.<name>``, ``F.<name>``/``functional.<name>`` or
``.<name>`` in some case's code), or is listed below with the reason it is
checked elsewhere.  A new public name therefore arrives with its cases."""
import inspect
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import sampan  # noqa: E402
import sampan.nn.functional as F  # noqa: E402

from cases import families  # noqa: E402

# name -> where it is checked instead (no value to compare with Paddle's)
ELSEWHERE = {
    # state of the process, devices and files
    "seed": "random state: tests/tensor", "get_rng_state": "random state",
    "set_rng_state": "random state", "get_cuda_rng_state": "GPU only",
    "set_cuda_rng_state": "GPU only", "set_device": "device placement",
    "get_device": "device placement", "is_compiled_with_cuda": "build facts",
    "set_default_dtype": "process-wide default: tests/tensor/test_creation.py",
    "enable_static": "mode switch: used by every static case",
    "disable_static": "mode switch: used by every static case",
    "in_dynamic_mode": "mode query: tests/static", "save": "files: tests/save_load",
    "load": "files: tests/save_load", "create_parameter": "layers: tests/nn",
    "grad": "autograd: tests/dygraph/test_tape.py and grad=True cases",
    "no_grad": "autograd context: tests/dygraph", "enable_grad": "autograd context",
    "set_grad_enabled": "autograd context", "is_grad_enabled": "autograd context",
    # Tensor bookkeeping (autograd and identity, no op behind them)
    "backward": "autograd: grad=True cases run it", "clear_grad": "autograd: tests/dygraph",
    "clear_gradient": "autograd: tests/dygraph", "gradient": "autograd: tests/dygraph",
    "gradient_fn": "autograd: tests/dygraph", "register_hook": "autograd: tests/dygraph",
    "retain_grads": "autograd: tests/dygraph", "is_leaf": "autograd: tests/dygraph",
    "stop_gradient": "autograd: tests/dygraph", "persistable": "static vars: tests/static",
    "name": "naming: tests/nn, tests/static", "place": "device placement",
    "cpu": "device placement", "cuda": "GPU only", "set_value": "tests/dygraph",
    "uniform_": "random fill: tests/tensor", "numpy": "every eager case reads it",
    # sparse and string tensors: Paddle makes one, sampan has none (NotImplementedError)
    "to_sparse_coo": "unsupported sparse tensors: tests/tensor/test_tensor_surface.py",
    "to_sparse_csr": "unsupported sparse tensors: tests/tensor/test_tensor_surface.py",
    "set_string_list": "unsupported string tensors: tests/tensor/test_tensor_surface.py",
    "set_vocab": "unsupported string tensors: tests/tensor/test_tensor_surface.py",
    # random draws: their dtypes/shapes are cases, their values cannot match Paddle's
    "normal": "creation cases (dtype)", "uniform": "creation cases (dtype)",
    # the training toolkit: printed tables and counts against Paddle's recorded ones
    "summary": "tests/hapi/test_hapi_summary_flops.py (fixtures from Paddle)",
    "flops": "tests/hapi/test_hapi_summary_flops.py (fixtures from Paddle)",
}


def _public(obj, only_callables=True):
    out = set()
    for n in dir(obj):
        if n.startswith("_"):
            continue
        v = getattr(obj, n, None)
        if inspect.ismodule(v) or inspect.isclass(v):
            continue
        if only_callables and not callable(v):
            continue
        out.add(n)
    return out


def _mentioned():
    text = "\n".join(c.code + "\n" + c.paddle_code for cs in families().values() for c in cs)
    return set(re.findall(r"\.(\w+)\b", text)) | set(re.findall(r"\b(\w+)\(", text))


def test_every_public_name_has_a_case():
    names = (_public(sampan) | _public(sampan.Tensor, only_callables=False)
             | _public(F))
    missing = sorted(n for n in names - _mentioned() if n not in ELSEWHERE)
    assert not missing, (f"{len(missing)} public names have no conformance case "
                         f"(add cases, or list where they are checked): {missing}")
