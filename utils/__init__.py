"""Small pieces shared by every layer of sampan, and ``paddle.utils``'s helpers
(``run_check`` is attached by the package root: hapi/run_check.py)."""
from .api_tools import deprecated, require_version, try_import  # noqa: F401
