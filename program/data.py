"""Program inputs: ``static.data`` (a fed variable) and ``InputSpec`` (its
description: shape with None/-1 for unknown dims, dtype, name).

A dimension may also be a string: a symbol (``InputSpec(['B', 8])``) or an
expression of symbols (``'B+1'``).  It is -1 in the program (and the saved
``.pdmodel``), and the symbol is carried through the ops' shapes
(program/symbolic.py): printed programs show ``float32[B*8, 16]``."""
import numpy as np

from ..ops.dtypes import to_np_dtype, public_dtype, get_default_dtype
from .program_guard import default_main_program
from .variable import LOD_TENSOR
from .symbolic import as_dim, mark
from ..ops.symbolic import SymDim

__all__ = ["data", "InputSpec"]


def _default_dtype():
    return get_default_dtype()      # float32 unless changed


def _shape(shape, what):
    if isinstance(shape, int):
        shape = [shape]
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"{what}: shape must be a list or tuple, got {type(shape).__name__}")
    out = []
    for d in shape:
        d = as_dim(d, what)
        if d is None:
            out.append(-1)
        elif isinstance(d, (int, np.integer)) and d >= -1:
            out.append(d if type(d) is SymDim else int(d))
        else:
            raise ValueError(f"{what}: every dimension must be an int >= -1, None or a "
                             f"symbol name such as 'B', got {list(shape)}")
    return out


def data(name, shape, dtype=None, lod_level=0):
    """Declare a program input named ``name`` (``None`` or -1 dims are unknown,
    a string dim is an unknown dim named by that symbol: ``['B', 8]``); the
    executor checks fed arrays against the declared shape and dtype."""
    dtype = to_np_dtype(dtype if dtype is not None else _default_dtype())
    block = default_main_program().global_block()
    dims = _shape(shape, f"static.data('{name}')")
    v = block.create_var(name=name, shape=dims, dtype=dtype, type=LOD_TENSOR,
                         lod_level=lod_level, stop_gradient=True, need_check_feed=True,
                         is_data=True)
    mark(v, dims)
    return v


class InputSpec:
    """Shape, dtype and name of one input (``to_static`` input_spec).

    A dimension is an int, None/-1 (unknown), or a string naming it as a
    symbol: ``InputSpec(['B', 8], name='x')``.  Symbols are carried through
    the traced program's shapes (``B*8`` after a reshape merging dims, ``B+1``
    after a concat of one more row), shown by printed programs, ``explain()``,
    ``sampan inspect`` and shape errors, and saved in the model's
    ``.sampan.json`` sidecar (the ``.pdmodel`` keeps -1).  Inside to_static a
    None dim is named ``<input name>_d<axis>`` (``x_d0``).  The same symbol in
    several inputs means the same size (checked when called).  A symbolic dim
    is the int -1 (``spec.shape[0] == -1``); ``str`` of it is its name.
    """

    def __init__(self, shape, dtype="float32", name=None, stop_gradient=False):
        self.shape = tuple(_shape(shape, "InputSpec"))
        self.dtype = public_dtype(to_np_dtype(dtype))
        self.name = name
        self.stop_gradient = stop_gradient

    @classmethod
    def from_tensor(cls, tensor, name=None):
        if not (hasattr(tensor, "shape") and hasattr(tensor, "dtype")):
            raise TypeError(f"InputSpec.from_tensor needs a Tensor, got {type(tensor).__name__}")
        return cls(tensor.shape, tensor.dtype, name or getattr(tensor, "name", None))

    @classmethod
    def from_numpy(cls, ndarray, name=None):
        return cls(ndarray.shape, ndarray.dtype, name)

    def batch(self, batch_size):
        """Prepend a batch dimension (int, or None for unknown); returns self."""
        if isinstance(batch_size, (list, tuple)):
            if len(batch_size) != 1:
                raise ValueError(f"batch_size must be a single int, got {batch_size}")
            batch_size = batch_size[0]
        if batch_size is not None and not isinstance(batch_size, (int, np.integer)):
            raise TypeError(f"batch_size must be an int, got {type(batch_size).__name__}")
        self.shape = (-1 if batch_size is None else int(batch_size),) + self.shape
        return self

    def unbatch(self):
        """Drop the leading (batch) dimension; returns self."""
        if not self.shape:
            raise ValueError("unbatch() needs an InputSpec with at least one dimension")
        self.shape = self.shape[1:]
        return self

    def _create_feed_layer(self):
        return data(self.name, self.shape, self.dtype.np_dtype)

    def __repr__(self):
        return (f"InputSpec(shape={self.shape}, dtype={self.dtype}, name={self.name}, "
                f"stop_gradient={self.stop_gradient})")

    def __eq__(self, other):
        return (type(other) is type(self) and self.shape == other.shape
                and self.dtype == other.dtype and self.name == other.name
                and self.stop_gradient == other.stop_gradient)

    def __hash__(self):
        return hash((self.shape, self.dtype.np_dtype, self.name, self.stop_gradient))
