"""``paddle.metric``: the functional ``accuracy`` (top-k hit rate), built on
``topk`` and the ``accuracy`` op as Paddle builds it."""
from ..ops import bind, get_op
from .. import tensor as T
from .metrics import Metric, Accuracy, Precision, Recall, Auc  # noqa: F401

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]

_ACCURACY = get_op("accuracy")


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """Fraction of rows of ``input`` ([N, C] scores) whose top-``k`` classes
    contain ``label`` ([N, 1] or [N] int); a float32 scalar tensor."""
    if str(label.dtype).endswith("int32"):
        label = T.cast(label, "int64")
    values, indices = T.topk(input, k=k)
    return bind(_ACCURACY, (values, indices, label))[0]
