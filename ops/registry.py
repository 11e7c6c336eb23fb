"""The op registry: one declaration per op, read by every mode.

An ``OpDef`` carries what Paddle's OpProto carries (slots, attributes with
defaults) plus what sampan derives everything else from: shape/dtype inference
(``infer_meta``), the gradient rule as grad-op records, and scheduling facts.
Kernels are registered separately (``sampan.kernels``) under the op's type.

Nothing here imports the rest of sampan.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

GRAD_SUFFIX = "@GRAD"


from .errors import (OpError, kind_of, INVALID_ARGUMENT,  # noqa: F401  (ops/errors.py)
                     NOT_FOUND)


@dataclass(frozen=True)
class Slot:
    name: str
    duplicable: bool = False      # holds a list of variables
    dispensable: bool = False     # may be absent
    intermediate: bool = False    # only the grad op needs it (XShape)


@dataclass(frozen=True)
class Attr:
    name: str
    type: str                     # Paddle AttrType name: INT FLOAT STRING INTS FLOATS BOOLEAN LONG ...
    default: Any = None
    required: bool = False        # no registered default: the writer must set it


@dataclass(frozen=True)
class GradOp:
    """One grad op a forward op emits.

    ``inputs``/``outputs`` map the grad op's slot names to *sources*: a forward
    slot name (``"X"``, ``"Out"``), or a forward slot name plus ``@GRAD``
    (``"Out@GRAD"`` is the gradient flowing into forward output ``Out``,
    ``"X@GRAD"`` as an output is the gradient produced for forward input X).
    ``attrs`` is a function of the forward attrs (default: copy them).
    """
    type: str
    inputs: dict
    outputs: dict
    attrs: Callable[[dict], dict] | None = None


@dataclass(frozen=True)
class Meta:
    """What infer_meta computes for one variable: shape (-1 = unknown) and dtype."""
    shape: tuple
    dtype: Any                     # numpy dtype


@dataclass(eq=False)
class OpDef:
    type: str
    inputs: tuple                  # of Slot
    outputs: tuple                 # of Slot
    attrs: tuple = ()              # of Attr
    infer_meta: Callable | None = None   # (in_metas: tuple, attrs: dict) -> tuple of Meta
    grad: Any = None               # tuple of GradOp, or a function attrs -> tuple of GradOp
    random: bool = False           # draws from the generator: keep program order
    side_effect: bool = False      # prints, writes: keep program order
    inplace: dict = field(default_factory=dict)        # output slot -> input slot it may reuse
    no_need_buffer: tuple = ()     # input slots whose buffers are never read, only their shape
    #                                and dtype: by the op itself when it is a grad op or has no
    #                                gradient (X of elementwise_add_grad, Input of shape), by
    #                                its grad ops when it is a forward op with a gradient (X of
    #                                reduce_sum: reduce_sum_grad); see shape_only_inputs
    dtype_from: str | None = None  # input slot deciding the kernel dtype (default: first input);
    #                                "dtype": the attribute of that name decides (Paddle's
    #                                creation ops: fill_constant, the random ops, linspace)
    same_dtype: tuple = ()         # input slots that must share one dtype (checked, not promoted)
    renames: dict = field(default_factory=dict)        # public argument name -> attr name
    #                                (the public function binds with its own argument names:
    #                                sampan.matmul's transpose_x is matmul_v2's trans_x)
    no_grad_inputs: tuple = ()     # input slots that never receive a gradient (indices, labels)

    def __post_init__(self):
        self.input_index = {s.name: i for i, s in enumerate(self.inputs)}
        self.output_index = {s.name: i for i, s in enumerate(self.outputs)}
        self.attr_specs = {a.name: a for a in self.attrs}
        self.default_attrs = {a.name: a.default for a in self.attrs if not a.required}
        self.required_attrs = tuple(a.name for a in self.attrs if a.required)
        self.kernels = {}          # KernelKey -> callable, filled by sampan.kernels
        self.eager_cache = {}      # (backend, dtype) -> kernel, filled on first eager use
        di = self.dtype_from or (self.inputs[0].name if self.inputs else None)
        if di == "dtype" and di not in self.input_index:
            di = None              # kernel chosen by attrs["dtype"] (dygraph/engine, executor/plan)
        self.dtype_index = self.input_index.get(di, 0) if di else None
        self.same_dtype_index = tuple(self.input_index[s] for s in self.same_dtype)
        unknown = [s for s in self.no_need_buffer if s not in self.input_index]
        if unknown:
            raise ValueError(f"op '{self.type}': no_need_buffer names {unknown}, which are "
                             f"not input slots of it ({list(self.input_index)})")
        self.no_need_buffer_index = tuple(self.input_index[s] for s in self.no_need_buffer)
        self.differentiable = self.grad is not None
        self.is_grad = self.type.endswith("_grad")
        self.n_outputs = len(self.outputs)
        self.all_outputs = frozenset(range(len(self.outputs)))
        # outputs that hold a list of variables (split's Out*): eager wraps each element
        self.list_outputs = any(s.duplicable for s in self.outputs)
        # one plain output: its node's output gradient is one array (the tape's
        # chain hands it to the node directly, dygraph/grad_fast.py)
        self.one_output = self.n_outputs == 1 and not self.list_outputs
        plain = not any(s.duplicable for s in self.inputs) and not self.list_outputs
        # eager fast path: 1 or 2 non-duplicable inputs, dtype from one of them
        self.fast_arity = len(self.inputs) if plain and len(self.inputs) in (1, 2) \
            and self.dtype_index is not None else 0
        self.records_grad = self.grad is not None or self.is_grad
        self.fast_bw = False           # set once its grad steps are compiled (dygraph)
        # everything the eager fast path reads, in one tuple (one attribute load)
        self.fast = (self.fast_arity, self.dtype_index, len(self.same_dtype_index) > 1,
                     self.eager_cache, self.records_grad, self.n_outputs)
        self.same_dtype_pairs = tuple((self.same_dtype_index[0], j)
                                      for j in self.same_dtype_index[1:])
        # the outputs an eager call that records no gradient needs: all but the
        # XShape of the reshape family (only their backward reads it); None: all
        self.need_unrecorded = tuple(s.name != "XShape" for s in self.outputs) \
            if any(s.name == "XShape" for s in self.outputs) else None

    # ----------------------------------------------------------- attrs
    def complete_attrs(self, attrs):
        """Defaults filled in, renames applied, unknown names refused (except the
        bookkeeping any Paddle op may carry: ``op_*`` and ``with_quant_attr``)."""
        if not attrs:
            if self.required_attrs:
                raise OpError(f"op '{self.type}': missing required attribute(s) "
                              f"{list(self.required_attrs)}")
            return self.default_attrs
        if not self.renames and self.attr_specs.keys() >= attrs.keys():
            # the common case, checked and merged without a Python loop (eager hot path)
            if not self.required_attrs:
                return {**self.default_attrs, **attrs}
            full = {**self.default_attrs, **attrs}
            for k in self.required_attrs:
                if k not in full:
                    raise OpError(f"op '{self.type}': missing required attribute '{k}'")
            return full
        full = dict(self.default_attrs)
        for k, v in attrs.items():
            k = self.renames.get(k, k)
            if k not in self.attr_specs and not k.startswith("op_") and k != "with_quant_attr":
                raise OpError(f"op '{self.type}' has no attribute '{k}'; "
                              f"it has {sorted(self.attr_specs)}")
            full[k] = v
        for k in self.required_attrs:
            if k not in full:
                raise OpError(f"op '{self.type}': missing required attribute '{k}'")
        return full

    def has_kernel_dtype(self, dtype):
        """Whether a kernel of any backend is registered for ``dtype``."""
        name = str(dtype)
        return any(getattr(k, "dtype", None) == name for k in self.kernels)

    def dtype_mismatch(self, i, j, dtype_i, dtype_j, name_i=None, name_j=None):
        """The error for inputs ``i`` and ``j`` (a ``same_dtype`` pair) holding
        different dtypes.  Its kind is Paddle's: Paddle picks the kernel by the
        later input's dtype, so where the op has no kernel for that dtype the error
        is NotFound (RuntimeError), otherwise the kernel refuses the other input
        (InvalidArgument: ValueError)."""
        a = self.inputs[i].name + (f" ('{name_i}')" if name_i else "")
        b = self.inputs[j].name + (f" ('{name_j}')" if name_j else "")
        msg = (f"op '{self.type}': input {b} has dtype {dtype_j} but input {a} has dtype "
               f"{dtype_i}; they must match (cast one with .astype())")
        if self.has_kernel_dtype(dtype_j):
            return OpError(msg, kind=INVALID_ARGUMENT)
        return OpError(f"{msg}; '{self.type}' has no {dtype_j} kernel either", kind=NOT_FOUND)

    def grad_ops(self, attrs):
        g = self.grad
        if g is None:
            return ()
        return g(attrs) if callable(g) else g


_OPS: dict[str, OpDef] = {}


def register_op(opdef: OpDef) -> OpDef:
    if opdef.type in _OPS:
        raise ValueError(f"op '{opdef.type}' is declared twice")
    _OPS[opdef.type] = opdef
    _SHAPE_ONLY.clear()
    return opdef


# op type -> input positions read only for shape and dtype (built on first use)
_SHAPE_ONLY: dict[str, tuple] = {}


def shape_only_inputs(op_type: str) -> tuple:
    """Positions of the input slots of ``op_type`` whose buffers its kernels
    never read (only their shapes and dtypes): the one reading of the declared
    ``no_need_buffer`` facts.  A grad op or an op without a gradient declares
    its own slots (Paddle's NoNeedBufferVarsInferer); a forward op with a
    gradient declares the forward slots its grad ops need only the shapes of,
    which become the grad op slots reading them (when several forward ops
    emit one grad op type, the slots every one of them says).  Every kernel
    honours the result (tests/ops/test_declared_facts.py); the executor may
    reuse such an input's buffer before the op runs (executor/reuse.py)."""
    if not _SHAPE_ONLY and _OPS:
        _SHAPE_ONLY.update(_derive_shape_only())
    return _SHAPE_ONLY.get(op_type, ())


def _derive_shape_only():
    own = {t: set(od.no_need_buffer_index) for t, od in _OPS.items()
           if od.no_need_buffer and (od.is_grad or od.grad is None)}
    derived = {}
    for od in _OPS.values():
        if od.is_grad or od.grad is None:
            continue
        try:                        # (a rule of the attrs: as the defaults make it)
            records = od.grad_ops(od.default_attrs) if callable(od.grad) else od.grad
        except Exception:
            records = ()
        nnb = set(od.no_need_buffer)
        for g in records or ():
            gd = _OPS.get(g.type)
            if gd is None:
                continue
            pos = {gd.input_index[k] for k, src in g.inputs.items()
                   if src in nnb and k in gd.input_index}
            derived[g.type] = derived[g.type] & pos if g.type in derived else pos
    out = {}
    for t in set(own) | set(derived):
        pos = own.get(t, set()) | derived.get(t, set())
        if pos:
            out[t] = tuple(sorted(pos))
    out.setdefault("", ())          # (built: not empty)
    return out


def get_op(op_type: str) -> OpDef:
    try:
        return _OPS[op_type]
    except KeyError:
        raise OpError(f"unknown op type '{op_type}'; sampan knows {len(_OPS)} ops "
                      f"(see sampan.ops.list_ops())") from None


def has_op(op_type: str) -> bool:
    return op_type in _OPS


def list_ops():
    """Sorted op types with their registered kernel keys (introspection)."""
    return {t: sorted(str(k) for k in _OPS[t].kernels) for t in sorted(_OPS)}


def all_opdefs():
    return dict(_OPS)
