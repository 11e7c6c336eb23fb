"""Seeded generator of random tensor programs for differential fuzzing of to_static.

`generate(seed)` returns a `Program`: the text of a module a Paddle user could have written
(``import sampan as paddle``, helper functions ``h0``, ``h1``..., the entry point ``f`` over 1-3
float32 tensors of one small shape ``INPUT_SHAPES``), plus the set of constructs it used.

The generator tracks a type per variable so every program is valid eagerly *and* lies inside
what to_static promises to support (issue 4):
  T  float32 tensor of the program's shape S      R  0-d float32 tensor
  I  Python int (or 0-d int tensor) counter       L  Python list of T (never empty)
  W  a row of a T (what iterating a tensor yields), read only
  J  an int that may be a 1-element int64 tensor ([1]-shaped: a loop index over
     `range(<[1] tensor>)`, `paddle.full([1], 0, dtype='int64') + i`): only multiplies T values
New variables are bound only in the function's top-level block; names first bound inside a
branch or loop (temporaries, loop targets, counters) are used only inside that block. Every
assignment keeps the variable's type and shape, so both arms of a tensor `if` and every
iteration of a tensor loop agree. Loops terminate by construction (a counter bound checked
every iteration, before any `continue`), and loop-carried values are squashed (tanh, clip,
sigmoid) so that conditions stay meaningful and nothing overflows.

Integers meet floats the way Paddle 2.6's operators define it (tensor/operators.py): float
results come from float-on-the-left forms (`x * i`, `x / (i + 1)`, `x * paddle.shape(x)[0]`);
int-on-the-left forms appear where their int result is legal and harmless (`i * 0.5`,
`(n + 1) / 4`, an int product inside a condition). Tensors written by item assignment
(`t[0] = v`, `t[1:] = ...`, `t[:, 0] = s`) are copies (`paddle.assign`, `.clone()`) written in a
group right after the copy (plain, in a loop, under a tensor `if`) and only read afterwards.
A share of programs (`SECOND_ORDER = True` in their text) keep to ops with double-grad rules
and to Python control flow, and the worker also compares second-order input gradients.
"""
import random
from dataclasses import dataclass, field

SHAPES = ([3], [4], [2, 3], [3, 3], [2, 2], [3, 2])
PARAMS = ("x", "y", "z")
HELPER_PARAMS = ("a", "b")

# Every construct the generator can emit; test_fuzz checks each one shows up in the CI range.
FEATURES = frozenset("""
    assign aug_assign new_var alias scalar_var int_counter int_tensor_counter list_var temp
    if_tensor if_python elif else and or not mixed_cond
    while_tensor while_break_bound while_python int_cast for_range_int for_range_shape for_range_tensor
    for_enumerate for_tensor for_list break continue return_early return_tuple return_in_loop
    helper helper_tuple helper_control_flow list_append list_stack arg_reassign_in_loop
    alias_in_loop row_index matmul reduction where cumsum concat_slice float_cast assert
    isinstance closure
    int_loop_arith int_idx_tensor for_range_pshape for_range_tensor1 shape_mean pshape_arith
    xshape_arith pshape_cmp while_int64_int32 int_left matmul_1d setitem setitem_slice setitem_col
    setitem_scalar setitem_loop setitem_tensor_if setitem_clone setitem_assign setitem_in_block
    second_order
    cond_expr comprehension lambda dict getitem_step star_unpack tuple_assign no_grad
    helper_kwargs loop_else setitem_mask setitem_ellipsis fstring
""".split())

WIDE_FEATURES = frozenset(["append_under_tensor_if"])  # only with Config(wide=True)

# Squashing wrappers for values carried around loops.
BOUND = ("paddle.tanh({})", "paddle.clip({}, -2.0, 2.0)", "F.sigmoid({})", "paddle.sin({})")
UNARY = ("paddle.tanh({0})", "paddle.sin({0})", "paddle.cos({0})", "F.sigmoid({0})",
         "paddle.abs({0})", "F.relu({0})", "{0}.tanh()", "paddle.clip({0}, -1.5, 1.5)",
         "paddle.exp(paddle.tanh({0}))", "paddle.log(1.0 + {0} * {0})",
         "paddle.sqrt({0} * {0} + 0.5)", "(-{0})", "F.softplus({0})", "paddle.square(paddle.tanh({0}))")
BINARY = ("({0} + {1})", "({0} - {1})", "({0} * {1})", "paddle.maximum({0}, {1})",
          "paddle.minimum({0}, {1})", "paddle.add({0}, {1})", "paddle.multiply({0}, {1})",
          "({0} / (1.0 + paddle.abs({1})))", "paddle.subtract({0}, {1})")
SCALAR = ("({0} * 0.5)", "({0} + 1.0)", "(2.0 - {0})", "({0} / 4.0)", "(0.7 * {0})",
          "({0} ** 2)", "paddle.scale({0}, scale=0.5, bias=0.1)", "({0} - 0.3)")
REDUCE = ("{0}.sum()", "{0}.mean()", "paddle.max({0})", "paddle.min({0})", "paddle.sum({0})",
          "paddle.mean({0})", "{0}.max()")
# Vector matmuls (1-D operands, 0-d or 1-D results): the eager matmul_v2_grad of 1-D operands
# works since kernels/cpu/linalg.py handles them.
MATMUL_1D = True
# Defaults of the Config switches for constructs that hit known sampan bugs (each described
# where it is used): off in CI until the bug is fixed, on in `--flags` campaigns.
SETITEM_READ = True        # `t[1:] = t[1:] * 0.5`: a tensor read before an item write (G2, fixed)
INT_LEFT_GRAD = True       # `k * x` (int tensor on the left of a float one), in float results (G3, fixed)
SECOND_ORDER_P = 0.15      # share of programs with second-order gradients checked
# Ops without double-grad rules (eager or static) stay out of second-order programs.
NO_DOUBLE_GRAD = ("paddle.maximum", "paddle.minimum", "paddle.max(", "paddle.min(", ".max(")
CMP = (">", "<", ">=", "<=")
CONSTS = ("0.0", "0.0", "0.2", "-0.2", "0.5", "-0.5", "1.0")


@dataclass
class Config:
    max_stmts: int = 16        # statements per function, all blocks together
    max_depth: int = 3         # nesting of compound statements
    max_loop_depth: int = 2
    max_helpers: int = 2
    wide: bool = False         # also constructs beyond issue 4's contract (see `stmt_append`)
    setitem_read: bool = SETITEM_READ
    int_left_grad: bool = INT_LEFT_GRAD
    second_order_p: float = SECOND_ORDER_P


@dataclass
class Program:
    seed: int
    source: str
    shapes: list
    features: frozenset = field(default_factory=frozenset)
    second_order: bool = False   # the worker also compares second-order input gradients


@dataclass
class Ctx:
    """Where a statement is being generated."""
    rtypes: tuple              # the function's return types, e.g. ("T", "R")
    depth: int = 0
    loops: int = 0
    top: bool = True           # directly in the function body (new variables allowed)
    tensor_if: bool = False    # somewhere under an `if` on a tensor
    squash: bool = False       # returned values are squashed (helpers)

    def inner(self, loop=False, tensor_if=False):
        return Ctx(self.rtypes, self.depth + 1, self.loops + loop, False,
                   self.tensor_if or tensor_if, self.squash)


