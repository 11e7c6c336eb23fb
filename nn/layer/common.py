"""Common layers: Linear, Embedding, Flatten, Identity, Dropout, padding and
upsampling.  Each forward is one call into ``nn.functional`` (or a tensor
function), so the layers run eagerly and in static programs alike."""
from ... import tensor as _T
from ...dygraph.tape import no_grad
from ...ops import is_graph_value
from ...ops.dtypes import get_default_dtype
from .. import functional as F
from .layers import Layer

__all__ = ["Linear", "Embedding", "Flatten", "Identity", "Dropout", "Dropout2D",
           "Dropout3D", "AlphaDropout", "Pad1D", "Pad2D", "Pad3D", "ZeroPad2D", "Upsample",
           "UpsamplingNearest2D", "UpsamplingBilinear2D", "PixelShuffle", "CosineSimilarity"]


def _name_str(name):
    return f", name={name}" if name else ""


class Linear(Layer):
    """y = x @ weight + bias, weight of shape [in_features, out_features]
    (Xavier-uniform by default), bias zeros."""

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self._dtype = get_default_dtype()
        self._weight_attr = weight_attr
        self._bias_attr = bias_attr
        self.weight = self.create_parameter(shape=[in_features, out_features],
                                            attr=self._weight_attr, dtype=self._dtype,
                                            is_bias=False)
        self.bias = self.create_parameter(shape=[out_features], attr=self._bias_attr,
                                          dtype=self._dtype, is_bias=True)
        self.name = name

    def forward(self, input):
        return F.linear(input, self.weight, self.bias, name=self.name)

    def extra_repr(self):
        return (f"in_features={self.weight.shape[0]}, out_features={self.weight.shape[1]}, "
                f"dtype={self._dtype}{_name_str(self.name)}")


class Embedding(Layer):
    """A lookup table of shape [num_embeddings, embedding_dim]; the row
    ``padding_idx`` starts (and stays) zero."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, sparse=False,
                 weight_attr=None, name=None):
        super().__init__()
        if num_embeddings <= 0:
            raise ValueError(f"Embedding: num_embeddings must be > 0, got {num_embeddings}")
        if embedding_dim <= 0:
            raise ValueError(f"Embedding: embedding_dim must be > 0, got {embedding_dim}")
        self._num_embeddings = num_embeddings
        self._embedding_dim = embedding_dim
        self._sparse = sparse
        self._is_distributed = False
        self._padding_idx = padding_idx
        pad = -1 if padding_idx is None else (
            padding_idx if padding_idx >= 0 else num_embeddings + padding_idx)
        if pad >= num_embeddings or pad < -num_embeddings:
            raise ValueError(f"Embedding: padding_idx must be within [-{num_embeddings}, "
                             f"{num_embeddings}), got {padding_idx}")
        self._dtype = get_default_dtype()
        self._size = [num_embeddings, embedding_dim]
        self._weight_attr = weight_attr
        self._name = name
        self.weight = self.create_parameter(attr=self._weight_attr, shape=self._size,
                                            dtype=self._dtype, is_bias=False)
        if pad != -1 and not is_graph_value(self.weight):   # eager (as Paddle)
            with no_grad():
                self.weight[pad] = 0.0

    def forward(self, x):
        return F.embedding(x, weight=self.weight, padding_idx=self._padding_idx,
                           sparse=self._sparse, name=self._name)

    def extra_repr(self):
        s = f"{self._num_embeddings}, {self._embedding_dim}"
        if self._padding_idx is not None:
            s += f", padding_idx={self._padding_idx}"
        return s + f", sparse={self._sparse}" + _name_str(self._name)


class Flatten(Layer):
    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__()
        self.start_axis = start_axis
        self.stop_axis = stop_axis

    def forward(self, input):
        return _T.flatten(input, start_axis=self.start_axis, stop_axis=self.stop_axis)


class Identity(Layer):
    """Returns its input; accepts (and ignores) any constructor arguments."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Dropout(Layer):
    def __init__(self, p=0.5, axis=None, mode="upscale_in_train", name=None):
        super().__init__()
        self.p = p
        self.axis = axis
        self.mode = mode
        self.name = name

    def forward(self, input):
        return F.dropout(input, p=self.p, axis=self.axis, training=self.training,
                         mode=self.mode, name=self.name)

    def extra_repr(self):
        return f"p={self.p}, axis={self.axis}, mode={self.mode}{_name_str(self.name)}"


