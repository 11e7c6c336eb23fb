"""Paddle's ProgramDesc protobuf schema: ``framework.proto`` (written from FORMAT.md section 1)
and ``framework_pb2`` generated from it by ``regen.py``.  ``.pdmodel`` files are one serialized
``ProgramDesc``."""
