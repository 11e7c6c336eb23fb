"""``paddle.inference.convert_to_mixed_precision``: a float32 inference model
rewritten to run in float16 where its ops can, as Paddle Inference's
``ConvertToMixedPrecisionPass`` does (facts of that pass, applied to sampan's
kernel table):

1. float64 becomes float32: the ``dtype`` of ``fill_constant``,
   ``assign_value``, ``eye``, ``fill_any_like``, the dtypes of ``cast``, and
   non-persistable float64 inputs.
2. Ops in program order.  ``feed``: its variable turns float16 unless
   ``keep_io_types``.  ``fetch`` and ``cast``: left for later.  An op with a
   sub-block: outputs named like an input take that input's dtype.  Any other
   op runs in float16 when it is not black-listed (``black_list`` plus
   ``assign``, ``fill_constant``, ``assign_value``, ``eye``, ``fill_any_like``,
   ``fill_constant_batch_size_like``), it has a float16 kernel (or is in
   ``white_list``), it reads a float input, and no variable it writes is also
   written by another op that could run in float16: then its float32 weights
   become float16 (not batch_norm's Scale/Bias/Mean/Variance), a float input
   of another dtype is read through a ``cast`` inserted before it
   (``<name>_cast.tmp_<n>``, one per variable and dtype until it is written
   again), and its float32 outputs become float16 (not batch_norm's
   statistics).  An op that stays in float32 reads float16 inputs through
   casts to float32.
3. A fetched float16 variable is fetched through a cast to float32 when
   ``keep_io_types`` (a float32 one through a cast to float16 when not).
4. Every cast's ``in_dtype``/``out_dtype`` is set from its variables, and the
   parameters whose variables became float16 are written as float16.

Paddle converts for its GPU (and XPU/custom) kernels and refuses the CPU
(ValueError); sampan converts for its GPU backend, whose kernels are its
float16 kernel table, and its CPU runs the result too.  bfloat16 is refused:
numpy has no bfloat16 type.
"""
import os

import numpy as np

from ..ops import get_op, OpError
from ..ops.dtypes import to_enum
from ..program.variable import tensor_desc
from ..save_load.program_io import read_program, load_params, write_program, \
    persistable_names
from ..save_load.pdiparams import save_pdiparams
from .config import PrecisionType, PlaceType

__all__ = ["convert_to_mixed_precision"]

_F16, _F32, _F64 = to_enum("float16"), to_enum("float32"), to_enum("float64")
_FLOATS = (_F16, _F32)
_ALWAYS_BLACK = {"assign", "fill_constant", "assign_value", "eye", "fill_any_like",
                 "fill_constant_batch_size_like"}
_DTYPE_ATTR_OPS = ("fill_constant", "assign_value", "eye", "fill_any_like")
# inputs / outputs that stay float32 in an op that runs in float16
_KEEP_IN = {"batch_norm": ("Scale", "Bias", "Mean", "Variance")}
_KEEP_OUT = {"batch_norm": ("MeanOut", "VarianceOut", "SavedMean", "SavedVariance")}


def convert_to_mixed_precision(model_file, params_file, mixed_model_file, mixed_params_file,
                               mixed_precision, backend, keep_io_types=True, black_list=None,
                               **kwargs):
    """Write ``mixed_model_file``/``mixed_params_file``: the model of
    ``model_file``/``params_file`` with float16 where its ops can run it
    (module docstring).  ``black_list``: op types kept in float32;
    ``white_list=`` (keyword): op types converted even without a float16 kernel."""
    if mixed_precision == PrecisionType.Bfloat16:
        raise ValueError("convert_to_mixed_precision: sampan has no bfloat16 tensors (numpy has "
                         "no bfloat16 type); use PrecisionType.Half")
    if mixed_precision != PrecisionType.Half:
        raise ValueError(f"convert_to_mixed_precision: mixed_precision {mixed_precision!r} is "
                         f"not supported; only PrecisionType.Half (float16) and Bfloat16 are")
    if backend != PlaceType.GPU:
        raise ValueError(f"convert_to_mixed_precision: backend {backend!r} is not supported; "
                         f"mixed precision is for PlaceType.GPU (Paddle refuses the CPU too)")
    unknown = set(kwargs) - {"white_list"}
    if unknown:
        raise TypeError(f"convert_to_mixed_precision: unexpected keyword(s) {sorted(unknown)}")
    black = set(black_list or ()) | _ALWAYS_BLACK
    white = set(kwargs.get("white_list") or ())
    program = read_program(model_file)
    params = load_params(program, params_file, model_file)
    _Converter(program, black, white, bool(keep_io_types)).run()
    names = persistable_names(program)
    low = {v.name for b in program.blocks for v in b.vars.values()
           if v.persistable and _dtype(v) == _F16}
    out = {n: params[n].astype(np.float16) if n in low and params[n].dtype == np.float32
           else params[n] for n in names}
    write_program(mixed_model_file, program)
    if names:
        save_pdiparams(mixed_params_file or os.path.splitext(mixed_model_file)[0] + ".pdiparams",
                       out)


def _dtype(var):
    """The dtype enum of a variable, None for kinds without a tensor."""
    td = tensor_desc(var.desc)
    return None if td is None else td.data_type


def _set_dtype(var, enum):
    tensor_desc(var.desc).data_type = enum


