"""sampan's version (the package root re-exports it as ``sampan.__version__``) and
the version of the Paddle API it implements (``paddle.utils.require_version``)."""
__version__ = "0.1.0"
PADDLE_API_VERSION = "2.6.2"
