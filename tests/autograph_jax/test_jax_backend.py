"""ag.jax: plain Python control flow on JAX tracers, against the same function run as
plain Python on concrete values (under jit, grad, jvp and vmap)."""

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import autograph as ag  # noqa: E402
from autograph.errors import StagingError  # noqa: E402
from autograph.operators.staging_backends import backend_of  # noqa: E402


def fizzbuzz_count(n):
    count = 0
    for i in range(1, n + 1):
        if i % 15 == 0:
            count += 15
        elif i % 5 == 0:
            count += 5
        elif i % 3 == 0:
            count += 3
        else:
            count += 1
    return count


def collatz(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def skip_and_stop(n):
    total = 0
    i = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        if total > 40:
            break
        total += i
    return total


def first_above(xs, limit):
    for k in range(xs.shape[0]):
        if xs[k] > limit:
            return k
    return -1


def piecewise(x):
    if x < -1.0:
        y = -x
    elif x < 1.0:
        y = x * x
    else:
        y = 2.0 * x - 1.0
    return y


def range_sum(a, b, step):
    s = 0
    for k in range(a, b, step):
        s += k * k
    return s


def row_norms(m):
    best = 0.0
    for row in m:
        norm = jnp.sum(row * row)
        if norm > best:
            best = norm
    return best


def logic(x, y):
    if (x > 0 and y > 0) or not (x < -5):
        return x + y
    return x - y


def tanh_loop(x):
    while jnp.abs(x) > 0.1:
        x = x * 0.5
    return x


def unrolled(x):
    for _ in range(3):            # a Python range: unrolls
        x = x * 2
    return x


def test_backend_of_jax_values():
    assert backend_of(jnp.ones(3)) is None               # concrete: a Python value
    seen = []
    jax.jit(lambda x: seen.append(backend_of(x)) or x)(1.0)
    assert seen[0] is not None and type(seen[0]).__name__ == "JaxBackend"
    assert backend_of(3) is None


@pytest.mark.parametrize("n", [1, 7, 15, 31])
def test_fizzbuzz_count(n):
    assert int(ag.jax.jit(fizzbuzz_count)(n)) == fizzbuzz_count(n)
    assert ag.jax.convert(fizzbuzz_count)(n) == fizzbuzz_count(n)


@pytest.mark.parametrize("n", [1, 6, 27])
def test_collatz(n):
    assert int(ag.jax.jit(collatz)(n)) == collatz(n)


@pytest.mark.parametrize("n", [0, 5, 20])
def test_while_break_continue(n):
    assert int(ag.jax.jit(skip_and_stop)(n)) == skip_and_stop(n)


@pytest.mark.parametrize("limit", [0.5, 2.5, 10.0])
def test_early_return_in_loop(limit):
    xs = np.array([0.1, 1.0, 3.0, 2.0], np.float32)
    assert int(ag.jax.jit(first_above)(xs, limit)) == first_above(xs, limit)


@pytest.mark.parametrize("x", [-3.0, -0.5, 0.5, 4.0])
def test_if_elif_else(x):
    assert float(ag.jax.jit(piecewise)(x)) == pytest.approx(piecewise(x))


@pytest.mark.parametrize("a,b,step", [(0, 10, 1), (3, 20, 4), (10, 0, -3), (5, 5, 1)])
def test_range_with_traced_bounds(a, b, step):
    assert int(ag.jax.jit(range_sum)(a, b, step)) == range_sum(a, b, step)


def test_range_with_static_step():
    f = ag.jax.jit(range_sum, static_argnums=2)
    assert int(f(2, 11, 3)) == range_sum(2, 11, 3)


def test_for_over_rows():
    m = np.array([[1.0, 2.0], [3.0, 0.0], [0.5, 0.5]], np.float32)
    assert float(ag.jax.jit(row_norms)(m)) == pytest.approx(row_norms(m))


@pytest.mark.parametrize("x,y", [(1.0, 2.0), (1.0, -2.0), (-6.0, 1.0), (-1.0, -1.0)])
def test_and_or_not(x, y):
    assert float(ag.jax.jit(logic)(x, y)) == logic(x, y)


def test_python_range_unrolls():
    jaxpr = jax.make_jaxpr(ag.jax.convert(unrolled))(1.0)
    assert "while" not in str(jaxpr) and "cond" not in str(jaxpr)
    assert float(ag.jax.jit(unrolled)(1.5)) == unrolled(1.5)


def test_staged_constructs_lower_to_lax():
    text = str(jax.make_jaxpr(ag.jax.convert(collatz))(5))
    assert "while" in text and "cond" in text


def test_convert_on_concrete_values_is_f():
    assert ag.jax.convert(collatz)(27) == collatz(27)
    assert ag.jax.convert(piecewise)(jnp.float32(0.5)) == piecewise(jnp.float32(0.5))


@pytest.mark.parametrize("x", [-2.0, 0.3, 3.0])
def test_grad_through_if(x):
    g = jax.grad(ag.jax.convert(piecewise))(x)
    eps = 1e-3
    fd = (piecewise(x + eps) - piecewise(x - eps)) / (2 * eps)
    assert float(g) == pytest.approx(fd, rel=1e-2)
    assert float(jax.jit(jax.grad(ag.jax.convert(piecewise)))(x)) == pytest.approx(fd, rel=1e-2)


def test_forward_mode_through_while():
    f = ag.jax.convert(tanh_loop)
    x = 3.0
    _, tangent = jax.jvp(f, (x,), (1.0,))
    halvings = 0
    while abs(x) > 0.1:
        x *= 0.5
        halvings += 1
    assert float(tangent) == pytest.approx(0.5 ** halvings)


def test_vmap_against_python_loop():
    xs = np.array([-3.0, -0.5, 0.0, 0.7, 2.0], np.float32)
    got = jax.vmap(ag.jax.convert(piecewise))(xs)
    np.testing.assert_allclose(got, [piecewise(float(x)) for x in xs], rtol=1e-6)
    ns = np.array([1, 6, 7, 27], np.int32)
    got = jax.jit(jax.vmap(ag.jax.convert(collatz)))(ns)
    assert list(np.asarray(got)) == [collatz(int(n)) for n in ns]


def repeat(x, times):
    for _ in range(times):
        if x > 10:
            x = x - 10
        x = x + 3
    return x


def test_jit_as_decorator_with_options():
    staged = ag.jax.jit(static_argnames="times")(repeat)
    for times in (0, 3, 6):
        assert float(staged(1.0, times=times)) == repeat(1.0, times)


def test_pytree_loop_state():
    def walk(n):
        state = {"a": 0, "b": (1.0, 2.0)}
        while state["a"] < n:
            state = {"a": state["a"] + 1, "b": (state["b"][1], state["b"][0] + state["b"][1])}
        return state["b"][1]
    assert float(ag.jax.jit(walk)(6)) == walk(6)


def changes_dtype(x):
    if x > 0:
        y = jnp.int32(1)
    else:
        y = jnp.float32(2.0)
    return y


def loop_changes_shape(x):
    v = jnp.zeros(2)
    while x > 0:
        v = jnp.concatenate([v, v])
        x -= 1
    return v


def defined_on_one_path(x):
    if x > 0:
        y = x
    return y


def test_branch_changing_dtype_names_variable_and_line():
    with pytest.raises(StagingError) as info:
        ag.jax.jit(changes_dtype)(1.0)
    text = str(info.value)
    assert "'y'" in text and "int32" in text and "float32" in text
    assert "test_jax_backend.py" in text


def test_loop_changing_shape_names_variable():
    with pytest.raises(StagingError) as info:
        ag.jax.jit(loop_changes_shape)(2)
    text = str(info.value)
    assert "'v'" in text and "float32[2]" in text and "float32[4]" in text


def test_variable_defined_on_one_path():
    f = ag.jax.jit(defined_on_one_path)
    assert float(f(2.0)) == 2.0
    with pytest.raises(Exception, match="name 'y' is used at .*test_jax_backend.py"):
        jax.block_until_ready(f(-1.0))


def test_print_of_traced_values(capfd):
    def show(x):
        if x > 0:
            print("positive", x)
        return x
    jax.block_until_ready(ag.jax.jit(show)(2.0))
    jax.effects_barrier()
    assert "positive 2.0" in capfd.readouterr().out


def total_of_rows(m):
    s = 0                           # a Python int: takes the rows' dtype, as in JAX
    for k, row in enumerate(m):
        if k == 1:
            continue
        s += jnp.sum(row)
    return s


def test_enumerate_rows_and_python_number_init():
    m = np.arange(12, dtype=np.float32).reshape(4, 3)
    assert float(ag.jax.jit(total_of_rows)(m)) == total_of_rows(m)


def contains_and_len(xs, v):
    if v in xs and len(xs) > 2:
        return 1
    return 0


@pytest.mark.parametrize("v", [2.0, 7.0])
def test_in_and_len(v):
    xs = np.array([1.0, 2.0, 3.0], np.float32)
    assert int(ag.jax.jit(contains_and_len)(xs, v)) == contains_and_len(xs, v)


def bounded_halvings(x):
    n = 0
    while x > 1.0:
        ag.experimental.set_loop_options(maximum_iterations=3)
        x = x / 2
        n += 1
    return n


def test_maximum_iterations():
    assert int(ag.jax.jit(bounded_halvings)(100.0)) == 3
    assert int(ag.jax.jit(bounded_halvings)(3.0)) == 2


def test_in_scan_body_and_checkpoint():
    step = ag.jax.convert(collatz)

    def body(carry, n):
        return carry + step(n), None
    ns = np.array([3, 6, 7], np.int32)
    total, _ = jax.lax.scan(body, 0, ns)
    assert int(total) == sum(collatz(int(n)) for n in ns)
    assert float(jax.checkpoint(ag.jax.convert(piecewise))(0.5)) == piecewise(0.5)


def test_while_loop_carries_only_the_user_state():
    text = str(jax.make_jaxpr(ag.jax.convert(tanh_loop))(3.0))
    assert text.count("while[") == 1
    assert "body_nconsts=0" in text and "cond_nconsts=0" in text


def search_with_else(xs, target):
    found = -1
    for k in range(len(xs)):
        if xs[k] == target:
            found = k
            break
    else:
        found = -2
    return found


def chained(x):
    return 1.0 if 0.0 < x <= 2.0 else -1.0


@pytest.mark.parametrize("target", [3.0, 9.0])
def test_loop_else_and_break_on_traced_test(target):
    xs = np.array([1.0, 3.0, 5.0], np.float32)
    assert int(ag.jax.jit(search_with_else)(xs, target)) == search_with_else(xs, target)


@pytest.mark.parametrize("x", [-1.0, 0.0, 1.0, 2.0, 3.0])
def test_chained_comparison_in_conditional_expression(x):
    assert float(ag.jax.jit(chained)(x)) == chained(x)
    np.testing.assert_array_equal(jax.vmap(ag.jax.convert(chained))(jnp.array([x, -x])),
                                  [chained(x), chained(-x)])
