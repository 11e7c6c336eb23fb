"""sampan's version (the package root re-exports it as ``sampan.__version__``)."""
__version__ = "0.1.0"
