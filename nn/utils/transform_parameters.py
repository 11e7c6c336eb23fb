"""``parameters_to_vector`` / ``vector_to_parameters``: all parameters as one
flat tensor (``concat`` of their flattened values), and back (``split``),
without gradient (eager only, as in Paddle)."""
import functools
import operator

from ... import tensor as _T
from ...dygraph.tape import no_grad
from ...ops import in_dynamic_mode
from ...tensor.indexing import rebind

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _dygraph_only(what):
    if not in_dynamic_mode():
        raise RuntimeError(f"We only support '{what}()' in dynamic graph mode, please call "
                           f"'paddle.disable_static()' to enter dynamic graph mode.")


def parameters_to_vector(parameters, name=None):
    """One 1-D tensor of every parameter's values, in order (needs a gradient)."""
    _dygraph_only("parameters_to_vector")
    parameters = list(parameters)
    with no_grad():
        out = _T.concat([_T.reshape(p, [-1]) for p in parameters], axis=0)
    out.stop_gradient = False
    return out


def vector_to_parameters(vec, parameters, name=None):
    """Write consecutive slices of ``vec`` into ``parameters`` (in place)."""
    _dygraph_only("vector_to_parameters")
    parameters = list(parameters)
    sections = [functools.reduce(operator.mul, p.shape, 1) for p in parameters]
    if sum(sections) != vec.shape[0]:
        raise ValueError(f"vector_to_parameters: the vector has {vec.shape[0]} elements but "
                         f"the parameters hold {sum(sections)}")
    with no_grad():
        parts = _T.split(vec, sections + ([0] if len(sections) == 1 else []), axis=0)
        for p, part in zip(parameters, parts):
            rebind(p, _T.reshape(part, p.shape), keep_grad=True)