class _Converter:
    def __init__(self, program, black, white, keep_io):
        self.program, self.black, self.white, self.keep_io = program, black, white, keep_io
        self.suffix = 0

    def run(self):
        for block in self.program.blocks:
            self._fp64_to_fp32(block)
        for block in self.program.blocks:
            self._convert(block)
        for block in self.program.blocks:
            for op in block.ops:
                if op.type == "cast":
                    op._set_attr("in_dtype", _dtype(block._find_var_recursive(op.input("X")[0])))
                    op._set_attr("out_dtype", _dtype(block._find_var_recursive(op.output("Out")[0])))
        self.program._bump()

    # ------------------------------------------------------------ step 1
    def _fp64_to_fp32(self, block):
        for op in block.ops:
            if op.type in ("feed", "fetch"):
                continue
            if op.type in _DTYPE_ATTR_OPS and op.has_attr("dtype") and op.attr("dtype") == _F64:
                op._set_attr("dtype", _F32)
            if op.type == "cast":
                for a in ("in_dtype", "out_dtype"):
                    if op.attr(a) == _F64:
                        op._set_attr(a, _F32)
            for n in op.input_arg_names:
                v = block._find_var_recursive(n)
                if v is not None and not v.persistable and _dtype(v) == _F64:
                    _set_dtype(v, _F32)

    # ------------------------------------------------------------ steps 2, 3
    def _supports(self, op_type):
        """A float16 kernel (or the white list) for ``op_type``."""
        if op_type in self.white:
            return True
        try:
            return get_op(op_type).has_kernel_dtype("float16")
        except OpError:          # an op sampan does not know: it stays in float32
            return False

    def _rewritten_outputs(self, block):
        """Variable -> the op types that write it after it was read or written
        in this block (Paddle's 'appears multiple times' rule)."""
        seen, multi = set(), {}
        for op in block.ops:
            seen.update(op.input_arg_names)
            if not op.has_attr("sub_block"):
                for n in op.output_arg_names:
                    if n in seen:
                        multi.setdefault(n, []).append(op.type)
            seen.update(op.output_arg_names)
        return multi

    def _convert(self, block):
        multi = self._rewritten_outputs(block)
        casts = {}                 # (variable, dtype) -> the cast's output
        fetches = []
        i = 0
        while i < len(block.ops):
            op = block.ops[i]
            t = op.type
            var = block._find_var_recursive
            if t == "feed":
                v = var(op.output("Out")[0])
                if not self.keep_io and _dtype(v) == _F32:
                    _set_dtype(v, _F16)
            elif t == "fetch":
                fetches.append(op)
            elif t == "cast":
                pass
            elif op.has_attr("sub_block"):
                ins = {n: var(n) for n in op.input_arg_names if var(n) is not None}
                for n in op.output_arg_names:
                    if n in ins and _dtype(ins[n]) is not None:
                        _set_dtype(var(n), _dtype(ins[n]))
            elif t not in self.black and not self._rewritten_by_low(op, multi, var):
                low = self._supports(t) and any(
                    _dtype(var(n)) in (_F16, _F32, _F64) for n in op.input_arg_names
                    if var(n) is not None)
                i += self._inputs(block, i, op, _F16 if low else _F32, casts, low)
                if low:
                    keep = {n for s in _KEEP_OUT.get(t, ()) for n in op.output(s)}
                    for n in op.output_arg_names:
                        v = var(n)
                        if v is not None and n not in keep and _dtype(v) == _F32:
                            _set_dtype(v, _F16)
            else:
                i += self._inputs(block, i, op, _F32, casts, False, only=_F16)
            for n in op.output_arg_names:       # a written variable: its casts are stale
                for k in [k for k in casts if k[0] == n]:
                    del casts[k]
            i += 1
        for op in fetches:
            i = next(k for k, o in enumerate(block.ops) if o is op)
            v = block._find_var_recursive(op.input("X")[0])
            d = _dtype(v)
            if self.keep_io and d == _F16:
                self._cast_before(block, i, op, v.name, _F32, casts)
            elif not self.keep_io and d == _F32:
                self._cast_before(block, i, op, v.name, _F16, casts)

    def _rewritten_by_low(self, op, multi, var):
        for n in op.output_arg_names:
            v = var(n)
            if v is not None and not v.persistable and n in multi and \
                    any(t not in self.black and self._supports(t) for t in multi[n]):
                return True
        return False

    def _inputs(self, block, i, op, to, casts, low, only=None):
        """Weights and inputs of ``op`` (at index i) for dtype ``to``; returns
        how many casts were inserted before it."""
        keep = {n for s in _KEEP_IN.get(op.type, ()) for n in op.input(s)}
        added = 0
        for n in list(dict.fromkeys(op.input_arg_names)):
            v = block._find_var_recursive(n)
            d = None if v is None else _dtype(v)
            if d is None:
                continue
            if only is not None:
                if d == only:
                    added += self._cast_before(block, i + added, op, n, to, casts)
                continue
            if low and v.persistable and d == _F32:
                if n not in keep:
                    _set_dtype(v, _F16)
            elif not v.persistable and d in _FLOATS and d != to:
                added += self._cast_before(block, i + added, op, n, to, casts)
        return added

    def _cast_before(self, block, i, op, name, to, casts):
        """Make ``op`` (at index i) read ``name`` as ``to`` through a cast; 1 if
        a cast op was inserted, 0 if an earlier one is reused."""
        out = casts.get((name, to))
        inserted = 0
        if out is None:
            src = block._find_var_recursive(name)
            out = f"{name}_cast.tmp_{self.suffix}"
            self.suffix += 1
            v = block.create_var(name=out, shape=list(src.shape), dtype="float32",
                                 persistable=False)
            _set_dtype(v, to)
            block._insert_op(i, "cast", inputs={"X": [name]}, outputs={"Out": [out]},
                             attrs={"in_dtype": _dtype(src), "out_dtype": to,
                                    "use_mkldnn": False, "with_quant_attr": False})
            casts[(name, to)] = out
            inserted = 1
        op._rename_input(name, out)
        return inserted
