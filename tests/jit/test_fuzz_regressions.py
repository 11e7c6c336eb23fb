"""Regressions found by the to_static fuzzer (tests/fuzz), one shrunk program each.

Every function here is run eagerly and through `sampan.jit.to_static` on the input that made it
fail; outputs (values, dtypes, shapes, structure, stop_gradient) and input gradients of
`sum(o.sum())` must agree. The tag in each name is the finding in
/work/notes/fuzz_findings/findings.md. A finding not fixed yet is marked xfail with the area it
was routed to; the marker goes once the fix lands (an XPASS says it is time).
"""
import importlib

import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F  # noqa: F401  (the programs are written as users write them)

from fuzz.worker import compare, execute  # tests/ is on sys.path, as for every test package

jit = importlib.import_module("sampan.jit")
pytestmark = pytest.mark.skipif(not hasattr(jit, "to_static"), reason="sampan.jit has no to_static yet")


def check(fn, *inputs):
    inputs = [np.asarray(a, dtype="float32") for a in inputs]
    eager = execute(fn, inputs)
    static = execute(jit.to_static(fn), inputs)
    bad = compare(eager, static)
    assert bad is None, "%s: %s" % bad


def open_issue(area, what):
    return pytest.mark.xfail(reason="fuzz finding open (%s): %s" % (area, what), strict=False)


# F2: a break flag starts as a Python bool and becomes a tensor inside a loop on a tensor.
def f2_break_in_tensor_while(x):
    c0 = 0
    while paddle.any(x > 1.0):
        c0 += 1
        if c0 > 1:
            break
    return x * float(c0)


def test_f2_break_flag_in_tensor_while():
    check(f2_break_in_tensor_while, [[0.77, 1.03], [0.41, 0.40], [0.32, 0.41]])


# F3: return inside a tensor-conditioned branch inside a tensor `while`.
def f3_return_in_branch_in_tensor_while(x, y, z):
    c0 = 0
    while z.mean() < 1.0 and c0 < 3:
        c0 += 1
        if x.sum() >= paddle.max(y):
            z = z + 0.5
        else:
            return y, y
    return x, z


def test_f3_return_in_branch_in_tensor_while():
    x = [[-3.61, -2.08, -0.06], [-1.53, -0.29, -1.83]]
    y = [[1.93, -0.57, -2.49], [-1.30, 0.36, -2.85]]
    z = [[-1.06, -0.31, 0.41], [-0.53, -0.31, -1.30]]
    check(f3_return_in_branch_in_tensor_while, x, y, z)


# F3b: return under a Python-valued test inside a tensor `while` (the return flag changes type).
def f3b_return_flag_in_tensor_while(x):
    c0 = 0
    while paddle.sum(x) > paddle.max(x):
        c0 += 1
        if not c0 <= 0:
            break
        else:
            return x * 2.0
    return x


def test_f3b_return_flag_in_tensor_while():
    check(f3b_return_flag_in_tensor_while, [0.88, -1.89, 2.07])


# F4: a Python list appended inside a loop on a tensor must become a tensor array.
def f4_list_append_in_tensor_while(x, y):
    lst0 = [x]
    c0 = 0
    while paddle.mean(x) > -5.0 and c0 < 2:
        c0 += 1
        lst0.append(y * float(c0))
    return paddle.stack(lst0).mean(axis=0)


def test_f4_list_append_in_tensor_while():
    check(f4_list_append_in_tensor_while, [0.5, -0.2, 0.1], [1.0, 2.0, 3.0])


# F5: indexing a list (lst[-1]) after appends in a loop over a tensor.
def f5_list_index_after_tensor_loop(x):
    lst0 = [x]
    for i0 in range(x.sum().astype('int64')):
        lst0.append(x * 2.0)
        lst0.append(x * 3.0)
    return lst0[-1]


def test_f5_list_index_after_tensor_loop():
    check(f5_list_index_after_tensor_loop, [2.34, 0.33, 1.69])


