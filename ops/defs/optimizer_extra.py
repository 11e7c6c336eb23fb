"""Optimizer update ops: adamax, adadelta, lamb (Paddle 2.6's slots and
attributes; every ``XOut`` updates input ``X`` in place, as the ops of
``optimizer.py``).  Not differentiable."""
from ..declare import defop, REQUIRED
from .optimizer import _update_op, _same_as_inputs, _MASTER, _MP

_update_op("adamax", "Param Grad LearningRate Moment InfNorm Beta1Pow MasterParam?",
           (("ParamOut", "Param"), ("MomentOut", "Moment"), ("InfNormOut", "InfNorm"))
           + _MASTER,
           (("beta1", "FLOAT", 0.9), ("beta2", "FLOAT", 0.999), ("epsilon", "FLOAT", 1e-8),
            _MP))

_update_op("adadelta", "Param Grad AvgSquaredGrad AvgSquaredUpdate LearningRate MasterParam?",
           (("ParamOut", "Param"), ("AvgSquaredGradOut", "AvgSquaredGrad"),
            ("AvgSquaredUpdateOut", "AvgSquaredUpdate")) + _MASTER,
           (("rho", "FLOAT", 0.95), ("epsilon", "FLOAT", 1e-6), _MP))

# lamb's Beta1PowOut/Beta2PowOut are dispensable though their inputs are not
_LAMB_IN = ("Param Grad LearningRate Moment1 Moment2 Beta1Pow Beta2Pow MasterParam? "
            "SkipUpdate?")
_LAMB_PAIRS = (("ParamOut", "Param"), ("Moment1Out", "Moment1"), ("Moment2Out", "Moment2"),
               ("Beta1PowOut", "Beta1Pow"), ("Beta2PowOut", "Beta2Pow")) + _MASTER
defop("lamb", _LAMB_IN,
      "ParamOut Moment1Out Moment2Out Beta1PowOut? Beta2PowOut? MasterParamOut?",
      (("weight_decay", "FLOAT", REQUIRED), ("beta1", "FLOAT", 0.9), ("beta2", "FLOAT", 0.999),
       ("epsilon", "FLOAT", 1e-6), ("always_adapt", "BOOLEAN", False), _MP),
      infer=_same_as_inputs([s.rstrip("?") for s in _LAMB_IN.split()], _LAMB_PAIRS),
      inplace={o: i for o, i in _LAMB_PAIRS},
      no_grad_inputs=tuple(s.rstrip("?") for s in _LAMB_IN.split()))
