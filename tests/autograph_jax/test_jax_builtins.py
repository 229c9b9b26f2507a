"""`zip` over arrays and the builtins `max`/`min` under JAX: staged (one `while_loop` as
long as the shortest array; `jnp.where` selections with Python's meaning), agreeing with
plain Python on concrete values, under jit, grad and vmap."""
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import autograph as ag  # noqa: E402


def dot_by_zip(xs, ys):
    acc = 0.0
    for x, y in zip(xs, ys):
        acc += x * y
    return acc


def weighted_until(xs, ys, t):
    acc = 0.0
    for i, (x, y) in enumerate(zip(xs, ys)):
        if x > t:
            break
        acc += i * x * y
    return acc


def gaps(a, b, c):
    return max(a, b) - min(b, c) + max([a, b, c]) - min(a, b, c)


def spread(xs):
    return max(xs) - min(xs)


@pytest.mark.parametrize("n, m", [(4, 4), (5, 3), (2, 6), (0, 3), (1, 1)])
def test_zip_agrees_with_python_and_is_one_loop(n, m):
    xs, ys = np.arange(n, dtype=np.float32) + 1, np.arange(m, dtype=np.float32) * 0.5
    for fn, args in ((dot_by_zip, (xs, ys)), (weighted_until, (xs, ys, 2.5))):
        expected = fn(*args)
        got = ag.jax.jit(fn)(*(jnp.asarray(a) for a in args))
        np.testing.assert_allclose(got, expected, rtol=1e-6, err_msg=fn.__name__)
    text = str(jax.make_jaxpr(ag.jax.convert(dot_by_zip))(jnp.asarray(xs), jnp.asarray(ys)))
    if min(n, m) == 0:
        assert "while[" not in text and " mul " not in text   # no item: no loop at all
    else:
        assert text.count("while[") == 1 and text.count(" mul ") == 1   # not unrolled


def test_zip_gradient_and_vmap():
    xs, ys = jnp.array([1.0, 2.0, 3.0]), jnp.array([0.5, -1.0, 2.0])
    gx, gy = jax.grad(ag.jax.convert(weighted_until), argnums=(0, 1))(xs, ys, 2.5)
    ex, ey = jax.grad(weighted_until, argnums=(0, 1))(xs, ys, 2.5)   # plain, unrolled
    np.testing.assert_allclose(gx, ex)
    np.testing.assert_allclose(gy, ey)
    batch = jnp.stack([xs, xs * 2, -xs])
    got = jax.vmap(ag.jax.convert(dot_by_zip), in_axes=(0, None))(batch, ys)
    np.testing.assert_allclose(got, [dot_by_zip(np.asarray(b), np.asarray(ys)) for b in batch])


NAN = float("nan")


@pytest.mark.parametrize("values", [(1.0, 2.0, 3.0), (3.0, 2.0, 1.0), (2.0, 2.0, 2.0),
                                    (NAN, 1.0, 2.0), (1.0, NAN, 2.0), (2.0, 1.0, NAN)])
def test_max_min_of_scalars_as_python(values):
    expected = gaps(*values)
    got = ag.jax.jit(gaps)(*(jnp.float32(v) for v in values))
    np.testing.assert_equal(np.asarray(got), np.float32(expected))
    assert ag.jax.convert(gaps)(*values) == expected or np.isnan(expected)


@pytest.mark.parametrize("xs", [[1.0, 3.0, 2.0], [NAN, 1.0, 2.0], [1.0, NAN, 2.0], [5.0]])
def test_max_min_of_a_vector_as_python(xs):
    got = ag.jax.jit(spread)(jnp.asarray(xs, jnp.float32))
    np.testing.assert_equal(np.asarray(got), np.float32(spread(xs)))
    assert int(ag.jax.jit(spread)(jnp.array([3, 1, 2]))) == 2


def test_max_min_gradient_and_vmap():
    grad = jax.grad(ag.jax.convert(gaps), argnums=(0, 1, 2))(1.0, 2.0, 3.0)
    # max(a, b) = b; min(b, c) = b; max = c; min = a
    assert [float(g) for g in grad] == [-1.0, 0.0, 1.0]
    a = jnp.array([1.0, 5.0, 2.0])
    got = jax.vmap(ag.jax.convert(gaps))(a, jnp.full(3, 2.0), jnp.array([3.0, 0.0, 2.0]))
    np.testing.assert_allclose(got, [gaps(float(x), 2.0, float(z))
                                     for x, z in zip(a, [3.0, 0.0, 2.0])])


def test_max_errors_say_what_python_would():
    with pytest.raises(ValueError, match="empty sequence"):
        ag.jax.jit(spread)(jnp.zeros((0,)))
    with pytest.raises(TypeError, match="jnp.max"):
        ag.jax.jit(spread)(jnp.zeros((2, 2)))
    with pytest.raises(TypeError, match="jnp.maximum"):
        ag.jax.jit(gaps)(jnp.zeros(2), jnp.zeros(2), jnp.zeros(2))


def range_sum(a, b, c):
    s = 0
    for i in range(a, b, c):
        s += i
    return s


@pytest.mark.parametrize("c", [-2, -1, 1, 3])
def test_range_with_a_traced_bound_counts_as_python(c):
    """The trip count of range(a, b, c) with a Python step (few ops) and a traced one."""
    python_step = ag.jax.jit(range_sum, static_argnums=(0, 2))
    traced_step = ag.jax.jit(range_sum)
    for a in (-3, 0, 2):
        for b in (-5, 0, 7):
            expected = range_sum(a, b, c)
            assert int(python_step(a, jnp.int32(b), c)) == expected, (a, b, c)
            assert int(traced_step(jnp.int32(a), jnp.int32(b), jnp.int32(c))) == expected
    with pytest.raises(ValueError, match="must not be zero"):
        python_step(0, jnp.int32(3), 0)
