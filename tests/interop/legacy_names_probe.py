"""One probe of Paddle 2.6's legacy names (``paddle.base``, ``paddle.framework``,
``paddle.pir_utils``, ``paddle.jit.dy2static``, flags), run on real Paddle in
the side venv and on sampan: ``probe(paddle)`` takes the module to probe, so
this file imports neither.  Results are plain values (JSON)."""
import json

import numpy as np


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and message are the result
        return [type(e).__name__, str(e)]
    return None


def _sample(x):                      # a fixed function for func_to_source_code
    # a comment line
    y = x + 1
    return y


_CALLS = []


def _counted(x):                     # counts the runs of its Python code
    _CALLS.append(1)
    return x * 2


def probe(paddle):
    from importlib import import_module
    base = import_module(paddle.__name__ + ".base")
    framework = import_module(paddle.__name__ + ".framework")
    pir_utils = import_module(paddle.__name__ + ".pir_utils")
    utils = import_module(paddle.__name__ + ".jit.dy2static.utils")
    pt_mod = import_module(paddle.__name__ + ".jit.dy2static.program_translator")
    df = import_module(paddle.__name__ + ".base.data_feeder")
    r = {}
    tv = base.dygraph.to_variable
    r["tv_f64"] = [str(tv(np.ones(3)).dtype), tv(np.ones(3)).stop_gradient]
    r["tv_list_float"] = str(tv([1.5, 2.0]).dtype)
    r["tv_list_int"] = str(tv([1, 2]).dtype)
    t = tv(np.ones(3), name="abc", dtype="float32")
    r["tv_named"] = [str(t.dtype), t.name]
    r["tv_bad"] = _err(lambda: tv(5))[0]
    paddle.enable_static()
    r["tv_static"] = _err(lambda: tv(np.ones(2)))
    with base.dygraph.guard():
        r["guard_dynamic"] = [paddle.in_dynamic_mode(), base.dygraph.enabled()]
        r["guard_names"] = paddle.nn.Linear(2, 2).weight.name
    with base.dygraph.guard():
        r["guard_names_again"] = paddle.nn.Linear(2, 2).weight.name
    r["after_guard"] = paddle.in_dynamic_mode()
    with base.program_guard(base.Program()):
        x = paddle.static.data("x", [2], "float32")
    VT = base.core.VarDesc.VarType
    r["vartype"] = [VT.FP32 == paddle.float32, VT.FP32 is paddle.float32,
                    x.type == VT.LOD_TENSOR, x.dtype == VT.FP32, str(VT.INT64)]
    r["check_dtype"] = _err(lambda: df.check_variable_and_dtype(x, "x", ["int64"], "myop"))
    paddle.disable_static()
    r["convert_dtype"] = [df.convert_dtype(paddle.float32), df.convert_dtype(np.float64),
                          df.convert_dtype(np.dtype("int8")), df.convert_dtype("bool"),
                          _err(lambda: df.convert_dtype("foo"))]
    r["np_dtype"] = str(base.framework.convert_np_dtype_to_dtype_(np.float64))
    r["grad_name"] = base.framework.grad_var_name("w")
    with base.unique_name.guard():
        r["unique"] = [base.unique_name.generate("fc"), base.unique_name.generate("fc")]
    r["framework"] = [framework.in_dynamic_mode(), framework.use_pir_api(),
                      framework.in_pir_mode(), framework.in_dynamic_or_pir_mode(),
                      str(framework._current_expected_place())]
    r["flags"] = paddle.get_flags(["FLAGS_check_nan_inf", "FLAGS_use_mkldnn"])
    paddle.set_flags({"FLAGS_use_mkldnn": True})
    r["flags_set"] = framework.get_flags("FLAGS_use_mkldnn")
    paddle.set_flags({"FLAGS_use_mkldnn": False})
    g = base.core.globals()
    r["globals"] = [g["FLAGS_use_mkldnn"], "FLAGS_use_mkldnn" in g, "FLAGS_nope" in g,
                    len(list(g.keys())), g.get("FLAGS_nope", 5),
                    _err(lambda: g["FLAGS_nope"])[1].split("\n")[0]]
    r["flags_bad"] = [_err(lambda: paddle.set_flags({"FLAGS_nope": 1})),
                      _err(lambda: paddle.get_flags(3))]

    @base.framework.dygraph_only
    def eager_only():
        return 1
    paddle.enable_static()
    r["dygraph_only"] = _err(eager_only)
    paddle.disable_static()
    pt = pt_mod.ProgramTranslator()
    r["translator"] = [pt is pt_mod.ProgramTranslator.get_instance(), pt.enable_to_static]
    del _CALLS[:]
    sf = paddle.jit.to_static(_counted, full_graph=True)
    sf(paddle.ones([2]))
    pt.enable(False)
    sf(paddle.ones([2]))
    r["disabled_eager"] = [pt.enable_to_static, paddle.in_dynamic_mode()]
    pt.enable(True)
    sf(paddle.ones([2]))
    r["calls"] = len(_CALLS)
    r["source"] = utils.func_to_source_code(_sample)
    with pir_utils.IrGuard():
        r["ir_guard_dynamic"] = paddle.in_dynamic_mode()
    r["after_ir_guard"] = paddle.in_dynamic_mode()
    return r


if __name__ == "__main__":
    import paddle  # noqa: E402  (run in the side venv only)
    print(json.dumps(probe(paddle)))
