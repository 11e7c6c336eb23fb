"""``print`` in converted code (Paddle's test_print.py behaviours): tensors
(a print op printing the value when the program runs), numpy arrays and
Python values (printed while tracing), f-strings and %-formatting of a
tensor, prints in branches, several tensors and print's keyword arguments;
the functions take numpy input (a constant of the program) and return
nothing."""
import numpy as np
import pytest

import sampan as paddle

A = np.arange(5).astype("int32") + 7


def print_tensor(x):
    t = paddle.to_tensor(x)
    print(t)


def print_ndarray(x):
    print(x)


def print_fstring(x):
    t = paddle.to_tensor(x)
    print(f"PrintTensor: {t}")


def print_percent(x):
    t = paddle.to_tensor(x)
    print("PrintTensor: %s" % (t,))


def print_in_branch(x):
    t = paddle.to_tensor(x)
    if len(t.shape) > 1:
        print(t)
    else:
        print(t * 2)


def print_several(x):
    t = paddle.to_tensor(x)
    print(t, t * 3)


def print_kwargs(x):
    t = paddle.to_tensor(x)
    print("Tensor", t, end="\n\n", sep=": ")


@pytest.mark.parametrize("fn, shown", [
    (print_tensor, ("7", "11")), (print_ndarray, ("7", "11")),
    (print_in_branch, ("14", "22")), (print_several, ("7", "11", "21", "33")),
    (print_kwargs, ("Tensor", "7", "11"))])
def test_print_shows_the_values(fn, shown, capfd):
    fn(A)
    eager = capfd.readouterr().out
    assert paddle.jit.to_static(fn, full_graph=True)(A) is None
    static = capfd.readouterr().out
    for v in shown:
        assert v in eager and v in static, (eager, static)


@pytest.mark.parametrize("fn", [print_fstring, print_percent])
def test_formatted_tensor_prints(fn, capfd):
    # formatted while the program is built: the text shows the Variable (as Paddle 2.6)
    assert paddle.jit.to_static(fn, full_graph=True)(A) is None
    assert "PrintTensor: " in capfd.readouterr().out
