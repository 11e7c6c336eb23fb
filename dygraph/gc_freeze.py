"""What the import leaves behind, kept out of the cyclic garbage collector's walks.

Importing sampan (with numpy, numba and its kernels, op records and public
functions) leaves about 65,000 objects the cyclic collector tracks; none of
them becomes garbage while the process runs.  Eager code recorded on the tape
makes long-lived tracked objects of its own (each op's output tensor, its
grad node, the node's tuples) that survive until the backward, so CPython's
full collections come often, and each walks those 65,000 objects again: 50 ms
per walk on this machine.  On the W1 chain (benchmarks/run.py: 1000 recorded
elementwise ops, then backward) the collector took 0.9 us of every op's 3.8
us; with the import's objects frozen, 0.16 us, and the op 2.3 us.

``freeze_import_heap()`` (run by the package's ``__init__`` once everything is
imported) collects what is garbage at that moment, then moves every tracked
object into CPython's permanent generation (``gc.freeze()``): they are never
walked again and never collected, which for module-level objects changes
nothing.  Objects made after the import are collected as before.  Whatever the
process had made before importing sampan is frozen with them; a program that
makes cyclic garbage out of such objects, or that counts on
``gc.get_objects()`` listing them, sets ``SAMPAN_GC_FREEZE=0`` (nothing is
frozen) or calls ``gc.unfreeze()``.

The young generation is widened for the same reason (``widen_young_generation``):
CPython collects it every 700 net allocations of tracked objects, and a
recorded op makes five (its output tensor, its grad node and the node's three
tuples), all alive until the backward.  On W1 (1000 recorded ops, then the
backward) that was 369 young and 34 middle collections per 200 steps, each
walking the step's graph so far: 0.15 us of every op's 1.92 (cache misses on
every object).  With a young generation of 10,000 objects a step of up to
about 2,000 recorded ops is freed by its backward before the collector looks at
it: none ran, and the op took 1.76 us.  Cyclic garbage waits for 10,000
allocations instead of 700 before it is found.  ``SAMPAN_GC_YOUNG=0`` leaves
CPython's thresholds as they are; another number sets the size (a threshold
already larger is kept).
"""
import gc
import os

__all__ = ["freeze_import_heap", "widen_young_generation"]

YOUNG = 10_000


def freeze_import_heap():
    """Freeze the objects alive now (module docstring); returns how many
    objects the permanent generation holds afterwards (0: opted out)."""
    if os.environ.get("SAMPAN_GC_FREEZE", "1") == "0":
        return 0
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def widen_young_generation():
    """Raise the young generation's threshold to ``SAMPAN_GC_YOUNG`` (default
    ``YOUNG``; module docstring); returns the threshold now in force (CPython's
    own when opted out)."""
    try:
        young = int(os.environ.get("SAMPAN_GC_YOUNG", YOUNG))
    except ValueError:
        raise ValueError(f"SAMPAN_GC_YOUNG must be an integer (0: leave CPython's "
                         f"threshold), got {os.environ['SAMPAN_GC_YOUNG']!r}") from None
    threshold = gc.get_threshold()
    if young > threshold[0]:
        gc.set_threshold(young, *threshold[1:])
    return gc.get_threshold()[0]
