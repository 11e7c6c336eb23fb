"""Layers of the extra losses (``nn.functional.loss_extra``): SoftMarginLoss,
HingeEmbeddingLoss, CosineEmbeddingLoss, MultiLabelSoftMarginLoss,
PoissonNLLLoss, MultiMarginLoss, TripletMarginLoss, GaussianNLLLoss,
TripletMarginWithDistanceLoss, CTCLoss, HSigmoidLoss, RNNTLoss, with Paddle 2.6's arguments and checks."""
from ...ops.dtypes import get_default_dtype
from .. import functional as F
from .layers import Layer

__all__ = ["SoftMarginLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss",
           "MultiLabelSoftMarginLoss", "PoissonNLLLoss", "MultiMarginLoss", "TripletMarginLoss",
           "GaussianNLLLoss", "TripletMarginWithDistanceLoss", "CTCLoss",
           "HSigmoidLoss", "RNNTLoss"]

_REDUCTIONS = ("sum", "mean", "none")


class SoftMarginLoss(Layer):
    def __init__(self, reduction="mean", name=None):
        if reduction not in _REDUCTIONS:
            raise ValueError("The value of 'reduction' in SoftMarginLoss should be 'sum', "
                             "'mean' or 'none', but received %s, which is not allowed."
                             % reduction)
        super().__init__()
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):
        return F.soft_margin_loss(input, label, self.reduction, self.name)


class HingeEmbeddingLoss(Layer):
    def __init__(self, margin=1.0, reduction="mean", name=None):
        super().__init__()
        self.margin = margin
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):
        return F.hinge_embedding_loss(input, label, reduction=self.reduction,
                                      margin=self.margin, name=self.name)


class CosineEmbeddingLoss(Layer):
    def __init__(self, margin=0, reduction="mean", name=None):
        if margin > 1 or margin < -1:
            raise ValueError("The value of 'margin' should be in the interval of [-1, 1], but "
                             "received %f, which is not allowed." % margin)
        if reduction not in _REDUCTIONS:
            raise ValueError("The value of 'reduction' should be 'sum', 'mean' or 'none', but "
                             "received %s, which is not allowed." % reduction)
        super().__init__()
        self.margin = margin
        self.reduction = reduction
        self.name = name

    def forward(self, input1, input2, label):
        return F.cosine_embedding_loss(input1, input2, label, margin=self.margin,
                                       reduction=self.reduction, name=self.name)


class MultiLabelSoftMarginLoss(Layer):
    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__()
        if reduction not in _REDUCTIONS:
            raise ValueError("'reduction' in 'MultiLabelSoftMarginloss' should be 'sum', "
                             f"'mean' or 'none', but received {reduction}.")
        self.weight = weight
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):
        return F.multi_label_soft_margin_loss(input, label, weight=self.weight,
                                              reduction=self.reduction, name=self.name)


class PoissonNLLLoss(Layer):
    def __init__(self, log_input=True, full=False, epsilon=1e-8, reduction="mean",
                 name=None):
        if epsilon <= 0:
            raise ValueError("The value of `epsilon` in PoissonNLLLoss should be positve, but "
                             "received %f, which is not allowed" % epsilon)
        if reduction not in _REDUCTIONS:
            raise ValueError("The value of 'reduction' in PoissonNLLLoss should be 'sum', "
                             "'mean' or 'none', but received %s, which is not allowed."
                             % reduction)
        super().__init__()
        self._log_input = log_input
        self._full = full
        self._epsilon = epsilon
        self._reduction = reduction
        self._name = name

    def forward(self, input, label):
        return F.poisson_nll_loss(input, label, log_input=self._log_input, full=self._full,
                                  epsilon=self._epsilon, reduction=self._reduction,
                                  name=self._name)


class MultiMarginLoss(Layer):
    def __init__(self, p=1, margin=1.0, weight=None, reduction="mean", name=None):
        super().__init__()
        if reduction not in _REDUCTIONS:
            raise ValueError("'reduction' in 'MultiMarginLoss' should be 'sum', 'mean' or "
                             f"'none', but received {reduction}.")
        self.p = p
        self.margin = margin
        self.weight = weight
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):
        return F.multi_margin_loss(input, label, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction,
                                   name=self.name)


