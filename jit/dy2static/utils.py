"""``paddle.jit.dy2static.utils``: the helpers that print source code."""
import ast
import functools
import inspect
import textwrap

import gast

from ..convert_runtime import UndefinedVar  # noqa: F401
from ..errors import ConversionError

__all__ = ["func_to_source_code", "ast_to_source_code", "UndefinedVar",
           "Dygraph2StaticException"]

# the error of a function that cannot become a static program (branches that
# give different structures, tensor-conditioned recursion ...)
Dygraph2StaticException = ConversionError


def func_to_source_code(function, dedent=True):
    """The source of ``function`` (a function or method; a ``functools.partial``
    gives its function's, a StaticFunction its original function's), with
    comment lines blanked so line numbers stay those of the file."""
    if isinstance(function, functools.partial):
        function = function.func
    function = getattr(function, "dygraph_function", function)
    if not (inspect.isfunction(function) or inspect.ismethod(function)):
        raise TypeError(f"The type of 'function' should be a function or method, but "
                        f"received {type(function).__name__}.")
    try:
        lines, _ = inspect.getsourcelines(function)
    except (OSError, TypeError) as e:
        raise ConversionError(f"the source of {function.__qualname__} cannot be found: "
                              f"{e}") from e
    source = "".join("\n" if ln.lstrip().startswith("#") else ln for ln in lines)
    return textwrap.dedent(source) if dedent else source


def ast_to_source_code(ast_node):
    """Python source for a gast or ast node."""
    if not isinstance(ast_node, (gast.AST, ast.AST)):
        raise TypeError(f"Type of ast_root should be gast.AST or ast.AST, but received "
                        f"{type(ast_node)}.")
    if isinstance(ast_node, gast.AST):
        ast_node = gast.gast_to_ast(ast_node)
    return ast.unparse(ast.fix_missing_locations(ast_node)) + "\n"
