"""DataLoader throughput: batches per second with 0, 2 and 4 worker processes
over a dataset whose ``__getitem__`` costs about 1 ms.

    python benchmarks/dataloader.py                      # sampan (this checkout)
    ~/.cache/sampan-interop/paddle-2.6.2/bin/python benchmarks/dataloader.py --impl paddle

``--work sleep`` (default) spends the millisecond in ``time.sleep`` (I/O-like:
workers overlap even on few cores); ``--work numpy`` spends it computing (the
speed-up is then bounded by the free CPU cores).  Each configuration runs
``--epochs`` epochs after a warm-up epoch and prints the best epoch's rate;
each epoch starts its workers unless ``--persistent``.
"""
import argparse
import importlib
import os
import sys
import time

import numpy as np


def load(impl):
    if impl == "paddle":
        return importlib.import_module("paddle")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if importlib.util.find_spec("sampan") is None:
        spec = importlib.util.spec_from_file_location(
            "sampan", os.path.join(root, "__init__.py"), submodule_search_locations=[root])
        mod = importlib.util.module_from_spec(spec)
        sys.modules["sampan"] = mod
        spec.loader.exec_module(mod)
    return importlib.import_module("sampan")


def make_dataset(paddle, n, work):
    class OneMs(paddle.io.Dataset):
        def __len__(self):
            return n

        def __getitem__(self, i):
            if work == "sleep":
                time.sleep(0.001)
            else:                                  # about 1 ms of numpy on one core
                end = time.perf_counter() + 0.001
                a = np.full((64, 64), i % 7, "float32")
                while time.perf_counter() < end:
                    a = np.tanh(a @ a.T * 1e-3)
            return np.full((3, 32, 32), i, "float32"), np.int64(i % 10)
    return OneMs()


def rate(paddle, workers, args):
    loader = paddle.io.DataLoader(make_dataset(paddle, args.samples, args.work),
                                  batch_size=args.batch_size, num_workers=workers,
                                  shuffle=True,
                                  persistent_workers=args.persistent and workers > 0)
    best = 0.0
    for epoch in range(args.epochs + 1):
        t0 = time.perf_counter()
        n = sum(1 for _ in loader)
        dt = time.perf_counter() - t0
        if epoch:                                   # epoch 0 warms up
            best = max(best, n / dt)
    return best, n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--impl", choices=["sampan", "paddle"], default="sampan")
    ap.add_argument("--work", choices=["sleep", "numpy"], default="sleep")
    ap.add_argument("--samples", type=int, default=512)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--workers", type=int, nargs="+", default=[0, 2, 4])
    ap.add_argument("--persistent", action="store_true",
                    help="persistent_workers=True (otherwise each epoch starts its workers, "
                         "and the rate includes that)")
    args = ap.parse_args()
    paddle = load(args.impl)
    print(f"{args.impl} {getattr(paddle, '__version__', '')}: {args.samples} samples of "
          f"~1 ms ({args.work}), batch {args.batch_size}, {os.cpu_count()} cpus, "
          f"persistent_workers={args.persistent}")
    print(f"{'num_workers':>11}  {'batches/s':>10}  {'speed-up':>8}")
    base = None
    for w in args.workers:
        r, n = rate(paddle, w, args)
        base = base or r
        print(f"{w:>11}  {r:>10.1f}  {r / base:>7.2f}x")


if __name__ == "__main__":
    main()
