"""Programs that once failed or differed from Python, staged by rt.function
(and, where JAX is installed, with jit_compile=True)."""
import linecache

import numpy as np
import pytest

import runtime as rt


def _functions():
    yield rt.function
    try:
        import jax  # noqa: F401
    except ImportError:
        return
    yield lambda f: rt.function(f, jit_compile=True)


FUNCTIONS = list(_functions())


@pytest.mark.parametrize("function", FUNCTIONS)
def test_a_chained_comparison_with_expression_operands_stages(function):
    def f(x):
        r = 0
        if 0 < abs(x) < 6:
            r = 1
        return r, 0 < x + 1 < 6, -3 <= x * 2 < rt.constant(5) <= 9

    traced = function(f)
    for x in (-7, -2, 0, 3, 5, 9):
        got = [np.asarray(t).item() for t in traced(rt.constant(x))]
        assert got == [int(0 < abs(x) < 6), 0 < x + 1 < 6, -3 <= x * 2 < 5 <= 9], x


# -- an exception raised while tracing a staged construct, caught by the traced code ------
# (the handler would run once, while tracing, for every value: refused, not a wrong answer)

def caught_loop(n):
    r = 0
    try:
        for i in range(n):
            r = {"a": 1}["b"]
    except KeyError:
        r = 7
    return r


def _raising_helper(n):
    r = 0
    if n > 0:
        r = {"a": 1}["b"]
    return r


def caught_in_the_caller(n):
    try:
        return _raising_helper(n)
    except KeyError:
        return 7


def caught_staging_error(n):
    try:
        s = 0
        for i in range(n):
            s = s + 0.5       # a loop variable changing dtype: a staging error
    except Exception:
        s = -1
    return s


def suppressed(n):
    import contextlib
    r = 0
    with contextlib.suppress(IndexError):
        for i in range(n):
            r = [1][3]
    return r


def left_python_then_caught(x):
    r = 0
    try:
        y = 5
        # (left as Python, for the `del` of state: the tensor test raises)
        if x > 0:
            del y
            r = 1
    except Exception:
        r = -1
    return r


def swallowed_by_finally(x):
    a = 0
    try:
        if x > 2:
            return 1
        a = 5
    finally:
        return a


@pytest.mark.parametrize("function", FUNCTIONS)
@pytest.mark.parametrize("fn, line", [
    (caught_loop, "for i in range(n):"), (caught_in_the_caller, "if n > 0:"),
    (caught_staging_error, "for i in range(n):"), (suppressed, "for i in range(n):"),
    (left_python_then_caught, "if x > 0:"), (swallowed_by_finally, "if x > 2:")])
def test_an_error_caught_while_tracing_is_refused(function, fn, line):
    with pytest.raises(rt.errors.StagingError) as info:
        function(fn)(rt.constant(0))
    text = str(info.value)
    assert "was caught by" in text and fn.__name__ in text
    path, lineno = text.split(": ")[0].rsplit(":", 1)      # the construct's line
    assert path == __file__
    assert linecache.getline(path, int(lineno)).strip() == line


def test_catching_what_python_code_raises_on_a_tensor_still_works():
    def f(t):
        try:
            n = len(t)                   # a symbolic tensor has no len: TypeError
        except TypeError:
            n = rt.shape(t)[0]
        try:
            d = {"a": 1}["b"]            # raised and caught in plain code: as Python
        except KeyError:
            d = 2
        return n + d
    assert rt.function(f, input_signature=[rt.TensorSpec([None], rt.int32)])(
        rt.constant([1, 2, 3])).numpy() == 5


def test_an_if_inside_a_try_of_its_own_function_raises_when_the_graph_runs():
    def f(x):
        r = 0
        try:
            if x > 0:
                r = {"a": 1}["b"]
        except KeyError:
            r = 7
        return r
    traced = rt.function(f)
    assert traced(rt.constant(-1)).numpy() == 0
    with pytest.raises(rt.errors.InvalidArgumentError, match="KeyError"):
        traced(rt.constant(1))


# -- a helper's `nonlocal` write in a staged conditional expression / and / or -----------

