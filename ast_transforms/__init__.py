"""Pure AST -> AST rewriting of user functions for ``to_static`` (gast): one
transformer per language feature, run in one commented pipeline.  Imports
nothing of sampan: the rewritten code calls runtime helpers that ``jit``
injects."""
