"""Where an op came from: the user's source ``Location``, kept as data.

``user_location()`` is the innermost caller outside sampan, as a Location
(a line of to_static's converted code is mapped back to the user's line by the
mappers to_static registers).  An op appended in static mode keeps it on the
Operator (``op.location``, in memory: printing and error messages read its
fields); its text, ``File "<file>", line <n>, in <function>``, is written to
Paddle's ``op_callstack`` attribute for the file format, and is all a program
loaded from a file has (``Operator.source``).
"""
import dataclasses
import os
import sys

__all__ = ["Location", "user_location", "register_location_mapper", "internal",
           "user_stacklevel"]


@dataclasses.dataclass(frozen=True)
class Location:
    filename: str
    lineno: int
    function: str

    def __str__(self):          # one entry of Paddle's op_callstack
        return f'File "{self.filename}", line {self.lineno}, in {self.function}'

    @property
    def short(self):
        """``file.py:12``: the printer's trailing comment."""
        return f"{os.path.basename(self.filename)}:{self.lineno}"


_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_NOT_INTERNAL = tuple(_ROOT + d + os.sep for d in ("tests", "benchmarks", "examples"))


def internal(path):
    """Whether ``path`` is a file of sampan itself (its tests, benchmarks and
    examples count as the user's)."""
    return path.startswith(_ROOT) and not path.startswith(_NOT_INTERNAL)


_location_mappers = []


def register_location_mapper(fn):
    """``fn(filename, lineno)`` -> the user's ``Location`` of a line of
    generated code, or None for other files (to_static's converted code
    registers one, so ops record the user's line, not the converted one)."""
    _location_mappers.append(fn)


def user_location():
    """The ``Location`` of the innermost caller outside sampan (None when the
    whole stack is sampan's)."""
    f = sys._getframe(1)
    while f is not None and internal(f.f_code.co_filename):
        f = f.f_back
    if f is None:
        return None
    for mapper in _location_mappers:
        loc = mapper(f.f_code.co_filename, f.f_lineno)
        if loc is not None:
            return loc
    return Location(f.f_code.co_filename, f.f_lineno, f.f_code.co_name)


def user_stacklevel():
    """The ``stacklevel`` that points a ``warnings.warn`` of the caller at the
    innermost frame outside sampan (the user's call)."""
    f, level = sys._getframe(1), 1
    while f is not None and internal(f.f_code.co_filename):
        f, level = f.f_back, level + 1
    return level
