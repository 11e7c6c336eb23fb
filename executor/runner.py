"""Runners over one plan; all take the values of ``plan.loaded`` (in order) and
return the fetch values followed by the persistables the plan writes.

- ``CompiledSerial``: the plan as one straight-line Python function (one line
  per op, ``del`` right after a temporary's last use), compiled once; per op
  it costs a kernel call and nothing else.  The generated source is
  registered with ``linecache`` (it shows in tracebacks), and an error is
  mapped back to its instruction from the traceback's line number.
- ``LoopSerial``: the same order as an interpreted loop over a value table,
  calling ``hook(instr, values)`` after every instruction (instrumentation:
  the GC tests count live temporaries through it).
- ``Threaded``: a thread pool fed from dependency counts; a finished
  instruction runs its first ready successor itself and hands the others to
  the pool; temporaries are freed by reference counts over their last users.
"""
import bisect
import itertools
import linecache
import threading
from concurrent.futures import ThreadPoolExecutor

from ..ops import OpError, kind_of

_ids = itertools.count()


class ExecutionError(OpError):
    """An op failed while a program ran: names the op, its inputs, its source.
    Of the kind of the error it wraps (ops/errors.py): an ExecutionError wrapping
    an IndexError is an IndexError."""

    def __new__(cls, msg="", instr=None, original=None, kind=None):
        if kind is None and original is not None:
            kind = kind_of(original)
        return super().__new__(cls, msg, kind=kind)

    def __init__(self, msg="", instr=None, original=None, kind=None):
        super().__init__(msg)
        self.instr, self.original = instr, original


def _shapes(ins, args):
    parts = []
    for slot, a in zip(_slot_names(ins), args):
        if a is None:
            continue
        if isinstance(a, list):
            parts.append(f"{slot}=[{', '.join(_arr(x) for x in a)}]")
        else:
            parts.append(f"{slot}={_arr(a)}")
    return ", ".join(parts)


def _arr(a):
    shape = getattr(a, "shape", None)
    return f"{list(shape)}:{a.dtype}" if shape is not None else type(a).__name__


def _slot_names(ins):
    if ins.opdef is not None:
        return [s.name for s in ins.opdef.inputs]
    return list(ins.op._inputs)


def op_error(ins, args, exc):
    """The error to raise for instruction ``ins`` failing on ``args``."""
    if isinstance(exc, ExecutionError):
        return exc
    src = ins.op.source
    msg = str(exc)
    prefix = f"op '{ins.op.type}'"
    what = msg if isinstance(exc, OpError) and msg.startswith(prefix) else \
        f"{type(exc).__name__}: {msg}"
    text = (f"{ins.where()} failed on inputs {_shapes(ins, args) or '(none)'}:\n  {what}"
            + (f"\n  defined at {src}" if src else ""))
    return ExecutionError(text, ins, exc)


def _gather(vals, ins):
    return [None if s is None else vals[s] if type(s) is int else [vals[k] for k in s]
            for s in ins.ins]


def _store(vals, ins, outs):
    for s, o in zip(ins.outs, outs):
        if s is None:
            continue
        if type(s) is int:
            vals[s] = o
        else:
            for k, x in zip(s, o):
                vals[k] = x


def _values(plan, inputs):
    vals = [None] * len(plan.names)
    for pos, vi in enumerate(plan.loaded):
        vals[vi] = inputs[pos]
    return vals


def _results(plan, vals):
    return tuple(vals[i] for i in plan.fetch_idx) + tuple(vals[i] for i in plan.persist_written)


