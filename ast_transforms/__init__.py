"""Pure AST -> AST rewriting of user functions for ``to_static`` (gast): one
small feature per module, run in the one commented pipeline of
``pipeline.py``.  Imports nothing of sampan: the rewritten code calls runtime
helpers through the name ``_jst``, which ``jit.conversion`` binds to
``jit.convert_runtime``.

    analysis.py          names read / bound / live (shared by every pass)
    anno.py, templates.py, base.py, functionalize.py   the machinery
    closures.py          super() and private names in methods
    early_return.py, return_statements.py, break_continue.py   canonicalisation
    logical.py, asserts.py, prints.py, casts.py, lengths.py,
    isinstance_checks.py, shapes.py, lists.py, calls.py        expressions
    undefined.py, ifelse.py, while_loops.py, for_loops.py      control flow
"""
