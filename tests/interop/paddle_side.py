"""The real-Paddle side of the interop tier.

This script runs INSIDE the side virtual environment (paddlepaddle==2.6.2,
numpy<2), never in sampan's process: the harness (tests/interop/harness.py)
calls it once per batch of jobs as

    <venv python> paddle_side.py JOBS.json RESULTS_DIR

JOBS.json is a list of jobs, each a dict with an ``id`` and a ``kind``:

* ``run_model``: ``prefix`` (path prefix of ``.pdmodel``/``.pdiparams``),
  ``inputs`` (an .npz whose keys are the feed names in feed order),
  ``modes`` (any of ``"inference"`` -- paddle.inference Config/Predictor, CPU,
  one thread -- and ``"jit_load"`` -- paddle.jit.load, eval, no_grad).  Each
  mode writes ``RESULTS_DIR/<id>.<mode>.npz`` with the outputs in fetch order
  under keys ``out0, out1, ...``; the result has, per mode, ``ok`` (and
  ``error``/``traceback``, or the input/output names).
* ``seed_program``: builds the Linear + MSELoss + Adam.minimize program of the
  static-graph seed in static mode and reports the op types of the main and
  startup programs.
* ``grad_slots``: ``cases`` (each ``id``, ``expr``, ``shapes``, ``order``):
  per case, the slot names of the double / triple grad ops in the program
  differentiated ``order`` times (``higher_order_ops``).
* ``state_dicts``: ``arrays`` (an .npz), ``names`` ({key: tensor name}),
  ``protocols``: per protocol, ``paddle.save`` of the state dict {key: tensor
  named names[key]} (npz order) to ``RESULTS_DIR/<id>.p<protocol>.pdparams``;
  ``load`` (files sampan wrote): each read by ``paddle.load`` twice, as
  tensors and with ``return_numpy=True``; the arrays (every ndarray / tensor
  in the loaded object, keyed by its path like ``a/0``) go to
  ``RESULTS_DIR/<id>.load<i>.<tensors|numpy>.npz`` and the result lists the
  keys and the names of the loaded tensors.  ``nested`` (optional): a spec
  of a non-state-dict object (``build_nested``) also saved per protocol, to
  ``RESULTS_DIR/<id>.nested.p<protocol>.pdparams``.

RESULTS_DIR/results.json maps each job id to ``{"ok": bool, "error": str,
...}``; one failing job never stops the batch.  Imports only paddle, numpy
and the standard library.
"""
import json
import os
import sys
import time
import traceback

import numpy as np


def _as_list(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _run_inference(paddle, prefix, feeds):
    cfg = paddle.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    cfg.disable_gpu()
    cfg.set_cpu_math_library_num_threads(1)
    cfg.disable_glog_info()
    pred = paddle.inference.create_predictor(cfg)
    in_names = list(pred.get_input_names())
    missing = [n for n in in_names if n not in feeds]
    if missing:
        raise KeyError("model inputs %s not in the inputs file (has %s)" % (missing, list(feeds)))
    for name in in_names:
        handle = pred.get_input_handle(name)
        handle.reshape(list(feeds[name].shape))
        handle.copy_from_cpu(np.ascontiguousarray(feeds[name]))
    pred.run()
    out_names = list(pred.get_output_names())
    outs = [pred.get_output_handle(n).copy_to_cpu() for n in out_names]
    return {"input_names": in_names, "output_names": out_names}, outs


def _run_jit_load(paddle, prefix, feeds):
    loaded = paddle.jit.load(prefix)
    loaded.eval()
    with paddle.no_grad():
        outs = loaded(*[paddle.to_tensor(v) for v in feeds.values()])
    return {}, [np.asarray(o.numpy()) for o in _as_list(outs)]


MODES = {"inference": _run_inference, "jit_load": _run_jit_load}


def run_model(paddle, job, results_dir):
    with np.load(job["inputs"]) as data:
        feeds = {k: data[k] for k in data.files}   # dicts keep the feed order
    report = {}
    for mode in job["modes"]:   # each mode reports on its own
        t0 = time.perf_counter()
        try:
            info, outs = MODES[mode](paddle, job["prefix"], feeds)
            np.savez(os.path.join(results_dir, "%s.%s.npz" % (job["id"], mode)),
                     **{"out%d" % i: o for i, o in enumerate(outs)})
            info["ok"] = True
        except Exception as exc:
            info = {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc),
                    "traceback": traceback.format_exc()}
        info["seconds"] = time.perf_counter() - t0
        report[mode] = info
    return report