def nonlocal_in_if_expression(x):
    c = 0

    def bump():
        nonlocal c
        c = c + 1
        return 1
    r = bump() if x > 0 else 0
    return c + r


def nonlocal_in_and(x):
    c = 0

    def bump():
        nonlocal c
        c = c + 1
        return True
    r = x > 0 and bump()
    return c, r


def nonlocal_in_if_statement(x):
    c = 0

    def bump():
        nonlocal c
        c = c + 1
    if x > 0:
        bump()
    return c


@pytest.mark.parametrize("fn", [nonlocal_in_if_expression, nonlocal_in_and])
def test_a_helpers_nonlocal_write_in_a_staged_expression_is_refused(fn):
    with pytest.raises(rt.errors.StagingError, match="changes the variable `c` of an "
                                                     "enclosing function"):
        rt.function(fn)(rt.constant(-3))


def test_a_helpers_nonlocal_write_in_a_staged_if_statement_is_carried():
    traced = rt.function(nonlocal_in_if_statement)
    assert [int(traced(rt.constant(x)).numpy()) for x in (-3, 3)] == [0, 1]


# -- a dict argument is seen in its own order --------------------------------------------

def test_a_dict_argument_keeps_its_order_and_another_order_retraces():
    def first_key(x, d):
        return x * 0 + list(d)[0], list(d.values())[0]

    traced = rt.function(first_key)
    t = rt.constant(1)
    ten, twenty = rt.constant(10), rt.constant(20)
    for d in ({2: twenty, 1: ten}, {1: ten, 2: twenty}):
        key, value = traced(t, d)
        assert (int(key.numpy()), int(value.numpy())) == (list(d)[0], int(list(d.values())[0]))


# -- jit_compile: an integer to a negative integer power ---------------------------------

@pytest.mark.parametrize("function", FUNCTIONS)
def test_an_integer_to_a_negative_power_raises_on_every_backend(function):
    traced = function(lambda a, b: a ** b)
    assert traced(rt.constant(2), rt.constant(3)).numpy() == 8
    with pytest.raises(rt.errors.InvalidArgumentError, match="negative integer powers"):
        traced(rt.constant(2), rt.constant(-1))


# -- a class defined inside a traced function: its methods are converted when called ----

def class_defined_inside(n):
    class Summer:
        def run(self, n):
            s = 0
            for i in range(n):
                s += i
            return s
    return Summer().run(n)


def test_methods_of_a_class_defined_in_the_traced_function_are_converted():
    assert rt.function(class_defined_inside)(rt.constant(4)).numpy() == 6


# -- jit_compile: a TensorArray written on one path only; a loop over an empty tensor -----

def written_on_one_path(n):
    ta = rt.TensorArray(rt.int32, size=3)
    if n > 0:
        ta = ta.write(0, n)
    return ta.stack()


def written_under_a_condition_in_a_loop(n):
    ta = rt.TensorArray(rt.float32, size=4)
    for i in rt.range(4):
        if i >= n:
            break
        if i % 2 == 0:
            ta = ta.write(i, rt.cast(i, rt.float32) + 0.5)
    return ta.stack()


def sum_of_items(t):
    s = 0
    for v in t:
        s = s + v
    return s


@pytest.mark.parametrize("function", FUNCTIONS)
def test_tensor_arrays_written_on_some_paths(function):
    assert function(written_on_one_path)(rt.constant(3)).numpy().tolist() == [3, 0, 0]
    assert function(written_on_one_path)(rt.constant(-3)).numpy().tolist() == [0, 0, 0]
    got = function(written_under_a_condition_in_a_loop)(rt.constant(3)).numpy().tolist()
    assert got == [0.5, 0.0, 2.5, 0.0]


@pytest.mark.parametrize("function", FUNCTIONS)
def test_a_loop_over_an_empty_tensor_runs_no_iteration(function):
    assert function(sum_of_items)(rt.constant(np.array([], np.int32))).numpy() == 0
    assert function(sum_of_items)(rt.constant(np.array([4, 5], np.int32))).numpy() == 9
