"""The ``sampan`` command: look at, run and time saved inference models.

    sampan inspect MODEL [--details] [--verify]
    sampan inspect --convert module:Layer [--input-spec x:float32[B,8] ...]
    sampan run MODEL --input NAME=FILE.npy [--input ...] [--output DIR|FILE.npz]
    sampan bench MODEL [--batch N] [--runs K] [--warmup W] [--input NAME=FILE.npy]

MODEL is a ``.pdmodel`` file, a path prefix (``dir/model`` for ``dir/model.pdmodel``
+ ``dir/model.pdiparams``) or a directory holding one model.  ``--input`` also
takes a ``.npz`` file (its arrays by input name).  ``run`` and ``bench`` use the
inference Predictor.  Errors print one line (``sampan: error: ...``) and exit 1.
``inspect --convert`` prints the to_static conversion report of a Layer class
or function (``sampan.jit.report``; cli/convert.py).  Symbolic dims a model was
saved with (its ``.sampan.json`` sidecar) are shown as ``B``, ``B*8``.
"""
import argparse
import os
import sys
import time
from collections import Counter

import numpy as np

__all__ = ["main"]


def _paths(model):
    from ..inference.config import _resolve
    return _resolve(model)


# ----------------------------------------------------------------- inspect
def _fmt_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024.0


def _var_line(v):
    dt = v.np_dtype.name if v.np_dtype is not None else "?"
    return f"{v.name:<40} {dt:<8} {list(v.shape)}"


def cmd_inspect(args, out):
    from ..save_load.program_io import (feed_fetch_targets, persistable_names, read_program,
                                        UnknownOpError)
    if getattr(args, "convert", None):
        from .convert import cmd_convert
        return cmd_convert(args, out)
    if args.model is None:
        raise ValueError("inspect needs a MODEL (or --convert module:Layer)")
    model, params = _paths(args.model)
    if getattr(args, "verify", False):
        from .verify import cmd_verify
        return cmd_verify(model, params, out)
    unknown = ""
    try:
        program = read_program(model)
    except UnknownOpError as exc:
        unknown = str(exc)
        program = read_program(model, check_ops=False)
    _attach_symbols(program, model)
    size = os.path.getsize(model)
    print(f"model: {model} ({_fmt_bytes(size)}), ProgramDesc version "
          f"{program.desc.version.version if program.desc.HasField('version') else '-'}, "
          f"{len(program.blocks)} block(s)", file=out)
    if unknown:
        print(f"warning: {unknown}", file=out)
    feeds, fetches = feed_fetch_targets(program, model, require=False)
    block = program.global_block()
    print(f"inputs ({len(feeds)}):", file=out)
    for n in feeds:
        print("  " + _var_line(block.var(n)), file=out)
    print(f"outputs ({len(fetches)}):", file=out)
    for n in fetches:
        print("  " + _var_line(block.var(n)), file=out)
    counts = Counter(op.type for b in program.blocks for op in b.ops)
    print(f"ops ({sum(counts.values())} in {len(program.blocks)} block(s), "
          f"{len(counts)} types):", file=out)
    for t, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {t:<32} {c}", file=out)
    names = persistable_names(program)
    numel = nbytes = 0
    for n in names:
        v = block._find_var_recursive(n) or next(b.vars[n] for b in program.blocks
                                                 if n in b.vars)
        k = int(np.prod([d for d in v.shape if d >= 0])) if v.shape else 1
        numel += k
        nbytes += k * (v.np_dtype.itemsize if v.np_dtype is not None else 0)
    pfile = f"{params} ({_fmt_bytes(os.path.getsize(params))})" if os.path.isfile(params) \
        else "(no params file)"
    print(f"parameters: {len(names)} tensors, {numel:,} values, {_fmt_bytes(nbytes)}; "
          f"file {pfile}", file=out)
    print("program:", file=out)
    text = program.to_string(with_details=args.details)
    print("\n".join("  " + ln for ln in text.splitlines()), file=out)
    return 0


