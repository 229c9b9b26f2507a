"""Reverse-mode gradients through staged loops under JAX: a loop with a bound on its trip
count (`maximum_iterations`, or the length of the array a `for` iterates) lowers to masked
scans where `jax.grad` needs it, with the same values as the `while_loop` it replaces; a
loop without one raises an error at the user's line saying how to bound it."""
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import autograph as ag  # noqa: E402
from autograph.jax_backend import bounded  # noqa: E402


def power_up_to(x, n, limit):
    """x ** (n + 1), the loop stopped by its test or after `limit` iterations."""
    y = x
    i = 0
    while i < n:
        ag.experimental.set_loop_options(maximum_iterations=limit)
        y = y * x
        i += 1
    return y


def sum_until_big(xs, t):
    s = 0.0
    for x in xs:
        if x > t:
            break
        s = s + x * x
    return s


def maybe_assigned(xs):
    for x in xs:
        if x > 1.0:
            found = x * x
            break
    else:
        found = xs[0]
    return found


def central_difference(fn, x, h=1e-3):
    return (fn(x + h) - fn(x - h)) / (2 * h)


@pytest.mark.parametrize("limit", [1, 3, 65, 1025])
@pytest.mark.parametrize("n", [0, 5, 70])
def test_bounded_while_values_and_gradient(n, limit):
    """(Traced: a loop whose test is a Python value runs as Python, whatever its bound.)"""
    steps = min(n, limit)
    x = 1.01
    converted = lambda x, n: ag.jax.convert(power_up_to)(x, n, limit)  # noqa: E731
    value = jax.jit(converted)(jnp.float32(x), jnp.int32(n))
    np.testing.assert_allclose(value, x ** (steps + 1), rtol=1e-5)
    grad = jax.jit(jax.grad(converted))
    np.testing.assert_allclose(grad(jnp.float32(x), jnp.int32(n)), (steps + 1) * x ** steps,
                               rtol=1e-4)


def test_grad_of_ag_jax_jit_and_value_and_grad():
    """The jit traces the function afresh, hiding the gradient from its values: the
    bounded loop's derivative is the scans' (a custom_jvp), wherever grad comes from."""
    f = ag.jax.jit(power_up_to, static_argnums=2)
    value, grad = jax.value_and_grad(f)(jnp.float32(2.0), jnp.int32(3), 10)
    assert (float(value), float(grad)) == (16.0, 32.0)
    plain_jit = jax.jit(ag.jax.convert(power_up_to), static_argnums=2)
    assert float(jax.grad(plain_jit)(jnp.float32(2.0), jnp.int32(3), 10)) == 32.0
    assert float(jax.jacrev(plain_jit)(jnp.float32(2.0), jnp.int32(3), 10)) == 32.0
    tangent = jax.jvp(lambda x: f(x, jnp.int32(3), 10), (2.0,), (1.0,))[1]
    assert float(tangent) == 32.0
    assert float(f(jnp.float32(2.0), jnp.int32(3), 10)) == 16.0
    assert "while" in f.lower(jnp.float32(2.0), jnp.int32(3), 10).as_text()


@pytest.mark.parametrize("t", [0.5, 1.5, 2.5, 10.0])
def test_for_over_an_array_with_break(t):
    xs = np.array([1.0, 2.0, 3.0, 0.5], np.float32)
    converted = ag.jax.convert(sum_until_big)
    np.testing.assert_allclose(jax.jit(converted)(jnp.asarray(xs), t), sum_until_big(xs, t))
    grad = jax.jit(jax.grad(converted))(jnp.asarray(xs), jnp.float32(t))
    np.testing.assert_allclose(jax.grad(converted)(jnp.asarray(xs), t), grad)   # eagerly
    expected = [central_difference(lambda v: sum_until_big(
        np.where(np.arange(4) == k, v, xs), t), float(xs[k])) for k in range(4)]
    np.testing.assert_allclose(grad, expected, rtol=1e-2, atol=1e-2)


def test_a_name_assigned_in_some_iterations_under_grad():
    for xs in ([0.5, 2.0, 3.0], [0.5, 0.25, 0.75]):
        arr = jnp.asarray(xs, jnp.float32)
        grad = jax.grad(ag.jax.convert(maybe_assigned))(arr)
        expected = jax.grad(maybe_assigned)(arr)        # plain Python: concrete, unrolled
        np.testing.assert_allclose(grad, expected)


def test_vmap_of_grad_and_grad_of_vmap():
    converted = ag.jax.convert(power_up_to)
    xs, ns = jnp.array([1.5, 2.0, 0.5]), jnp.array([0, 1, 3])
    per_element = jax.vmap(jax.grad(converted), in_axes=(0, 0, None))(xs, ns, 8)
    expected = [(int(n) + 1) * float(x) ** int(n) for x, n in zip(xs, ns)]
    np.testing.assert_allclose(per_element, expected, rtol=1e-5)
    summed = jax.grad(lambda v: jax.vmap(converted, in_axes=(0, 0, None))(v, ns, 8).sum())
    np.testing.assert_allclose(summed(xs), expected, rtol=1e-5)


def unbounded(x, n):
    y = x
    i = 0
    while i < n:
        y = y * x
        i += 1
    return y


def test_unbounded_loop_forward_mode_works_reverse_mode_says_to_bound_it():
    converted = ag.jax.convert(unbounded)
    tangent = jax.jit(lambda x, n: jax.jvp(lambda v: converted(v, n), (x,), (1.0,))[1])
    assert float(tangent(jnp.float32(2.0), jnp.int32(3))) == 32.0
    line = unbounded.__code__.co_firstlineno + 3
    with pytest.raises(ValueError, match="maximum_iterations=N") as info:
        jax.jit(jax.grad(converted))(jnp.float32(2.0), jnp.int32(3))
    assert f"test_jax_reverse_mode.py:{line}:" in str(info.value)


def test_forward_only_loops_stay_while_loops():
    """Only reverse mode pays for the scans: jit and jvp keep the while_loop."""
    converted = ag.jax.convert(power_up_to)
    text = str(jax.make_jaxpr(lambda x, n: converted(x, n, 100))(1.0, 3))
    assert "while[" in text and "scan[" not in text
    text = str(jax.make_jaxpr(jax.grad(lambda x, n: converted(x, n, 100)))(1.0, 3))
    assert "scan[" in text


@pytest.mark.parametrize("bound", [1, 2, 63, 64, 65, 100, 1000, 1024, 1025, 40000])
def test_scan_levels_cover_the_bound_tightly(bound):
    sizes = bounded._levels(bound)
    total = int(np.prod(sizes))
    assert total >= bound
    if len(sizes) > 1:
        assert int(np.prod([sizes[0] - 1] * len(sizes))) < bound