class Scope:
    """Visible variables and their types; a child scope's new names die with its block."""

    def __init__(self, types=None, frozen=None, rows=None):
        self.types = dict(types or {})
        self.frozen = set(frozen or ())   # readable, never assigned (loop targets, counters)
        self.rows = set(rows or ())       # int names known to be valid row indices

    def child(self):
        return Scope(self.types, self.frozen, self.rows)

    def of(self, kind, assignable=False):
        return [n for n, k in self.types.items()
                if k == kind and not (assignable and n in self.frozen)]


class Gen:
    def __init__(self, seed, cfg):
        self.rng = random.Random(seed)
        self.cfg = cfg
        self.feat = set()
        self.next_id = {}
        self.shape = list(self.rng.choice(SHAPES))
        # Second-order programs: ops with double-grad rules, Python control flow only (the
        # static double grad of cond/while/set_value is not supported, as in Paddle).
        self.second_order = self.chance(cfg.second_order_p)
        self.helpers = []          # (name, arity, nparams) of helpers defined so far
        self.budget = 0

    # -- small utilities ------------------------------------------------------------------
    def fresh(self, prefix):
        n = self.next_id.get(prefix, 0)
        self.next_id[prefix] = n + 1
        return "%s%d" % (prefix, n)

    def pick(self, seq):
        return self.rng.choice(list(seq))

    def chance(self, p):
        return self.rng.random() < p

    def ops(self, table):
        """`table` less the ops without double-grad rules in a second-order program."""
        if not self.second_order:
            return table
        return tuple(t for t in table if not any(b in t for b in NO_DOUBLE_GRAD))

    def weighted(self, table):
        items = [(k, w) for k, w in table if w > 0]
        total = sum(w for _, w in items)
        r = self.rng.random() * total
        for k, w in items:
            r -= w
            if r <= 0:
                return k
        return items[-1][0]

    # -- expressions ------------------------------------------------------------------------
    def expr_T(self, sc, ctx, d=2):
        if d <= 0 or self.chance(0.25):
            return self.leaf_T(sc)
        rows, ints = sc.of("W"), sc.of("I")
        lists = sc.of("L") if ctx.loops == 0 else []
        smooth = self.second_order
        kind = self.weighted([
            ("unary", 4), ("binary", 4), ("scalar", 2.5), ("bcast_R", 1.5), ("keepdim", 1),
            ("matmul", 1), ("where", 0 if smooth else 1), ("cumsum", 0 if smooth else 0.5),
            ("flip", 0.4), ("concat", 0.5),
            ("stack2", 0.4), ("row", 2 if rows else 0), ("float_int", 1 if ints else 0),
            ("row_index", 1.5 if sc.rows else 0), ("helper", 1.2 if self.helpers else 0),
            ("list", 1.5 if lists else 0), ("int_mix", 2 if ints or sc.of("J") else 0),
            ("shape_mix", 0.7), ("vecmat", 0.6 if MATMUL_1D and len(self.shape) == 2 else 0),
            ("cond_expr", 0 if smooth else 0.5), ("comprehension", 0.5), ("lambda_dict", 0.4),
            ("getitem_step", 0 if smooth else 0.6)])
        sub = lambda: self.expr_T(sc, ctx, d - 1)  # noqa: E731
        if kind == "unary":
            return self.pick(UNARY).format(sub())
        if kind == "binary":
            return self.pick(self.ops(BINARY)).format(sub(), sub())
        if kind == "scalar":
            return self.pick(SCALAR).format(sub())
        if kind == "bcast_R":
            return "(%s %s %s)" % (sub(), self.pick("*+-"), self.expr_R(sc, ctx, d - 1))
        if kind == "keepdim":
            self.feat.add("reduction")
            red = self.pick(("mean", "sum") if smooth else ("mean", "sum", "max", "min"))
            return "({0} - paddle.{1}({0}, axis=-1, keepdim=True))".format(self.leaf_T(sc), red)
        if kind == "matmul":
            self.feat.add("matmul")
            return self.matmul_T(sc, ctx, d)
        if kind == "where":
            self.feat.add("where")
            test = "%s > %s" % (self.leaf_T(sc), self.pick((self.leaf_T(sc), "0.0", "0.3")))
            return "paddle.where(%s, %s, %s)" % (test, sub(), sub())
        if kind == "cumsum":
            self.feat.add("cumsum")
            return "(paddle.cumsum(%s, axis=-1) * 0.3)" % sub()
        if kind == "flip":
            return "paddle.flip(%s, axis=[0])" % sub()
        if kind == "concat":
            self.feat.add("concat_slice")
            n = self.shape[0]
            return "paddle.concat([%s, %s], axis=0)[%s]" % (
                sub(), sub(), self.pick((":%d" % n, "%d:" % n)))
        if kind == "stack2":
            return "paddle.stack([%s, %s], axis=0).%s(axis=0)" % (
                sub(), sub(), self.pick(("sum", "mean") if smooth else ("sum", "mean", "max")))
        if kind == "row":
            return "(%s %s %s)" % (sub(), self.pick("*+-"), self.pick(rows))
        if kind == "float_int":
            self.feat.add("float_cast")
            return "(%s * (0.1 * float(%s)))" % (sub(), self.pick(ints))
        if kind == "row_index":
            self.feat.add("row_index")
            return "(%s + %s[%s])" % (sub(), self.leaf_T(sc), self.pick(sc.rows))
        if kind == "int_mix":
            return self.int_mix_T(sub(), sc)
        if kind == "shape_mix":
            return self.shape_mix_T(sub(), sc)
        if kind == "vecmat":
            return self.vecmat_T(sub(), sc, ctx, d)
        if kind == "helper":
            name, arity, nparams = self.pick(self.helpers)
            args = [sub() for _ in range(nparams)]
            if name.startswith("h") and self.chance(0.3):
                self.feat.add("helper_kwargs")
                args = ["%s=%s" % kv for kv in reversed(list(zip(HELPER_PARAMS, args)))]
            call = "%s(%s)" % (name, ", ".join(args))
            return call if arity == 1 else "%s[%d]" % (call, self.rng.randrange(arity))
        if kind in ("cond_expr", "comprehension", "lambda_dict", "getitem_step"):
            return self.python_expr_T(kind, sub, sc, ctx)
        self.feat.add("list_stack")
        lst = self.pick(lists)
        return self.pick(("paddle.stack({0}).mean(axis=0)", "paddle.stack({0}, axis=0).sum(axis=0)",
                          "{0}[-1]", "{0}[0]", "(paddle.add_n({0}) * 0.5)")).format(lst)

    def python_expr_T(self, kind, sub, sc, ctx):
        """T expressions in the Python of real model code: a conditional expression on a
        tensor condition, comprehensions and generator expressions over Python values, a
        lambda applied to a dict, shape-keeping subscripts with steps, None and Ellipsis."""
        self.feat.add(kind if kind != "lambda_dict" else "lambda")
        if kind == "cond_expr":
            return "(%s if %s else %s)" % (sub(), self.cond(sc, ctx, True), sub())
        if kind == "comprehension":
            q = self.fresh("q")
            ws = ", ".join(self.pick(CONSTS[2:]) for _ in range(self.rng.randint(1, 3)))
            return self.pick(("paddle.add_n([{0} * {1} for {1} in ({2},)])",
                              "sum({0} * {1} for {1} in ({2},))",
                              "paddle.stack([{0} + {1} for {1} in ({2},)]).mean(axis=0)")).format(
                sub(), q, ws)
        if kind == "lambda_dict":
            self.feat.add("dict")
            a, b = sub(), sub()
            if self.chance(0.5):
                return "(lambda d: d['a'] * 0.5 + d['b'])({'a': %s, 'b': %s})" % (a, b)
            return "{'p': %s, 'q': %s}[%r]" % (a, b, self.pick(("p", "q")))
        two_d = len(self.shape) == 2
        forms = ["{0}[::-1]", "{0}[...]", "{0}[None][0]", "{0}[::-1][::-1]"]
        if two_d:
            forms += ["{0}[:, ::-1]", "{0}[..., ::-1]", "{0}[:, None][:, 0]", "{0}[::-1, :]"]
        return self.pick(forms).format("(%s)" % sub())

    def int_mix_T(self, e, sc):
        """A float T from `e` and an int of the scope: a loop index, counter or int tensor.
        Float on the left, except `i * 0.25 * e`-style forms (an int on the left of a Python
        float gives a float, rule 1 of tensor/operators.py)."""
        i = self.pick(sc.of("I") + sc.of("J"))
        r = self.rng.random()
        if r < 0.15:
            self.feat.add("int_idx_tensor")
            return "(%s * (paddle.full([1], 0, dtype='int64') + %s))" % (e, i)
        if r < 0.35:
            self.feat.add("int_left")
            return self.pick(("(%s * 0.25 * %s)", "((%s + 1) / 4 * %s)")) % (i, e)
        self.feat.add("int_loop_arith")
        return self.pick(("(%s * %s)", "(%s / (%s + 1))", "(%s * (%s - 1) * 0.5)",
                          "(%s + 0.1 * %s)")) % (e, i)

    def shape_mix_T(self, e, sc):
        """`paddle.shape(x)` (an int32 tensor) and `x.shape` (Python ints) in float arithmetic."""
        x = self.leaf_T(sc, True)
        r = self.rng.random()
        if r < 0.3:
            self.feat.add("pshape_arith")
            return self.pick(("({0} * paddle.shape({1})[0])", "({0} / paddle.shape({1})[-1])",
                              "({0} * (paddle.shape({1})[0] - 1) / 3)")).format(e, x)
        if r < 0.5:
            self.feat.add("shape_mean")
            return self.pick(("({0} - paddle.sum({1}, axis=0) / paddle.shape({1})[0])",
                              "(paddle.sum({1}, axis=-1, keepdim=True) / paddle.shape({1})[-1] * {0})")
                             ).format(e, x)
        if r < 0.8:
            self.feat.add("xshape_arith")
            return self.pick(("({0} * {1}.shape[0])", "({0} / {1}.shape[-1])",
                              "({1}.shape[0] * 0.25 * {0})", "({0} * ({1}.shape[-1] - 1))")).format(e, x)
        self.feat.add("int_left")
        if self.cfg.int_left_grad:
            # an int32 product (x truncated): eager differentiates through the float->int cast,
            # static stops at the int variable (INT_LEFT_GRAD)
            return "({0} + paddle.shape({1})[0] * {1})".format(e, x)
        return self.pick(("(paddle.shape({1})[0] / 4 * {0})",
                          "((paddle.shape({1})[-1] + 1) * 0.2 * {0})")).format(e, x)

    def row_expr(self, sc):
        """A vector of shape S[1:] (2-D programs): a row, an index with a loop index, a column mean."""
        x = self.leaf_T(sc, True)
        opts = [("%s[0]" % x, 2), ("%s[-1]" % x, 1), ("%s[%d]" % (x, self.rng.randrange(self.shape[0])), 1),
                ("%s.mean(axis=0)" % x, 1), ("shape_mean", 0.6),
                ("W", 2 if sc.of("W") else 0), ("rows", 1.5 if sc.rows else 0)]
        kind = self.weighted(opts)
        if kind == "shape_mean":
            self.feat.add("shape_mean")
            return "(paddle.sum(%s, axis=0) / paddle.shape(%s)[0])" % (x, x)
        if kind == "W":
            return self.pick(sc.of("W"))
        if kind == "rows":
            self.feat.add("row_index")
            return "%s[%s]" % (x, self.pick(sc.rows))
        return kind

    def vecmat_T(self, e, sc, ctx, d):
        """Vector-matrix products on rows of a 2-D program (1-D or 0-d results)."""
        self.feat.update(("matmul", "matmul_1d"))
        v = self.row_expr(sc)
        m, m2 = self.expr_T(sc, ctx, d - 1), self.leaf_T(sc)
        a, b = self.shape
        if self.chance(0.25):
            return "(%s * paddle.matmul(%s, %s) * 0.2)" % (e, v, self.row_expr(sc))
        if a == b:
            return self.pick(("({0} + ({1} @ {2}) * 0.2)", "({0} + paddle.matmul({2}, {1}) * 0.2)",
                              "({0} * paddle.matmul({1}, {2}, transpose_y=True) * 0.2)",
                              "({0} - {2} @ {1} * 0.2)")).format(e, v, m)
        return self.pick(("({0} + {2}.T @ ({3} @ {1}) * 0.1)", "({0} * ({1} @ {2}.T @ {3}) * 0.1)",
                          "({0} + paddle.matmul(paddle.matmul({2}, {1}), {3}) * 0.1)")).format(e, v, m, m2)

    def leaf_T(self, sc, var_only=False):
        ts = sc.of("T")
        if not var_only and self.chance(0.02):
            return "paddle.full(%s, %s)" % (self.shape, self.pick(("0.5", "-0.25", "1.0")))
        return self.pick(ts)

    def matmul_T(self, sc, ctx, d):
        a, b, c = (self.expr_T(sc, ctx, d - 1) for _ in range(3))
        if len(self.shape) == 1:
            if not MATMUL_1D:
                return "(%s * (%s * %s).sum() * 0.3)" % (a, b, c)
            self.feat.add("matmul_1d")
            return self.pick(("(%s * paddle.matmul(%s, %s) * 0.3)", "(%s * (%s @ %s) * 0.3)")) % (a, b, c)
        if self.shape[0] == self.shape[1]:
            return self.pick(("(paddle.matmul({0}, {1}) * 0.3)", "(({0} @ {1}) * 0.3)")).format(a, b)
        return self.pick(("(paddle.matmul(paddle.matmul({0}, {1}, transpose_y=True), {2}) * 0.2)",
                          "(({0} @ {1}.T @ {2}) * 0.2)")).format(a, b, c)

    def expr_R(self, sc, ctx, d=1):
        rs = sc.of("R")
        if rs and self.chance(0.3):
            return self.pick(rs)
        self.feat.add("reduction")
        ints = [i for i in sc.of("I")]
        kind = self.weighted([("reduce", 5), ("dot", 1.3), ("tanh", 1), ("row", 1 if sc.of("W") else 0),
                              ("shape", 0.6), ("int", 0.8 if ints and rs else 0)])
        if kind == "dot":
            if MATMUL_1D and (len(self.shape) == 1 or self.chance(0.6)):
                self.feat.update(("matmul", "matmul_1d"))
                if len(self.shape) == 1:
                    a, b = self.leaf_T(sc), self.leaf_T(sc)
                else:
                    a, b = self.row_expr(sc), self.row_expr(sc)
                return self.pick(("(paddle.matmul(%s, %s) * 0.3)", "(%s @ %s * 0.3)")) % (a, b)
            return "(%s * %s).mean()" % (self.leaf_T(sc), self.leaf_T(sc))
        if kind == "shape":
            x = self.leaf_T(sc, True)
            if self.chance(0.5):
                self.feat.add("shape_mean")
                return "(paddle.sum(%s) / paddle.shape(%s)[0])" % (x, x)
            self.feat.add("xshape_arith")
            return "(%s.sum() / %s.shape[-1])" % (x, x)
        if kind == "int":
            self.feat.add("int_loop_arith")
            return self.pick(("(%s * %s * 0.5)", "(%s / (%s + 1))")) % (self.pick(rs), self.pick(ints))
        if kind == "tanh" and rs:
            return "paddle.tanh(%s + %s)" % (self.pick(rs), self.pick(self.ops(REDUCE)).format(self.leaf_T(sc)))
        if kind == "row":
            return "%s.sum()" % self.pick(sc.of("W"))
        inner = self.expr_T(sc, ctx, d - 1) if d > 0 and self.chance(0.5) else self.leaf_T(sc)
        return self.pick(self.ops(REDUCE)).format(inner)

    def tensor_atom(self, sc, ctx):
        r = self.rng.random()
        if r < 0.12:
            return self.int_atom(sc, ctx)
        if r < 0.55:
            return "%s %s %s" % (self.expr_R(sc, ctx), self.pick(CMP), self.pick(CONSTS))
        if r < 0.8:
            return "%s %s %s" % (self.expr_R(sc, ctx), self.pick(CMP), self.expr_R(sc, ctx))
        if r < 0.9:
            return "paddle.any(%s > %s)" % (self.leaf_T(sc, True), self.pick(("0.8", "1.0", "0.5")))
        return "paddle.all(%s > %s)" % (self.leaf_T(sc, True), self.pick(("-0.8", "-1.0", "0.0")))

    def int_atom(self, sc, ctx):
        """Tensor conditions over ints: `paddle.shape` (int32) against int64 counters or
        Python ints, int products (an int on the left of a float: an int result, harmless in a
        condition), `x.shape` times a scalar."""
        x = self.leaf_T(sc, True)
        ints = sc.of("I")
        r = self.rng.random()
        if r < 0.45:
            self.feat.add("pshape_cmp")
            if ints and self.chance(0.6):
                i = self.pick(ints)
                return self.pick(("%s < paddle.shape(%s)[0]" % (i, x),
                                  "paddle.shape(%s)[-1] >= %s" % (x, i)))
            return "paddle.shape(%s)[0] %s %d" % (x, self.pick(CMP), self.rng.randint(1, 3))
        if r < 0.75:
            self.feat.add("int_left")
            return self.pick(("(paddle.shape({0})[-1] * {1}) {2} {3}",
                              "(paddle.shape({0})[0] * {0}).sum() {2} {3}")).format(
                x, self.expr_R(sc, ctx), self.pick(CMP), self.pick(CONSTS))
        self.feat.add("xshape_arith")
        return "%s.shape[0] * %s %s %s" % (x, self.expr_R(sc, ctx), self.pick(CMP), self.pick(CONSTS))

    def python_atom(self, sc, ctx):
        ints = sc.of("I")
        lists = sc.of("L") if ctx.loops == 0 else []
        opts = ["%s.shape[0] %s %d" % (self.leaf_T(sc, True), self.pick(CMP), self.rng.randint(1, 4)),
                "len(%s.shape) == %d" % (self.leaf_T(sc, True), self.rng.randint(1, 2)),
                "len(%s) %s %d" % (self.leaf_T(sc, True), self.pick(CMP), self.rng.randint(1, 4))]
        if ints:
            opts += ["%s %s %d" % (self.pick(ints), self.pick(CMP), self.rng.randint(0, 3)),
                     "%s %% 2 == %d" % (self.pick(ints), self.rng.randint(0, 1))] * 2
        if lists:
            opts.append("len(%s) > %d" % (self.pick(lists), self.rng.randint(1, 3)))
        if self.chance(0.1):
            self.feat.add("isinstance")
            return "isinstance(%s, paddle.Tensor)" % self.leaf_T(sc, True)
        return self.pick(opts)

    def cond(self, sc, ctx, tensor=True):
        """A condition: tensor-valued when `tensor`, else Python-valued (the static program is
        specialised on it). Composite conditions exercise and/or/not."""
        atom = (lambda: self.tensor_atom(sc, ctx)) if tensor else (lambda: self.python_atom(sc, ctx))
        r = self.rng.random()
        if r < 0.5:
            return atom()
        if r < 0.65:
            self.feat.add("not")
            return "not (%s)" % atom()
        op = "and" if r < 0.85 else "or"
        self.feat.add(op)
        other = atom()
        if tensor and self.chance(0.3):
            self.feat.add("mixed_cond")
            other = self.python_atom(sc, ctx)
        a, b = atom(), other
        if self.chance(0.5):
            a, b = b, a
        if self.chance(0.2):
            self.feat.add("not")
            b = "not %s" % b
        return "%s %s %s" % (a, op, b)

    def ret_expr(self, sc, ctx):
        parts = [self.expr_T(sc, ctx) if t == "T" else self.expr_R(sc, ctx) for t in ctx.rtypes]
        if ctx.squash:  # helpers' results may be fed back through loops: keep them bounded
            parts = [self.pick(BOUND).format(p) for p in parts]
        if len(parts) > 1:
            self.feat.add("return_tuple")
            return ", ".join(parts) if self.chance(0.7) else "(%s)" % ", ".join(parts)
        return parts[0]

    # -- statements ---------------------------------------------------------------------------
    def block(self, ctx, sc, n):
        """A list of source lines (without indentation of the block itself)."""
        lines = []
        for _ in range(n):
            if self.budget <= 0:
                break
            stmt, terminal = self.stmt(ctx, sc)
            lines += stmt
            if terminal:
                break
        return lines or ["pass"]

    def stmt(self, ctx, sc):
        self.budget -= 1
        can_nest = ctx.depth < self.cfg.max_depth and self.budget > 1
        can_loop = can_nest and ctx.loops < self.cfg.max_loop_depth
        in_loop = ctx.loops > 0
        append_ok = in_loop and sc.of("L") and (not ctx.tensor_if or self.cfg.wide)
        kind = self.weighted([
            ("assign", 4), ("aug", 2), ("new", 3.5 if ctx.top else 0), ("accumulate", 0.8 if ctx.top and can_loop else 0),
            ("temp", 0 if ctx.top else 0.8), ("upd_R", 1.5 if sc.of("R") else 0),
            ("upd_I", 1 if sc.of("I", assignable=True) else 0), ("append", 5 if append_ok else 0),
            ("if", 3.5 if can_nest else 0), ("while", 1.6 if can_loop else 0),
            ("for", 2.6 if can_loop else 0), ("break", 0.8 if in_loop else 0),
            ("continue", 0.6 if in_loop else 0), ("return", 0.7 if ctx.depth > 0 else 0.3),
            ("helper_call", 0.8 if [h for h in self.helpers if h[1] == 2] else 0),
            ("assert", 0.3), ("mutable", 0 if self.second_order else 0.9 if ctx.top else 0.3),
            ("tuple_assign", 0.6 if len(sc.of("T", assignable=True)) > 1 else 0),
            ("no_grad", 0.35 if ctx.top and not self.second_order else 0)])
        out = getattr(self, "stmt_" + kind)(ctx, sc)
        return out if isinstance(out, tuple) else (out, False)

    def stmt_assign(self, ctx, sc):
        self.feat.add("assign")
        target = self.target(ctx, sc)
        value = self.expr_T(sc, ctx)
        if ctx.loops:
            value = self.pick(BOUND).format(value)
            self.note_loop_write(sc, target)
        return ["%s = %s" % (target, value)]

    def stmt_aug(self, ctx, sc):
        self.feat.add("aug_assign")
        target = self.target(ctx, sc)
        if ctx.loops:
            self.note_loop_write(sc, target)
            return ["%s %s= 0.3 * paddle.tanh(%s)" % (target, self.pick("+-"), self.expr_T(sc, ctx))]
        return ["%s %s= %s" % (target, self.pick("+-*"), self.expr_T(sc, ctx, 1))]

    def stmt_tuple_assign(self, ctx, sc):
        """`a, b = e1, e2` (both sides evaluated before either name is bound), often a swap."""
        self.feat.add("tuple_assign")
        a, b = self.rng.sample(sc.of("T", assignable=True), 2)
        values = [b, a] if self.chance(0.4) else [self.expr_T(sc, ctx, 1), self.expr_T(sc, ctx, 1)]
        if ctx.loops:
            values = [self.pick(BOUND).format(v) for v in values]
            self.note_loop_write(sc, a)
            self.note_loop_write(sc, b)
        return ["%s, %s = %s, %s" % (a, b, *values)]

    def stmt_no_grad(self, ctx, sc):
        """A new variable computed under `paddle.no_grad()`: no gradient flows through it."""
        self.feat.add("no_grad")
        name = self.fresh("v")
        line = "    %s = %s" % (name, self.expr_T(sc, ctx))
        sc.types[name] = "T"
        return ["with paddle.no_grad():", line]

    def target(self, ctx, sc):
        ts = sc.of("T", assignable=True)
        aliases = [t for t in ts if t.startswith("g")]
        if ctx.loops and aliases and self.chance(0.5):
            return self.pick(aliases)  # an alias updated in a loop must not touch its origin
        return self.pick(ts)

    def note_loop_write(self, sc, target):
        if target in PARAMS or target in HELPER_PARAMS:
            self.feat.add("arg_reassign_in_loop")
        elif target.startswith("g"):
            self.feat.add("alias_in_loop")

    def stmt_new(self, ctx, sc):
        kind = self.weighted([("T", 3), ("alias", 1.8), ("R", 1.5), ("I", 1.2), ("L", 1.8),
                              ("star", 0.6)])
        if kind == "star":
            self.feat.add("star_unpack")
            head, rest = self.fresh("v"), self.fresh("lst")
            items = ", ".join(self.expr_T(sc, ctx, 1) for _ in range(self.rng.randint(2, 3)))
            sc.types.update({head: "T", rest: "L"})
            return ["%s, *%s = [%s]" % (head, rest, items)]
        if kind == "alias":
            self.feat.add("alias")
            name = self.fresh("g")
            line = "%s = %s" % (name, self.pick(sc.of("T")))
            sc.types[name] = "T"
        elif kind == "T":
            self.feat.add("new_var")
            name = self.fresh("v")
            line = "%s = %s" % (name, self.expr_T(sc, ctx))
            sc.types[name] = "T"
        elif kind == "R":
            self.feat.add("scalar_var")
            name = self.fresh("s")
            line = "%s = %s" % (name, self.expr_R(sc, ctx))
            sc.types[name] = "R"
        elif kind == "I":
            name = self.fresh("k")
            if self.chance(0.3) and not self.second_order:
                self.feat.add("int_tensor_counter")
                line = "%s = paddle.full([], %d, dtype='int64')" % (name, self.rng.randint(0, 2))
            else:
                self.feat.add("int_counter")
                line = "%s = %d" % (name, self.rng.randint(0, 2))
            sc.types[name] = "I"
        else:
            self.feat.add("list_var")
            name = self.fresh("lst")
            line = "%s = [%s]" % (name, self.expr_T(sc, ctx, 1))
            sc.types[name] = "L"
        return [line]

    def stmt_assert(self, ctx, sc):
        """Asserts that hold on every input (a failing one would be an eager error)."""
        self.feat.add("assert")
        v = self.leaf_T(sc, True)
        line = "assert " + self.pick((
            "len(%s.shape) == %d" % (v, len(self.shape)),
            "%s.shape[-1] == %d" % (v, self.shape[-1]),
            "paddle.all(paddle.abs(paddle.tanh(%s)) <= 1.0)" % v,
            "%s.sum() == %s.sum(), 'sum is not deterministic'" % (v, v),
            "%s.shape[-1] == %d, f'last dimension {%s.shape[-1]} of {len(%s.shape)}'"
            % (v, self.shape[-1], v, v)))
        if "f'" in line:
            self.feat.add("fstring")
        return [line]

    def closure(self, params):
        """A function nested in f that reads f's parameters at call time (late binding: f may
        reassign them before calling it)."""
        name = self.fresh("inner")
        saved = self.budget
        self.budget = self.rng.randint(1, 3)
        sc = Scope({"a": "T", **{p: "T" for p in params}}, frozen=params)
        ctx = Ctx(("T",), squash=True)
        body = [b for b in self.block(ctx, sc, self.rng.randint(1, 2)) if b != "pass"]
        outer = self.pick(params)
        body.append("return %s" % self.pick(BOUND).format("a * 0.5 + %s" % outer))
        self.budget = saved
        self.feat.add("closure")
        self.helpers.append((name, 1, 1))
        return ["def %s(a):" % name] + indent(body)

    def stmt_temp(self, ctx, sc):
        self.feat.add("temp")
        name = self.fresh("t")
        line = "%s = %s" % (name, self.expr_T(sc, ctx))
        sc.types[name] = "T"
        sc.frozen.add(name)  # its value is only read: a fresh binding per block
        return [line]

    # -- item assignment -----------------------------------------------------------------------
    def stmt_mutable(self, ctx, sc):
        """A copy (`paddle.assign` / `.clone()`, so the inputs stay untouched) written by item
        assignment right after it is made: plainly, in a loop over its rows, under a tensor
        `if`; then an ordinary T (inside a block: a temporary of the block).

        While it is being written the copy is not readable (unless `setitem_read`): eager
        sampan routes the gradient of an op that read a tensor before an item write into it
        through the write (tensor/indexing.py `inplace`), so `t[1:] = t[1:] * 0.5` loses the
        gradient eagerly."""
        name = self.fresh("m")
        src = self.leaf_T(sc, True)
        if self.chance(0.5):
            self.feat.add("setitem_clone")
            lines = ["%s = %s.clone()" % (name, src)]
        else:
            self.feat.add("setitem_assign")
            lines = ["%s = paddle.assign(%s)" % (name, src)]
        if not ctx.top:
            self.feat.add("setitem_in_block")
        wsc = sc.child()
        for _ in range(self.rng.randint(1, 3)):
            self.budget -= 1
            kind = self.weighted([("plain", 3), ("loop", 1.5 if ctx.loops < self.cfg.max_loop_depth else 0),
                                  ("if", 1.3)])
            if kind == "plain":
                lines.append(self.setitem(name, wsc, ctx))
            elif kind == "loop":
                lines += self.setitem_loop(name, wsc, ctx)
            else:
                lines += self.setitem_if(name, wsc, ctx)
        sc.types[name] = "T"
        if not ctx.top:
            sc.frozen.add(name)
        return lines

    def setitem(self, m, sc, ctx, idx=None):
        """One `m[index] = value` line; values are squashed (they may be written repeatedly)."""
        self.feat.add("setitem")
        n0, two_d = self.shape[0], len(self.shape) == 2
        read = self.cfg.setitem_read
        src = m if read and self.chance(0.4) else self.leaf_T(sc, True)
        bound = lambda v: self.pick(BOUND).format(v)  # noqa: E731
        kind = self.weighted([("item", 4 if idx else 3), ("slice", 2), ("col", 2 if two_d else 0),
                              ("scalar", 1), ("mask", 0.8), ("ellipsis", 0.6)])
        if kind == "mask":
            self.feat.add("setitem_mask")
            return "%s[%s %s %s] = %s" % (m, self.leaf_T(sc, True), self.pick(CMP), self.pick(CONSTS),
                                          self.pick(("0.0", "0.5", "-0.25")))
        if kind == "ellipsis":
            self.feat.add("setitem_ellipsis")
            if two_d:
                return "%s[..., %d] = %s" % (m, self.rng.randrange(self.shape[1]),
                                             bound(self.expr_R(sc, ctx)))
            return "%s[...] = %s" % (m, bound(self.expr_T(sc, ctx, 1)))
        if kind == "item":
            if idx is None and sc.rows and self.chance(0.4):
                idx = self.pick(sc.rows)
            index = idx if idx is not None else str(self.rng.randrange(-n0, n0))
            if two_d:
                value = self.pick((lambda: self.row_expr(sc), lambda: self.expr_R(sc, ctx),
                                   lambda: "%s[%s] + %s" % (src, index, self.row_expr(sc))))()
            else:
                value = self.pick((lambda: self.expr_R(sc, ctx), lambda: "%s[%s] * 2.0" % (src, index)))()
            return "%s[%s] = %s" % (m, index, bound(value))
        if kind == "slice":
            self.feat.add("setitem_slice")
            a = self.rng.randint(1, n0 - 1)
            sl = self.pick(("%d:" % a, ":%d" % a))
            value = self.pick(("{0}[{1}] * 0.5", "paddle.tanh({0}[{1}] + {2}[{1}])")).format(
                src, sl, self.leaf_T(sc, True))
            return "%s[%s] = %s" % (m, sl, value)
        if kind == "col":
            self.feat.add("setitem_col")
            b = self.shape[1]
            j = self.rng.randrange(-b, b)
            value = self.pick((lambda: "%.1f" % self.pick((0.0, 0.5, -1.0)),
                               lambda: bound(self.expr_R(sc, ctx)),
                               lambda: "%s[:, %d] * 0.5" % (src, self.rng.randrange(b))))()
            return "%s[:, %d] = %s" % (m, j, value)
        self.feat.add("setitem_scalar")
        index = self.pick((str(self.rng.randrange(n0)), "%d:" % self.rng.randint(1, n0 - 1), "-1"))
        return "%s[%s] = %s" % (m, index, self.pick(("0.0", "0.5", "-0.25", "1.0")))

    def setitem_loop(self, m, sc, ctx):
        """Writes in a loop over (some of) the copy's rows."""
        self.feat.add("setitem_loop")
        child = sc.child()
        inner = ctx.inner(loop=True)
        x, n0 = self.leaf_T(sc, True), self.shape[0]
        i = self.fresh("i")
        r = self.rng.random()
        if r < 0.2:
            row = self.fresh("r")
            head = "for %s, %s in enumerate(%s):" % (i, row, x)
            child.types[row] = "W"
            child.frozen.add(row)
        else:
            if r < 0.45:
                it = "range(%d)" % self.rng.randint(1, n0)
            elif r < 0.7:
                self.feat.add("for_range_pshape")
                it = self.pick(("range(paddle.shape(%s)[0])", "range(1, paddle.shape(%s)[0])")) % x
            elif r < 0.85:
                it = "range(paddle.full([], %d, dtype='int64'))" % self.rng.randint(1, n0)
            else:
                it = "range(1, %s.shape[0])" % x
            head = "for %s in %s:" % (i, it)
        child.types[i] = "I"
        child.rows.add(i)
        child.frozen.add(i)
        body = [self.setitem(m, child, inner, idx=i if self.chance(0.8) else None)
                for _ in range(self.rng.randint(1, 2))]
        return [head] + indent(body)

    def setitem_if(self, m, sc, ctx):
        """Writes under a tensor `if` (the copy is then an output of the cond)."""
        self.feat.update(("setitem_tensor_if", "if_tensor"))
        inner = ctx.inner(tensor_if=True)
        lines = ["if %s:" % self.cond(sc, ctx, True)]
        lines += indent([self.setitem(m, sc, inner) for _ in range(self.rng.randint(1, 2))])
        if self.chance(0.5):
            self.feat.add("else")
            lines += ["else:"] + indent([self.setitem(m, sc, inner)])
        return lines

    def stmt_upd_R(self, ctx, sc):
        target = self.pick(sc.of("R", assignable=True) or sc.of("R"))
        if ctx.loops:
            return ["%s = paddle.tanh(%s + %s)" % (target, target, self.expr_R(sc, ctx))]
        return ["%s = %s * 0.5 + %s" % (target, target, self.expr_R(sc, ctx))]

    def stmt_upd_I(self, ctx, sc):
        return ["%s += %d" % (self.pick(sc.of("I", assignable=True)), self.rng.randint(1, 2))]

    def stmt_append(self, ctx, sc, name=None):
        # Appending under a tensor `if` makes the list's length data-dependent, which a static
        # program cannot express with a Python list; only `wide` campaigns generate it.
        self.feat.add("list_append")
        if ctx.tensor_if:
            self.feat.add("append_under_tensor_if")
        return ["%s.append(%s)" % (name or self.pick(sc.of("L")), self.expr_T(sc, ctx, 1))]

    def stmt_helper_call(self, ctx, sc):
        self.feat.add("helper_tuple")
        name, _, nparams = self.pick([h for h in self.helpers if h[1] == 2])
        ts = sc.of("T", assignable=True)
        a = self.pick(ts)
        b = self.pick([t for t in ts if t != a] or ts)
        args = ", ".join(self.expr_T(sc, ctx, 1) for _ in range(nparams))
        return ["%s, %s = %s(%s)" % (a, b, name, args)]

    def terminator(self, ctx, sc):
        """Maybe end an `if` body with return/break/continue."""
        opts = []
        if ctx.loops:
            opts += [("break", 1), ("continue", 0.7)]
        opts += [("return", 0.8), ("none", 3)]
        kind = self.weighted(opts)
        if kind == "none":
            return []
        self.feat.add("return_early" if kind == "return" else kind)
        if kind == "return":
            if ctx.loops:
                self.feat.add("return_in_loop")
            return ["return %s" % self.ret_expr(sc, ctx)]
        return [kind]

    def stmt_if(self, ctx, sc):
        tensor = self.chance(0.72) and not self.second_order
        self.feat.add("if_tensor" if tensor else "if_python")
        lines = ["if %s:" % self.cond(sc, ctx, tensor)]
        arms = [self.arm(ctx, sc, tensor)]
        while self.chance(0.22) and self.budget > 0:
            self.feat.add("elif")
            t = self.chance(0.72) and not self.second_order if tensor else False
            lines_ = "elif %s:" % self.cond(sc, ctx, t)
            arms.append((lines_, self.arm(ctx, sc, tensor or t)))
        if self.chance(0.5) and self.budget > 0:
            self.feat.add("else")
            arms.append(("else:", self.arm(ctx, sc, tensor)))
        lines += indent(arms[0])
        for head, body in arms[1:]:
            lines.append(head)
            lines += indent(body)
        return lines

    def arm(self, ctx, sc, tensor):
        inner = ctx.inner(tensor_if=tensor)
        child = sc.child()
        body = self.block(inner, child, self.rng.randint(1, 3))
        if body == ["pass"] or body[-1] in ("break", "continue") or body[-1].startswith("return"):
            return body
        return body + self.terminator(inner, child)

    def stmt_accumulate(self, ctx, sc):
        """The common user pattern: a list seeded before a loop, appended in it, stacked after."""
        self.feat.add("list_var")
        name = self.fresh("lst")
        lines = ["%s = [%s]" % (name, self.expr_T(sc, ctx, 1))]
        sc.types[name] = "L"

        def prelude(inner, child):
            return self.stmt_append(inner, child, name)
        loop = self.stmt_for if self.chance(0.6) else self.stmt_while
        lines += loop(ctx, sc, prelude)
        self.feat.add("list_stack")
        red = self.pick(self.ops(("paddle.stack({0}).mean(axis=0)", "paddle.stack({0}, axis=0).sum(axis=0) * 0.5",
                                  "paddle.stack({0}, axis=1).max(axis=1)", "paddle.add_n({0})", "{0}[-1]")))
        return lines + ["%s = %s" % (self.pick(sc.of("T", assignable=True)), red.format(name))]

    def stmt_while(self, ctx, sc, prelude=None):
        c = self.fresh("c")
        n = self.rng.randint(1, 4)
        if self.chance(0.35) and not self.second_order:
            self.feat.add("int_tensor_counter")
            init = "%s = paddle.full([], 0, dtype='int64')" % c
        else:
            init = "%s = 0" % c
        child = sc.child()
        inner = ctx.inner(loop=True)
        cond = lambda: self.cond(child, ctx, tensor=True)  # noqa: E731  (features only when used)
        shape_bound = not self.second_order and self.chance(0.25)
        if shape_bound:
            # `while i < n` with i an int64 tensor (or a Python int) and n = paddle.shape(x)[0],
            # an int32 tensor: a tensor loop of S[0] iterations at most
            self.feat.update(("while_tensor", "while_int64_int32"))
            if "paddle.full" not in init:
                init = "%s = paddle.full([], 0, dtype='int64')" % c if self.chance(0.7) else init
            bound = "%s < paddle.shape(%s)[0]" % (c, self.leaf_T(sc, True))
            r = self.rng.random()
            if r < 0.5:
                head = ["while %s:" % bound, "    %s += 1" % c]
            else:
                both = "%s and (%s)" % (bound, cond()) if r < 0.75 else "(%s) and %s" % (cond(), bound)
                head = ["while %s:" % both, "    %s += 1" % c]
        elif self.second_order or self.chance(0.15):
            # A loop on a Python counter: unrolled while tracing, unless the body turns the
            # counter into a tensor (an increment under a tensor `if`).
            self.feat.add("while_python")
            head = ["while %s < %d:" % (c, n), "    %s += 1" % c]
        elif self.chance(0.3):
            self.feat.update(("while_tensor", "while_break_bound"))
            head = ["while %s:" % cond(), "    %s += 1" % c, "    if %s > %d:" % (c, n), "        break"]
        else:
            bound = "%s < %d" % (c, n)
            self.feat.add("while_tensor")
            both = "%s and (%s)" % (bound, cond()) if self.chance(0.5) else "(%s) and %s" % (cond(), bound)
            head = ["while %s:" % both, "    %s += 1" % c]
        child.types[c] = "I"
        child.frozen.add(c)
        body = prelude(inner, child) if prelude else []
        body += self.block(inner, child, self.rng.randint(1, 4))
        return [init] + head + indent([b for b in body if b != "pass"] or ["pass"]) \
            + self.loop_else(ctx, sc)

    def stmt_for(self, ctx, sc, prelude=None):
        child = sc.child()
        inner = ctx.inner(loop=True)
        smooth = self.second_order  # Python loops only: they unroll while tracing
        kind = self.weighted([("range_int", 2), ("range_shape", 1.5), ("range_tensor", 0 if smooth else 1.5),
                              ("range_pshape", 0 if smooth else 1.2), ("enumerate", 0 if smooth else 1.2),
                              ("tensor", 0 if smooth else 1.2), ("list", 0.6)])
        self.feat.add("for_" + kind)
        s0 = self.shape[0]
        i = None
        if kind in ("range_int", "range_shape", "range_tensor", "range_pshape"):
            i = self.fresh("i")
            itype = "I"
            if kind == "range_pshape":
                x = self.leaf_T(sc, True)
                it = self.pick(("range(paddle.shape(%s)[0])" % x, "range(1, paddle.shape(%s)[0])" % x))
                safe = True
            elif kind == "range_tensor" and self.chance(0.3):
                # a 1-element int64 tensor: statically the index is [1]-shaped (J)
                self.feat.add("for_range_tensor1")
                it, safe, itype = "range(paddle.full([1], %d, dtype='int64'))" % self.rng.randint(1, s0), False, "J"
            elif kind == "range_int":
                n = self.rng.randint(1, 4)
                it = "range(%d)" % n if self.chance(0.8) else "range(1, %d)" % (n + 1)
                safe = n <= s0 and not it.startswith("range(1")
            elif kind == "range_shape":
                it, safe = "range(%s.shape[0])" % self.leaf_T(sc, True), True
            elif sc.of("I") and self.chance(0.25):
                self.feat.add("int_cast")
                it, safe = "range(int(%s) %% %d)" % (self.pick(sc.of("I")), s0 + 1), True
            else:
                it, safe = self.pick((
                    "range(paddle.full([], %d, dtype='int64'))" % self.rng.randint(0, s0),
                    "range(paddle.clip(paddle.abs(%s).sum() * 1.5, 0.0, %.1f).astype('int64'))"
                    % (self.leaf_T(sc, True), s0))), True
            head = "for %s in %s:" % (i, it)
            child.types[i] = itype
            if safe:
                child.rows.add(i)
        elif kind == "enumerate":
            i, r = self.fresh("i"), self.fresh("r")
            head = "for %s, %s in enumerate(%s):" % (i, r, self.leaf_T(sc, True))
            child.types.update({i: "I", r: "W"})
            child.rows.add(i)
        elif kind == "tensor":
            r = self.fresh("r")
            head = "for %s in %s:" % (r, self.leaf_T(sc, True))
            child.types[r] = "W"
        else:
            e = self.fresh("e")
            ts = sc.of("T")
            head = "for %s in [%s]:" % (e, ", ".join(self.pick(ts) for _ in range(self.rng.randint(1, 3))))
            child.types[e] = "T"
            child.frozen.add(e)
        for name, k in child.types.items():
            if name not in sc.types and k in ("I", "W", "J"):
                child.frozen.add(name)
        body = prelude(inner, child) if prelude else []
        if i is not None and self.chance(0.4):
            body += self.index_accumulate(ctx, inner, child, i)
        body += self.block(inner, child, self.rng.randint(1, 4))
        return [head] + indent([b for b in body if b != "pass"] or ["pass"]) + self.loop_else(ctx, sc)

    def loop_else(self, ctx, sc):
        """Sometimes an `else:` after a loop: it runs when no `break` left the loop."""
        if not self.chance(0.15):
            return []
        self.feat.add("loop_else")
        return ["else:"] + indent(self.stmt_assign(ctx, sc))

    def index_accumulate(self, outer, ctx, sc, i):
        """The loop index in float arithmetic: `acc = acc + x * i`, `x / (i + 1)`, an int64
        `[1]` tensor built from it."""
        acc = self.target(ctx, sc)
        self.note_loop_write(sc, acc)
        x = self.leaf_T(sc)
        self.feat.add("int_loop_arith")
        forms = ["{0} = paddle.tanh({0} + {1} * {2})", "{0} = {0} * 0.5 + {1} / ({2} + 1)"]
        if outer.loops == 0:  # one loop level: the sum grows by at most S[0] * |x| * S[0]
            forms.append("{0} = {0} + {1} * {2}")
        lines = [self.pick(forms).format(acc, x, i)]
        if self.chance(0.3):
            self.feat.add("int_idx_tensor")
            idx = self.fresh("idx")
            lines = ["%s = paddle.full([1], 0, dtype='int64') + %s" % (idx, i),
                     "{0} = paddle.tanh({0} + {1} * {2})".format(acc, x, idx)]
            sc.types[idx] = "J"
            sc.frozen.add(idx)
        return lines

    def stmt_break(self, ctx, sc):
        return self.guarded(ctx, sc, "break")

    def stmt_continue(self, ctx, sc):
        return self.guarded(ctx, sc, "continue")

    def stmt_return(self, ctx, sc):
        self.feat.add("return_early")
        if ctx.loops:
            self.feat.add("return_in_loop")
        return self.guarded(ctx, sc, "return %s" % self.ret_expr(sc, ctx))

    def guarded(self, ctx, sc, what):
        """`if <cond>: what`, mostly on a tensor condition."""
        tensor = self.chance(0.8) and not self.second_order
        self.feat.add("if_tensor" if tensor else "if_python")
        if what in ("break", "continue"):
            self.feat.add(what)
        return ["if %s:" % self.cond(sc, ctx, tensor), "    " + what]

    # -- functions and programs -------------------------------------------------------------
    def function(self, name, params, rtypes, budget, squash=False):
        self.budget = budget
        sc = Scope({p: "T" for p in params})
        ctx = Ctx(tuple(rtypes), squash=squash)
        nested = self.closure(params) if name == "f" and self.chance(0.25) else []
        body = nested + self.block(ctx, sc, self.rng.randint(3, 7))
        body = [b for b in body if b != "pass"]
        body.append("return %s" % self.ret_expr(sc, ctx))
        return ["def %s(%s):" % (name, ", ".join(params))] + indent(body)