# F6: returning an input unchanged: eager gives back the input (needs grad), to_static must too.
def f6_identity(z):
    return z


def test_f6_identity_output_keeps_gradient():
    check(f6_identity, [[-1.43, -2.87], [1.98, -1.44]])


# S99: a list grown in a tensor `while` nested in a tensor `for`: the inner loop gets the outer
# loop's tensor array (it must stay an array, not be copied as a tensor).
def s99_list_grown_in_nested_tensor_loops(x, y):
    lst0 = [y]
    for i0 in range(y.shape[0]):
        c0 = paddle.full([], 0, dtype='int64')
        while c0 < 1:
            c0 += 1
            lst0.append(x)
    return paddle.stack(lst0)


def test_s99_list_grown_in_nested_tensor_loops():
    check(s99_list_grown_in_nested_tensor_loops, [[0.56, -0.54], [1.33, 0.76]],
          [[1.05, 1.31], [0.62, 1.30]])


# S177: the outer loop (over a tensor range) sees its list come back from the inner loop as a
# tensor array.
def s177_list_becomes_array_in_inner_loop(x, y):
    lst0 = [y]
    for i0 in range(paddle.full([], 1, dtype='int64')):
        c0 = 0
        while c0 < 1 and y.mean() < -0.5:
            c0 += 1
            lst0.append(x)
    return paddle.stack(lst0).sum(axis=0)


def test_s177_list_becomes_array_in_inner_loop():
    check(s177_list_becomes_array_in_inner_loop, [-0.80, -1.90, -0.29], [-0.66, -0.11, -0.90])


# S142: paddle.add_n of a list that became a tensor array in a tensor loop.
def s142_add_n_of_list_grown_in_tensor_loop(x):
    lst0 = [x]
    for i0, r1 in enumerate(x):
        lst0.append(x * 2.0)
    return paddle.add_n(lst0) * 0.5


def test_s142_add_n_of_list_grown_in_tensor_loop():
    check(s142_add_n_of_list_grown_in_tensor_loop, [[0.54, -2.48], [0.61, 3.85]])


# S275: a list grown by one branch of a tensor `if` only (a return inside a loop over a tensor).
def s275_list_grows_in_one_branch(x, y):
    lst0 = [y]
    for r0 in y:
        lst0.append(x)
        if paddle.sum(x) < 0.2:
            pass
        else:
            return y
        lst0.append(y)
    return paddle.stack(lst0).sum(axis=0)


def test_s275_list_grows_in_one_branch():
    check(s275_list_grows_in_one_branch, [1.32, 2.32, 0.86], [1.42, 1.59, 0.01])
    check(s275_list_grows_in_one_branch, [-1.32, -2.32, 0.86], [1.42, 1.59, 0.01])


# S88: a list that an inner tensor loop turns into an array on one side of a tensor `if` (the
# guard after a `break`) and passes through unchanged on the other.
def s88_list_array_on_one_branch(x, y):
    lst0 = [x]
    c0 = paddle.full([], 0, dtype='int64')
    while paddle.any(y > 0.8):
        c0 += 1
        if c0 > 1:
            break
        for i0, r0 in enumerate(y):
            lst0.append(x * 0.5)
    return paddle.stack(lst0).mean(axis=0)


def test_s88_list_array_on_one_branch():
    check(s88_list_array_on_one_branch, [[0.08, -0.01], [1.13, -0.24]], [[0.42, 1.41], [2.28, 1.32]])


# S83: lst[-1] after a tensor `while` with a break; the array passes through both branches.
def s83_last_item_after_loop_with_break(x, y):
    lst0 = [x]
    c0 = 0
    while y.sum() >= x.mean():
        c0 += 1
        if c0 > 1:
            break
        lst0.append(y)
    return lst0[-1]


