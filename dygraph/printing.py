"""How an eager Tensor prints: Paddle 2.6's format, character for character.

    Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
           [[1.50000000, 2.25000000, 3.        ],
            [4.        , 5.        , 6.        ]])

Every element is formatted on its own (a float with ``precision`` decimals, or
as ``3.`` when it is integral; ``sci_mode`` uses exponent notation), padded to
the widest element of the (summarized) tensor, with one leading space for the
non-negative ones when any element is negative.  A tensor of more than
``threshold`` elements shows ``edgeitems`` rows/columns at each end around
``...``; a 1-D run wraps at ``linewidth`` characters.  ``set_printoptions``
changes the options for the whole process, as Paddle's does.
"""
import numpy as np

__all__ = ["PRINT_OPTIONS", "set_printoptions", "to_string"]


class PrintOptions:
    precision = 8
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = False


PRINT_OPTIONS = PrintOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None,
                     linewidth=None):
    """Set the printing options of tensors (``paddle.set_printoptions``)."""
    given = (("precision", precision, int), ("threshold", threshold, int),
             ("edgeitems", edgeitems, int), ("linewidth", linewidth, int),
             ("sci_mode", sci_mode, bool))
    for name, value, kind in given:
        # a RuntimeError, as Paddle's (its C++ binding fails to convert the value)
        if value is not None and not isinstance(value, kind):
            raise RuntimeError(f"The type of '{name}' in set_printoptions must be "
                               f"{kind.__name__}, but received {type(value)}.")
    for name, value, _ in given:
        if value is not None:
            setattr(PRINT_OPTIONS, name, value)


# ------------------------------------------------------------------ elements
def _is_negative(v):
    if isinstance(v, (complex, np.complexfloating)):
        return (v.real, v.imag) < (0, 0)
    return v < 0


def _item(v):
    """One element as text, unpadded."""
    if isinstance(v, np.ndarray):        # a 0-D array
        v = v[()]
    if isinstance(v, np.floating):
        opts = PRINT_OPTIONS
        if opts.sci_mode:
            return f"{v:.{opts.precision}e}"
        if np.ceil(v) == v:
            return f"{v:.0f}."
        return f"{v:.{opts.precision}f}"
    return f"{v}"


def _padded(v, width, signed):
    text = _item(v)
    if width <= len(text):
        return text
    if signed and not _is_negative(v[()] if isinstance(v, np.ndarray) else v):
        return " " + text.ljust(width - 1)
    return text.ljust(width)


def _summary(a):
    """The elements that will be shown (the edges of every long axis)."""
    e = PRINT_OPTIONS.edgeitems
    if a.size == 0:
        return np.array([])
    if a.ndim == 0:
        return a
    rows = list(a[:e]) + list(a[-e:]) if a.shape[0] > 2 * e else list(a)
    if a.ndim == 1:
        return np.array(rows, dtype=a.dtype)
    return np.stack([_summary(r) for r in rows])


def _width(a):
    """(widest element, whether any element is negative) over ``a``."""
    width, signed = 0, False
    with np.errstate(invalid="ignore"):
        for v in a.ravel():
            if not signed and _is_negative(v):
                signed = True
            width = max(width, len(_item(v)))
    return width, signed


def _format(a, summary, indent, width, signed):
    opts = PRINT_OPTIONS
    e = opts.edgeitems
    if a.ndim == 0:
        return _padded(a, width, signed)
    cut = summary and a.shape[0] > 2 * e
    if a.ndim == 1:
        items = [_padded(v, width, signed) for v in (a[:e] if cut else a)]
        if cut:
            items += ["..."] + [_padded(v, width, signed) for v in a[-e:]]
        per_line = max(1, (opts.linewidth - indent) // (width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    parts = [_format(r, summary, indent + 1, width, signed) for r in (a[:e] if cut else a)]
    if cut:
        parts += ["..."] + [_format(r, summary, indent + 1, width, signed) for r in a[-e:]]
    sep = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def format_array(a, indent):
    """The data part of a tensor's text: ``a`` (a numpy array) at ``indent``."""
    size = 0 if a.ndim == 0 else int(np.prod(a.shape))
    summary = size > PRINT_OPTIONS.threshold
    width, signed = _width(_summary(a))
    with np.errstate(invalid="ignore"):
        return _format(a, summary, indent, width, signed)


def to_string(t, prefix="Tensor"):
    """A Tensor as Paddle prints it."""
    if not t._is_initialized():
        return "Tensor(Not initialized)"
    indent = len(prefix) + 1
    data = format_array(np.asarray(t._host()), indent)
    return (f"{prefix}(shape={t.shape}, dtype={t.dtype.name}, place={t.place}, "
            f"stop_gradient={t.stop_gradient},\n{' ' * indent}{data})")
