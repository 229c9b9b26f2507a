"""A peer project's control-flow test programs (peer_programs.py: PaddlePaddle's
dygraph-to-static tests, ported), each staged on the numpy backend and under jit_compile,
must give what the same program gives eagerly.

Three lists say where one does not, each entry with its reason:

- AS_TENSORFLOW: the program cannot be staged faithfully and TensorFlow refuses it too; the
  test asserts the clear error (or, for `print`, the trace-time text) that comes instead.
- KNOWN_FAILURES: a crash or a wrong answer that should go; marked xfail(strict=True), so
  that a fix is noticed (then move the entry out).

Everything else must agree.
"""
import pytest

import peer_programs as pp
from runtime.autograph_backend import NUMPY_INDEXES_ONE_ELEMENT

CRASH, MISMATCH = pp.CRASH, pp.MISMATCH

# key: program id, or "id@way" for one way; value: (kind, text in the description, why).
AS_TENSORFLOW = {
    "ifelse.nested_if_else": (
        CRASH, "more than one element is ambiguous",
        "a staged `if` traces both branches; the one eager never takes tests a [16] vector"),
    "ifelse.if_with_and_or_3": (
        CRASH, "is None in the true branch",
        "`tensor and ... and y` with y None: a staged `and` whose value may be None"),
    "ifelse.if_tensor_case": (
        CRASH, "is bool if the condition holds but float32 if not",
        "`float tensor and bool tensor` has a different dtype on each path"),
    "ifelse.dyfunc_ifelse_ret_int2": (
        CRASH, "different structure in the two branches",
        "a staged `if` returning a pair on one path and one value on the other"),
    "ifelse.dyfunc_ifelse_ret_int4": (
        CRASH, "is string if the condition holds but float32 if not",
        "a staged `if` returning a string on one path and a float tensor on the other"),
    "ifelse.call_lambda_with_ifExpr": (
        CRASH, "is float32 if the condition holds but bool if not",
        "`float tensor or bool` has a different dtype on each path"),
    "ifelse.call_lambda_with_ifExpr2": (
        CRASH, "is float32 if the condition holds but bool if not",
        "`float tensor or bool` has a different dtype on each path"),
    "loop.while_loop_class_var": (
        CRASH, "has dtype int32 before the loop, but dtype float32 after one iteration",
        "an attribute a staged loop carries changes dtype (int 4, then float zeros)"),
    "loop.while_loop_class_var_break": (
        CRASH, "has dtype int32 before the loop, but dtype float32 after one iteration",
        "an attribute a staged loop carries changes dtype (int 4, then float zeros)"),
    "loop.tensor_array_slice_in_enumerate": (
        CRASH, "cannot be changed inside a staged construct",
        "a list held in a dict, appended to and read back by a staged loop"),
    "return_list.test_return_different_length_if_body": (
        CRASH, "different structure in the two branches",
        "a staged `if` returning a pair on one path and one value on the other"),
    "return_list.test_return_different_length_else": (
        CRASH, "different structure in the two branches",
        "a staged `if` returning a pair on one path and one value on the other"),
    "return_list.test_return_none": (
        CRASH, "the return value is None in the true branch",
        "a staged `if` returning None on one path and a pair on the other"),
    "return_list.test_return_no_variable": (
        CRASH, "the return value is None in the false branch",
        "a staged `if` returning None on one path and a pair on the other"),
    "return_list.test_list_append_in_if": (
        CRASH, "a list whose elements are int32 cannot take a int64 value",
        "a staged `if` appending an int32 tensor on one path and an int64 one on the other"),
    "return_list.test_list_pop_in_if": (
        CRASH, "a list whose elements are int32 cannot take a int64 value",
        "a staged `if` appending an int32 tensor on one path and an int64 one on the other"),
    "return_list.test_tensor_array_slice": (
        CRASH, "not sliced",
        "a slice of a list a staged loop appended to (a TensorArray in TensorFlow)"),
    "return_list.test_list_append_in_while_loop@jit": (
        CRASH, "these ops have no XLA lowering",
        "a list appended to by a loop whose trip count is a tensor's value"),
    "return_list.test_list_pop_in_while_loop@jit": (
        CRASH, "these ops have no XLA lowering",
        "a list appended to by a loop whose trip count is a tensor's value"),
    "return_list.test_list_append_in_for_subscript@jit": (
        CRASH, "these ops have no XLA lowering",
        "a list appended to by a loop whose trip count is a tensor's value"),
    "return_list.test_list_append_in_while_loop_subscript@jit": (
        CRASH, "these ops have no XLA lowering",
        "a list appended to by a loop whose trip count is a tensor's value"),
    "return_list.test_list_append_in_while_loop_with_stack@jit": (
        CRASH, "these ops have no XLA lowering",
        "a list appended to by a loop whose trip count is a tensor's value"),
    "shape.dyfunc_len_paddle_shape": (
        MISMATCH, "printed 'Tensor(\"Const:0\"",
        "Python's print of a tensor while tracing writes the graph tensor, not its value"),
}