def test_s83_last_item_after_loop_with_break():
    check(s83_last_item_after_loop_with_break, [[-1.11, -0.96], [-0.49, -0.78]],
          [[0.36, 2.62], [0.54, 2.31]])


# S242: a Python number appended to a list that is a tensor array.
def s242_number_appended_to_array(x, y):
    lst0 = [x]
    c0 = 0
    while y.sum() < 0.5:
        c0 += 1
        if c0 > 1:
            break
        lst0.append(x)
        lst0.append(-0.25)
    return paddle.stack(lst0[:2]).sum(axis=0), len(lst0)


def test_s242_number_appended_to_array():
    check(s242_number_appended_to_array, [[-1.0, -0.71], [0.99, 0.98]], [[1.41, -1.81], [-0.55, -0.19]])


# S135: a list stacked, then appended to in a later tensor loop: the stack's gradient covers only
# the items it read.
def s135_stack_then_append(x, y):
    lst1 = [0.7 * y]
    for i0 in range(paddle.full([], 2, dtype='int64')):
        lst1.append(y + x)
    x = paddle.stack(lst1, axis=1).max(axis=1)
    for i1, r0 in enumerate(x):
        lst1.append(2.0 - y)
    return x * 2.0


def test_s135_stack_then_append():
    check(s135_stack_then_append, [[-1.89, -0.10], [0.45, -0.93]], [[0.85, -0.29], [-0.08, 0.06]])


# S537: a list written and stacked inside the branch of a tensor `if` that made it a tensor array:
# the item written there gets its gradient.
def s537_array_written_and_stacked_in_branch(x, y):
    lst0 = [x]
    if y.max() < paddle.max(x):
        lst0.append(x)
    if y.max() > paddle.max(x):
        lst0.append(y)
        r = paddle.stack(lst0)
    else:
        r = paddle.stack([x, x, x])
    return r


def test_s537_array_written_and_stacked_in_branch():
    x, y = [[-1.01, -0.31], [-1.95, -1.97]], [[0.48, 3.52], [-3.69, 1.70]]
    check(s537_array_written_and_stacked_in_branch, x, y)
    check(s537_array_written_and_stacked_in_branch, y, x)


# S-getitem: items and slices of a list that became a tensor array.
def s_getitem_of_array(x):
    lst0 = [x]
    for i0 in range(x.sum().astype('int64')):
        lst0.append(x * float(i0 + 2))
    return lst0[0] + lst0[-2], paddle.stack(lst0[1:]), paddle.stack(lst0[::-2])


def test_s_getitem_of_array():
    check(s_getitem_of_array, [1.5, 0.6, 1.2])


# S242m: a `return` under a tensor condition in a loop and none after it: where no `return` ran the
# function gives None (the "no value" marker the partial program drops), not a tensor of zeros.
def s242m_no_return_on_some_paths(x):
    for i0 in range(3):
        if x.sum() > 0:
            return x * 2.0, x + 1.0
        x = x + 1.0


def s242m_no_return_after_tensor_while(x):
    while x.mean() < 2.0:
        x = x + 1.0
        if x.sum() > 3.0:
            return x


def test_s242m_no_return_on_some_paths():
    check(s242m_no_return_on_some_paths, [-10.0, 1.0])
    check(s242m_no_return_on_some_paths, [-1.0, 1.5])
    check(s242m_no_return_after_tensor_while, [5.0, 5.0])
    check(s242m_no_return_after_tensor_while, [0.1, 0.1])


# F3 (seed 1366): a return under a tensor `if` inside a Python `for` loop (unrolled).
def f3c_return_under_tensor_if_in_python_for(y, z):
    for i0 in range(1):
        if z.mean() <= 0.0:
            pass
        else:
            return y, y
    return y * 2.0, z


def test_f3c_return_under_tensor_if_in_python_for():
    check(f3c_return_under_tensor_if_in_python_for, [0.5, -1.0], [0.3, 0.4])
    check(f3c_return_under_tensor_if_in_python_for, [0.5, -1.0], [-0.3, -0.4])


