"""An op's origin is data: the Operator keeps the user's ``Location`` (file,
line, function) in memory, printing and errors read its fields, a clone keeps
it, and Paddle's ``op_callstack`` attribute holds its text for the file format
(all a loaded program has)."""
import os

import sampan as paddle
from sampan import static
from sampan.program.location import Location
from sampan.utils import unique_name

THIS = os.path.abspath(__file__)


def _build():
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, startup):
            x = static.data("x", [2, 3], "float32")
            y = paddle.tanh(x)                         # the op's line
    finally:
        paddle.disable_static()
    return main, y


LINE = _build.__code__.co_firstlineno + 6


def test_an_op_keeps_its_location_and_writes_its_text():
    main, _ = _build()
    op = main.global_block().ops[-1]
    assert op.location == Location(THIS, LINE, "_build")
    assert op.attr("op_callstack") == [f'File "{THIS}", line {LINE}, in _build']
    assert op.source == str(op.location)
    assert f"# test_location.py:{LINE}" in main.to_string()


def test_a_clone_keeps_the_location_a_loaded_program_has_the_text():
    main, _ = _build()
    op = main.global_block().ops[-1]
    assert main.clone().global_block().ops[-1].location is op.location
    loaded = static.Program.parse_from_string(main.desc.SerializeToString())
    lop = loaded.global_block().ops[-1]
    assert lop.location is None
    assert lop.source == str(op.location)
    assert f"# test_location.py:{LINE}" in loaded.to_string()