# A numpy before 2.3 (Python 3.10's) makes an int of a one-element array, so eagerly
# `range(fill_constant([1], ...))` runs and these programs reach what TensorFlow refuses
# (with a later numpy every way refuses the range() first, and they agree).
if NUMPY_INDEXES_ONE_ELEMENT:
    AS_TENSORFLOW.update({
        "loop.for_loop_class_var": (
            CRASH, "has dtype int32 before the loop, but dtype float32 after one iteration",
            "an attribute a staged loop carries changes dtype (int, then float zeros)"),
    })

SHAPE_1_AND_SCALAR_IN_XLA = (
    "jit_compile refuses a staged `and`/`or` (or the loop test made of `not break and "
    "test`) whose operands are a shape-[1] tensor and a scalar or Python bool: its cond "
    "gives shape (1,) on one path and () on the other (the numpy backend runs it)")

# key as in AS_TENSORFLOW; value: why it fails.
KNOWN_FAILURES = {
    "ifelse.dyfunc_ifelse_ret_int3": (
        "silent dtype change: a staged `if` returning a Python int on one path and a "
        "float32 tensor on the other gives float32 1.0 where eager gives the int 1 "
        "(TensorFlow raises a dtype mismatch between the branches)"),
    "ifelse.test_logical_or_2@jit": SHAPE_1_AND_SCALAR_IN_XLA,
    "ifelse.test_logical_not_and_or@jit": SHAPE_1_AND_SCALAR_IN_XLA,
    "loop.while_loop_bool_op2@jit": SHAPE_1_AND_SCALAR_IN_XLA,
    "loop.loop_var_contains_property@jit": SHAPE_1_AND_SCALAR_IN_XLA,
    "loop.test_break_in_while@jit": SHAPE_1_AND_SCALAR_IN_XLA,
    "loop.test_optim_break_in_while@jit": SHAPE_1_AND_SCALAR_IN_XLA,
    "return_list.test_return_in_while@jit": SHAPE_1_AND_SCALAR_IN_XLA,
    "return_list.list_with_cond_net_forward@jit": (
        "jit_compile refuses a list appended to in a loop over a tensor of static length "
        "3 ('XLA needs fixed sizes'), though the trip count is known"),
}


def _entry(table, pid, way):
    return table.get(f"{pid}@{way}", table.get(pid))


def _params():
    out = []
    for program in pp.PROGRAMS:
        for way in pp.WAYS:
            reason = _entry(KNOWN_FAILURES, program.id, way)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            out.append(pytest.param(program.id, way, marks=marks, id=f"{program.id}@{way}"))
    return out


@pytest.mark.parametrize("pid, way", _params())
def test_agrees_with_eager(pid, way):
    found = pp.check(pp.BY_ID[pid], way)
    expected = _entry(AS_TENSORFLOW, pid, way)
    if expected is None:
        assert found is None, f"{way} disagrees with eager on case {found[2]}: {found[1]}"
        return
    kind, text, why = expected
    assert found is not None and found[0] == kind and text in found[1], (
        f"expected {kind} containing {text!r} ({why}), got {found}")


def test_the_lists_name_programs_of_the_corpus():
    for key in [*AS_TENSORFLOW, *KNOWN_FAILURES]:
        pid, _, way = key.partition("@")
        assert pid in pp.BY_ID and way in ("", "numpy", "jit"), key
    assert not set(AS_TENSORFLOW) & set(KNOWN_FAILURES)


def test_the_comparison_sees_a_wrong_answer_and_a_crash():
    """The harness itself: a staged result that differs, or a staged raise, is found."""
    want = pp.Outcome([pp.np.array([1], pp.np.int32)])
    assert pp.difference(pp.Outcome([pp.np.array([2], pp.np.int32)]), want)[0] == MISMATCH
    assert pp.difference(pp.Outcome([pp.np.array([1.0], pp.np.float32)]), want)[0] == MISMATCH
    assert pp.difference(pp.Outcome(error=ValueError("x")), want)[0] == CRASH
    assert pp.difference(pp.Outcome([pp.np.array([1], pp.np.int32)]), want) is None
    assert pp.difference(pp.Outcome([]), pp.Outcome(error=ValueError("x")))[0] == MISMATCH
