"""Symbolic dimensions: what an unknown (-1) dimension of a static Variable is.

An input dimension given as a string (``InputSpec(['B', 8])``) or left None
in a to_static InputSpec is a *symbol*; the shape rules of the ops carry it on
(``B``, ``B*8`` after a reshape merging dims, ``B+1`` after a concat with one
extra row), so printed programs, ``explain()``, ``sampan inspect`` and shape
errors show the relation instead of -1.

Two small types, used while a Program is built only (never by the executor):

- ``Sym``: an expression, a polynomial over named symbols with rational
  coefficients (``+ - *``, division that is exact or refused), printed like
  code (``B*8``, ``B+1``, ``B*T``, ``B/2``) and parsed back by ``parse`` (a
  safe reader of that text: loading a file never evaluates it);
- ``SymDim``: an ``int`` whose value is -1 (what the ProgramDesc keeps, what
  Paddle gives) holding a ``Sym`` as ``.expr``: in arithmetic, comparisons and
  hashing it *is* -1 (``d == -1``, ``d < 0``, ``reshape(x, [d, -1])`` work as
  before; ``d * 8`` is the int -8), and ``str``/``repr``/format print the
  expression.  Shape rules that copy a dimension carry it unchanged, so only
  the ops that compute a dimension need a symbolic rule (``symbolic_rules``).
"""
import ast
from fractions import Fraction

import numpy as np

__all__ = ["Sym", "SymDim", "parse", "dim_text", "has_symbol", "as_expr"]


def _mono_text(mono):
    return "*".join(n if p == 1 else f"{n}**{p}" for n, p in mono)


def _mono_mul(a, b):
    d = dict(a)
    for n, p in b:
        d[n] = d.get(n, 0) + p
    return tuple(sorted((n, p) for n, p in d.items() if p))


def _mono_div(a, b):
    d = dict(a)
    for n, p in b:
        if d.get(n, 0) < p:
            return None
        d[n] -= p
    return tuple(sorted((n, p) for n, p in d.items() if p))


_CONSTS = {}            # small whole constants, made once (Sym is immutable)


class Sym:
    """A polynomial over named dimension symbols (immutable, hashable)."""
    __slots__ = ("terms",)

    def __init__(self, terms):
        # terms: {monomial (sorted tuple of (name, power)): Fraction}, zeros dropped
        self.terms = tuple(sorted(((m, Fraction(c)) for m, c in dict(terms).items() if c),
                                  key=lambda t: (-sum(p for _, p in t[0]), t[0])))

    @classmethod
    def symbol(cls, name):
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"a dimension symbol must be an identifier such as 'B', "
                             f"got {name!r}")
        return cls({((name, 1),): 1})

    @classmethod
    def const(cls, value):
        c = _CONSTS.get(value) if type(value) is int else None
        if c is None:
            c = cls({(): Fraction(value)})
            if type(value) is int and 0 <= value < 4096:
                _CONSTS[value] = c
        return c

    # ------------------------------------------------------------- reading
    @property
    def symbols(self):
        return sorted({n for m, _ in self.terms for n, _ in m})

    def is_const(self):
        return all(not m for m, _ in self.terms)

    def const_value(self):
        """The value when the expression has no symbol (an int when whole), else None."""
        if not self.is_const():
            return None
        v = self.terms[0][1] if self.terms else Fraction(0)
        return int(v) if v.denominator == 1 else v

    def evaluate(self, values):
        """The value for ``values`` ({symbol: int}); None when a symbol is missing."""
        total = Fraction(0)
        for m, c in self.terms:
            v = Fraction(c)
            for n, p in m:
                if n not in values:
                    return None
                v *= Fraction(values[n]) ** p
            total += v
        return int(total) if total.denominator == 1 else total

    # ------------------------------------------------------------- arithmetic
    def _terms(self):
        return dict(self.terms)

    def __add__(self, other):
        other = _coerce(other)
        if other is None:
            return NotImplemented
        t = self._terms()
        for m, c in other.terms:
            t[m] = t.get(m, 0) + c
        return Sym(t)

    __radd__ = __add__

    def __neg__(self):
        return Sym({m: -c for m, c in self.terms})

    def __sub__(self, other):
        other = _coerce(other)
        return NotImplemented if other is None else self + (-other)

    def __rsub__(self, other):
        other = _coerce(other)
        return NotImplemented if other is None else other + (-self)

    def __mul__(self, other):
        other = _coerce(other)
        if other is None:
            return NotImplemented
        t = {}
        for m1, c1 in self.terms:
            for m2, c2 in other.terms:
                m = _mono_mul(m1, m2)
                t[m] = t.get(m, 0) + c1 * c2
        return Sym(t)

    __rmul__ = __mul__

    def divide(self, other):
        """``self / other`` when ``other`` is a number or a single term (a
        monomial times a number) dividing every term's monomial, else None."""
        other = _coerce(other)
        if other is None or len(other.terms) != 1:
            return None
        m2, c2 = other.terms[0]
        t = {}
        for m1, c1 in self.terms:
            m = _mono_div(m1, m2)
            if m is None:
                return None
            t[m] = c1 / c2
        return Sym(t)

    def __truediv__(self, other):
        r = self.divide(other)
        if r is None:
            raise ValueError(f"cannot divide {self} by {other} exactly")
        return r

    # ------------------------------------------------------------- identity
    def __eq__(self, other):
        other = _coerce(other)
        return other is not None and self.terms == other.terms

    def __hash__(self):
        return hash(self.terms)

    def __str__(self):
        if not self.terms:
            return "0"
        out = ""
        for m, c in self.terms:
            neg = c < 0
            c = abs(c)
            if not m:
                body = str(c.numerator) if c.denominator == 1 else f"{c.numerator}/{c.denominator}"
            else:
                body = _mono_text(m)
                if c.numerator != 1:
                    body += f"*{c.numerator}"
                if c.denominator != 1:
                    body += f"/{c.denominator}"
            out += ("-" if neg else ("+" if out else "")) + body
        return out

    def __repr__(self):
        return f"Sym({str(self)!r})"