def seed_program(paddle, job, results_dir):
    """The first example of the static-graph seed, built only (not run)."""
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data(shape=[16, 16], name="x")
            label = paddle.static.data(shape=[16, 1], name="label")
            out = paddle.nn.Linear(in_features=16, out_features=1)(x)
            loss = paddle.nn.MSELoss()(out, label)
            paddle.optimizer.Adam().minimize(loss)
        return {name: [op.type for op in prog.global_block().ops]
                for name, prog in (("main", main), ("startup", startup))}
    finally:
        paddle.disable_static()


HIGHER_ORDER = ("_grad_grad", "_double_grad", "_triple_grad")


def higher_order_ops(paddle, expr, shapes, order):
    """Build ``expr`` (Python source over ``paddle``, ``F`` and the float64 data
    ``x``, ``y`` of ``shapes``) in static mode, differentiate it ``order``
    times with respect to the data and the parameters (each time the sum of
    squares of the last gradients), and return
    the double and triple grad ops as {type: [input slots, output slots]}:
    the slots given variables (an empty slot reads as an absent one), sorted.  Used by both sides (tests/interop/test_grad_slots.py)."""
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            xs = []
            for name, shape in zip(("x", "y"), shapes):
                v = paddle.static.data(name, shape, "float64")
                v.stop_gradient = False
                xs.append(v)
            env = {"paddle": paddle, "F": paddle.nn.functional, "x": xs[0], "y": xs[-1]}
            target = paddle.sum(eval(expr, env))
            wrt = xs + list(main.global_block().all_parameters())
            for _ in range(order):
                grads = [g for g in paddle.static.gradients([target], wrt) if g is not None]
                if not grads:
                    break
                target = paddle.sum(grads[0] * grads[0])
                for g in grads[1:]:
                    target = target + paddle.sum(g * g)
        ops = {}
        for op in main.global_block().ops:
            if op.type.endswith(HIGHER_ORDER):
                ops[op.type] = [sorted(k for k in op.input_names if op.input(k)),
                                sorted(k for k in op.output_names if op.output(k))]
        return ops
    finally:
        paddle.disable_static()


def grad_slots(paddle, job, results_dir):
    out = {}
    for c in job["cases"]:      # each case reports on its own
        try:
            out[c["id"]] = {"ok": True, "ops": higher_order_ops(paddle, c["expr"], c["shapes"],
                                                               c["order"])}
        except Exception as exc:
            out[c["id"]] = {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc)}
    return out


def _flatten_loaded(paddle, obj, prefix, out, names):
    if isinstance(obj, paddle.Tensor):
        out[prefix] = obj.numpy()
        names[prefix] = obj.name
    elif isinstance(obj, np.ndarray):
        out[prefix] = obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _flatten_loaded(paddle, v, "%s/%s" % (prefix, k) if prefix else str(k), out, names)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _flatten_loaded(paddle, v, "%s/%d" % (prefix, i) if prefix else str(i), out, names)


ARRAY_VIEWS = {"plain": lambda a: a, "fortran": np.asfortranarray,
               "reversed": lambda a: a[::-2, ::5]}


def build_nested(spec, arrays, tensor):
    """The object a JSON spec stands for: lists and dicts of specs, JSON scalars,
    ``["tensor", key, name]`` (``tensor(array, name)``) and ``["array", key, view]``
    (a numpy array, ``ARRAY_VIEWS[view]`` of the array).  Used by both sides
    (tests/interop/test_state_dicts.py)."""
    if isinstance(spec, dict):
        return {k: build_nested(v, arrays, tensor) for k, v in spec.items()}
    if isinstance(spec, list) and spec and spec[0] == "tensor":
        return tensor(arrays[spec[1]], spec[2])
    if isinstance(spec, list) and spec and spec[0] == "array":
        return ARRAY_VIEWS[spec[2]](arrays[spec[1]])
    if isinstance(spec, list):
        return [build_nested(v, arrays, tensor) for v in spec]
    return spec


