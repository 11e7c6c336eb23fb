"""``python -m sampan.jit report module:Layer [--input SHAPE:DTYPE ...]``: the
to_static conversion report (jit/report.py) from the command line."""
import sys

from .report import main

if __name__ == "__main__":
    argv = sys.argv[1:]
    if not argv or argv[0] != "report":
        sys.exit("usage: python -m sampan.jit report module:Layer [--input SHAPE:DTYPE ...]")
    sys.exit(main(argv[1:]))
