"""Constructs with one meaning that stage: plain Python, converted on Python values, and
rt.function on tensors agree."""
import numpy as np
import pytest

import autograph as ag
import runtime as rt


def _plain(value):
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "numpy"):
        return np.asarray(value.numpy()).tolist()
    return value


def _agree(fn, *args):
    expected = _plain(fn(*args))
    assert _plain(ag.to_graph(fn)(*args)) == expected
    assert _plain(rt.function(fn)(*[rt.constant(a) for a in args])) == expected
    return expected


def walrus_in_while_test(x):
    n = 0
    while (y := x // 2) > 0:
        x = y
        n += 1
    return n, x, y


def walrus_in_while_test_with_continue(x):
    n = 0
    while (y := x - 1) > 0:
        x = y
        if x % 2 == 0:
            continue
        n += x
    return n, y


@pytest.mark.parametrize("x", [0, 1, 20, 37])
def test_walrus_in_a_staged_while_test(x):
    _agree(walrus_in_while_test, x)
    _agree(walrus_in_while_test_with_continue, x)
    assert "while_stmt" in ag.to_code(walrus_in_while_test)


def continue_in_try_finally(x):
    z = 0
    while x > 0:
        x = x - 1
        try:
            if x < 5:
                continue
            z = z + 1
        finally:
            z = z + 10
    return z


def break_in_try_finally(x):
    z = 0
    while x > 0:
        x = x - 1
        try:
            if x < 5:
                break
            z = z + 1
        finally:
            z = z + 10
    return z


def handler_sees_partial_update(x):
    z = 0
    try:
        if x > 0:
            z = z + 1
            z = z + 100 // (x - 3)     # raises for x == 3, after the first update
    except ZeroDivisionError:
        return z * 1000
    return z


@pytest.mark.parametrize("x", [0, 3, 7, 12])
def test_state_an_enclosing_try_reads_is_written_through(x):
    _agree(continue_in_try_finally, x)
    _agree(break_in_try_finally, x)
    # on Python values the handler sees the update made before the exception
    assert ag.to_graph(handler_sees_partial_update)(x) == handler_sees_partial_update(x)


def closure_reads_loop_variable(xs):
    s = 0

    def i_via_closure():
        return i + 2

    for i in xs:
        s = s * 10 + i_via_closure()
    return s


def lambda_reads_while_variable(n):
    i = 0
    s = 0
    i_via_closure = lambda: i + 2
    while i < n:
        s = s * 10 + i_via_closure()
        i += 1
    return s


def late_binding(n):
    fs = []
    for i in range(n):
        fs.append(lambda: i)
    return [f() for f in fs]


def cond_with_lambdas(x, n):
    for i in range(n):
        x = rt.cond(x > i, lambda: x - i, lambda: x + i)
    return x


def test_loop_variables_that_closures_read():
    assert _agree(closure_reads_loop_variable, [1, 2, 3]) == 345
    assert _agree(lambda_reads_while_variable, 3) == 234
    assert ag.to_graph(late_binding)(3) == late_binding(3) == [2, 2, 2]
    for x, n in ((5, 4), (1, 6)):
        expected = int(cond_with_lambdas(rt.constant(x), n))
        assert int(rt.function(cond_with_lambdas)(rt.constant(x), rt.constant(n))) == expected


def walrus_in_and(x):
    if x > 0 and (y := x * 2) > 5:
        return y
    return -1


def walrus_in_or(x):
    r = x < 0 or (z := x + 1) > 3
    if r:
        return 1
    return 0


def walrus_in_a_chain(x):
    return x > 2 and (w := x - 2) > 0 and w < 10


@pytest.mark.parametrize("x", [-2, 1, 4, 20])
def test_walrus_inside_and_or(x):
    _agree(walrus_in_and, x)
    _agree(walrus_in_or, x)
    _agree(walrus_in_a_chain, x)


def test_walrus_inside_and_binds_only_when_python_evaluates_it():
    def unbound_on_the_short_path(x):
        if x > 0 and (y := x) > 100:
            pass
        return y

    with pytest.raises(UnboundLocalError) as plain:
        unbound_on_the_short_path(-1)
    with pytest.raises(UnboundLocalError) as converted:
        ag.to_graph(unbound_on_the_short_path)(-1)
    assert str(converted.value) == str(plain.value)
    assert ag.to_graph(unbound_on_the_short_path)(5) == unbound_on_the_short_path(5) == 5


def closure_counter_called_in_if(x):
    c = 0

    def bump():
        nonlocal c
        c += 1
        return c

    if x > 0:
        bump()
    return c


def closure_counter_feeds_the_result(n):
    c = 0
    s = 0

    def inc():
        nonlocal c
        c += 1
        return c

    for _ in range(n):
        s += inc()
    return s, c


@pytest.mark.parametrize("x", [-2, 0, 3])
def test_a_variable_a_nested_function_writes_is_carried(x):
    _agree(closure_counter_called_in_if, x)
    _agree(closure_counter_feeds_the_result, max(x, 0))


def test_del_of_a_name_a_construct_may_leave_unassigned():
    def deletes(x):
        if x > 0:
            k = 1
        del k
        return "ok"

    def deletes_loop_value(x):
        for i in [1, 2]:
            k = i
        del k
        return "ok"

    assert ag.to_graph(deletes)(1) == deletes(1) == "ok"
    assert ag.to_graph(deletes_loop_value)(0) == deletes_loop_value(0) == "ok"
    with pytest.raises(UnboundLocalError) as plain:
        deletes(-1)
    with pytest.raises(UnboundLocalError) as converted:
        ag.to_graph(deletes)(-1)
    assert str(converted.value) == str(plain.value)


def test_bool_tensors_do_not_add():
    with pytest.raises(rt.errors.InvalidArgumentError, match="AddV2 does not accept bool"):
        rt.constant(True) + rt.constant(True)


def test_a_list_a_python_loop_iterates_is_not_made_a_staged_list():
    def grows_while_iterated(x):
        l = [x]
        s = 0
        for v in l:
            if v < 3:
                l.append(v + 1)
            s += v
        return s

    assert ag.to_graph(grows_while_iterated)(0) == grows_while_iterated(0) == 6
    with pytest.raises(ag.StagingError, match=r"`l.append\(...\)` changes it in place"):
        rt.function(grows_while_iterated)(rt.constant(0))


def test_an_early_return_inside_a_with_stages():
    import contextlib

    @contextlib.contextmanager
    def noting(log):
        log.append("enter")
        yield

    def body(x):
        log = []
        with noting(log):
            if x > 0:
                return x, len(log)
            y = x * 2
        return y, len(log)

    for x in (3, -3):
        assert _agree(body, x) == list(body(x))


def test_one_conversion_serves_closures_whose_cells_differ():
    """Closures of one code share a conversion: a callee held in a cell is decided when
    it is called, not by the first closure's value (a runtime op is left unconverted, a
    user function with an `if` on a tensor must still be converted)."""
    def branchy(x):
        if rt.reduce_sum(x) > 0:
            return x * 2.0
        return -x

    def make(fn):
        def step(x):
            return fn(x) + 1.0
        return step

    x = rt.constant([1.0, 2.0])
    np.testing.assert_allclose(rt.function(make(rt.negative))(x).numpy(), [0.0, -1.0])
    np.testing.assert_allclose(rt.function(make(branchy))(x).numpy(), [3.0, 5.0])
    np.testing.assert_allclose(rt.function(make(branchy))(-x).numpy(), [2.0, 3.0])


def _substring(x):
    if x > 0:
        s = "ab"
    else:
        s = "c"
    return "a" in s


def _zipped(x):
    t = rt.constant([5, 6, 7])
    s = 0
    for a, b in zip(t, [1, 2, 3]):
        s = s + a * b + x
    return s


def test_in_of_a_staged_string_is_refused_not_an_elementwise_test():
    """Python's `in` of a string looks for a substring: the elementwise test that `in`
    of a tensor makes would answer another question, so a staged (scalar) string is an
    error while tracing; a tensor of strings still tests its elements."""
    assert _substring(1) is True and _substring(-1) is False
    with pytest.raises(TypeError, match="substring test in Python"):
        rt.function(_substring)(rt.constant(1))
    words = rt.function(lambda w: ag.to_graph(lambda v: "b" in v)(w))
    assert bool(words(rt.constant(["a", "b"]))) is True


def _zipped_rows(x):
    s = 0.0
    for a, b in zip(x, [1.0, 2.0, 3.0]):
        s = s + a * b
    return s


def test_iterating_a_tensor_outside_what_a_for_loop_stages_needs_a_known_length():
    """Python's iteration of a tensor (zip(), unpacking) gives its rows where its length
    is known while tracing, as eagerly; of a length unknown until it runs, it says why
    it cannot."""
    assert int(rt.function(_zipped)(rt.constant(1))) == _zipped(1) == 41
    x = rt.constant([1.0, 2.0, 4.0])
    assert float(rt.function(_zipped_rows)(x)) == float(_zipped_rows(x)) == 17.0
    unknown = rt.function(_zipped_rows, input_signature=[rt.TensorSpec([None], rt.float32)])
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError,
                       match=r"zip\(\) or unpacking among them"):
        unknown(x)