# F4 (seed 1586): a `break` on a tensor turns a Python `for` into a program loop; the list it
# appends to differs in length between the two sides of the break.
def f4b_list_in_python_for_with_tensor_break(x):
    lst0 = [x]
    lst0.append(x * 2.0)
    for i1 in range(2):
        if paddle.any(x > 0.5):
            break
        lst0.append(x * 3.0)
    return paddle.stack(lst0).sum(axis=0)


def test_f4b_list_in_python_for_with_tensor_break():
    check(f4b_list_in_python_for_with_tensor_break, [[0.1, 0.9], [0.2, 0.3]])
    check(f4b_list_in_python_for_with_tensor_break, [[0.1, -0.9], [0.2, 0.3]])


# F4 (seed 11): two appends per iteration of a tensor `while` left by a `break`.
def f4c_two_appends_per_tensor_iteration(x, y, z):
    lst0 = [y]
    c0 = paddle.full([], 0, dtype='int64')
    while paddle.mean(x) > x.mean() - 1.0:
        c0 += 1
        if c0 > 1:
            break
        lst0.append(y)
        lst0.append(z * 0.5)
    return paddle.stack(lst0).mean(axis=0)


def test_f4c_two_appends_per_tensor_iteration():
    check(f4c_two_appends_per_tensor_iteration, [0.49, 0.73], [0.63, 1.32], [0.72, 1.00])


# F4 (seed 1752): appends in a loop over a tensor nested in a tensor `while`.
def f4d_appends_in_tensor_for_in_tensor_while(x):
    lst0 = [x]
    c0 = 0
    while x.sum() >= x.max() - 10.0 and c0 < 2:
        c0 += 1
        lst0.append(x - 1.0)
        for r0 in x:
            lst0.append(x * r0)
            x = paddle.clip(paddle.maximum(paddle.cos(x), x * r0), -2.0, 2.0)
    return paddle.stack(lst0, axis=1).max(axis=1)


def test_f4d_appends_in_tensor_for_in_tensor_while():
    check(f4d_appends_in_tensor_for_in_tensor_while, [0.3, -0.7, 1.1, 0.2])


# F5 (seed 1166): a list grown by two loops in a row, the second on a tensor.
def f5b_list_grown_by_two_loops(x):
    lst0 = [x]
    g0 = x
    c0 = paddle.full([], 0, dtype='int64')
    while c0 < 1:
        c0 += 1
        lst0.append(g0 * 2.0)
    c1 = 0
    while paddle.min(g0) > -0.5:
        c1 += 1
        if c1 > 1:
            break
        lst0.append(x * 3.0)
    return paddle.stack(lst0).sum(axis=0)


def test_f5b_list_grown_by_two_loops():
    check(f5b_list_grown_by_two_loops, [0.70, -0.39, 0.50, 3.10])
    check(f5b_list_grown_by_two_loops, [0.70, 0.39, 0.50, 3.10])


# F5 (seed 1336): the gradient of paddle.stack over a list grown in a tensor `while`
# (tensor_array_to_tensor_grad), then the list grown again.
def f5c_stack_grad_of_tensor_array(x, y):
    lst0 = [x - paddle.mean(x, axis=-1, keepdim=True)]
    c0 = 0
    while c0 < 2 and paddle.max(x) < y.sum():
        c0 += 1
        lst0.append(x * y)
        x = paddle.tanh(F.sigmoid(y - paddle.min(y, axis=-1, keepdim=True)))
    y = paddle.stack(lst0, axis=0).sum(axis=0) * 0.5
    lst0.append(x)
    return paddle.full([2, 2], 1.0), y, paddle.stack(lst0).mean(axis=0)


def test_f5c_stack_grad_of_tensor_array():
    x = [[-0.5, 0.2], [0.1, -0.3]]
    check(f5c_stack_grad_of_tensor_array, x, [[1.0, 0.5], [0.7, 0.4]])
    check(f5c_stack_grad_of_tensor_array, x, [[-1.0, 0.5], [-0.7, 0.4]])