class TripletMarginLoss(Layer):
    def __init__(self, margin=1.0, p=2.0, epsilon=1e-6, swap=False, reduction="mean",
                 name=None):
        super().__init__()
        if reduction not in _REDUCTIONS:
            raise ValueError("The value of 'reduction' in TripletMarginLoss should be 'sum', "
                             "'mean' or 'none', but received %s, which is not allowed."
                             % reduction)
        self.margin = margin
        self.p = p
        self.epsilon = epsilon
        self.swap = swap
        self.reduction = reduction
        self.name = name

    def forward(self, input, positive, negative):
        return F.triplet_margin_loss(input, positive, negative, margin=self.margin, p=self.p,
                                     epsilon=self.epsilon, swap=self.swap,
                                     reduction=self.reduction, name=self.name)


class GaussianNLLLoss(Layer):
    def __init__(self, full=False, epsilon=1e-6, reduction="mean", name=None):
        if reduction not in _REDUCTIONS:
            raise ValueError("The value of 'reduction' in GaussianNLLLoss should be 'sum', "
                             "'mean' or 'none', but received %s, which is not allowed."
                             % reduction)
        super().__init__()
        self.full = full
        self.epsilon = epsilon
        self.reduction = reduction
        self.name = name

    def forward(self, input, label, variance):
        return F.gaussian_nll_loss(input, label, variance, self.full, self.epsilon,
                                   self.reduction, self.name)


class TripletMarginWithDistanceLoss(Layer):
    """Paddle 2.6.2's layer drops ``distance_function`` in forward (always the
    2-norm); sampan uses the one given (conformance README)."""

    def __init__(self, distance_function=None, margin=1.0, swap=False, reduction="mean",
                 name=None):
        super().__init__()
        if reduction not in _REDUCTIONS:
            raise ValueError("The value of 'reduction' in TripletMarginWithDistanceLoss should "
                             "be 'sum', 'mean' or 'none', but received %s, which is not "
                             "allowed." % reduction)
        self.margin = margin
        self.swap = swap
        self.reduction = reduction
        self.distance_function = distance_function
        self.name = name

    def forward(self, input, positive, negative):
        return F.triplet_margin_with_distance_loss(
            input, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction, name=self.name)


class CTCLoss(Layer):
    def __init__(self, blank=0, reduction="mean"):
        super().__init__()
        self.blank = blank
        self.reduction = reduction

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times=False):
        return F.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank,
                          self.reduction, norm_by_times=norm_by_times)


class HSigmoidLoss(Layer):
    """Hierarchical sigmoid with its own weight [C, feature_size] and bias
    [C, 1]: C = num_classes - 1 for the default tree, num_classes for a custom
    one (``is_custom``; paths given to forward)."""

    def __init__(self, feature_size, num_classes, weight_attr=None, bias_attr=None,
                 is_custom=False, is_sparse=False, name=None):
        super().__init__()
        if num_classes < 2 and not is_custom:
            raise ValueError("num_classes must not be less than 2 with default tree")
        if not is_custom and is_sparse:
            is_sparse = False        # Paddle: sparse mode only with a custom tree
        self._feature_size = feature_size
        self._num_classes = num_classes
        self._is_custom = is_custom
        self._is_sparse = is_sparse
        self._weight_attr = weight_attr
        self._bias_attr = bias_attr
        self._name = name
        self._dtype = get_default_dtype()
        c = num_classes if is_custom else num_classes - 1
        self.weight = self.create_parameter([c, feature_size], attr=weight_attr,
                                            is_bias=False, dtype=self._dtype)
        self.bias = self.create_parameter([c, 1], attr=bias_attr, is_bias=True,
                                          dtype=self._dtype)

    def forward(self, input, label, path_table=None, path_code=None):
        return F.hsigmoid_loss(input, label, self._num_classes, self.weight, self.bias,
                               path_table=path_table, path_code=path_code,
                               is_sparse=self._is_sparse, name=self._name)


class RNNTLoss(Layer):
    def __init__(self, blank=0, fastemit_lambda=0.001, reduction="mean", name=None):
        super().__init__()
        self.blank = blank
        self.reduction = reduction
        self.fastemit_lambda = fastemit_lambda
        self.name = name

    def forward(self, input, label, input_lengths, label_lengths):
        return F.rnnt_loss(input, label, input_lengths, label_lengths, blank=self.blank,
                           fastemit_lambda=self.fastemit_lambda, reduction=self.reduction,
                           name=self.name)
