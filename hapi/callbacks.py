"""``paddle.callbacks``: hooks ``Model.fit``/``evaluate``/``predict`` call at
each stage (Paddle 2.6's classes, arguments, defaults and printed lines).

``config_callbacks`` builds the list a run uses: a ``ProgBarLogger`` first
(when ``verbose`` and none given), the user's callbacks, then a
``ModelCheckpoint`` and an ``LRScheduler`` when none given.  The logs a
callback sees hold ``loss`` (a list, one number per loss), each metric's
accumulated value, ``step`` and ``batch_size``.

``VisualDL`` and ``WandbCallback`` write through the ``visualdl`` and
``wandb`` packages, imported when they are first needed: without the
package the error names it.  ``CurvePlotter`` (a sampan extension) saves
the loss/metric curves of a run as a PNG with matplotlib.
"""
import importlib
import numbers
import os
import time
import warnings

import numpy as np

from ..optimizer.lr import LRScheduler as _Scheduler
from .progressbar import ProgressBar

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "VisualDL", "LRScheduler",
           "EarlyStopping", "ReduceLROnPlateau", "WandbCallback", "CurvePlotter"]


def _local_rank():
    return int(os.environ.get("PADDLE_TRAINER_ID", "0"))


def try_import(module_name, err_msg=None):
    """Import an optional package, or raise ImportError naming it."""
    try:
        return importlib.import_module(module_name)
    except ImportError as e:
        raise ImportError(err_msg or (
            f"Failed importing {module_name}. This likely means that some paddle modules "
            f"require additional dependencies that have to be manually installed (usually "
            f"with `pip install {module_name}`).")) from e


def _scalar(value):
    """The number a monitored log entry holds (first of a list), else None."""
    if isinstance(value, (list, tuple)):
        value = value[0]
    return value if isinstance(value, numbers.Number) else None


def config_callbacks(callbacks=None, model=None, batch_size=None, epochs=None, steps=None,
                     log_freq=2, verbose=2, save_freq=1, save_dir=None, metrics=None,
                     mode="train"):
    cbks = callbacks or []
    cbks = list(cbks) if isinstance(cbks, (list, tuple)) else [cbks]
    for c in cbks:
        if not isinstance(c, Callback):
            raise TypeError(f"callbacks must be paddle.callbacks.Callback instances, got "
                            f"{type(c).__name__}")
    if not any(isinstance(k, ProgBarLogger) for k in cbks) and verbose:
        cbks = [ProgBarLogger(log_freq, verbose=verbose)] + cbks
    if not any(isinstance(k, ModelCheckpoint) for k in cbks):
        cbks = cbks + [ModelCheckpoint(save_freq, save_dir)]
    for k in cbks:
        if isinstance(k, EarlyStopping):
            k.save_dir = save_dir
    if not any(isinstance(k, LRScheduler) for k in cbks):
        cbks = cbks + [LRScheduler()]
    cbk_list = CallbackList(cbks)
    cbk_list.set_model(model)
    metrics = (metrics or []) if mode != "test" else []
    cbk_list.set_params({"batch_size": batch_size, "epochs": epochs, "steps": steps,
                         "verbose": verbose, "metrics": metrics})
    return cbk_list