# F7 (seeds 1703, 1834): gradients of where / multiply whose input is add_n over a list grown
# in a loop on a tensor (where_grad and elementwise_mul_grad were given the array itself).
def f7_grads_through_add_n_of_tensor_array(x, y):
    lst0 = [x]
    for i0 in range(paddle.clip(paddle.abs(y).sum() * 1.5, 0.0, 3.0).astype('int64')):
        lst0.append(x * y)
        lst0.append(paddle.sqrt(x * x + 0.5))
    s = paddle.add_n(lst0)
    return paddle.where(y > 0.0, s, x) * s, paddle.multiply(s, y)


def test_f7_grads_through_add_n_of_tensor_array():
    check(f7_grads_through_add_n_of_tensor_array, [[0.3, -0.2], [0.5, 0.1]], [[0.4, -0.3], [0.2, 0.6]])
    check(f7_grads_through_add_n_of_tensor_array, [[0.3, -0.2], [0.5, 0.1]], [[0.0, 0.0], [0.1, 0.0]])


# S3342: a list appended to under `if c1 == 0`, which is a Python test until the counter c1 becomes
# a tensor (second trial of the loop body): the list must become a tensor array then.
def s3342_append_after_counter_promotion(z):
    lst2 = [z]
    c1 = 0
    while c1 < 1 and paddle.sum(z) >= 0.0:
        c1 += 1
        if c1 == 0:
            lst2.append(paddle.full([2, 2], 0.5))
    return paddle.stack(lst2).sum(axis=0), len(lst2)


def test_s3342_append_after_counter_promotion():
    check(s3342_append_after_counter_promotion, [[2.41, -0.06], [-0.57, 0.90]])


# G1: item assignment with a tuple index holding slices (`t[:, 0] = v`, `t[1:, -1] = v`): the
# converted `t = _jst.convert_setitem(t, index, v)` wrote the slices as they were (`(:, 0)`),
# which is a syntax error outside `[]`; they are `slice(...)` calls now. Also under a tensor `if`.
def g1_setitem_tuple_of_slices(x):
    m = x.clone()
    m[:, 0] = 0.5
    m[1:, -1] = paddle.tanh(x[0, 1:] * 2.0)[-1]
    if x.sum() > 0.0:
        m[:, 1] = x.mean()
    else:
        m[::2, 0:2] = x[:2, 1:] * 0.5
    return m * x


def test_g1_setitem_tuple_of_slices():
    check(g1_setitem_tuple_of_slices, [[0.3, -0.5, 1.1], [0.8, 0.2, -0.9], [1.0, 2.0, 3.0]])
    check(g1_setitem_tuple_of_slices, [[-0.3, -0.5, 1.1], [-0.8, 0.2, -0.9], [-1.0, -2.0, -3.0]])


# G2: an item write into a tensor that an earlier op read (`t[1:] = t[1:] * 0.5`, or `m[c]` read
# and written in a loop). Eagerly the reading op's gradient reached `t` through the Tensor object,
# which the write had rebound to the set_value node (a cycle: the input got no gradient). Now a
# written tensor keeps its earlier autograd positions and each node reads the one it saw
# (dygraph/engine.py rebound/position). Real Paddle 2.6.2 gives [[1, 1, 1], [.5, .5, .5],
# [.5, .5, .5]] eagerly and under to_static.
def g2_setitem_after_read(x):
    m = x.clone()
    m[1:] = m[1:] * 0.5
    return m


def test_g2_setitem_after_read():
    check(g2_setitem_after_read, [[0.3, -0.5, 1.1], [0.8, 0.2, -0.9], [1.0, 2.0, 3.0]])


def g2_written_twice(x):
    q = paddle.zeros([3, 3])
    q[0:] = q[0:] + x               # q was a constant before this write, x's sum after it
    q[1:] = q[1:] * 2.0             # this read sees the first write's position
    return q