def _attach_symbols(program, model):
    """The symbolic dims recorded in the model's sidecar, onto its variables."""
    from ..save_load.manifest import find_manifest
    from ..save_load.fileio import FormatError
    from ..program.symbolic import attach
    try:
        man = find_manifest(model)
    except FormatError:
        return              # a damaged manifest: --verify reports it
    if man is not None:
        attach(program, man.symbols(model))


# ----------------------------------------------------------------- inputs
def _read_inputs(specs):
    arrays = {}
    for spec in specs or ():
        if "=" in spec:
            name, path = spec.split("=", 1)
            arrays[name] = _load_array(path)
        elif spec.endswith(".npz"):
            with np.load(spec, allow_pickle=False) as z:
                arrays.update({k: z[k] for k in z.files})
        else:
            raise ValueError(f"--input takes NAME=FILE.npy or FILE.npz, got {spec!r}")
    return arrays


def _load_array(path):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"input file {path} does not exist")
    a = np.load(path, allow_pickle=False)       # never unpickle objects from a file
    if isinstance(a, np.lib.npyio.NpzFile):
        with a:
            if len(a.files) != 1:
                raise ValueError(f"{path} holds {len(a.files)} arrays; use NAME=FILE.npy")
            return a[a.files[0]]
    return a


def _predictor(model, ir_optim=True):
    from ..inference import Config, create_predictor
    model_file, params = _paths(model)
    cfg = Config(model_file, params)
    cfg.switch_ir_optim(ir_optim)
    return create_predictor(cfg)


def _feed(pred, given):
    names = pred.get_input_names()
    missing = [n for n in names if n not in given]
    if missing:
        raise ValueError(f"the model needs input(s) {names}; missing {missing} "
                         f"(pass --input NAME=FILE.npy)")
    extra = sorted(set(given) - set(names))
    if extra:
        raise ValueError(f"the model has no input(s) {extra}; its inputs are {names}")
    for n in names:
        pred.get_input_handle(n).copy_from_cpu(given[n])


def _safe(name):
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)


def cmd_run(args, out):
    pred = _predictor(args.model, not args.no_ir_optim)
    _feed(pred, _read_inputs(args.input))
    pred.run()
    results = {n: pred.get_output_handle(n).copy_to_cpu() for n in pred.get_output_names()}
    if args.output:
        if args.output.endswith(".npz"):
            folder = os.path.dirname(args.output)
            if folder:
                os.makedirs(folder, exist_ok=True)
            np.savez(args.output, **results)
            print(f"wrote {len(results)} output(s) to {args.output}", file=out)
        else:
            os.makedirs(args.output, exist_ok=True)
            for n, a in results.items():
                path = os.path.join(args.output, _safe(n) + ".npy")
                np.save(path, a)
                print(f"{n}: {a.dtype}{list(a.shape)} -> {path}", file=out)
        return 0
    with np.printoptions(threshold=200, edgeitems=4, precision=6):
        for n, a in results.items():
            print(f"{n}: {a.dtype}{list(a.shape)}", file=out)
            print(a, file=out)
    return 0


# ----------------------------------------------------------------- bench
def _synthetic(pred, batch, given):
    rng = np.random.default_rng(0)
    feeds = {}
    for n in pred.get_input_names():
        if n in given:
            feeds[n] = given[n]
            continue
        spec = pred.get_input_handle(n)._spec       # the input's declaration (run_plan.FeedSpec)
        shape = [batch if d < 0 else d for d in spec.dims or ()]
        dt = spec.dtype or np.dtype("float32")
        if dt.kind == "f":
            feeds[n] = rng.standard_normal(shape).astype(dt)
        else:
            feeds[n] = np.zeros(shape, dt)        # ids/indices: 0 is always in range
    return feeds


