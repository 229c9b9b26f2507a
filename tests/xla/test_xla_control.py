"""Control flow, Variables, prints, assertions, random draws and TensorArrays on the XLA
backend, against the numpy backend (functions in plain Python, converted by autograph
inside rt.function)."""
import pytest

pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

import numpy as np

import autograph as ag
import runtime as rt
from runtime.errors import InvalidArgumentError
from runtime.backends.xla.backend import JaxBackend, XlaLoweringError
from xla_helpers import compare_traced, plans, run, traced

I32 = rt.TensorSpec([], rt.int32)
F32 = rt.TensorSpec([], rt.float32)


def test_cond_elif_chain_and_values():
    def f(x):
        if x > 10:
            y = x * 2
        elif x > 0:
            y = x + 100
        else:
            y = -x
        return y

    for v in (-3, 5, 11):
        compare_traced(f, [I32], [np.int32(v)])


def test_nested_while_with_break_continue_return():
    def f(n):
        total = 0
        i = 0
        while i < n:
            i += 1
            if i % 3 == 0:
                continue
            j = 0
            while j < i:
                j += 1
                if j > 4:
                    break
                total += i * j
            if total > 200:
                return total * 10
        return total

    for v in (0, 4, 7, 30):
        compare_traced(f, [I32], [np.int32(v)])


def test_for_over_range_and_tensor():
    def f(n, x):
        s = 0.0
        for i in rt.range(n):
            s += rt.cast(i, rt.float32) * x
        for v in rt.constant([1.0, 2.0, 3.0]):
            s = s * v
        return s

    for v in (0, 1, 9):
        compare_traced(f, [I32, F32], [np.int32(v), np.float32(0.5)])


def test_loop_carrying_a_vector_and_matmul():
    def f(x, n):
        for _ in rt.range(n):
            x = rt.matmul(x, rt.transpose(x)) % 7
        return x

    x = np.arange(9, dtype=np.int32).reshape(3, 3)
    compare_traced(f, [rt.TensorSpec([3, 3], rt.int32), I32], [x, np.int32(5)])


def test_variables_assigned_inside_loops_and_conds():
    def make():
        v = rt.Variable(1.0)
        count = rt.Variable(0, dtype=rt.int64)

        def f(n):
            for i in rt.range(n):
                if i % 2 == 0:
                    v.assign(v * 2.0)
                else:
                    v.assign_add(1.0)
                count.assign_add(rt.cast(1, rt.int64))
            after = v.read_value()
            v.assign_sub(0.5)
            return after, v.read_value(), count.read_value()
        return v, count, f

    results = []
    for backend in ("numpy", "xla"):
        v, count, f = make()
        g, ins, outs = traced(f, I32)
        plan = plans(g, ins, outs)[0 if backend == "numpy" else 1]
        first, _ = run(plan, [np.int32(5)])
        second, _ = run(plan, [np.int32(3)])
        results.append((first, second, v.numpy(), count.numpy()))
    (a1, a2, av, ac), (b1, b2, bv, bc) = results
    for x, y in zip(a1 + a2, b1 + b2):
        np.testing.assert_array_equal(x, y)
    assert av == bv and ac == bc and np.asarray(bc).dtype == np.int64


def test_prints_fizzbuzz_same_text():
    def fizzbuzz(n):
        for i in rt.range(1, n + 1):
            if i % 15 == 0:
                rt.print("fizzbuzz")
            elif i % 3 == 0:
                rt.print("fizz")
            elif i % 5 == 0:
                rt.print("buzz")
            else:
                rt.print(i)

    _, text = compare_traced(fizzbuzz, [I32], [np.int32(31)])
    assert text.splitlines()[:5] == ["1", "2", "fizz", "4", "buzz"]


def test_prints_values_lists_and_separators_in_order():
    def f(x, n):
        rt.print("start", x, [x, n], sep="|", end="!\n")
        i = 0
        while i < n:
            rt.print("step", i, x * rt.cast(i, rt.float32), summarize=2)
            i += 1
        rt.print({"done": n}, x > 0)
        return i

    x = np.array([0.5, 1.25, -2.0, 3.0, 4.5], np.float32)
    _, text = compare_traced(f, [rt.TensorSpec([5], rt.float32), I32], [x, np.int32(3)])
    assert "step 2 [1 2.5 ... 6 9]" in text


def test_assert_raises_the_same_error_and_stops_there():
    v = rt.Variable(0)

    def f(x):
        v.assign(x)
        rt.print("before")
        rt.debugging.assert_positive(x, message="x must be positive")
        rt.print("after")
        v.assign(x * 100)
        return x + 1

    g, ins, outs = traced(f, I32)
    errors, texts = [], []
    for plan in plans(g, ins, outs):
        v.assign(7)
        ok, text = run(plan, [np.int32(2)])
        assert int(ok[0]) == 3 and int(v.numpy()) == 200
        with pytest.raises(InvalidArgumentError) as e:
            run(plan, [np.int32(-5)])
        errors.append(str(e.value))
        texts.append(text)
        assert int(v.numpy()) == -5  # the assignment before the failed check stays
    assert errors[0] == errors[1]
    assert "x must be positive" in errors[1] and "-5" in errors[1]
    assert texts[0] == texts[1]