def _runs_exec(x):
    log = []

    def helper():
        exec("log.append(1)", {"log": log})
    if x > 0:
        helper()
    return len(log)


def test_a_tensor_reaching_a_function_left_unconverted_names_it_and_why():
    assert ag.to_graph(_runs_exec)(1) == _runs_exec(1) == 1
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError) as info:
        rt.function(_runs_exec)(rt.constant(1))
    assert str(info.value).startswith(
        f"The function at {__file__}:{_runs_exec.__code__.co_firstlineno} got a symbolic "
        f"tensor in an `if`, `while` or `for`, but autograph left the function unconverted "
        f"because exec()")


def _repeats(x):
    n = 1
    if x > 0:
        n = 3
    return len([0] * n)


def test_a_list_times_a_staged_count_is_an_error_not_an_elementwise_product():
    """`[0] * n`, where a staged `if` made the Python int `n` a tensor: Python repeats
    the list; the elementwise product a tensor gives would be a list of one element."""
    assert ag.to_graph(_repeats)(1) == _repeats(1) == 3
    with pytest.raises(TypeError, match="would repeat the list"):
        rt.function(_repeats)(rt.constant(1))
    assert rt.function(lambda t: [2.0, 3.0] * t)(rt.constant(2.0)).numpy().tolist() == [4.0, 6.0]
