"""The attributes of the ops a static Program holds, as JSON: the same code runs in
real Paddle 2.6.2 (``tests/interop/conformance_attrs.py``, in the side venv) and in
sampan (``test_static_attrs.py``), over the static mode of every conformance case.

An op's attributes are compared where both sides have the op at the same place:
a wrong value (``axis=-1`` where Paddle writes ``1``) is a file real Paddle may
refuse or run differently.  Paddle's bookkeeping attributes (role, name scope,
call stack, device, kernel switches) are left out.
"""
import math

from spec import ARG_NAMES, inputs_of  # noqa: E402  (flat import on both sides)

BOOKKEEPING = frozenset({
    "op_role", "op_role_var", "op_namescope", "op_callstack", "op_device", "with_quant_attr",
    "use_mkldnn", "use_cudnn", "mkldnn_data_type", "use_quantizer", "is_test",
    "Scale_in", "Scale_out", "Scale_x", "Scale_y", "fuse_with_relu", "workspace_size_MB",
    "exhaustive_search", "fuse_residual_connection", "fuse_activation", "fuse_alpha",
    "fuse_beta", "force_cpu", "use_addto", "name"})


def _json(v):
    """An attribute value as JSON, or None when it is not plain data (a block)."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return repr(v) if (math.isnan(v) or math.isinf(v)) else v
    if isinstance(v, (list, tuple)):
        items = [_json(x) for x in v]
        return None if any(x is None and y is not None for x, y in zip(items, v)) else items
    if type(v).__name__ in ("VarType", "DataType"):
        return int(v)
    return None


def op_attrs(paddle, fn, case):
    """[[op type, {attr: value}], ...] of the global block ``fn`` builds, or None
    when building fails."""
    arrays = inputs_of(case)
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        try:
            with paddle.static.program_guard(main, startup):
                args = [paddle.static.data(ARG_NAMES[i], list(a.shape), a.dtype.name)
                        for i, a in enumerate(arrays)]
                fn(*args)
        except Exception:  # noqa: BLE001  (an error case has no program to compare)
            return None
        out = []
        for op in main.global_block().ops:
            attrs = {}
            for name in op.attr_names:
                if name in BOOKKEEPING:
                    continue
                try:
                    value = _json(op.attr(name))
                except Exception:  # noqa: BLE001  (a block attribute)
                    continue
                if value is not None:
                    attrs[name] = value
            out.append([op.type, attrs])
        return out
    finally:
        paddle.disable_static()
