"""``sampan.jit``: ``to_static`` (StaticFunction, the conversion and program
caches, the partial program that runs converted programs for eager callers),
``save``/``load`` (TranslatedLayer) and the error mapping back to user source."""
__all__ = []