def cmd_bench(args, out):
    if args.batch < 1 or args.runs < 1 or args.warmup < 0:
        raise ValueError("--batch and --runs must be >= 1, --warmup >= 0")
    pred = _predictor(args.model, not args.no_ir_optim)
    feeds = _synthetic(pred, args.batch, _read_inputs(args.input))
    handles = [(pred.get_input_handle(n), feeds[n]) for n in pred.get_input_names()]
    outs = [pred.get_output_handle(n) for n in pred.get_output_names()]

    def once():
        for h, a in handles:
            h.reshape(list(a.shape))
            h.copy_from_cpu(a)
        pred.run()
        return [o.copy_to_cpu() for o in outs]

    for _ in range(args.warmup):
        once()
    times = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        once()
        times.append((time.perf_counter() - t0) * 1e3)
    t = np.array(times)
    p50, p90, p99 = np.percentile(t, [50, 90, 99])
    print(f"model: {args.model}", file=out)
    print(f"inputs: " + ", ".join(f"{n} {a.dtype}{list(a.shape)}" for n, a in feeds.items()),
          file=out)
    print(f"runs: {args.runs} (after {args.warmup} warm-up), batch {args.batch}", file=out)
    print(f"latency ms: p50 {p50:.3f}  p90 {p90:.3f}  p99 {p99:.3f}  mean {t.mean():.3f}  "
          f"min {t.min():.3f}  max {t.max():.3f}", file=out)
    print(f"throughput: {args.batch * 1e3 / p50:,.1f} samples/s (at p50)", file=out)
    return 0


# ----------------------------------------------------------------- main
def _parser():
    ap = argparse.ArgumentParser(prog="sampan", description="Inspect, run and time saved "
                                 "sampan / PaddlePaddle inference models.")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("inspect", help="print a model's inputs, outputs, ops, parameters "
                       "and program")
    p.add_argument("model", nargs="?", help="a .pdmodel, a path prefix or a folder")
    p.add_argument("--details", action="store_true", help="show bookkeeping attributes")
    p.add_argument("--verify", action="store_true", help="check the files against their "
                   "manifest (sizes, sha256, each tensor's crc32) and load them strictly; "
                   "prints OK or the problems")
    p.add_argument("--convert", metavar="MODULE:ATTR",
                   help="instead of a model: the to_static conversion report of a Layer "
                   "class (built with no arguments), a Layer or a function, e.g. "
                   "mypkg.nets:Encoder; every problem that would stop or change conversion, "
                   "with file, line and a suggested rewrite; exit status 1 when it lists any")
    p.add_argument("--input-spec", action="append", metavar="[NAME:]DTYPE[DIMS]",
                   help="with --convert: one example input per use, in call order, e.g. "
                   "x:float32[B,8] or ids:int64[B,S] or [None,4] (float32); a dim is an "
                   "int, None/-1/? (any size) or a symbol (B, B+1) shown as written; "
                   "without any, only the source is read")
    for name, hlp in (("run", "run a model on inputs from .npy/.npz files"),
                      ("bench", "time the Predictor on a model (latency percentiles)")):
        p = sub.add_parser(name, help=hlp)
        p.add_argument("model")
        p.add_argument("--input", action="append", metavar="NAME=FILE.npy",
                       help="an input array (repeatable); FILE.npz gives several")
        p.add_argument("--no-ir-optim", action="store_true", help="skip the graph passes")
        if name == "run":
            p.add_argument("--output", help="folder for NAME.npy files, or a FILE.npz")
        else:
            p.add_argument("--batch", type=int, default=1, help="size of -1 dims (default 1)")
            p.add_argument("--runs", type=int, default=100)
            p.add_argument("--warmup", type=int, default=10)
    return ap


_COMMANDS = {"inspect": cmd_inspect, "run": cmd_run, "bench": cmd_bench}


def main(argv=None, out=None):
    """Run the command line ``argv`` (default ``sys.argv[1:]``); returns the exit code."""
    out = sys.stdout if out is None else out
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    from ..ops import OpError
    try:
        return _COMMANDS[args.command](args, out)
    except (ValueError, OSError, OpError) as exc:
        print(f"sampan: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