def _coerce(x):
    """An operand of Sym arithmetic: any whole number is a constant."""
    if isinstance(x, Sym):
        return x
    if isinstance(x, SymDim):
        return x.expr
    if isinstance(x, (int, Fraction, np.integer)) and not isinstance(x, bool):
        return Sym.const(int(x) if isinstance(x, np.integer) else x)
    return None


def as_expr(x):
    """``x`` (a Sym, a SymDim, or a number) as a Sym; None for anything else
    (a plain -1 is unknown, not a number: None too)."""
    if isinstance(x, Sym):
        return x
    if isinstance(x, SymDim):
        return x.expr
    if isinstance(x, (int, Fraction, np.integer)) and not isinstance(x, bool) and x >= 0:
        return Sym.const(int(x) if isinstance(x, np.integer) else x)
    return None


class SymDim(int):
    """An unknown dimension (the int -1) known to be ``expr`` (a ``Sym``)."""

    def __new__(cls, expr):
        if isinstance(expr, str):
            expr = parse(expr) if not expr.isidentifier() else Sym.symbol(expr)
        if not isinstance(expr, Sym):
            raise TypeError(f"SymDim needs a Sym or a symbol name, got {type(expr).__name__}")
        self = int.__new__(cls, -1)
        self.expr = expr
        return self

    def __repr__(self):
        return str(self.expr)

    __str__ = __repr__

    def __format__(self, spec):
        if spec and spec[-1] in "bcdoxXneEfFgG%":      # a number format: the int -1
            return int.__format__(-1, spec)
        return format(str(self.expr), spec)

    def __reduce__(self):
        return (SymDim, (str(self.expr),))

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self


def has_symbol(shape):
    """Whether ``shape`` holds a SymDim."""
    for d in shape:
        if type(d) is SymDim:
            return True
    return False


def dim_text(d):
    """A dimension as the sidecar writes it: an int, or the expression's text."""
    return str(d.expr) if type(d) is SymDim else int(d)


# ----------------------------------------------------------------- parsing
_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b}


def parse(text):
    """The ``Sym`` written as ``text`` (``B*8+1``, ``B/2``, ``B**2``): names,
    non-negative integers, ``+ - * / **`` and parentheses only; anything else
    is a ValueError (the text is read, never evaluated)."""
    if not isinstance(text, str):
        raise ValueError(f"a symbolic dimension is a string, got {type(text).__name__}")
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise ValueError(f"{text!r} is not a symbolic dimension expression") from None
    return _eval(tree, text)


def _eval(node, text):
    if isinstance(node, ast.Name):
        return Sym.symbol(node.id)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return Sym.const(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, text)
    if isinstance(node, ast.BinOp):
        a, b = _eval(node.left, text), _eval(node.right, text)
        if type(node.op) in _BINOPS:
            return _BINOPS[type(node.op)](a, b)
        if isinstance(node.op, ast.Div):
            r = a.divide(b)
            if r is not None:
                return r
        if isinstance(node.op, ast.Pow) and b.is_const() and \
                isinstance(b.const_value(), int) and 0 <= b.const_value() <= 8:
            r = Sym.const(1)
            for _ in range(b.const_value()):
                r = r * a
            return r
    raise ValueError(f"{text!r} is not a symbolic dimension expression (names, integers, "
                     f"+ - * / ** and parentheses)")
