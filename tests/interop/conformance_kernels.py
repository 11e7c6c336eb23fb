"""Record real PaddlePaddle 2.6.2's CPU kernel dtypes, per op type.

Runs INSIDE the side venv (never in sampan's process); imports only paddle and
the standard library:

    <venv python> tests/conformance/record_kernels.py OPS_JSON OUT_JSON

``OPS_JSON`` holds the op types to look up (a JSON list: sampan's
``sampan.ops.list_ops()``).  ``OUT_JSON`` gets

    {"paddle": version,
     "ops": {op type: {"source": ..., "kernel": ..., "dtypes": [...]} or null}}

``dtypes``: the data types of the op's CPU kernels of library PLAIN (the ONEDNN
/ MKLDNN kernels are left out), as numpy-style names (``float32``, ``int64``,
``bool``, ``complex64``, ``bfloat16`` ...).  ``source`` says where they came
from: ``"op"`` (``core._get_all_register_op_kernels('all')``, keyed by the
fluid op type), or ``"phi"`` (``core._get_registered_phi_kernels('all')``
under the phi kernel name ``core._get_phi_kernel_name(op)``, or
``X_double_grad`` for ``X_grad_grad``, for op types the first table lacks).  ``null``: Paddle registers no kernel for that op type
(control-flow and array ops run as OperatorBase) or does not know it.

``tests/conformance/test_kernel_dtypes.py`` compares sampan's registered
kernels against the file.  One command, from the repository root:

    python -m tests.conformance.regen_kernels
"""
import json
import re
import sys

import paddle

# C++ type names in the op-kernel key strings -> dtype names
CPP_TYPES = {
    "float": "float32", "double": "float64",
    "int": "int32", "int64_t": "int64", "int16_t": "int16",
    "int8_t": "int8", "uint8_t": "uint8", "bool": "bool",
    "::paddle::platform::float16": "float16",
    "::paddle::platform::bfloat16": "bfloat16",
    "::paddle::platform::complex<float>": "complex64",
    "::paddle::platform::complex<double>": "complex128",
}
PHI_TYPES = {"float32", "float64", "int32", "int64", "int16", "int8", "uint8",
             "bool", "float16", "bfloat16", "complex64", "complex128"}

OP_KEY = re.compile(r"\{data_type\[(.*?)\]; data_layout\[(.*?)\]; "
                    r"place\[(.*?)\]; library_type\[(.*?)\]\}")
PHI_KEY = re.compile(r"\((\w+), (.*?), (\w+)\)")


def _op_dtypes(keys):
    out = set()
    for k in keys:
        m = OP_KEY.fullmatch(k.strip())
        if m is None:
            raise ValueError("unparsed op kernel key %r" % k)
        dtype, _layout, place, library = m.groups()
        if place != "Place(cpu)" or library != "PLAIN":
            continue
        if dtype not in CPP_TYPES:
            raise ValueError("unknown C++ data type %r in %r" % (dtype, k))
        out.add(CPP_TYPES[dtype])
    return out


def _phi_dtypes(keys):
    out = set()
    for k in keys:
        m = PHI_KEY.fullmatch(k.strip())
        if m is None:
            raise ValueError("unparsed phi kernel key %r" % k)
        backend, _layout, dtype = m.groups()
        if backend != "CPU":
            continue
        if dtype not in PHI_TYPES:
            raise ValueError("unknown phi data type %r in %r" % (dtype, k))
        out.add(dtype)
    return out


def record(op_types):
    core = paddle.base.core
    by_op = core._get_all_register_op_kernels("all")
    by_phi = core._get_registered_phi_kernels("all")
    ops = {}
    for op in sorted(op_types):
        if op in by_op:
            ops[op] = {"source": "op", "kernel": op,
                       "dtypes": sorted(_op_dtypes(by_op[op]))}
            continue
        name = core._get_phi_kernel_name(op)
        if name not in by_phi and op.endswith("_grad_grad"):
            # conv2d_grad_grad runs phi's conv2d_double_grad (mapped by a
            # signature function, which _get_phi_kernel_name does not see)
            name = op[:-len("_grad_grad")] + "_double_grad"
        if name in by_phi:
            ops[op] = {"source": "phi", "kernel": name,
                       "dtypes": sorted(_phi_dtypes(by_phi[name]))}
        else:
            ops[op] = None
    return {"paddle": paddle.__version__, "ops": ops}


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    with open(argv[0]) as f:
        op_types = json.load(f)
    table = record(op_types)
    with open(argv[1], "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)
        f.write("\n")
    n = sum(v is not None for v in table["ops"].values())
    print("paddle %s: %d op types, %d with CPU kernels -> %s"
          % (table["paddle"], len(op_types), n, argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
