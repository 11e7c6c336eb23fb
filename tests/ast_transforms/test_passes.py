"""The AST passes on their own (source in, source out): each pass's rewrite
shape, the shared variable analysis, templates, and origins."""
import ast
import textwrap

import gast
import pytest

from sampan.ast_transforms import analysis, anno, pipeline, templates
from sampan.ast_transforms.base import Context, Feature, Walk, annotate_scopes, walk
from sampan.ast_transforms.closures import Closures


def parse(src):
    tree = gast.parse(textwrap.dedent(src))
    anno.attach_origins(tree, 0, tree.body[0].name if tree.body else None)
    return tree


def unparse(tree):
    return ast.unparse(gast.gast_to_ast(tree))


def run_steps(src, upto):
    """The source after the pipeline steps up to and including ``upto``."""
    tree, ctx = parse(src), Context()
    for name, step in pipeline.PIPELINE:
        tree = step(tree, ctx)
        if name == upto:
            return unparse(tree)
    anno.inherit_origins(tree)
    return tree


def own_nodes(fn, kind):
    return [n for n in gast.walk(fn) if isinstance(n, kind)]


# ----------------------------------------------------------------- analysis
def test_bound_and_read_names():
    body = parse("""
        def f(a):
            x = a + 1
            for i in range(3):
                y, (z, *w) = g(i)
            def inner(q):
                r = q + x
                return r
            k = [t for t in a]
            with open(a) as fh:
                pass
            import os.path as p
    """).body[0].body
    assert analysis.bound_in(body) == {"x", "i", "y", "z", "w", "inner", "k", "fh", "p"}
    # nested functions contribute only what they read from outside
    assert analysis.reads(body[2]) == {"x"}
    assert {"a", "range", "g", "open"} <= analysis.reads(body)


def test_exposed_reads_follow_definite_writes():
    body = parse("""
        def f():
            t = s * 2
            if c:
                u = 1
            else:
                u = 2
            v = u + t + w
            if d:
                z = 1
            q = z
    """).body[0].body
    assert analysis.exposed_reads(body) == {"s", "c", "w", "d", "z"}
    assert analysis.definite_writes(body[1]) == {"u"}
    assert analysis.definite_writes(body[3]) == set()


class _Probe(Feature):
    """Records live_after of the assignment to ``probe`` in each If branch."""
    found = []

    def leave_If(self, node):
        _Probe.found.append(self.live_after({"a", "b", "c", "d"}))
        return node


def test_live_after_scans_following_code_and_enclosing_loops():
    tree = parse("""
        def f(x):
            for i in range(3):
                if x:
                    a = 1
                    b = 2
                    c = 3
                    d = 4
                e = b
                c = 0
            return a
    """)
    annotate_scopes(tree)
    _Probe.found = []
    Walk(Context(), [_Probe]).visit(tree)
    # a: read after the loop; b: read right after; c: killed before any read
    # (next iteration too); d: never read
    assert _Probe.found == [{"a", "b"}]


def test_scope_info_collects_globals_nonlocals_and_captures():
    fn = parse("""
        def f(p):
            global g
            nonlocal_like = 1
            y = 2
            def inner():
                return y + p
            if p:
                g = 3
    """).body[0]
    sc = analysis.ScopeInfo(fn)
    assert sc.params == {"p"} and sc.globals == {"g"}
    assert sc.captured == {"y", "p"}
    assert sc.always_live == {"y", "p", "g"}


# ----------------------------------------------------------------- templates
def test_template_substitution():
    body = parse("def f():\n    a = 1\n    b = 2\n").body[0].body
    out = templates.replace("""
        def fn(params):
            body
            return outs
    """, fn="h", params=["x", "y"], body=body, outs=templates.names_tuple(["a", "b"]))
    text = unparse(gast.Module(body=out, type_ignores=[]))
    assert text == "def h(x, y):\n    a = 1\n    b = 2\n    return (a, b)"
    e = templates.replace_expr("_jst.f(v, v)", v=gast.Name(id="q", ctx=gast.Load(),
                                                          annotation=None, type_comment=None))
    assert unparse(e) == "_jst.f(q, q)"            # a node used twice is copied


# ----------------------------------------------------------------- passes
def test_early_return_moves_the_rest_into_else():
    out = run_steps("""
        def f(x):
            if x > 0:
                return 1
            y = x * 2
            return y
    """, "returns")
    assert "else:" in out and "_jst_ret_flag" not in out
    assert out.count("return") == 1 and out.strip().endswith("return _jst_ret_val")


def test_return_in_loop_uses_flags_and_breaks():
    out = run_steps("""
        def f(xs):
            for x in xs:
                if x > 0:
                    return x
            return -1
    """, "returns")
    assert "_jst_ret_flag = True" in out and "break" in out
    assert "if not _jst_ret_flag:" in out
    assert out.strip().endswith("return _jst.ret(_jst_ret_val)")