def state_dicts(paddle, job, results_dir):
    with np.load(job["arrays"]) as data:
        arrays = {k: data[k] for k in data.files}
    saved = {}
    for protocol in job.get("protocols", []):
        sd = {}
        for k, a in arrays.items():
            t = paddle.to_tensor(a)
            t.name = job["names"][k]
            sd[k] = t
        path = os.path.join(results_dir, "%s.p%d.pdparams" % (job["id"], protocol))
        paddle.save(sd, path, protocol=protocol)
        saved[str(protocol)] = path
        if job.get("nested") is not None:
            def tensor(a, name):
                t = paddle.to_tensor(a)
                t.name = name
                return t
            obj = build_nested(job["nested"], arrays, tensor)
            path = os.path.join(results_dir, "%s.nested.p%d.pdparams" % (job["id"], protocol))
            paddle.save(obj, path, protocol=protocol)
            saved["nested%d" % protocol] = path
    loaded = []
    for i, path in enumerate(job.get("load", [])):
        entry = {}
        for how, kwargs in (("tensors", {}), ("numpy", {"return_numpy": True})):
            out, names = {}, {}
            _flatten_loaded(paddle, paddle.load(path, **kwargs), "", out, names)
            np.savez(os.path.join(results_dir, "%s.load%d.%s.npz" % (job["id"], i, how)), **out)
            entry[how] = {"keys": list(out), "names": names}
        loaded.append(entry)
    return {"saved": saved, "loaded": loaded}


def static_io(paddle, job, results_dir):
    """``paddle.static`` in-memory I/O: Paddle's serialize_program/_persistables bytes of
    an fc model (and its output), and Paddle running sampan's bytes through
    deserialize_program/_persistables."""
    paddle.enable_static()
    try:
        x_val = np.load(job["inputs"])["x"]
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, x_val.shape[1]], "float32")
            y = paddle.static.nn.fc(x, 4, activation="tanh")
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        (want,) = exe.run(main, feed={"x": x_val}, fetch_list=[y])
        prog_path = os.path.join(results_dir, "paddle.program")
        params_path = os.path.join(results_dir, "paddle.params")
        paddle.static.save_to_file(prog_path, paddle.static.serialize_program([x], [y],
                                                                              program=main))
        paddle.static.save_to_file(params_path, paddle.static.serialize_persistables(
            [x], [y], exe, program=main))
        np.save(os.path.join(results_dir, "paddle.out.npy"), want)
        prog = paddle.static.deserialize_program(paddle.static.load_from_file(job["program"]))
        with paddle.static.scope_guard(paddle.static.Scope()):
            paddle.static.deserialize_persistables(
                prog, paddle.static.load_from_file(job["params"]), exe)
            fetch = [op.input("X")[0] for op in prog.global_block().ops if op.type == "fetch"]
            (got,) = exe.run(prog, feed={"x": x_val}, fetch_list=fetch)
        np.save(os.path.join(results_dir, "sampan_in_paddle.out.npy"), got)
        return {"program": prog_path, "params": params_path}
    finally:
        paddle.disable_static()


KINDS = {"run_model": run_model, "static_io": static_io, "seed_program": seed_program, "grad_slots": grad_slots,
         "state_dicts": state_dicts}


def main(argv):
    jobs_file, results_dir = argv[1], argv[2]
    with open(jobs_file) as fh:
        jobs = json.load(fh)
    t0 = time.perf_counter()
    import paddle   # the side venv's real Paddle
    results = {"_meta": {"paddle": paddle.__version__, "numpy": np.__version__,
                         "import_seconds": time.perf_counter() - t0}}
    for job in jobs:
        try:
            res = KINDS[job["kind"]](paddle, job, results_dir)
            results[job["id"]] = {"ok": True, "result": res}
        except BaseException as exc:   # report it for this job; the batch goes on
            results[job["id"]] = {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc),
                                  "traceback": traceback.format_exc()}
    with open(os.path.join(results_dir, "results.json"), "w") as fh:
        json.dump(results, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
