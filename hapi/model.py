"""``paddle.Model``: fit/evaluate/predict loops around a network, its
optimizer, loss and metrics (Paddle 2.6's high-level API, eager mode).

A batch from the loader is flattened; the first ``len(inputs)`` arrays feed
the network, the rest are the labels the loss and metrics read.  Training
steps call the network, ``loss(*outputs, *labels)``, ``backward`` and the
optimizer (every ``accumulate_grad_batches`` steps); each metric's
``compute`` then ``update`` runs on the outputs and labels.  Logs handed to
callbacks hold ``loss`` (the current step's losses, a list) and the
metrics' accumulated values (the average over the epoch so far).

``save(path)`` writes ``path.pdparams`` (and ``path.pdopt`` when the
optimizer has state) through ``paddle.save``; ``save(path, training=False)``
writes an inference model with ``jit.save`` over the input specs (given to
``Model(inputs=...)`` or taken from the first batch run).

Under ``paddle.enable_static()`` the network must be built in static mode
and ``inputs`` (InputSpecs) are required: ``prepare`` builds train/eval/test
Programs and the batch steps run them on an Executor (``static_adapter.py``).

``load`` reads the files as numpy arrays (as Paddle's pickle.load does); a
name with a dot in it (``ckpt/epoch.3``) is taken as a prefix when
``<name>.pdparams`` exists, where Paddle 2.6 refuses the "unknown postfix".
"""
import inspect
import os
import warnings

import numpy as np

from ..dygraph import Tensor, no_grad
from ..ops import in_dynamic_mode
from ..static import InputSpec
from .. import tensor as T
from ..nn import Layer
from ..metric import Metric
from ..io import Dataset, DataLoader, DistributedBatchSampler
from ..save_load import save as _save, load as _load
from .. import jit
from .. import amp
from .callbacks import config_callbacks, EarlyStopping
from .summary import summary
from .static_adapter import StaticGraphAdapter

__all__ = ["Model", "Input"]

Input = InputSpec


def to_list(value):
    if value is None:
        return value
    return list(value) if isinstance(value, (list, tuple)) else [value]


def to_numpy(var):
    if isinstance(var, Tensor):
        return var.numpy()
    return np.array(var)


def _flatten(data):
    if isinstance(data, dict):
        return [x for k in sorted(data) for x in _flatten(data[k])]
    if isinstance(data, (list, tuple)):
        return [x for d in data for x in _flatten(d)]
    return [data]


def _to_tensor(x):
    return x if isinstance(x, Tensor) else T.to_tensor(x)


def _input_info(inputs):
    if isinstance(inputs, InputSpec):
        return [list(inputs.shape)], [inputs.dtype]
    if isinstance(inputs, (list, tuple)):
        return [list(i.shape) for i in inputs], [i.dtype for i in inputs]
    if isinstance(inputs, dict):
        return [list(v.shape) for v in inputs.values()], [v.dtype for v in inputs.values()]
    return None