def test_assert_inside_a_loop_stops_the_loop():
    def f(n):
        i = 0
        while i < n:
            rt.print(i)
            rt.debugging.Assert(i < 3, [i])
            i += 1
        return i

    g, ins, outs = traced(f, I32)
    texts = []
    for plan in plans(g, ins, outs):
        import contextlib
        import io
        buf = io.StringIO()
        with pytest.raises(InvalidArgumentError, match="assertion failed"):
            with contextlib.redirect_stdout(buf):
                plan(np.int32(10))
        texts.append(buf.getvalue())
    assert texts[0] == texts[1] == "0\n1\n2\n3\n"


def test_random_draws_match_the_numpy_backend_run_after_run():
    def f(x):
        u = rt.random.uniform([3], seed=7)
        k = rt.random.uniform([2], minval=0, maxval=10, dtype=rt.int32, seed=8)
        z = rt.random.normal([2, 2], seed=9)
        return x + u, k, z

    draws = []
    for backend in (0, 1):
        rt.random.set_seed(42)
        g, ins, outs = traced(f, F32)
        plan = plans(g, ins, outs)[backend]
        draws.append([run(plan, [np.float32(1.0)])[0] for _ in range(3)])
    for a, b in zip(*draws):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    assert not np.array_equal(draws[1][0][0], draws[1][1][0])  # anew at each run


def test_tensor_array_loops():
    def f(x, n):
        ta = rt.TensorArray(rt.float32, size=n)
        for i in rt.range(n):
            ta = ta.write(i, x * rt.cast(i, rt.float32))
        back = rt.TensorArray(rt.float32, size=4, element_shape=[2])
        back = back.unstack(ta.stack()[:4])
        total = back.read(1) + back.read(3)
        return ta.stack(), total, ta.size()

    g, ins, outs = traced(f, rt.TensorSpec([2], rt.float32), rt.TensorSpec([], rt.int32))
    _, xla_plan = plans(g, ins, outs)
    # a size known only when the graph runs: XLA needs it while compiling
    with pytest.raises(XlaLoweringError, match=r"TensorArrayV3 .*test_xla_control.py:\d+.*size"):
        xla_plan(np.array([1.5, -2.0], np.float32), np.int32(5))

    def fixed(x):
        ta = rt.TensorArray(rt.float32, size=5)
        for i in rt.range(5):
            ta = ta.write(i, x * rt.cast(i, rt.float32))
        back = rt.TensorArray(rt.float32, size=4, element_shape=[2])
        back = back.unstack(ta.stack()[:4])
        return ta.stack(), back.read(1) + back.read(3), ta.size()

    compare_traced(fixed, [rt.TensorSpec([2], rt.float32)], [np.array([1.5, -2.0], np.float32)])


def test_unsupported_ops_are_named_with_the_users_line():
    def f(x):
        s = rt.strings.as_string(x) if hasattr(rt, "strings") else None
        y = rt.py_function(lambda t: t * 2, [x], rt.float32)
        return y, s

    g, ins, outs = traced(f, F32)
    outs = [t for t in outs if t is not None]
    with pytest.raises(XlaLoweringError) as e:
        JaxBackend().compile(g, ins, outs)
    message = str(e.value)
    assert "EagerPyFunc" in message and "test_xla_control.py:" in message
    assert message.count("\n  ") >= 1


def test_a_range_of_run_time_length_used_as_a_tensor_is_named_at_first_call():
    def f(n):
        return rt.reduce_sum(rt.range(n))

    g, ins, outs = traced(f, I32)
    plan = JaxBackend().compile(g, ins, outs)
    with pytest.raises(XlaLoweringError, match=r"Sum .*test_xla_control.py:\d+.*rt.range"):
        plan(np.int32(4))


def test_random_draws_inside_a_loop_match_too():
    def f(n):
        s = rt.zeros([2])
        i = 0
        while i < n:
            s = s * 2.0 + rt.random.uniform([2], seed=3)
            i += 1
        return s

    draws = []
    for backend in (0, 1):
        rt.random.set_seed(5)
        g, ins, outs = traced(f, I32)
        plan = plans(g, ins, outs)[backend]
        draws.append([run(plan, [np.int32(3)])[0][0] for _ in range(2)])
    for a, b in zip(*draws):
        np.testing.assert_array_equal(a, b)


def test_a_staged_list_is_named_in_the_error():
    def f(n):
        out = []
        for i in rt.range(n):
            out.append(i * 2)
        return ag.stack(out)

    g, ins, outs = traced(f, I32)
    with pytest.raises(XlaLoweringError) as e:
        JaxBackend().compile(g, ins, outs)
    message = str(e.value)
    assert "StagedListAppend" in message and "test_xla_control.py:" in message
    assert "TensorArray" in message  # says what to use instead


def test_branches_of_different_shapes_are_refused_not_broadcast():
    """XLA needs one shape per value: a cond whose branches disagree is an error naming
    the user's line (a `where` over both would broadcast [9.] to [9., 9., 9., 9.])."""
    from runtime.backends.xla.backend import XlaLoweringError

    def picked(x):
        return rt.cond(x > 0, lambda: rt.constant([1.0, 2.0, 3.0, 4.0]),
                       lambda: rt.constant([9.0]))

    def converted(x):
        if x > 0:
            y = rt.ones([3]) * x
        else:
            y = rt.ones([2]) * x
        return y

    for fn in (picked, converted):
        assert rt.function(fn)(rt.constant(-1.0)).numpy().shape in ((1,), (2,))
        with pytest.raises(XlaLoweringError, match=r"its branches give .* the shapes") as info:
            rt.function(fn, jit_compile=True)(rt.constant(-1.0))
        assert "test_xla_control.py:" in str(info.value)