def indent(lines):
    return ["    " + line for line in lines]


def generate(seed, cfg=None):
    """The program for `seed` (the same text for the same seed and config)."""
    cfg = cfg or Config()
    g = Gen(seed, cfg)
    parts = []
    for j in range(g.rng.randint(0, cfg.max_helpers)):
        arity = g.pick((1, 1, 2))
        nparams = g.pick((1, 2, 2))
        parts.append(g.function("h%d" % j, HELPER_PARAMS[:nparams], ("T",) * arity,
                                g.rng.randint(2, 6), squash=True))
        if any(w in line for line in parts[-1] for w in ("if ", "while ", "for ")):
            g.feat.add("helper_control_flow")
        g.helpers.append(("h%d" % j, arity, nparams))
    nargs = g.pick((1, 2, 2, 3))
    rtypes = g.weighted([(("T",), 5), (("T", "T"), 2), (("T", "R"), 1.5), (("T", "T", "T"), 0.7)])
    helper_src = list(parts)
    main = g.function("f", PARAMS[:nargs], rtypes, g.rng.randint(6, cfg.max_stmts))
    if any(h[0] + "(" in line for h in g.helpers for line in main):
        g.feat.add("helper")
    shapes = [list(g.shape) for _ in range(nargs)]
    text = ['"""Fuzz program, seed %d (tests/fuzz/gen.py)."""' % seed,
            "import sampan as paddle", "import sampan.nn.functional as F", "",
            "INPUT_SHAPES = %r" % shapes, "ENTRY = 'f'"]
    if g.second_order:
        g.feat.add("second_order")
        text.append("SECOND_ORDER = True  # the worker also compares second-order input gradients")
    text.append("")
    for p in helper_src + [main]:
        text += ["", *p, ""]
    return Program(seed, "\n".join(text).rstrip() + "\n", shapes, frozenset(g.feat), g.second_order)
