"""Random draws whose shape is known only when the graph runs (`rt.shape(x)` of an input
whose signature has None dimensions), on the numpy backend and under jit_compile.

As in TensorFlow, such a draw takes its shape as a tensor. The reference of each draw is
the same draw traced with the shape known (the existing tests pin those numbers): with
one global seed and op seed, both draw the same numbers, run after run, and the first
run draws what the eager draw does after set_seed.
"""
import numpy as np
import pytest

import runtime as rt

try:
    import jax  # noqa: F401
    WAYS = [False, True]
except ImportError:  # pragma: no cover - the numpy backend alone
    WAYS = [False]

DYN = [rt.TensorSpec([None, 3], rt.float32)]

# each draw as a function of its shape (a list of ints, or a tensor)
DRAWS = {
    "normal": lambda s: rt.random.normal(s, seed=11),
    "normal_params": lambda s: rt.random.normal(s, mean=2.0, stddev=3.0, dtype=rt.float64,
                                                seed=12),
    "uniform": lambda s: rt.random.uniform(s, seed=13),
    "uniform_bounds": lambda s: rt.random.uniform(s, -2.0, 5.0, seed=14),
    "uniform_tensor_bounds": lambda s: rt.random.uniform(s, rt.constant(-1.0) * 2,
                                                         rt.constant(3.0) + 1, seed=15),
    "uniform_int": lambda s: rt.random.uniform(s, 0, 10, dtype=rt.int32, seed=16),
    "uniform_int_tensor_bounds": lambda s: rt.random.uniform(
        s, rt.constant(3) - 6, rt.constant(4) + 3, dtype=rt.int32, seed=17),
    "truncated_normal": lambda s: rt.random.truncated_normal(s, stddev=2.0, seed=18),
}


def _static_fn(draw, shape, jit):
    return rt.function(lambda x: draw(list(shape)), jit_compile=jit,
                       input_signature=[rt.TensorSpec(list(shape), rt.float32)])


def _dynamic_fn(draw, jit, seen):
    def f(x):
        out = draw(rt.shape(x))
        seen.append(out.shape.as_list())
        return out
    return rt.function(f, jit_compile=jit, input_signature=DYN)


@pytest.mark.parametrize("jit", WAYS)
@pytest.mark.parametrize("name", sorted(DRAWS))
@pytest.mark.parametrize("rows", [4, 0])
def test_draw_of_a_run_time_shape_is_the_static_shape_draw(name, jit, rows):
    draw = DRAWS[name]
    x = np.ones((rows, 3), np.float32)
    rt.random.set_seed(5)
    eager = draw([rows, 3]).numpy()
    rt.random.set_seed(5)
    static = _static_fn(draw, (rows, 3), jit)
    want = [static(x).numpy() for _ in range(2)]
    rt.random.set_seed(5)
    seen = []
    dynamic = _dynamic_fn(draw, jit, seen)
    got = [dynamic(x) for _ in range(2)]
    rt.random.set_seed(None)
    assert seen == [[None, 3]]  # what is known of the shape while tracing
    for g, w in zip(got, want):
        assert g.shape == (rows, 3) and g.dtype == static(x).dtype
        np.testing.assert_array_equal(g.numpy(), w)
    # the first run draws the eager draw's numbers (bounds computed in a graph are applied
    # as u * (hi - lo) + lo there, a rounding away from the eager draw's)
    np.testing.assert_allclose(got[0].numpy(), eager, rtol=1e-6 if "tensor" in name else 0)
    if rows:
        assert not np.array_equal(got[0].numpy(), got[1].numpy())  # a new draw each run