class Dropout2D(Layer):
    def __init__(self, p=0.5, data_format="NCHW", name=None):
        super().__init__()
        self.p, self.data_format, self.name = p, data_format, name

    def forward(self, input):
        return F.dropout2d(input, p=self.p, training=self.training,
                           data_format=self.data_format, name=self.name)

    def extra_repr(self):
        return f"p={self.p}, data_format={self.data_format}{_name_str(self.name)}"


class Dropout3D(Dropout2D):
    def __init__(self, p=0.5, data_format="NCDHW", name=None):
        super().__init__(p, data_format, name)

    def forward(self, input):
        return F.dropout3d(input, p=self.p, training=self.training,
                           data_format=self.data_format, name=self.name)


class AlphaDropout(Layer):
    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p, self.name = p, name

    def forward(self, input):
        return F.alpha_dropout(input, p=self.p, training=self.training, name=self.name)

    def extra_repr(self):
        return f"p={self.p}{_name_str(self.name)}"


def _npairs(padding, n):
    """An int padding means the same amount on both sides of all n dims."""
    if isinstance(padding, (list, tuple)) or hasattr(padding, "shape"):
        return padding
    return [padding] * (2 * n)


class _PadNd(Layer):
    _dims, _default_format = 2, "NCHW"

    def __init__(self, padding, mode="constant", value=0.0, data_format=None, name=None):
        super().__init__()
        self._pad = _npairs(padding, self._dims)
        self._mode = mode
        self._value = value
        self._data_format = data_format or self._default_format
        self._name = name

    def forward(self, x):
        return F.pad(x, pad=self._pad, mode=self._mode, value=self._value,
                     data_format=self._data_format, name=self._name)

    def extra_repr(self):
        return (f"padding={self._pad}, mode={self._mode}, value={self._value}, "
                f"data_format={self._data_format}{_name_str(self._name)}")


class Pad1D(_PadNd):
    _dims, _default_format = 1, "NCL"

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCL", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad2D(_PadNd):
    _dims, _default_format = 2, "NCHW"

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad3D(_PadNd):
    _dims, _default_format = 3, "NCDHW"

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCDHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


class ZeroPad2D(_PadNd):
    _dims, _default_format = 2, "NCHW"

    def __init__(self, padding, data_format="NCHW", name=None):
        super().__init__(padding, "constant", 0.0, data_format, name)

    def extra_repr(self):
        return f"padding={self._pad}, data_format={self._data_format}{_name_str(self._name)}"


class Upsample(Layer):
    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=False,
                 align_mode=0, data_format="NCHW", name=None):
        super().__init__()
        self.size = size
        self.scale_factor = scale_factor
        self.mode = mode.lower()
        self.align_corners = align_corners
        self.align_mode = align_mode
        self.data_format = data_format
        self.name = name

    def forward(self, x):
        return F.interpolate(x, size=self.size, scale_factor=self.scale_factor, mode=self.mode,
                             align_corners=self.align_corners, align_mode=self.align_mode,
                             data_format=self.data_format, name=self.name)

    def extra_repr(self):
        main = (f"scale_factor={self.scale_factor}" if self.scale_factor is not None
                else f"size={self.size}")
        return (f"{main}, mode={self.mode}, align_corners={self.align_corners}, "
                f"align_mode={self.align_mode}, data_format={self.data_format}"
                f"{_name_str(self.name)}")


def _fixed_mode_repr(self):
    """extra_repr of the upsampling layers whose mode is their class's."""
    main = f"scale_factor={self.scale_factor}" if self.scale_factor is not None \
        else f"size={self.size}"
    return f"{main}, data_format={self.data_format}{_name_str(self.name)}"


class UpsamplingNearest2D(Upsample):
    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(size, scale_factor, "nearest", False, 0, data_format, name)

    extra_repr = _fixed_mode_repr


class UpsamplingBilinear2D(Upsample):
    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(size, scale_factor, "bilinear", True, 0, data_format, name)

    extra_repr = _fixed_mode_repr


class PixelShuffle(Layer):
    def __init__(self, upscale_factor, data_format="NCHW", name=None):
        super().__init__()
        self._upscale_factor, self._data_format, self._name = upscale_factor, data_format, name

    def forward(self, x):
        return F.pixel_shuffle(x, self._upscale_factor, self._data_format, self._name)

    def extra_repr(self):
        s = f"upscale_factor={self._upscale_factor}"
        if self._data_format != "NCHW":
            s += f", data_format={self._data_format}"
        return s + _name_str(self._name)


class CosineSimilarity(Layer):
    def __init__(self, axis=1, eps=1e-8):
        super().__init__()
        self._axis, self._eps = axis, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, axis=self._axis, eps=self._eps)

    def extra_repr(self):
        return f"axis={self._axis}, eps={self._eps}"