def test_break_and_continue_become_flags_and_guards():
    out = run_steps("""
        def f(xs):
            s = 0
            for x in xs:
                if x < 0:
                    continue
                if x > 9:
                    break
                s += x
            else:
                s = -1
            while s > 0:
                s -= 1
                if s == 5:
                    break
            return s
    """, "break_continue")
    assert "break" not in out.replace("_jst_brk", "") and "continue" not in out
    assert "_jst.Until(xs, lambda: not _jst_brk_" in out
    assert "while not _jst_brk_" in out
    assert "if not _jst_cont_" in out
    assert "if not _jst_brk_1:\n        s = -1" in out


def test_expression_rewrites():
    out = run_steps("""
        def f(x, xs):
            xs.append(x)
            y = xs.pop()
            n = len(x) + int(x) + x.shape[0]
            assert n > 0, "msg"
            print(n)
            ok = isinstance(x, list) and not n or helper(n)
            return ok
    """, "expressions")
    for piece in ("xs = _jst.convert_append(xs, x)", "xs, y = _jst.convert_pop(xs)",
                  "_jst.convert_len(x)", "_jst.convert_var_dtype(x, 'int')",
                  "_jst.convert_shape(x)[0]", "_jst.convert_assert(n > 0, lambda: 'msg')",
                  "_jst.convert_print(n)", "_jst.convert_isinstance(x, list)",
                  "_jst.convert_logical_or(lambda: _jst.convert_logical_and(",
                  "_jst.convert_logical_not(n)", "_jst.convert_call(helper)(n)"):
        assert piece in out, piece


def test_shadowed_builtins_are_left_alone():
    tree, ctx = parse("""
        def f(x):
            len = 3
            return len + print
    """), Context(shadowed=frozenset({"print"}))
    for _, step in pipeline.PIPELINE:
        tree = step(tree, ctx)
    out = unparse(tree)
    assert "convert_len" not in out and "convert_print" not in out


def test_control_flow_becomes_helper_functions():
    tree = run_steps("""
        def f(x, n):
            s = 0
            for i in range(n):
                if x > i:
                    s = s + i
                    t = 1
                else:
                    t = 2
                s = s + t
            while s > 10:
                s = s - 3
            return s
    """, None)
    fn = tree.body[0]
    out = unparse(tree)
    assert "_jst.convert_for(_jst.convert_call(range)(n), None," in out
    assert "_jst.convert_ifelse(x > i," in out and "_jst.convert_while_loop(" in out
    assert not own_nodes(fn, (gast.If, gast.While, gast.For, gast.Break, gast.Continue))
    helpers = [d for d in own_nodes(fn, gast.FunctionDef) if d is not fn]
    assert all(anno.get(d, "generated") for d in helpers)
    # t is a temporary of the branch and loop body: never loop state
    assert "('i', 's')" not in out and "('s',)" in out
    compile(out, "<test>", "exec")


def test_captured_and_nonlocal_state_is_written_through():
    out = run_steps("""
        def f(x):
            total = 0
            def get():
                return total
            if x:
                total = total + 1
            return get()
    """, None)
    out = unparse(out)
    assert "nonlocal total" in out and "total = _jst_in_total" in out
    compile(out, "<test>", "exec")


def test_super_and_private_names_in_methods():
    tree, ctx = parse("""
        def forward(self, x):
            return super().forward(x) + self.__w
    """), Context(class_name="Net")
    tree = walk(Closures)(tree, ctx)
    out = unparse(tree)
    assert "super(__class__, self).forward(x)" in out and "self._Net__w" in out


def test_undefined_markers_only_for_names_bound_in_control_flow():
    out = unparse(run_steps("""
        def f(a, b):
            x = 1
            if a:
                x = 2
                y = 3
            for i in b:
                z = i
            return y
    """, None))
    assert "y = _jst.Undefined('y')" in out and "z = _jst.Undefined('z')" in out
    assert "x = _jst.Undefined" not in out and "a = _jst.Undefined" not in out
    assert "return _jst.ret(y)" in out


def test_every_statement_keeps_an_origin():
    tree = run_steps("""
        def f(x):
            if x > 0:
                return x
            while x < 3:
                x = x + 1
            return x
    """, None)
    lines = {anno.origin(s)[0] for s in gast.walk(tree) if isinstance(s, gast.stmt)}
    assert None not in lines and lines <= set(range(1, 8))


def test_pipeline_is_one_ordered_list():
    assert pipeline.PASS_NAMES == ("closures", "scopes", "returns", "break_continue",
                                   "expressions", "control_flow")
    assert all(callable(step) for _, step in pipeline.PIPELINE)


@pytest.mark.parametrize("mod", ["analysis", "anno", "base", "templates", "pipeline"])
def test_modules_import_nothing_of_sampan_outside_the_package(mod):
    import importlib
    m = importlib.import_module(f"sampan.ast_transforms.{mod}")
    src = open(m.__file__).read()
    assert "from .." not in src and "import sampan" not in src