def _forward_arg_names(fn):
    return [p.name for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


class DynamicGraphAdapter:
    """The per-batch steps in eager mode."""

    def __init__(self, model):
        self.model = model
        self._merge_count = {"eval_total": 0, "test_total": 0, "eval_batch": 0,
                             "test_batch": 0}
        self._input_info = None
        self._amp_level = "O0"
        self._amp_configs = {}
        self._amp_custom_lists = {}

    def _metrics_of(self, outputs, labels):
        out = []
        for metric in self.model._metrics:
            res = metric.compute(*(to_list(outputs) + labels))
            out.append(metric.update(*[to_numpy(m) for m in to_list(res)]))
        return out

    def train_batch(self, inputs, labels=None, update=True):
        model = self.model
        if not model._optimizer:
            raise AssertionError("model not ready, please call `model.prepare()` first")
        model.network.train()
        model.mode = "train"
        inputs = to_list(inputs)
        self._input_info = _input_info(inputs)
        labels = [_to_tensor(x) for x in to_list(labels or [])]
        if self._amp_level != "O0" and model._scaler is None:
            model._scaler = amp.GradScaler(**self._amp_configs)
        with amp.auto_cast(enable=self._amp_level != "O0", level=self._amp_level,
                           **self._amp_custom_lists):
            outputs = model.network(*[_to_tensor(x) for x in inputs])
        losses = to_list(model._loss(*(to_list(outputs) + labels)))
        final = T.add_n(losses)
        if self._amp_level != "O0":
            scaled = model._scaler.scale(final)
            scaled.backward()
            if update:
                model._scaler.minimize(model._optimizer, scaled)
                model.network.clear_gradients()
        else:
            final.backward()
            if update:
                model._optimizer.minimize(final)
                model.network.clear_gradients()
        metrics = self._metrics_of(outputs, labels)
        loss_np = [to_numpy(x) for x in losses]
        return (loss_np, metrics) if metrics else loss_np

    def eval_batch(self, inputs, labels=None):
        model = self.model
        model.network.eval()
        model.mode = "eval"
        inputs = to_list(inputs)
        self._input_info = _input_info(inputs)
        labels = [_to_tensor(x) for x in to_list(labels or [])]
        outputs = model.network(*[_to_tensor(x) for x in inputs])
        losses = to_list(model._loss(*(to_list(outputs) + labels))) if model._loss else None
        metrics = self._metrics_of(outputs, labels)
        if model._loss and metrics:
            return [to_numpy(x) for x in losses], metrics
        if model._loss:
            return [to_numpy(x) for x in losses]
        return metrics

    def predict_batch(self, inputs):
        self.model.network.eval()
        self.model.mode = "test"
        inputs = [_to_tensor(x) for x in to_list(inputs)]
        self._input_info = _input_info(inputs)
        outputs = self.model.network(*inputs)
        return [to_numpy(o) for o in to_list(outputs)]

    def parameters(self, *args, **kwargs):
        return self.model.network.parameters(*args, **kwargs)

    def save(self, path):
        model = self.model
        _save(model.network.state_dict(), path + ".pdparams")
        if model._optimizer is not None and model._optimizer.state_dict():
            _save(model._optimizer.state_dict(), path + ".pdopt")
        if getattr(model, "_scaler", None) is not None and model._scaler.state_dict():
            _save(model._scaler.state_dict(), path + ".pdscaler")

    def load(self, param_state_pairs, optim_state, scaler_state=None):
        for param, state in param_state_pairs:
            param.set_value(state)
        if getattr(self.model, "_scaler", None) is not None and scaler_state:
            self.model._scaler.load_state_dict(scaler_state)
        if self.model._optimizer and optim_state:
            self.model._optimizer.set_state_dict(dict(optim_state))

    def prepare(self):
        if self._amp_level != "O0":
            self.model._scaler = None


class Model:
    """A network with the training loop around it.

    ``inputs``/``labels``: InputSpecs (``paddle.static.InputSpec``) naming
    the network's inputs and the labels; optional in eager mode (the
    shapes of the first batch are used when saving for inference)."""

    def __init__(self, network, inputs=None, labels=None):
        if not isinstance(network, Layer):
            raise TypeError(f"Model needs a paddle.nn.Layer as network, got "
                            f"{type(network).__name__}")
        self.mode = "train"
        self.network = network
        self._loss = None
        self._loss_weights = None
        self._optimizer = None
        self._metrics = []
        self._scaler = None
        self._input_info = None
        self._is_shape_inferred = False
        self._test_dataloader = None
        self._place = None
        self._accumulate = 1
        self.stop_training = False
        if not in_dynamic_mode():
            if not isinstance(inputs, (list, tuple, dict, InputSpec)):
                raise TypeError("'inputs' must be list or tuple or dict, and couldn't be None.")
        elif inputs:
            self._input_info = _input_info(inputs)
        self._inputs = self._verify_spec(inputs, is_input=True)
        self._labels = self._verify_spec(labels)
        self._adapter = DynamicGraphAdapter(self) if in_dynamic_mode() else \
            StaticGraphAdapter(self)

    # ------------------------------------------------------------ one batch
    def train_batch(self, inputs, labels=None, update=True):
        """One optimization step; returns the losses (numpy) and the metrics'
        update results when there are metrics."""
        loss = self._adapter.train_batch(inputs, labels, update)
        if in_dynamic_mode() and self._input_info is None:
            self._update_inputs()
        return loss

    @no_grad()
    def eval_batch(self, inputs, labels=None):
        loss = self._adapter.eval_batch(inputs, labels)
        if in_dynamic_mode() and self._input_info is None:
            self._update_inputs()
        return loss

    @no_grad()
    def predict_batch(self, inputs):
        out = self._adapter.predict_batch(inputs)
        if in_dynamic_mode() and self._input_info is None:
            self._update_inputs()
        return out

    # ------------------------------------------------------------ save / load
    def save(self, path, training=True):
        """``training=True``: ``path.pdparams`` (+ ``.pdopt``); else an
        inference model (``path.pdmodel``/``.pdiparams``) via ``jit.save``."""
        if int(os.environ.get("PADDLE_TRAINER_ID", "0")) != 0:
            return
        if training:
            if in_dynamic_mode():
                self._adapter.save(path)
            else:
                self._adapter.save(path, _save)
        else:
            self._save_inference_model(path)

    def _save_inference_model(self, path):
        if not in_dynamic_mode():
            return self._adapter.save_inference(path)
        if self._input_info is None:
            raise RuntimeError(
                "Saving inference model needs 'inputs' or running before saving. Please "
                "specify 'inputs' in Model initialization or input training data and perform "
                "a training for shape derivation.")
        if self._is_shape_inferred:
            warnings.warn(
                "'inputs' was not specified when Model initialization, so the input shape to "
                "be saved will be the shape derived from the user's actual inputs. The input "
                f"shape to be saved is {self._input_info[0]}. For saving correct input shapes, "
                "please provide 'inputs' for Model initialization.")
        training = self.network.training
        self.network.eval()
        try:
            jit.save(self.network, path, input_spec=self._inputs)
        finally:
            if training:
                self.network.train()

    def load(self, path, skip_mismatch=False, reset_optimizer=False):
        """Load ``path.pdparams`` (and ``path.pdopt`` unless
        ``reset_optimizer``); a shape mismatch raises ValueError, or with
        ``skip_mismatch`` warns and keeps the layer's own value."""
        path, ext = os.path.splitext(path)
        if ext not in ("", ".pdparams", ".pdopt", ".pdmodel"):
            path += ext
            if ext and not os.path.exists(path + ".pdparams"):
                raise AssertionError(f"Unknown postfix {ext} from weights")
        if not os.path.exists(path + ".pdparams"):
            raise AssertionError(f"Failed to load parameters, please check path: "
                                 f"{path}.pdparams does not exist.")
        param_state = _load(path + ".pdparams", return_numpy=True)
        if not param_state:
            raise AssertionError("Failed to load parameters, please check path.")
        matched = []
        for key, param in self.network.state_dict().items():
            state = param_state.get(key, None)
            try:
                if state is None:
                    raise ValueError(f"{key} is not found in the providing file.")
                if list(np.shape(state)) != list(param.shape):
                    raise ValueError(f"{key} receives a shape {list(np.shape(state))}, but the "
                                     f"expected shape is {list(param.shape)}.")
            except ValueError as err:
                if not skip_mismatch:
                    raise
                warnings.warn(f"Skip loading for {key}. " + str(err))
                reset_optimizer = True
                continue
            matched.append((param, state))
        optim_state = None
        if not reset_optimizer and os.path.exists(path + ".pdopt"):
            optim_state = _load(path + ".pdopt", return_numpy=True)
        scaler_state = None
        if self._scaler is not None and os.path.exists(path + ".pdscaler"):
            scaler_state = _load(path + ".pdscaler", return_numpy=True)
        return self._adapter.load(matched, optim_state, scaler_state)

    def parameters(self, *args, **kwargs):
        return self._adapter.parameters()

    # ------------------------------------------------------------ prepare
    def _prepare_amp(self, amp_configs):
        a = self._adapter
        a._amp_custom_lists, a._amp_configs = {}, {}
        if not amp_configs:
            a._amp_level = "O0"
            return
        if isinstance(amp_configs, str):
            if amp_configs not in ("O0", "O1", "O2"):
                raise ValueError("The level of amp_configs should be 'O0', 'O1' or 'O2'.")
            a._amp_level = amp_configs
            return
        if not isinstance(amp_configs, dict):
            raise TypeError(f"amp_configs must be None, a level string or a dict, got "
                            f"{type(amp_configs).__name__}")
        level = amp_configs.get("level", "O1")
        if level not in ("O0", "O1", "O2"):
            raise ValueError("amp_configs['level'] should be 'O0', 'O1' or 'O2'.")
        a._amp_level = level
        keys = set(amp_configs) - {"level"}
        if not keys or level == "O0":
            return
        if "use_pure_fp16" in amp_configs:
            raise ValueError("'use_pure_fp16' is an invalid parameter, the level of mixed "
                             "precision training only depends on 'O1' or 'O2'.")
        for name in ("custom_white_list", "custom_black_list", "custom_black_varnames"):
            if name in keys:
                a._amp_custom_lists[name] = amp_configs[name]
                keys.discard(name)
        accepted = {"init_loss_scaling", "incr_ratio", "decr_ratio", "incr_every_n_steps",
                    "decr_every_n_nan_or_inf", "use_dynamic_loss_scaling", "use_fp16_guard"}
        if keys - accepted:
            raise ValueError("Except for 'level', the keys of 'amp_configs' must be accepted "
                             "by mixed precision APIs, but {} could not be recognized."
                             .format(tuple(keys - accepted)))
        if "use_fp16_guard" in keys:
            raise ValueError("'use_fp16_guard' is supported in static graph mode only.")
        for k in keys:
            a._amp_configs[k] = amp_configs[k]

    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None):
        """Set the optimizer, the loss (a Layer or callable) and metrics."""
        self._optimizer = optimizer
        if loss is not None and not isinstance(loss, Layer) and not callable(loss):
            raise TypeError("'loss' must be sub classes of `paddle.nn.Layer` or any callable "
                            "function.")
        self._loss = loss
        metrics = to_list(metrics or [])
        for m in metrics:
            if not isinstance(m, Metric):
                raise AssertionError(f"{m.__class__.__name__} is not sub class of Metric")
        self._metrics = metrics
        self._prepare_amp(amp_configs)
        self._adapter.prepare()

    # ------------------------------------------------------------ loops
    def _loader(self, data, batch_size, shuffle=False, drop_last=False, num_workers=0):
        if isinstance(data, Dataset):
            sampler = DistributedBatchSampler(data, batch_size=batch_size, shuffle=shuffle,
                                              drop_last=drop_last)
            return DataLoader(data, batch_sampler=sampler, places=self._place,
                              num_workers=num_workers, return_list=True)
        return data

    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs=1, eval_freq=1,
            log_freq=10, save_dir=None, save_freq=1, verbose=2, drop_last=False, shuffle=True,
            num_workers=0, callbacks=None, accumulate_grad_batches=1, num_iters=None):
        """Train for ``epochs`` epochs (or ``num_iters`` steps), evaluating on
        ``eval_data`` every ``eval_freq`` epochs."""
        if train_data is None:
            raise AssertionError("train_data must be given!")
        if isinstance(batch_size, (tuple, list)) and all(isinstance(x, int) for x in batch_size):
            if len(batch_size) != 2:
                raise AssertionError("batch_size length error, expected train_batch_size and "
                                     "eval_batch_size.")
            train_bs, eval_bs = batch_size
        elif isinstance(batch_size, int):
            train_bs = eval_bs = batch_size
        else:
            raise TypeError(f"batch_size must be an int or a pair of ints, got {batch_size!r}")
        train_loader = self._loader(train_data, train_bs, shuffle, drop_last, num_workers)
        eval_loader = None if eval_data is None else self._loader(eval_data, eval_bs,
                                                                  num_workers=num_workers)
        do_eval = eval_loader is not None
        self._test_dataloader = eval_loader
        self._accumulate = accumulate_grad_batches
        steps = self._len_data_loader(train_loader)
        self.num_iters = num_iters
        if num_iters is not None and isinstance(num_iters, int) and isinstance(steps, int):
            if num_iters <= 0:
                raise AssertionError("num_iters must be greater than 0!")
            epochs = num_iters // steps + 1
            steps = min(num_iters, steps)
        cbks = config_callbacks(callbacks, model=self, epochs=epochs, steps=steps,
                                log_freq=log_freq, save_freq=save_freq, save_dir=save_dir,
                                verbose=verbose, metrics=self._metrics_name())
        if any(isinstance(k, EarlyStopping) for k in cbks) and not do_eval:
            warnings.warn("EarlyStopping needs validation data.")
        self.stop_training = False
        cbks.on_begin("train")
        logs = {}
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            logs = self._run_one_epoch(train_loader, cbks, "train")
            cbks.on_epoch_end(epoch, logs)
            if do_eval and epoch % eval_freq == 0:
                eval_steps = self._len_data_loader(eval_loader)
                cbks.on_begin("eval", {"steps": eval_steps, "metrics": self._metrics_name()})
                eval_logs = self._run_one_epoch(eval_loader, cbks, "eval")
                cbks.on_end("eval", eval_logs)
            if self.stop_training:
                break
        cbks.on_end("train", logs)
        self._test_dataloader = None

    def evaluate(self, eval_data, batch_size=1, log_freq=10, verbose=2, num_workers=0,
                 callbacks=None, num_iters=None):
        """Run the loss and metrics over ``eval_data``; returns
        ``{name: value}`` for ``loss`` and each metric."""
        loader = self._loader(eval_data, batch_size, num_workers=num_workers)
        self._test_dataloader = loader
        cbks = config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                metrics=self._metrics_name())
        eval_steps = self._len_data_loader(loader)
        self.num_iters = num_iters
        if num_iters is not None and isinstance(num_iters, int) and isinstance(eval_steps, int):
            if num_iters <= 0:
                raise AssertionError("num_iters must be greater than 0!")
            eval_steps = min(num_iters, eval_steps)
            self.num_iters = eval_steps
        cbks.on_begin("eval", {"steps": eval_steps, "metrics": self._metrics_name()})
        logs = self._run_one_epoch(loader, cbks, "eval")
        cbks.on_end("eval", logs)
        self._test_dataloader = None
        return {k: logs[k] for k in self._metrics_name()}

    def predict(self, test_data, batch_size=1, num_workers=0, stack_outputs=False, verbose=1,
                callbacks=None):
        """The network's outputs over ``test_data``: one list per output, of
        per-batch arrays (or one stacked array each with ``stack_outputs``)."""
        loader = self._loader(test_data, batch_size, num_workers=num_workers)
        self._test_dataloader = loader
        cbks = config_callbacks(callbacks, model=self, verbose=verbose)
        cbks.on_begin("predict", {"steps": self._len_data_loader(loader)})
        logs, outputs = self._run_one_epoch(loader, cbks, "predict")
        outputs = list(zip(*outputs))
        if stack_outputs:
            outputs = [np.vstack(outs) for outs in outputs]
        self._test_dataloader = None
        cbks.on_end("predict", logs)
        return outputs

    def _run_one_epoch(self, data_loader, callbacks, mode):
        outputs, logs = [], {}
        n_steps = self._len_data_loader(data_loader)
        for step, data in enumerate(data_loader):
            data = _flatten(data)
            batch_size = data[0].shape[0]
            callbacks.on_batch_begin(mode, step, logs)
            if mode != "predict":
                n_in = len(self._inputs)
                args = [data[:n_in], data[n_in:]]
                if mode == "train":
                    args.append((step + 1) % self._accumulate == 0 or step + 1 == n_steps)
                outs = getattr(self, mode + "_batch")(*args)
                if self._metrics and self._loss:
                    metrics = [[float(x) for x in outs[0]]]
                elif self._loss:
                    metrics = [[float(x) for x in outs]]
                else:
                    metrics = []
                for metric in self._metrics:
                    metrics.extend(to_list(metric.accumulate()))
                names = self._metrics_name()
                if len(names) != len(metrics):
                    raise AssertionError(f"{len(names)} metric names {names} for "
                                         f"{len(metrics)} values")
                logs.update(zip(names, metrics))
            else:
                outs = self.predict_batch(data[:len(self._inputs)] if self._inputs is not None
                                          else data)
                outputs.append(outs)
            logs["step"] = step
            logs["batch_size"] = batch_size
            callbacks.on_batch_end(mode, step, logs)
            if getattr(self, "num_iters", None) is not None:
                self.num_iters -= 1
                if self.num_iters <= 0:
                    self.stop_training = True
                    del self.num_iters
                    break
        self._reset_metrics()
        return (logs, outputs) if mode == "predict" else logs

    # ------------------------------------------------------------ helpers
    def summary(self, input_size=None, dtype=None):
        """``paddle.summary`` of the network (``input_size`` defaults to the
        Model's input specs)."""
        if input_size is None and self._inputs is None:
            raise AssertionError("'input_size' or 'self._input' must be set")
        return summary(self.network, input_size if input_size is not None else self._inputs,
                       dtypes=dtype)

    def _verify_spec(self, specs, shapes=None, dtypes=None, is_input=False):
        if specs is None:
            if is_input:
                names = _forward_arg_names(self.network.forward)
                if shapes is not None and dtypes is not None:
                    out = [Input(name=n, dtype=dtypes[i], shape=shapes[i])
                           for i, n in enumerate(names[:len(shapes)])]
                else:
                    out = [Input(name=n, shape=[None]) for n in names]
            else:
                out = []
        elif isinstance(specs, dict):
            if is_input:
                raise AssertionError("inputs of Model must be a list of InputSpec, not a dict")
            out = [specs[n] for n in _forward_arg_names(self.network.forward)]
        else:
            out = to_list(specs)
        for i, spec in enumerate(out):
            if not isinstance(spec, InputSpec):
                raise TypeError(f"Model inputs/labels must be paddle.static.InputSpec, got "
                                f"{type(spec).__name__} at {i}")
            if spec.name is None:
                raise ValueError(f"Requires Input[{i}].name != None, but receive `None` with "
                                 f"{spec}.")
        return out

    def _reset_metrics(self):
        for m in self._metrics:
            m.reset()

    def _metrics_name(self):
        names = ["loss"] if self._loss else []
        for m in self._metrics:
            names.extend(to_list(m.name()))
        return names

    @staticmethod
    def _len_data_loader(loader):
        try:
            return len(loader)
        except Exception:  # noqa: BLE001 (an iterable of unknown length)
            return None

    def _update_inputs(self):
        self._input_info = self._adapter._input_info
        if self._input_info is not None and len(self._input_info) == 2:
            self._inputs = self._verify_spec(None, self._input_info[0], self._input_info[1],
                                             True)
            self._is_shape_inferred = True
