"""`assert` on traced values under JAX (a callback that fails the run; under
`ag.jax.checkify`, checkify checks whose errors are values), and the errors staging
gives at the user's line: a list whose length the data would decide."""
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import autograph as ag  # noqa: E402


def checked_walk(x):
    assert x > 0, "x must be positive, got {x}"
    y = x
    while y < 10:
        assert y != 3, "the walk met three"
        y = y + 1
    return y


def line_of(text):
    lines, first = __import__("inspect").getsourcelines(checked_walk)
    return first + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("x, failing", [(2.0, "the walk met three"),
                                        (-1.0, "x must be positive, got {x}"),
                                        (5.0, None)])
def test_checkify_gives_the_first_failed_assert_as_a_value(x, failing):
    err, out = jax.jit(ag.jax.checkify(checked_walk))(jnp.float32(x))
    assert float(out) == 10.0           # (checkify runs on: the walk still ends at 10)
    if failing is None:
        assert err.get() is None
        return
    assert f"test_jax_checks.py:{line_of(failing)}: {failing}" in err.get()
    with pytest.raises(Exception, match="the walk met three|must be positive"):
        err.throw()


def test_checkify_under_vmap_names_the_failing_element():
    def simple(x):
        assert x > 0, "positive"
        return x * 2
    err, out = jax.vmap(ag.jax.checkify(simple))(jnp.array([1.0, -3.0]))
    assert "mapped index 1" in err.get() and "positive" in err.get()
    assert out.tolist() == [2.0, -6.0]


def test_without_checkify_a_failed_assert_fails_the_run():
    f = ag.jax.jit(checked_walk)
    assert float(f(jnp.float32(5.0))) == 10.0
    with pytest.raises(Exception, match="the walk met three"):
        jax.block_until_ready(f(jnp.float32(2.0)))


def collect(n):
    out = []
    i = 0
    while i < n:
        out.append(i)
        i += 1
    return out


def test_a_list_the_data_would_size_is_refused_at_its_loop():
    line = collect.__code__.co_firstlineno + 3
    with pytest.raises(TypeError, match="the list 'out'.*fixed size") as info:
        ag.jax.jit(collect)(jnp.int32(3))
    assert f"test_jax_checks.py:{line}:" in str(info.value)
    assert ag.jax.convert(collect)(3) == [0, 1, 2]           # Python values: Python's list


def read_where_assigned(x):
    if x > 0:
        y = x * 2
    if x > 0:
        return y
    return 0.0


def checked_count(n):
    i = 0
    while i < n:
        assert i < n, "the loop's own test"
        i += 1
    return i


def test_checks_under_vmap_hold_only_for_the_elements_that_reach_them():
    """Under vmap JAX runs both sides of a cond and a while's body for elements already
    done: a check there must not fail for them (and must for an element that does)."""
    xs = jnp.array([1.0, -1.0, 3.0])
    for f in (jax.vmap(ag.jax.convert(read_where_assigned)),
              jax.jit(jax.vmap(ag.jax.convert(read_where_assigned)))):
        assert f(xs).tolist() == [read_where_assigned(float(x)) for x in xs]
    ns = jnp.array([1, 3, 0])
    for f in (jax.vmap(ag.jax.convert(checked_count)),
              jax.jit(jax.vmap(ag.jax.convert(checked_count)))):
        assert f(ns).tolist() == [1, 3, 0]

    def unassigned_read(x):
        if x > 0:
            y = x
        return y
    with pytest.raises(Exception, match="name 'y' is used"):
        jax.block_until_ready(jax.vmap(ag.jax.convert(unassigned_read))(xs))
    err, _ = jax.vmap(ag.jax.checkify(unassigned_read))(xs)
    assert "mapped index 1" in err.get()


def sample_positive(key):
    x = -1.0
    while x <= 0:
        key, sub = jax.random.split(key)
        x = jax.random.normal(sub)
    return x, key


def key_or_number(key, x):
    if x > 0:
        key = 1.0
    return key


def test_typed_prng_keys_as_loop_state_and_in_errors():
    for key in (jax.random.key(0), jax.random.PRNGKey(0)):
        x, _ = ag.jax.jit(sample_positive)(key)
        assert float(x) > 0
        batch = jax.vmap(ag.jax.convert(sample_positive))(jax.random.split(key, 3))[0]
        assert batch.shape == (3,) and bool(jnp.all(batch > 0))
    with pytest.raises(TypeError, match=r"'key' is float32 in the true branch but key<fry>"):
        ag.jax.jit(key_or_number)(jax.random.key(0), 1.0)