# ----------------------------------------------------------------- compiled
class CompiledSerial:
    """``loop=(cond, truth, extra)`` compiles the block as a loop body instead
    (a ``while`` op's sub-block): the values of ``plan.loaded`` and then of the
    variables ``extra`` (loop-carried values the body does not read first)
    come in once; the body runs while ``truth(value of cond)``, carrying every
    value in a local variable, with no per-iteration tables."""

    def __init__(self, plan, live, specialize=True, loop=None):
        self.plan = plan
        self.filename = f"<sampan plan {next(_ids)}>"
        src, self.starts, self.use_fast = self._source(plan, live, specialize, loop)
        self.source = src
        linecache.cache[self.filename] = (len(src), None, src.splitlines(True), self.filename)
        ns = {"__name__": __name__}     # (warnings raised in it name sampan's module)
        exec(compile(src, self.filename, "exec"), ns)
        ins = plan.instrs
        self.fn = ns["__make"]([i.fn for i in ins], [i.attrs for i in ins],
                               [i.need for i in ins], [i.fast for i in ins],
                               loop[1] if loop else None)
        self.code = self.fn.__code__

    @staticmethod
    def _source(plan, live, specialize, loop=None):
        def arg(s):
            if s is None:
                return "None"
            return f"v{s}" if type(s) is int else "[" + ", ".join(f"v{k}" for k in s) + "]"

        head = ["def __make(K, A, N, F, T):"]
        body = ["    def __run(ins):"]
        body += [f"        v{vi} = ins[{pos}]" for pos, vi in enumerate(plan.loaded)]
        pad = " " * 8
        if loop is not None:
            cond, _, extra = loop
            n = len(plan.loaded)
            body += [f"        v{vi} = ins[{n + k}]" for k, vi in enumerate(extra)]
            body.append(f"        while T(v{cond}):")
            pad = " " * 12
        starts, use_fast = [], []
        for ins, frees in zip(plan.instrs, live.serial_frees):
            i = ins.idx
            fast = specialize and ins.fast is not None
            use_fast.append(fast)
            starts.append(len(head) + len(plan.instrs) + len(body) + 1)
            if fast:
                body.append(f"{pad}v{ins.outs[0]} = f{i}({', '.join(arg(s) for s in ins.ins)})")
            else:
                call = f"k{i}([{', '.join(arg(s) for s in ins.ins)}], a{i}, n{i})"
                if len(ins.outs) == 1 and type(ins.outs[0]) is int:
                    body.append(f"{pad}v{ins.outs[0]} = {call}[0]")
                else:
                    body.append(f"{pad}_o = {call}")
                    for j, s in enumerate(ins.outs):
                        if type(s) is int:
                            body.append(f"{pad}v{s} = _o[{j}]")
                        elif s:
                            body.append(f"{pad}{', '.join(f'v{k}' for k in s)}, = _o[{j}]")
            if frees:
                body.append(f"{pad}del {', '.join(f'v{v}' for v in frees)}")
        if loop is not None and not plan.instrs:
            body.append(f"{pad}pass")
        ret = [f"v{i}" for i in plan.fetch_idx + plan.persist_written]
        body.append(f"        return ({', '.join(ret)}{',' if ret else ''})")
        binds = []
        for ins, fast in zip(plan.instrs, use_fast):
            i = ins.idx
            binds.append(f"    f{i} = F[{i}]" if fast
                         else f"    k{i} = K[{i}]; a{i} = A[{i}]; n{i} = N[{i}]")
        tail = ["    return __run", ""]
        return "\n".join(head + binds + body + tail), starts, use_fast

    def __call__(self, inputs):
        try:
            return self.fn(inputs)
        except Exception as e:
            raise self._error(e) from e

    def _error(self, exc):
        tb, frame, line = exc.__traceback__, None, None
        while tb is not None:
            if tb.tb_frame.f_code is self.code:
                frame, line = tb.tb_frame, tb.tb_lineno
            tb = tb.tb_next
        if frame is None or not self.starts or line < self.starts[0]:
            return exc
        ins = self.plan.instrs[bisect.bisect_right(self.starts, line) - 1]
        local = frame.f_locals
        args = [None if s is None else local.get(f"v{s}") if type(s) is int
                else [local.get(f"v{k}") for k in s] for s in ins.ins]
        return op_error(ins, args, exc)


# ----------------------------------------------------------------- loop
class LoopSerial:
    def __init__(self, plan, live, hook=None):
        self.plan, self.live, self.hook = plan, live, hook

    def __call__(self, inputs):
        plan, hook = self.plan, self.hook
        vals = _values(plan, inputs)
        for ins, frees in zip(plan.instrs, self.live.serial_frees):
            args = _gather(vals, ins)
            try:
                outs = ins.fn(args, ins.attrs, ins.need)
            except Exception as e:
                raise op_error(ins, args, e) from e
            _store(vals, ins, outs)
            for v in frees:
                vals[v] = None
            if hook is not None:
                hook(ins, vals)
        return _results(plan, vals)


# ----------------------------------------------------------------- threads
class Threaded:
    def __init__(self, plan, deps, live, num_threads=4, hook=None):
        self.plan, self.deps, self.live, self.hook = plan, deps, live, hook
        self.num_threads = num_threads
        self._pool = None

    def _get_pool(self):
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.num_threads, thread_name_prefix="sampan-exec")
        return self._pool

    def __call__(self, inputs):
        plan, deps, live, hook = self.plan, self.deps, self.live, self.hook
        vals = _values(plan, inputs)
        n = len(plan.instrs)
        if n == 0:
            return _results(plan, vals)
        pool = self._get_pool()
        pending, refs = list(deps.npred), list(live.refcount)
        lock, done = threading.Lock(), threading.Event()
        state = {"left": n, "error": None}

        def run(i):
            while i is not None and state["error"] is None:
                ins = plan.instrs[i]
                args = _gather(vals, ins)
                try:
                    _store(vals, ins, ins.fn(args, ins.attrs, ins.need))
                except BaseException as e:
                    with lock:
                        if state["error"] is None:
                            state["error"] = op_error(ins, args, e) if isinstance(e, Exception) \
                                else e
                    done.set()
                    return
                nxt = None
                with lock:
                    for v in live.gc_vars[i]:
                        refs[v] -= 1
                        if refs[v] == 0:
                            vals[v] = None
                    if hook is not None:
                        hook(ins, vals)
                    for s in deps.succ[i]:
                        pending[s] -= 1
                        if pending[s] == 0:
                            if nxt is None:
                                nxt = s
                            else:
                                pool.submit(run, s)
                    state["left"] -= 1
                    if state["left"] == 0:
                        done.set()
                i = nxt

        for i in range(n):
            if deps.npred[i] == 0:
                pool.submit(run, i)
        done.wait()
        if state["error"] is not None:
            err = state["error"]
            raise err from getattr(err, "original", None)
        return _results(plan, vals)

    def close(self):
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None
