"""``Model``'s batch steps in static-graph mode (``paddle.enable_static()``),
as Paddle 2.6 builds them.

``prepare`` builds three Programs from the Model's input/label specs: train
(forward, loss, metrics' ``compute``, the optimizer's ``minimize``), eval
(forward, loss, metrics; cloned ``for_test``) and test (forward only), and
runs the startup ops of the variables the global scope does not hold yet.
A batch step feeds the arrays by the specs' names and fetches the losses
and metric inputs (``update`` runs on the fetched arrays) or the outputs.

``save`` writes ``.pdparams`` (the network's state dict as arrays, keyed
by structured name) and ``.pdopt`` (the optimizer's persistable variables
of the train program, by variable name).  Where sampan differs from
Paddle: ``save(path, training=False)`` writes ``path.pdmodel`` /
``path.pdiparams`` (Paddle 2.6 writes them as ``<dirname>.pdmodel``).
"""
import contextlib

import numpy as np

from ..static import (Parameter, default_main_program, default_startup_program, program_guard,
                      Executor, global_scope, CPUPlace, save_inference_model)
from .. import tensor as T

__all__ = ["StaticGraphAdapter"]


@contextlib.contextmanager
def _parameters_in(network, prog):
    """While building ``prog`` (a clone of the program the network's static
    Parameters belong to), the layers hold the clone's Parameters of the
    same names, so every op reads variables of its own program."""
    block, swapped = prog.global_block(), []
    for layer in network.sublayers(include_self=True):
        for key, p in list(layer._parameters.items()):
            if p is not None and block.has_var(p.name) and block.var(p.name) is not p:
                swapped.append((layer, key, p))
                layer._parameters[key] = block.var(p.name)
    try:
        yield
    finally:
        for layer, key, p in swapped:
            layer._parameters[key] = p


def _to_list(v):
    return list(v) if isinstance(v, (list, tuple)) else [v]


