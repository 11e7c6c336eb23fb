"""``py_func``: a Python function as an op of a static program (Paddle's op, with
the callables held in an in-process registry by id: ``static/nn/extra.py``, whose
executor runners run them).  Its gradient op is sampan's ``py_func_grad`` (the
backward callable as its forward one); Paddle reuses the ``py_func`` type."""
from ..declare import defop
from ..registry import GradOp

PY_FUNC_ATTRS = (("forward_callable_id", "INT", -1), ("backward_callable_id", "INT", -1),
                 ("backward_skip_vars", "STRINGS", []))


def _py_func_grad(attrs):
    if attrs.get("backward_callable_id", -1) < 0:
        return ()
    return (GradOp("py_func_grad", {"X": "X", "Out": "Out", "Out@GRAD": "Out@GRAD"},
                   {"X@GRAD": "X@GRAD"},
                   attrs=lambda a: {"forward_callable_id": a["backward_callable_id"],
                                    "backward_callable_id": -1,
                                    "backward_skip_vars": list(a["backward_skip_vars"])}),)


defop("py_func", ("X*?",), ("Out*?",), PY_FUNC_ATTRS, infer=lambda metas, attrs: (),
      grad=_py_func_grad, side_effect=True)
defop("py_func_grad", ("X*?", "Out*?", "Out@GRAD*?"), ("X@GRAD*?",), PY_FUNC_ATTRS,
      side_effect=True)
