"""``type(v)`` of a static Variable inside converted code is the Variable class,
which converted code passes around as any Python object (it once counted as a
program value itself: "type object 'Variable' has no attribute 'block'")."""
import numpy as np

import sampan as paddle


def test_type_of_a_variable_is_a_plain_object(capsys):
    @paddle.jit.to_static
    def f(x):
        s = paddle.shape(x)
        kind = type(s[0])
        print(kind.__name__)
        return x + 1.0 if kind is not None else x

    np.testing.assert_allclose(f(paddle.ones([2])).numpy(), [2.0, 2.0])
    assert "Variable" in capsys.readouterr().out