class StaticGraphAdapter:
    def __init__(self, model):
        self.model = model
        self._startup_prog = default_startup_program()
        self._orig_prog = default_main_program()
        self._label_vars, self._input_vars, self._endpoints, self._progs = {}, {}, {}, {}
        self._executor = None
        self._merge_count = {"eval_total": 0, "test_total": 0, "eval_batch": 0,
                             "test_batch": 0}
        self._input_info = None
        self._amp_level = "O0"
        self._amp_configs = {}
        self._amp_custom_lists = {}

    # ------------------------------------------------------------ batch steps
    def train_batch(self, inputs, labels=None, update=True):
        if not self.model._optimizer:
            raise AssertionError("model not ready, please call `model.prepare()` first")
        if update is not True:
            raise AssertionError("Does not support `update == False` in static graph mode by "
                                 "now.")
        self.model.mode = "train"
        return self._run(inputs, labels)

    def eval_batch(self, inputs, labels=None):
        self.model.mode = "eval"
        return self._run(inputs, labels)

    def predict_batch(self, inputs):
        self.model.mode = "test"
        return self._run(inputs, None)

    def parameters(self, *args, **kwargs):
        return self.model.network.parameters(*args, **kwargs)

    def _run(self, inputs, labels=None):
        mode = self.model.mode
        prog = self._progs.get(mode)
        if prog is None:
            raise AssertionError("Model is not ready, please call `model.prepare()` first")
        inputs = _to_list(inputs)
        if len(inputs) != len(self._input_vars[mode]):
            raise AssertionError(f"number of inputs ({len(inputs)}) does not match number of "
                                 f"arguments of `forward` ({len(self._input_vars[mode])})")
        feed = {v.name: np.asarray(x.numpy() if hasattr(x, "numpy") else x)
                for v, x in zip(self._input_vars[mode], inputs) if x is not None}
        if labels is not None:
            for v, y in zip(self._label_vars[mode], _to_list(labels)):
                feed[v.name] = np.asarray(y.numpy() if hasattr(y, "numpy") else y)
        ends = self._endpoints[mode]
        if mode == "test":
            fetch = ends["output"]
        else:
            splits = [len(m) for m in ends["metric"]]
            fetch = ends["loss"] + [v for m in ends["metric"] for v in m]
            num_loss = len(ends["loss"])
        rets = self._executor.run(prog, feed=feed, fetch_list=fetch)
        rets = [np.array(v) for v in rets]
        if mode == "test":
            return rets
        states, at = [], num_loss
        for n in splits:
            states.append(rets[at:at + n])
            at += n
        metrics = [m.update(*s) for m, s in zip(self.model._metrics, states)]
        if num_loss and metrics:
            return rets[:num_loss], metrics
        return rets[:num_loss] if num_loss else metrics

    # ------------------------------------------------------------ building
    def prepare(self):
        for mode in ("train", "eval", "test"):
            self._make_program(mode)
        self._initialize()

    def _make_program(self, mode):
        if mode in self._progs:
            return
        model = self.model
        prog = self._orig_prog.clone()
        if mode != "train":
            while prog.global_block().ops:
                prog.global_block()._remove_op(0)
        losses, metrics = [], []
        with program_guard(prog, self._startup_prog), _parameters_in(model.network, prog):
            inputs = [s._create_feed_layer() for s in model._inputs]
            labels = [s._create_feed_layer() for s in (model._labels or [])]
            self._label_vars[mode] = labels
            outputs = _to_list(model.network.forward(*inputs))
            if mode != "test" and model._loss:
                losses = _to_list(model._loss(*(outputs + labels)))
            if mode != "test":
                for metric in model._metrics:
                    metrics.append(_to_list(metric.compute(*(outputs + labels))))
            if mode == "train" and model._optimizer:
                self._loss_endpoint = T.add_n(losses)
                model._optimizer.minimize(self._loss_endpoint)
        if mode != "train":
            prog = prog.clone(for_test=True)
        self._input_vars[mode] = inputs
        self._progs[mode] = prog
        self._endpoints[mode] = {"output": outputs, "loss": losses, "metric": metrics}

    def _initialize(self):
        """Run the startup ops whose outputs the global scope lacks."""
        if self._executor is None:
            self._executor = Executor(CPUPlace())
        scope = global_scope()
        start = self._startup_prog.clone()
        block = start.global_block()
        for i in reversed(range(len(block.ops))):
            outs = [n for slot in block.ops[i].output_names for n in block.ops[i].output(slot)]
            done = all(scope.find_var(n) is not None and scope.find_var(n).is_initialized()
                       for n in outs)
            if done:
                block._remove_op(i)
        if block.ops:
            self._executor.run(start)

    # ------------------------------------------------------------ save / load
    def _value(self, name):
        v = global_scope().find_var(name)
        if v is None or not v.is_initialized():
            raise RuntimeError(f"variable '{name}' holds no value in the global scope; call "
                               f"model.prepare() first")
        return np.array(v.get())

    def _optimizer_vars(self):
        prog = self._progs.get("train")
        if prog is None or self.model._optimizer is None:
            return []
        own = {p.name for p in self.model.network.state_dict().values()}
        return [v for v in prog.list_vars()
                if v.persistable and not isinstance(v, Parameter) and v.name not in own
                and v.name not in ("feed", "fetch")]

    def state_dicts(self):
        params = {k: self._value(p.name) for k, p in self.model.network.state_dict().items()}
        optim = {v.name: self._value(v.name) for v in self._optimizer_vars()}
        return params, optim

    def save(self, path, save):
        params, optim = self.state_dicts()
        if params:
            save(params, path + ".pdparams")
        if optim:
            save(optim, path + ".pdopt")

    def load(self, param_state_pairs, optim_state, scaler_state=None):
        scope = global_scope()
        for param, state in param_state_pairs:
            arr = np.asarray(state.numpy() if hasattr(state, "numpy") else state)
            scope.var(param.name).set(arr.astype(self._value(param.name).dtype, copy=False)
                                      if scope.find_var(param.name) is not None
                                      and scope.find_var(param.name).is_initialized() else arr)
        if not self.model._optimizer or not optim_state:
            return
        for v in self._optimizer_vars():
            if v.name not in optim_state:
                raise AssertionError(f"variable [{v.name}] is not in optimizer state file")
            s = optim_state[v.name]
            scope.var(v.name).set(np.asarray(s.numpy() if hasattr(s, "numpy") else s))

    def save_inference(self, path):
        prog = self._progs.get("test")
        if prog is None:
            raise AssertionError("Model is not ready, please call `model.prepare()` first")
        save_inference_model(path, list(self._input_vars["test"]),
                             self._endpoints["test"]["output"], self._executor,
                             program=prog.clone(for_test=True))