class CallbackList:
    def __init__(self, callbacks=None):
        self.callbacks = list(callbacks or [])
        self.params = {}
        self.model = None

    def append(self, callback):
        self.callbacks.append(callback)

    def __iter__(self):
        return iter(self.callbacks)

    def set_params(self, params):
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model):
        for c in self.callbacks:
            c.set_model(model)

    def _call(self, name, *args):
        for c in self.callbacks:
            getattr(c, name)(*args)

    @staticmethod
    def _check_mode(mode):
        if mode not in ("train", "eval", "predict"):
            raise AssertionError("mode should be train, eval or predict")

    def on_begin(self, mode, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_begin", logs)

    def on_end(self, mode, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_end", logs)

    def on_epoch_begin(self, epoch=None, logs=None):
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch=None, logs=None):
        self._call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, mode, step=None, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_batch_begin", step, logs)

    def on_batch_end(self, mode, step=None, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_batch_end", step, logs)


class Callback:
    """Base class: every hook does nothing."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_train_begin(self, logs=None): pass
    def on_train_end(self, logs=None): pass
    def on_eval_begin(self, logs=None): pass
    def on_eval_end(self, logs=None): pass
    def on_predict_begin(self, logs=None): pass
    def on_predict_end(self, logs=None): pass
    def on_epoch_begin(self, epoch, logs=None): pass
    def on_epoch_end(self, epoch, logs=None): pass
    def on_train_batch_begin(self, step, logs=None): pass
    def on_train_batch_end(self, step, logs=None): pass
    def on_eval_batch_begin(self, step, logs=None): pass
    def on_eval_batch_end(self, step, logs=None): pass
    def on_predict_batch_begin(self, step, logs=None): pass
    def on_predict_batch_end(self, step, logs=None): pass


class ProgBarLogger(Callback):
    """Prints progress every ``log_freq`` steps (verbose 0: silent, 1: one
    redrawn bar, 2: a line per update, 3: plus reader/batch costs)."""

    def __init__(self, log_freq=1, verbose=2):
        super().__init__()
        self.epochs = None
        self.steps = None
        self.progbar = None
        self.verbose = verbose
        self.log_freq = log_freq

    def _is_print(self):
        return self.verbose and _local_rank() == 0

    @staticmethod
    def _new_timer():
        return {"data_time": 0, "batch_time": 0, "count": 0, "samples": 0}

    def on_train_begin(self, logs=None):
        self.epochs = self.params["epochs"]
        assert self.epochs
        self.train_metrics = self.params["metrics"]
        assert self.train_metrics
        self._train_timer = self._new_timer()
        if self._is_print():
            print("The loss value printed in the log is the current step, and the metric is "
                  "the average value of previous steps.")

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params["steps"]
        self.epoch = epoch
        self.train_step = 0
        if self.epochs and self._is_print():
            print("Epoch %d/%d" % (epoch + 1, self.epochs))
        self.train_progbar = ProgressBar(num=self.steps, verbose=self.verbose)
        self._train_timer["batch_start_time"] = time.time()

    def _updates(self, logs, mode):
        metrics = getattr(self, f"{mode}_metrics")
        values = [(k, logs[k]) for k in metrics if k in logs]
        timer = getattr(self, f"_{mode}_timer", None)
        if self.verbose == 3 and timer is not None:
            cnt = timer["count"] if timer["count"] > 0 else 1.0
            samples = timer["samples"] if timer["samples"] > 0 else 1.0
            total = timer["data_time"] + timer["batch_time"]
            values.append(("avg_reader_cost", "%.5f sec" % (timer["data_time"] / cnt)))
            values.append(("avg_batch_cost", "%.5f sec" % (timer["batch_time"] / cnt)))
            values.append(("ips", "%.5f samples/sec" % (samples / total if total else 0.0)))
            timer.update(count=0, samples=0, data_time=0.0, batch_time=0.0)
        getattr(self, f"{mode}_progbar").update(getattr(self, f"{mode}_step"), values)

    def _batch_begin(self, timer):
        timer["batch_data_end_time"] = time.time()
        timer["data_time"] += timer["batch_data_end_time"] - timer["batch_start_time"]

    def _batch_end(self, timer, logs):
        timer["batch_time"] += time.time() - timer["batch_data_end_time"]
        timer["count"] += 1
        timer["samples"] += logs.get("batch_size", 1)

    def on_train_batch_begin(self, step, logs=None):
        self._batch_begin(self._train_timer)

    def on_train_batch_end(self, step, logs=None):
        logs = logs or {}
        self.train_step += 1
        self._batch_end(self._train_timer, logs)
        if self._is_print() and self.train_step % self.log_freq == 0:
            if self.steps is None or self.train_step < self.steps:
                self._updates(logs, "train")
        self._train_timer["batch_start_time"] = time.time()

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self._is_print() and self.steps is not None:
            self._updates(logs, "train")

    def on_eval_begin(self, logs=None):
        logs = logs or {}
        self.eval_steps = logs.get("steps", None)
        self.eval_metrics = logs.get("metrics", [])
        self.eval_step = 0
        self.evaled_samples = 0
        self._eval_timer = self._new_timer()
        self.eval_progbar = ProgressBar(num=self.eval_steps, verbose=self.verbose)
        if self._is_print():
            print("Eval begin...")
        self._eval_timer["batch_start_time"] = time.time()

    def on_eval_batch_begin(self, step, logs=None):
        self._batch_begin(self._eval_timer)

    def on_eval_batch_end(self, step, logs=None):
        logs = logs or {}
        self.eval_step += 1
        self.evaled_samples += logs.get("batch_size", 1)
        self._batch_end(self._eval_timer, logs)
        if self._is_print() and self.eval_step % self.log_freq == 0:
            if self.eval_steps is None or self.eval_step < self.eval_steps:
                self._updates(logs, "eval")
        self._eval_timer["batch_start_time"] = time.time()

    def on_predict_begin(self, logs=None):
        logs = logs or {}
        self.test_steps = logs.get("steps", None)
        self.test_metrics = logs.get("metrics", [])
        self.test_step = 0
        self.tested_samples = 0
        self._test_timer = self._new_timer()
        self.test_progbar = ProgressBar(num=self.test_steps, verbose=self.verbose)
        if self._is_print():
            print("Predict begin...")
        self._test_timer["batch_start_time"] = time.time()

    def on_predict_batch_begin(self, step, logs=None):
        self._batch_begin(self._test_timer)

    def on_predict_batch_end(self, step, logs=None):
        logs = logs or {}
        self.test_step += 1
        self.tested_samples += logs.get("batch_size", 1)
        self._batch_end(self._test_timer, logs)
        if self.test_step % self.log_freq == 0 and self._is_print():
            if self.test_steps is None or self.test_step < self.test_steps:
                self._updates(logs, "test")
        self._test_timer["batch_start_time"] = time.time()

    def on_eval_end(self, logs=None):
        logs = logs or {}
        if self._is_print() and self.eval_steps is not None:
            self._updates(logs, "eval")
            print("Eval samples: %d" % self.evaled_samples)

    def on_predict_end(self, logs=None):
        logs = logs or {}
        if self._is_print():
            if self.test_step % self.log_freq != 0 or self.verbose == 1:
                self._updates(logs, "test")
            print("Predict samples: %d" % self.tested_samples)


class ModelCheckpoint(Callback):
    """Saves the model to ``save_dir/<epoch>`` every ``save_freq`` epochs and
    to ``save_dir/final`` at the end of training (``Model.save``'s files,
    each written atomically)."""

    def __init__(self, save_freq=1, save_dir=None):
        super().__init__()
        self.save_freq = save_freq
        self.save_dir = save_dir

    def on_epoch_begin(self, epoch=None, logs=None):
        self.epoch = epoch

    def _is_save(self):
        return self.model and self.save_dir and _local_rank() == 0

    def on_epoch_end(self, epoch, logs=None):
        if self._is_save() and self.epoch % self.save_freq == 0:
            path = f"{self.save_dir}/{epoch}"
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)

    def on_train_end(self, logs=None):
        if self._is_save():
            path = f"{self.save_dir}/final"
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)


class LRScheduler(Callback):
    """Steps the optimizer's ``LRScheduler`` after every batch (``by_step``)
    or every epoch (``by_epoch``)."""

    def __init__(self, by_step=True, by_epoch=False):
        super().__init__()
        if by_step and by_epoch:
            raise ValueError("by_step option is mutually exclusive with by_epoch")
        self.by_step = by_step
        self.by_epoch = by_epoch

    def _step(self):
        opt = getattr(self.model, "_optimizer", None)
        if opt is not None and isinstance(getattr(opt, "_learning_rate", None), _Scheduler):
            opt._learning_rate.step()

    def on_epoch_end(self, epoch, logs=None):
        if self.by_epoch:
            self._step()

    def on_train_batch_end(self, step, logs=None):
        if self.by_step:
            self._step()


def _monitor_mode(mode, monitor, what):
    if mode not in ("auto", "min", "max"):
        warnings.warn(f"{what} mode {mode} is unknown, fallback to auto mode.")
        mode = "auto"
    if mode == "auto":
        mode = "max" if "acc" in monitor else "min"
    return mode


class EarlyStopping(Callback):
    """Stops training when the monitored eval value stopped improving for
    ``patience`` evaluations; saves the best model to ``save_dir/best_model``."""

    def __init__(self, monitor="loss", mode="auto", patience=0, verbose=1, min_delta=0,
                 baseline=None, save_best_model=True):
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.wait_epoch = 0
        self.best_weights = None
        self.stopped_epoch = 0
        self.save_best_model = save_best_model
        self.save_dir = None
        mode = _monitor_mode(mode, monitor, "EarlyStopping")
        self.monitor_op = np.greater if mode == "max" else np.less
        if self.monitor_op is np.less:
            self.min_delta *= -1

    def on_train_begin(self, logs=None):
        self.wait_epoch = 0
        if self.baseline is not None:
            self.best_value = self.baseline
        else:
            self.best_value = np.inf if self.monitor_op is np.less else -np.inf
            self.best_weights = None

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn("Monitor of EarlyStopping should be loss or metric name.")
            return
        current = _scalar(logs[self.monitor])
        if current is None:
            return
        if self.monitor_op(current - self.min_delta, self.best_value):
            self.best_value = current
            self.wait_epoch = 0
            if self.save_best_model and self.save_dir is not None:
                self.model.save(os.path.join(self.save_dir, "best_model"))
        else:
            self.wait_epoch += 1
        if self.wait_epoch >= self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print("Epoch %d: Early stopping." % (self.stopped_epoch + 1))
                if self.save_best_model and self.save_dir is not None:
                    print("Best checkpoint has been saved at %s" % os.path.abspath(
                        os.path.join(self.save_dir, "best_model")))
        self.stopped_epoch += 1


class ReduceLROnPlateau(Callback):
    """Multiplies a float learning rate by ``factor`` when the monitored
    eval value stopped improving for ``patience`` evaluations."""

    def __init__(self, monitor="loss", factor=0.1, patience=10, verbose=1, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0):
        super().__init__()
        self.monitor = monitor
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        self.factor = factor
        self.min_lr = min_lr
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0
        self.best = 0
        self.mode = mode
        self.monitor_op = None
        self.epoch = 0
        self._reset()

    def _reset(self):
        if self.mode not in ("auto", "min", "max"):
            warnings.warn(f"Learning rate reduction mode {self.mode} is unknown, fallback to "
                          f"auto mode.")
            self.mode = "auto"
        if self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def in_cooldown(self):
        return self.cooldown_counter > 0

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn("Monitor of ReduceLROnPlateau should be loss or metric name.")
            return
        try:
            lr = self.model._optimizer._learning_rate
        except Exception as e:  # noqa: BLE001 (Paddle warns and carries on)
            warnings.warn(f"There are something wrong when get learning_rate from optimizer: "
                          f"{e}.")
            return
        if not isinstance(lr, float):
            warnings.warn(f"Expected learning_rate be float, bug got {type(lr)}.")
            return
        current = _scalar(logs[self.monitor])
        if current is None:
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = self.model._optimizer.get_lr()
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    self.model._optimizer._learning_rate = new_lr
                    if self.verbose > 0 and _local_rank() == 0:
                        print("\nEpoch %d: ReduceLROnPlateau reducing learning rate to %s."
                              % (self.epoch + 1, new_lr))
                    self.cooldown_counter = self.cooldown
                    self.wait = 0
        self.epoch += 1


class _ScalarWriter(Callback):
    """What VisualDL and Wandb share: train scalars per step, eval per epoch."""

    def on_train_begin(self, logs=None):
        self.epochs = self.params["epochs"]
        assert self.epochs
        self.train_metrics = self.params["metrics"]
        assert self.train_metrics
        self._is_fit = True
        self.train_step = 0

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params["steps"]
        self.epoch = epoch

    def on_eval_begin(self, logs=None):
        logs = logs or {}
        self.eval_steps = logs.get("steps", None)
        self.eval_metrics = logs.get("metrics", [])
        self.eval_step = 0
        self.evaled_samples = 0

    def _scalars(self, logs, mode):
        out = {}
        for k in getattr(self, f"{mode}_metrics"):
            if k in logs and _scalar(logs[k]) is not None:
                out[f"{mode}/{k}"] = _scalar(logs[k])
        return out

    def on_train_batch_end(self, step, logs=None):
        self.train_step += 1
        if _local_rank() == 0:
            self._updates(logs or {}, "train")


class VisualDL(_ScalarWriter):
    """Writes train/eval scalars to a VisualDL log directory (needs the
    ``visualdl`` package)."""

    def __init__(self, log_dir):
        super().__init__()
        self.log_dir = log_dir
        self.epochs = None
        self.steps = None
        self.epoch = 0

    def _updates(self, logs, mode):
        if not hasattr(self, "writer"):
            self.writer = try_import("visualdl").LogWriter(self.log_dir)
        step = self.train_step if mode == "train" else self.epoch
        for tag, value in self._scalars(logs, mode).items():
            self.writer.add_scalar(tag=tag, step=step, value=value)

    def on_train_end(self, logs=None):
        if hasattr(self, "writer"):
            self.writer.close()
            delattr(self, "writer")

    def on_eval_end(self, logs=None):
        if _local_rank() == 0:
            self._updates(logs or {}, "eval")
            if not hasattr(self, "_is_fit") and hasattr(self, "writer"):
                self.writer.close()
                delattr(self, "writer")


class WandbCallback(_ScalarWriter):
    """Logs train/eval scalars to Weights & Biases (needs the ``wandb``
    package; the error names it when it is missing)."""

    def __init__(self, project=None, entity=None, name=None, dir=None, mode=None,
                 job_type=None, **kwargs):
        super().__init__()
        self.wandb = try_import("wandb", "You want to use `wandb` which is not installed yet "
                                         "install it with `pip install wandb`")
        self.wandb_args = dict(project=project, name=name, entity=entity, dir=dir, mode=mode,
                               job_type=job_type, **kwargs)
        self._run = None
        _ = self.run

    @property
    def run(self):
        if _local_rank() == 0 and self._run is None:
            if self.wandb.run is not None:
                warnings.warn("There is a wandb run already in progress and newly created "
                              "instances of `WandbCallback` will reuse this run. If this is "
                              "not desired , call `wandb.finish()` before instantiating "
                              "`WandbCallback`.")
                self._run = self.wandb.run
            else:
                self._run = self.wandb.init(**self.wandb_args)
        return self._run

    def on_train_begin(self, logs=None):
        super().on_train_begin(logs)
        if _local_rank() == 0:
            self.run.define_metric("train/step")
            self.run.define_metric("train/*", step_metric="train/step")
            self.run.define_metric("epoch")
            self.run.define_metric("eval/*", step_metric="epoch")

    def _updates(self, logs, mode):
        out = {"train/step": self.train_step} if mode == "train" else {"epoch": self.epoch}
        out.update(self._scalars(logs, mode))
        self.run.log(out)

    def on_train_end(self, logs=None):
        if _local_rank() == 0:
            self.run.finish()

    def on_eval_end(self, logs=None):
        if _local_rank() == 0:
            self._updates(logs or {}, "eval")
            if not hasattr(self, "_is_fit"):
                self.run.finish()


class CurvePlotter(Callback):
    """sampan extension: records the train loss/metrics per step and the eval
    values per evaluation, and at the end of training saves them as a PNG
    (``path``) with matplotlib (ImportError naming it when missing).  The
    numbers stay in ``history`` (``{'train': {name: [...]}, 'eval': ...}``)."""

    def __init__(self, path):
        super().__init__()
        self.path = path
        self.plt = try_import("matplotlib", "CurvePlotter needs matplotlib, which is not "
                                            "installed: `pip install matplotlib`")
        self.history = {"train": {}, "eval": {}}

    def _record(self, mode, logs):
        for k in self.params.get("metrics", []):
            v = _scalar((logs or {}).get(k))
            if v is not None:
                self.history[mode].setdefault(k, []).append(float(v))

    def on_train_batch_end(self, step, logs=None):
        self._record("train", logs)

    def on_eval_end(self, logs=None):
        self._record("eval", logs)

    def on_train_end(self, logs=None):
        self.save(self.path)

    def save(self, path):
        """Write the curves recorded so far to ``path`` (PNG, atomically)."""
        self.plt.use("Agg")
        import matplotlib.pyplot as plt
        names = sorted(set(self.history["train"]) | set(self.history["eval"]))
        fig, axes = plt.subplots(1, max(len(names), 1), figsize=(4 * max(len(names), 1), 3),
                                 squeeze=False)
        for ax, name in zip(axes[0], names):
            for mode, style in (("train", "-"), ("eval", "o-")):
                ys = self.history[mode].get(name)
                if ys:
                    ax.plot(range(1, len(ys) + 1), ys, style, label=mode)
            ax.set_title(name)
            ax.set_xlabel("step / evaluation")
            ax.legend()
        fig.tight_layout()
        tmp = f"{path}.tmp{os.getpid()}"
        try:
            fig.savefig(tmp, format="png")
            os.replace(tmp, path)
        finally:
            plt.close(fig)
            if os.path.exists(tmp):
                os.remove(tmp)