@pytest.mark.parametrize("jit", WAYS)
def test_values_and_statistics(jit):
    @rt.function(input_signature=DYN, jit_compile=jit)
    def f(x):
        s = rt.shape(x)
        return (rt.random.uniform(s), rt.random.uniform(s, 2.0, 3.0, dtype=rt.float64),
                rt.random.uniform(s, -3, 4, dtype=rt.int64), rt.random.normal(s),
                rt.random.normal(s, 5.0, 0.5), rt.random.truncated_normal(s),
                rt.random.truncated_normal(s, mean=1.0, stddev=0.1))
    u, u64, ints, z, z2, t, t2 = [v.numpy() for v in f(np.zeros((4000, 3), np.float32))]
    assert u.dtype == np.float32 and u64.dtype == np.float64 and ints.dtype == np.int64
    assert all(v.shape == (4000, 3) for v in (u, u64, ints, z, z2, t, t2))
    assert 0 <= u.min() and u.max() < 1 and 2 <= u64.min() and u64.max() < 3
    assert abs(u.mean() - 0.5) < 0.02 and abs(u.var() - 1 / 12) < 0.01
    assert set(np.unique(ints).tolist()) == set(range(-3, 4))
    assert abs(z.mean()) < 0.05 and abs(z.std() - 1) < 0.05
    assert abs(z2.mean() - 5) < 0.03 and abs(z2.std() - 0.5) < 0.03
    # truncated at two standard deviations: the standard normal's std there is ~0.8796
    assert np.abs(t).max() <= 2 and abs(t.std() - 0.8796) < 0.03 and abs(t.mean()) < 0.05
    assert np.abs(t2 - 1).max() <= 0.2 + 1e-6


@pytest.mark.parametrize("jit", WAYS)
def test_shapes_known_in_part(jit):
    seen = []

    @rt.function(input_signature=[rt.TensorSpec([None, 3], rt.float32),
                                  rt.TensorSpec(None, rt.float32)], jit_compile=jit)
    def f(x, y):
        a = rt.random.normal([rt.shape(x)[0], 2, 5])  # a list holding a tensor
        b = rt.random.uniform(rt.shape(y))             # y's rank unknown
        c = rt.random.uniform(rt.shape(x, out_type=rt.int64), dtype=rt.float64)
        d = rt.random.truncated_normal(rt.concat([rt.shape(x), [2]], 0))
        seen.extend(t.shape.as_list() if t.shape.rank is not None else None
                    for t in (a, b, c, d))
        return a, b, c, d
    a, b, c, d = f(np.ones((4, 3), np.float32), np.ones((2, 1, 5), np.float32))
    assert seen == [[None, 2, 5], None, [None, 3], [None, None, None]]
    assert (a.shape, b.shape, c.shape, d.shape) == ((4, 2, 5), (2, 1, 5), (4, 3), (4, 3, 2))
    assert c.dtype == rt.float64


@pytest.mark.parametrize("jit", WAYS)
def test_generator_draws_continue_the_eager_stream(jit):
    reference = rt.random.Generator.from_seed(1)
    want = [reference.normal([2, 3]), reference.normal([4, 3]), reference.uniform([4, 3]),
            reference.truncated_normal([4, 3]), reference.uniform([4, 3], 0, 7, rt.int32),
            reference.normal([5])]
    g = rt.random.Generator.from_seed(1)
    first = g.normal([2, 3])                                  # eagerly

    @rt.function(input_signature=DYN, jit_compile=jit)
    def f(x):
        s = rt.shape(x)
        return (g.normal(s), g.uniform(s), g.truncated_normal(s),
                g.uniform(s, 0, 7, dtype=rt.int32))
    got = [first, *f(np.ones((4, 3), np.float32)), g.normal([5])]  # then eagerly again
    for a, b in zip(got, want):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert int(g.state.numpy()[1]) == 6


@pytest.mark.parametrize("jit", WAYS)
def test_dropout_of_an_input_with_none_dims(jit):
    x = np.random.default_rng(0).uniform(1, 2, (3000, 3)).astype(np.float32)

    def drop(v):
        return rt.nn.dropout(v, 0.3, seed=4)

    rt.random.set_seed(9)
    static = rt.function(drop, input_signature=[rt.TensorSpec([3000, 3], rt.float32)],
                         jit_compile=jit)(x).numpy()
    rt.random.set_seed(9)
    f = rt.function(drop, input_signature=DYN, jit_compile=jit)
    y = f(x)
    rt.random.set_seed(None)
    assert y.shape == (3000, 3) and y.dtype == rt.float32
    kept = y.numpy() != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(y.numpy()[kept], x[kept] / 0.7, rtol=1e-6)
    np.testing.assert_array_equal(y.numpy(), static)
    assert f.get_concrete_function().structured_outputs.shape.as_list() == [None, 3]