def test_g2_reads_between_writes_see_the_write_before_them():
    check(g2_written_twice, [[0.3, -0.5, 1.1], [0.8, 0.2, -0.9], [1.0, 2.0, 3.0]])


# G3: an int tensor on the left of a float one (`paddle.shape(x)[0] * x` is int32, x truncated),
# then back into float arithmetic. Real Paddle 2.6.2 differentiates through the float->int cast
# eagerly and under to_static (grad 4 here), as sampan's eager mode does; the static backward
# stopped at every int variable (grad 1), now only at int variables that stop gradients.
def g3_grad_through_int_product(x):
    return x + paddle.shape(x)[0] * x


def test_g3_grad_through_int_product():
    check(g3_grad_through_int_product, [[0.3, -0.5, 1.1], [0.8, 0.2, -0.9], [1.0, 2.0, 3.0]])


# G4 (seeds 4191, 5903, 6835, 10306; second order): the double grad of a division whose numerator
# needs no gradient (`-0.25 / x`, `paddle.full(...) / y`). Through to_static the grad program's
# elementwise_div_grad_grad got no X@GRAD (DX); the static backward now computes the outputs a
# grad op's own gradient rule reads (static/backward_pass.py).
def g4_second_order_of_constant_over_x(x):
    return -0.25 / x


def test_g4_second_order_of_constant_over_x():
    inputs = [np.asarray([0.3, -0.5, 1.1], dtype="float32")]
    eager = execute(g4_second_order_of_constant_over_x, inputs, 2)
    static = execute(jit.to_static(g4_second_order_of_constant_over_x), inputs, 2)
    bad = compare(eager, static)
    assert bad is None, "%s: %s" % bad


# G5 (seed 1614, with loop `else` in the generator): a name first bound in a loop body and read
# only by the loop's `else` clause was not carried out of the loop (UndefinedVar in the else);
# the loop-variable analysis now counts the else clause's reads (ast_transforms/while_loops.py).
def g5_read_in_loop_else(x):
    for i0 in range(1):
        y = paddle.sin(x)
    else:
        x = paddle.abs(y) * 2
    return x


def test_g5_name_bound_in_the_loop_read_by_its_else():
    check(g5_read_in_loop_else, [0.5, -0.3, 1.2])


# G6 (seed 1691): a variable first bound inside a tensor loop entered it as a stopped zero
# placeholder and the loop's result kept that stop_gradient, so an int product of it
# (`paddle.shape(m)[0] * m`, differentiable as G3) lost its gradient; a loop result now carries a
# gradient when the body's value does (static/nn/control_flow.py _assign_back).
def g6_first_bound_in_tensor_loop(x):
    for i1 in range(1, paddle.shape(x)[0]):
        m0 = x
    return m0 + paddle.shape(m0)[0] * m0


def test_g6_loop_result_first_bound_in_the_body_keeps_its_gradient():
    check(g6_first_bound_in_tensor_loop, [[-1.39, -1.12, -0.40], [-0.88, -0.83, -0.64]])


# G7 (seed 3397): a name an `if` inside a loop body assigns, read by the loop's `else` clause:
# the `if` did not hand it out (its live-after analysis skipped the enclosing loop's else).
def g7_if_in_loop_feeds_loop_else(x, v):
    for i in range(1, paddle.shape(v)[0]):
        w = v * 1.0
        if w.sum() > w.mean():
            x = w * 2.0
            if (v * v).mean() >= 0.5:
                continue
    else:
        v = x - paddle.sum(x)
    return v


def test_g7_if_in_a_loop_body_feeds_the_loop_else():
    check(g7_if_in_loop_feeds_loop_else, [[0.1, -0.5], [0.6, -2.2], [-0.1, -2.0]],
          [[0.3, 0.9], [0.2, 0.4], [1.0, -0.6]])
