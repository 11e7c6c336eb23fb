"""The eager Tensor's binary operators in one frame where nothing is mixed.

``x + y`` between eager tensors is the commonest call of eager code, and most
of its cost was passing through layers: the operator's rules for mixed
operands (tensor/operators.py), ``bind``, then ``run_op``'s general unpacking
(and for ``x + 1.0`` the scale op's attribute completion and its kernel's
conversions).  For the cases those layers end in anyway, in plain eager mode
on CPU arrays, ``fast_operator`` gives a method that does only what they do
there:

- two tensors of one dtype whose op has a kernel fast form for its default
  attrs (``+ - * /``): ``out = fast(a, b)`` (np.add), then ``wrap(out)`` or,
  when recording, ``wrap(out, False, GradNode(op, defaults, (x, y), (a, b),
  (out,)), 0)``;
- a float tensor and a Python int/float under ``+ - * /`` (operators.py rule 2,
  the ``scale`` op), or an integer tensor with an int: the scale kernel's own
  fast form for the op's complete attrs, made once per (method, dtype,
  number);
- a float tensor and a Python int/float under a comparison (rule 2: a [] fill
  of the tensor's dtype on the right): the compare kernel's fast form against
  the fill the general operator makes, made once per (dtype, number).

Everything else (another dtype, a bool, a static Variable, AMP or
FLAGS_check_nan_inf wrapping the handler, another backend, a replaced kernel, a
kernel error, whose message ``run_op`` words) takes ``general``, the operator
of tensor/operators.py, so results and errors are the same by construction;
tests/dygraph/test_fast_operators.py checks that both give bit-equal values,
the same dtypes, gradients and errors.
"""
import math

import numpy as np

from ..kernels.cpu.math import scale as _scale_kernel
from ..ops.mode import BIND
from .engine import GradNode, GRAD, RECORDING, STAMP, run_op
from .tensor import Tensor, Parameter
from .tensor import wrap

__all__ = ["fast_operator", "install"]

_ndarray = np.ndarray
_asarray = np.asarray
_new = object.__new__

# method -> op type of the operators with a fast form (the reflected ones
# only meet numbers: between tensors Python calls the left one's method)
FAST = {"__add__": "elementwise_add", "__sub__": "elementwise_sub",
        "__mul__": "elementwise_mul", "__truediv__": "elementwise_div",
        "__radd__": "elementwise_add", "__rsub__": "elementwise_sub",
        "__rmul__": "elementwise_mul",
        "__lt__": "less_than", "__le__": "less_equal", "__gt__": "greater_than",
        "__ge__": "greater_equal", "__eq__": "equal", "__ne__": "not_equal"}
_REFLECTED = ("__radd__", "__rsub__", "__rmul__")
_COMPARE = ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__")

_LIMIT = 1024        # entries of each table of per-number forms


def _key(v):
    """A table key of number ``v``: its type, value and the sign of a zero
    (0.0 == -0.0 but they scale differently); None for a NaN (never equal)."""
    if v != v:
        return None
    return type(v), v, math.copysign(1.0, v) if v == 0 else 0.0


def _scale_form(scale_op, attrs_of, dt, v, table):
    """(fn(a) -> out, complete attrs) of ``x <method> v`` as the scale op, or None:
    the scale kernel's own fast form for those attrs (kernels/cpu/math.py),
    made once per (dtype, number)."""
    k = _key(v)
    form = table.get((dt, k)) if k is not None else None
    if form is None:
        attrs = attrs_of(float(v))
        if attrs is None:
            return None
        attrs = scale_op.complete_attrs(attrs)
        fast = _scale_kernel.fast(attrs)
        form = ((lambda a: fast(a, None)), attrs)
        if k is not None:
            if len(table) >= _LIMIT:
                table.clear()
            table[(dt, k)] = form
    return form


def _fill_value(fill, dt, v, table):
    """The [] fill of ``v`` in ``dt`` that the general operator makes (``fill``:
    operators.py ``_fill``, run once per (dtype, number))."""
    k = _key(v)
    c = table.get((dt, k)) if k is not None else None
    if c is None:
        c = fill(v, dt)._data
        if k is not None:
            if len(table) >= _LIMIT:
                table.clear()
            table[(dt, k)] = c
    return c


