"""``paddle.utils``'s helpers for code that depends on Paddle: ``require_version``
(against the Paddle API sampan implements, 2.6.2), ``try_import`` and
``deprecated``.  ``run_check`` lives in hapi/run_check.py (it trains a model)."""
import importlib
import re

from .version import PADDLE_API_VERSION

__all__ = ["deprecated", "require_version", "try_import"]

_VERSION = re.compile(r"\d+(\.\d+){0,3}")


def _parts(version, what):
    """The four numbers of a version string (missing ones 0); ``what`` names the
    argument in errors."""
    if not isinstance(version, str):
        raise TypeError(f"require_version: {what} must be a str like '2.0.0', got "
                        f"{type(version).__name__} {version!r}")
    if not _VERSION.fullmatch(version):
        raise ValueError(f"require_version: {what} must look like '1.5.2' (one to four "
                         f"numbers joined by dots), got {version!r}")
    nums = [int(p) for p in version.split(".")]
    return nums + [0] * (4 - len(nums))


def require_version(min_version, max_version=None):
    """Raise unless the Paddle API sampan implements (``PADDLE_API_VERSION``) is
    at least ``min_version`` and, when given, at most ``max_version``: the
    check Paddle code makes of the Paddle it runs on (Paddle raises a plain
    ``Exception`` whose message starts ``VersionError:``, and so does this)."""
    low = _parts(min_version, "min_version")
    high = None if max_version is None else _parts(max_version, "max_version")
    have = _parts(PADDLE_API_VERSION, "the installed version")
    if high is not None and not low <= have <= high:
        raise Exception(f"VersionError: PaddlePaddle version in [{min_version}, {max_version}] "
                        f"required, but sampan implements PaddlePaddle {PADDLE_API_VERSION}'s "
                        f"API.")
    if have < low:
        raise Exception(f"VersionError: PaddlePaddle version {min_version} or higher is "
                        f"required, but sampan implements PaddlePaddle {PADDLE_API_VERSION}'s "
                        f"API.")


def try_import(module_name, err_msg=None):
    """``module_name`` imported, or an ImportError saying what to install
    (``err_msg`` instead, when given)."""
    try:
        return importlib.import_module(module_name)
    except ImportError:
        if err_msg is None:
            top = module_name.split(".")[0]
            err_msg = (f"Failed importing {module_name}: this part of the program needs the "
                       f"optional package '{top}', which is not installed (usually `pip "
                       f"install {top}`).")
        raise ImportError(err_msg) from None


def deprecated(update_to="", since="", reason="", level=0):
    """Paddle's decorator marking an API deprecated.  Paddle 2.6.2 has it return
    the function as it is (its warnings are switched off there, every level
    included), and sampan does the same, so code decorated for Paddle behaves
    alike."""
    def decorator(func):
        return func
    return decorator
