"""The default main/startup programs, ``program_guard`` and ``name_scope``.

Static-mode op functions append to ``default_main_program().current_block()``;
initializers of parameters go to ``default_startup_program()``.  Both are
process-wide and swapped by ``program_guard``; ``building`` (what to_static's
tracing uses) also holds ``BUILD_LOCK``, so threads build one at a time while
other threads keep running (the mode itself is per thread: ``ops.mode``).
"""
import contextlib
import threading

from ..ops import static_guard
from .framework import Program

BUILD_LOCK = threading.RLock()

_state = {"main": Program(), "startup": Program()}
_scopes = [["", {}]]        # stack of [path, {child name: uses}]


def default_main_program():
    return _state["main"]


def default_startup_program():
    return _state["startup"]


def switch_main_program(program):
    """Install ``program`` as the default main program; returns the previous one."""
    old, _state["main"] = _state["main"], _check(program, "main_program")
    return old


def switch_startup_program(program):
    old, _state["startup"] = _state["startup"], _check(program, "startup_program")
    return old


def _check(program, what):
    if not isinstance(program, Program):
        raise TypeError(f"{what} must be a sampan.static.Program, got "
                        f"{type(program).__name__}")
    return program


@contextlib.contextmanager
def program_guard(main_program, startup_program=None):
    """Build into ``main_program`` (and ``startup_program``) inside the block."""
    _check(main_program, "main_program")
    old_main = switch_main_program(main_program)
    old_startup = None
    if startup_program is not None:
        old_startup = switch_startup_program(startup_program)
    try:
        yield
    finally:
        switch_main_program(old_main)
        if old_startup is not None:
            switch_startup_program(old_startup)


@contextlib.contextmanager
def building(main_program, startup_program=None):
    """Build into ``main_program`` in static mode, one thread at a time (the
    default programs and the name generators are shared by all threads)."""
    with BUILD_LOCK, program_guard(main_program, startup_program), static_guard(True):
        yield


@contextlib.contextmanager
def name_scope(prefix=None):
    """Ops built inside carry ``op_namescope = "/<prefix>/"`` (nested scopes
    join with "/"; a name reused under one parent becomes ``prefix_1`` ...)."""
    parent = _scopes[-1]
    name = prefix or "name_scope"
    n = parent[1].get(name, 0)
    parent[1][name] = n + 1
    unique = name if n == 0 else f"{name}_{n}"
    _scopes.append([f"{parent[0]}/{unique}", {}])
    try:
        yield
    finally:
        _scopes.pop()


def current_name_scope():
    """The ``op_namescope`` value for ops built now: ``"/"`` at top level."""
    return _scopes[-1][0] + "/"