def fast_operator(name, op, general, scale_op=None, attrs_of=None, fill=None):
    """``general`` (the operator of tensor/operators.py) with the cases of the
    module docstring done in place.  ``scale_op``/``attrs_of``: the scale op
    and this method's rule for its attrs (operators.SCALE_ATTRS), for ``+ - * /``;
    ``fill``: the operators' fill of a number (operators._fill), for comparisons."""
    cache = op.eager_cache
    defaults = op.default_attrs
    records = op.records_grad
    # ``/`` of integers is float32 division (operators.py rule 4): general path
    floats_only = op.type == "elementwise_div"
    tensors = name not in _REFLECTED
    compare = name in _COMPARE
    scale_cache = scale_op.eager_cache if scale_op is not None else None
    numbers = {}
    # dtype -> the kernel's fast form for two arrays of it, or False (none, or
    # ``/`` of integers): the cache entry's answer, read once per dtype (entries
    # are never replaced once made)
    direct = {}
    last = [(None, None)]       # (dtype, its answer) of the last call

    def learn(dt):
        entry = cache.get(dt)
        if entry is None:
            return None             # no kernel chosen yet: the general path makes one
        fast = entry[3] if not entry[1] and not (floats_only and dt.kind in "iub") else None
        fast = direct[dt] = fast or False
        return fast

    def resolve(dt):
        """``(dt, fast form for two arrays of dt)`` (False: none; None: not known
        yet), remembered as the last dtype's answer once known (one tuple:
        threads see a consistent pair)."""
        fast = direct.get(dt)
        if fast is None:
            fast = learn(dt)
        seen = (dt, fast)
        if fast is not None:            # a known answer (False included), stored
            last[0] = seen
        return seen

    # the number path's names, one closure cell (unpacked where it is taken)
    for_numbers = (compare, cache, fill, numbers, attrs_of, floats_only, scale_cache,
                   scale_op)

    # A reflected operator never takes the two-tensor path (Python calls the
    # left operand's method between tensors): no type is ``None``.  The hot
    # path reads few closure names (a call copies each one into its frame) and
    # the module's globals for the rest.
    tensor_t, param_t = (Tensor, Parameter) if tensors else (None, None)

    def method(self, other):
        tp = type(other)
        if (tp is tensor_t or tp is param_t) and BIND[0] is run_op:
            a = self._data
            b = other._data
            dt = a.dtype
            seen = last[0]
            if dt is not seen[0]:
                seen = resolve(dt)
            if seen[1] and dt is b.dtype and type(a) is _ndarray and type(b) is _ndarray:
                try:
                    out = seen[1](a, b)
                except Exception:       # the general path words the error
                    return general(self, other)
                if type(out) is not _ndarray:     # a 0-d result
                    out = _asarray(out)
                # wrap(out) and GradNode(...) written out, a call less each (the
                # fields as tensor.wrap and GradNode.__init__ set them: the test
                # test_fast_results_are_built_as_wrap_builds_them checks)
                t = _new(Tensor)
                t._data = out
                t._slot = 0
                t._grad = t._name = t._hooks = t._history = None
                t.persistable = False
                if (self.stop_gradient and other.stop_gradient) or not records or \
                        not (RECORDING[0] or GRAD.enabled):
                    t.stop_gradient = True
                    t._node = None
                    return t
                n = _new(GradNode)
                n.op = op
                n.attrs = defaults
                n.ins = (self, other)
                n.arrays = (a, b)
                n.outs = (out,)
                n.hooks = None
                n.epoch = STAMP()
                t.stop_gradient = False
                t._node = n
                return t
        elif (tp is float or tp is int) and BIND[0] is run_op:
            a = self._data
            if type(a) is _ndarray:
                compare, cache, fill, numbers, attrs_of, floats_only, scale_cache, \
                    scale_op = for_numbers
                dt = a.dtype
                kind = dt.kind
                if compare:
                    entry = cache.get(dt)
                    if kind == "f" and fill is not None and entry is not None and \
                            not entry[1] and (fast := entry[3]) is not None:
                        out = fast(a, _fill_value(fill, dt, other, numbers))
                        return wrap(out if type(out) is _ndarray else _asarray(out))
                elif attrs_of is not None and (kind == "f" or (
                        kind in "iu" and tp is int and not floats_only)):
                    entry = scale_cache.get(dt)
                    form = None
                    if entry is not None and entry[0] is _scale_kernel:
                        form = _scale_form(scale_op, attrs_of, dt, other, numbers)
                    if form is not None:
                        fn, attrs = form
                        try:
                            out = fn(a)
                        except Exception:
                            return general(self, other)
                        if type(out) is not _ndarray:
                            out = _asarray(out, dtype=dt)
                        if self.stop_gradient or not (RECORDING[0] or GRAD.enabled):
                            return wrap(out)
                        return wrap(out, False, GradNode(scale_op, attrs, (self, None),
                                                         (a, None), (out,)), 0)
        return general(self, other)

    method.__name__ = method.__qualname__ = general.__name__
    method.__doc__ = general.__doc__
    method.general = general
    return method


def install(cls, get_op, scale_attrs, fill):
    """Put the fast forms of ``FAST``'s operators on the eager tensor class
    (``scale_attrs``: operators.SCALE_ATTRS; ``fill``: operators._fill)."""
    scale_op = get_op("scale")
    for name, op_type in FAST.items():
        general = getattr(cls, name)
        general = getattr(general, "general", general)
        attrs_of = scale_attrs.get(name)
        setattr(cls, name, fast_operator(name, get_op(op_type), general,
                                         scale_op if attrs_of else None, attrs_of,
                                         fill if name in _COMPARE else None))
