"""Regenerate ``framework_pb2.py`` from ``framework.proto`` (run after editing the .proto).

usage: python static/proto/regen.py        (needs grpcio-tools: ``python -m grpc_tools.protoc``)

The .proto is compiled under the descriptor name ``sampan/static/proto/framework.proto`` so it
cannot clash with other ``framework.proto`` files in the default descriptor pool, and the
generated module is made importable with older protobuf runtimes (4.21+): newer protoc emits
a runtime-version check that refuses every runtime older than itself, which is removed.
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = "framework.proto"
DESCRIPTOR_DIR = os.path.join("sampan", "static", "proto")
MODULE = "sampan.program.proto.framework_pb2"

_CHECK_START = "_runtime_version.ValidateProtobufRuntimeVersion("
_IMPORT = "from google.protobuf import runtime_version as _runtime_version\n"
_MARKER = "# NO CHECKED-IN PROTOBUF GENCODE\n"


def _compile(tmp):
    src_dir = os.path.join(tmp, DESCRIPTOR_DIR)
    os.makedirs(src_dir)
    shutil.copy(os.path.join(HERE, PROTO), src_dir)
    cmd = [sys.executable, "-m", "grpc_tools.protoc", "-I", tmp, "--python_out", tmp,
           os.path.join(DESCRIPTOR_DIR, PROTO).replace(os.sep, "/")]
    subprocess.run(cmd, check=True)
    with open(os.path.join(src_dir, "framework_pb2.py"), encoding="utf-8") as fh:
        return fh.read()


def _make_portable(code):
    """Drop the gencode/runtime version check.

    The check refuses any runtime older than the protoc that generated the file, although
    the code itself only uses builder APIs present since protobuf 3.20 (tested on 4.21).
    """
    code = code.replace(_MARKER, "# Written by static/proto/regen.py: edit framework.proto, "
                                 "then rerun it.\n")
    code = code.replace(_IMPORT, "")
    start = code.find(_CHECK_START)
    if start >= 0:
        end = code.index(")\n", start) + 2
        code = code[:start] + code[end:]
    if "_runtime_version" in code:
        raise SystemExit("unexpected protoc output: runtime check not removed")
    return code


def generate():
    """The text framework_pb2.py should have (compiled from framework.proto now)."""
    with tempfile.TemporaryDirectory() as tmp:
        code = _make_portable(_compile(tmp))
    if f"'{MODULE}'" not in code:
        raise SystemExit("unexpected protoc output: module name not found")
    return code


def main():
    out = os.path.join(HERE, "framework_pb2.py")
    tmp_out = out + ".tmp"
    with open(tmp_out, "w", encoding="utf-8") as fh:
        fh.write(generate())
    os.replace(tmp_out, out)
    print("wrote", out)


if __name__ == "__main__":
    main()
