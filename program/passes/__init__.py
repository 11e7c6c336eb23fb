"""Graph passes of ``BuildStrategy``: program -> program rewrites, each a
function ``pass(program, keep=()) -> number of patterns rewritten`` editing
``program`` in place (``keep``: variable names that must stay computed, the
fetch targets).  ``static.CompiledProgram`` runs the ones its strategy turns on,
once, on its own clone of the program (executor/compiled.py).

The inference Predictor's load-time passes (inference/passes.py) are the
other family; these are training-aware (a forward pattern is fused only with
its backward).  Order is Paddle's: batch_norm fusions, then
elementwise_add+act, gemm epilogue, then ``enable_auto_fusion``'s trees of
elementwise ops into one compiled kernel (fuse_elementwise.py; needs numba),
and the optimizer fusion last.
"""
from .fuse_act import fuse_elewise_add_act, fuse_gemm_epilogue, fuse_bn_act, fuse_bn_add_act
from .fuse_optimizer import fuse_all_optimizer_ops
from .fuse_elementwise import fuse_elementwise

__all__ = ["BUILD_PASSES", "apply_passes", "fuse_elewise_add_act", "fuse_gemm_epilogue",
           "fuse_bn_act", "fuse_bn_add_act", "fuse_all_optimizer_ops", "fuse_elementwise"]

# BuildStrategy property -> pass, in the order they run
BUILD_PASSES = (
    ("fuse_bn_act_ops", fuse_bn_act),
    ("fuse_bn_add_act_ops", fuse_bn_add_act),
    ("fuse_elewise_add_act_ops", fuse_elewise_add_act),
    ("fuse_gemm_epilogue", fuse_gemm_epilogue),
    ("enable_auto_fusion", fuse_elementwise),
    ("fuse_all_optimizer_ops", fuse_all_optimizer_ops),
)


def apply_passes(program, enabled, keep=()):
    """Run the passes whose property name is in ``enabled`` on ``program`` (in
    place); returns {property: patterns rewritten}."""
    done = {}
    for name, fn in BUILD_PASSES:
        if name in enabled:
            done[name] = fn(program, keep)
    return done
