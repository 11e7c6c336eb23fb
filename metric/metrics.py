"""``paddle.metric``'s stateful metrics: ``Metric`` (the base) and
``Accuracy``, ``Precision``, ``Recall``, ``Auc``, computed as Paddle 2.6
computes them (host-side numpy accumulation; ``Accuracy.compute`` runs on
tensors)."""
import abc

import numpy as np

from .. import tensor as T

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc"]


def _to_numpy(x, what):
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "numpy") and hasattr(x, "shape") and hasattr(x, "dtype"):
        return np.asarray(x.numpy())
    raise ValueError(f"The '{what}' must be a numpy ndarray or Tensor.")


class Metric(metaclass=abc.ABCMeta):
    """Base of the metrics: ``compute`` (on tensors, optional) feeds ``update``
    (numpy accumulation); ``accumulate`` gives the value so far; ``reset``
    clears it; ``name`` names it."""

    def __init__(self):
        pass

    @abc.abstractmethod
    def reset(self):
        raise NotImplementedError(
            f"function 'reset' not implemented in {self.__class__.__name__}.")

    @abc.abstractmethod
    def update(self, *args):
        raise NotImplementedError(
            f"function 'update' not implemented in {self.__class__.__name__}.")

    @abc.abstractmethod
    def accumulate(self):
        raise NotImplementedError(
            f"function 'accumulate' not implemented in {self.__class__.__name__}.")

    @abc.abstractmethod
    def name(self):
        raise NotImplementedError(
            f"function 'name' not implemented in {self.__class__.__name__}.")

    def compute(self, *args):
        return args


class Accuracy(Metric):
    """Top-k accuracy over ``topk`` (a tuple of k's)."""

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.topk = topk
        self.maxk = max(topk)
        self._init_name(name)
        self.reset()

    def compute(self, pred, label, *args):
        pred = T.argsort(pred, descending=True)
        pred = T.slice(pred, axes=[len(pred.shape) - 1], starts=[0], ends=[self.maxk])
        if len(label.shape) == 1 or (len(label.shape) == 2 and label.shape[-1] == 1):
            label = T.reshape(label, (-1, 1))
        elif label.shape[-1] != 1:
            label = T.argmax(label, axis=-1, keepdim=True)
        correct = pred == label
        return T.cast(correct, dtype="float32")

    def update(self, correct, *args):
        if not isinstance(correct, np.ndarray):
            correct = _to_numpy(correct, "correct")
        num_samples = np.prod(np.array(correct.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            num_corrects = correct[..., :k].sum()
            accs.append(float(num_corrects) / num_samples)
            self.total[i] += num_corrects
            self.count[i] += num_samples
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self):
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        res = [float(t) / c if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def _init_name(self, name):
        name = name or "acc"
        if self.maxk != 1:
            self._name = [f"{name}_top{k}" for k in self.topk]
        else:
            self._name = [name]

    def name(self):
        return self._name


class Precision(Metric):
    """Binary precision: predictions rounded at 0.5, tp / (tp + fp)."""

    def __init__(self, name="precision", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tp = 0
        self.fp = 0
        self._name = name

    def update(self, preds, labels):
        preds = _to_numpy(preds, "preds")
        labels = _to_numpy(labels, "labels")
        sample_num = labels.shape[0]
        preds = np.floor(preds + 0.5).astype("int32")
        for i in range(sample_num):
            pred, label = preds[i], labels[i]
            if pred == 1:
                if pred == label:
                    self.tp += 1
                else:
                    self.fp += 1

    def reset(self):
        self.tp = 0
        self.fp = 0

    def accumulate(self):
        ap = self.tp + self.fp
        return float(self.tp) / ap if ap != 0 else 0.0

    def name(self):
        return self._name


class Recall(Metric):
    """Binary recall: predictions rounded (half to even), tp / (tp + fn)."""

    def __init__(self, name="recall", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tp = 0
        self.fn = 0
        self._name = name

    def update(self, preds, labels):
        preds = _to_numpy(preds, "preds")
        labels = _to_numpy(labels, "labels")
        sample_num = labels.shape[0]
        preds = np.rint(preds).astype("int32")
        for i in range(sample_num):
            pred, label = preds[i], labels[i]
            if label == 1:
                if pred == label:
                    self.tp += 1
                else:
                    self.fn += 1

    def accumulate(self):
        recall = self.tp + self.fn
        return float(self.tp) / recall if recall != 0 else 0.0

    def reset(self):
        self.tp = 0
        self.fn = 0

    def name(self):
        return self._name


class Auc(Metric):
    """Area under the ROC curve from bucketed positive-class scores
    (``preds[:, 1]``) over ``num_thresholds`` + 1 buckets."""

    def __init__(self, curve="ROC", num_thresholds=4095, name="auc", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._curve = curve
        self._num_thresholds = num_thresholds
        self._name = name
        self.reset()

    def update(self, preds, labels):
        labels = _to_numpy(labels, "labels")
        preds = _to_numpy(preds, "preds")
        for i, lbl in enumerate(labels):
            value = preds[i, 1]
            bin_idx = int(value * self._num_thresholds)
            assert bin_idx <= self._num_thresholds
            if lbl:
                self._stat_pos[bin_idx] += 1.0
            else:
                self._stat_neg[bin_idx] += 1.0

    @staticmethod
    def trapezoid_area(x1, x2, y1, y2):
        return abs(x1 - x2) * (y1 + y2) / 2.0

    def accumulate(self):
        tot_pos = tot_neg = auc = 0.0
        idx = self._num_thresholds
        while idx >= 0:
            tot_pos_prev, tot_neg_prev = tot_pos, tot_neg
            tot_pos += self._stat_pos[idx]
            tot_neg += self._stat_neg[idx]
            auc += self.trapezoid_area(tot_neg, tot_neg_prev, tot_pos, tot_pos_prev)
            idx -= 1
        return auc / tot_pos / tot_neg if tot_pos > 0.0 and tot_neg > 0.0 else 0.0

    def reset(self):
        self._stat_pos = np.zeros(self._num_thresholds + 1)
        self._stat_neg = np.zeros(self._num_thresholds + 1)

    def name(self):
        return self._name
