"""``python -m sampan.distributed.launch``: start a script's ranks through
mpiexec with Paddle's launcher variables (``main.py``; each rank runs
``worker.py`` first)."""
from .main import launch, build_command  # noqa: F401

__all__ = ["launch", "build_command"]
