"""Helpers the inference tests share: a Predictor of a saved model with the IR
passes on or off and some passes deleted, and the op types of its program."""
import sampan as paddle


def predictor(prefix, ir=True, skip=()):
    cfg = paddle.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    cfg.switch_ir_optim(ir)
    for name in skip:
        cfg.delete_pass(name)
    return paddle.inference.create_predictor(cfg)


def op_types(pred):
    return [op.type for op in pred._core.program.global_block().ops]