@pytest.mark.parametrize("jit", WAYS)
def test_dropout_noise_shape_with_none(jit):
    @rt.function(input_signature=DYN, jit_compile=jit)
    def f(x):
        return rt.nn.dropout(x, 0.5, noise_shape=[None, 1], seed=2)
    y = f(np.ones((500, 3), np.float32)).numpy()
    assert y.shape == (500, 3)
    assert np.all(y == y[:, :1])  # one decision per row
    assert set(np.unique(y).tolist()) <= {0.0, 2.0} and 0.4 < (y[:, 0] != 0).mean() < 0.6


def test_bad_run_time_shapes():
    @rt.function(input_signature=[rt.TensorSpec([None], rt.int32)])
    def f(s):
        return rt.random.uniform(s)
    assert f(np.array([2, 3], np.int32)).shape == (2, 3)
    with pytest.raises(rt.errors.InvalidArgumentError, match="negative"):
        f(np.array([2, -1], np.int32))
    with pytest.raises(rt.errors.InvalidArgumentError, match="1-D integer"):
        rt.function(lambda s: rt.random.normal(s),
                    input_signature=[rt.TensorSpec([None], rt.float32)])(np.ones(2, np.float32))


@pytest.mark.skipif(True not in WAYS, reason="needs JAX")
def test_jit_refuses_a_shape_that_is_a_value_of_the_run():
    """Under jit_compile a shape must be known while compiling: rt.shape(x) is, the
    value of an input is not (XLA needs every shape), as for rt.reshape."""
    from runtime.backends.xla.backend import XlaLoweringError

    @rt.function(input_signature=[rt.TensorSpec([None], rt.int32)], jit_compile=True)
    def f(s):
        return rt.random.normal(s)
    with pytest.raises(XlaLoweringError, match="shape is known only when the graph runs"):
        f(np.array([2, 3], np.int32))


def test_gradient_flows_through_the_scaling_not_the_draw():
    @rt.function(input_signature=DYN)
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            noise = rt.random.normal(rt.shape(x), seed=3)
            y = rt.reduce_sum(x * noise)
        return tape.gradient(y, x), noise
    grad, noise = f(np.ones((4, 3), np.float32))
    np.testing.assert_array_equal(grad.numpy(), noise.numpy())


def test_onnx_export_refuses_run_time_shapes():
    cf = rt.function(lambda x: x + rt.random.uniform(rt.shape(x))).get_concrete_function(
        rt.TensorSpec([None, 3], rt.float32))
    with pytest.raises(rt.onnx.ExportError, match="known only when the graph runs"):
        rt.onnx.export(cf)


def test_saved_function_draws_as_the_original(tmp_path):
    g = rt.random.Generator.from_seed(4)

    def fn(x):
        s = rt.shape(x)
        return (rt.random.normal(s, seed=1), rt.random.uniform(s, 0, 5, rt.int32, seed=2),
                rt.random.truncated_normal(s, seed=3), g.uniform(s))
    rt.random.set_seed(2)
    f = rt.function(fn, input_signature=DYN)
    f.get_concrete_function()
    rt.random.set_seed(None)
    rt.saved.save(f, str(tmp_path / "m"))
    loaded = rt.saved.load(str(tmp_path / "m"))
    x = np.ones((4, 3), np.float32)
    got, want = loaded.fn(x), f(x)
    for a, b in zip(got, want):
        assert a.shape == (4, 3) and a.dtype == b.dtype
        np.testing.assert_array_equal(a.numpy(), b.numpy())
