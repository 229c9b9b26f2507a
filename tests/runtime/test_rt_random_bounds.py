"""rt.random.uniform / normal with tensor bounds (eager, and symbolic inside rt.function):
the same draws as with Python numbers where the values are known, ranges and broadcasting
where they are computed, gradients through them, and clear errors."""
import numpy as np
import pytest

import runtime as rt


@pytest.fixture
def seeded():
    rt.random.set_seed(3)
    yield
    rt.random.set_seed(None)


def _fresh(seed, fn):
    rt.random.set_seed(seed)
    return fn().numpy()


def test_eager_tensor_bounds_draw_as_python_numbers(seeded):
    for a, b in [(lambda: rt.random.uniform([5], 2.0, 5.0, seed=1),
                  lambda: rt.random.uniform([5], rt.constant(2.0), rt.constant(5.0), seed=1)),
                 (lambda: rt.random.uniform([5], 2, 9, dtype=rt.int64, seed=1),
                  lambda: rt.random.uniform([5], rt.constant(2, rt.int64), rt.constant(9, rt.int64),
                                            dtype=rt.int64, seed=1)),
                 (lambda: rt.random.normal([5], 1.0, 3.0, seed=1),
                  lambda: rt.random.normal([5], rt.constant(1.0), rt.constant(3.0), seed=1))]:
        np.testing.assert_array_equal(_fresh(4, a), _fresh(4, b))


def test_symbolic_bounds_inside_rt_function(seeded):
    @rt.function
    def draw(lo, hi, mean, sd):
        return (rt.random.uniform([2000], lo, hi), rt.random.uniform([2000], lo * 2.0, hi * 2.0),
                rt.random.normal([4000], mean, sd))

    u, u2, n = draw(rt.constant(10.0), rt.constant(12.0), rt.constant(-5.0), rt.constant(0.5))
    assert u.dtype is rt.float32 and u.shape == rt.TensorShape([2000])
    assert 10.0 <= u.numpy().min() and u.numpy().max() < 12.0 and abs(u.numpy().mean() - 11) < 0.1
    assert 20.0 <= u2.numpy().min() and u2.numpy().max() < 24.0
    assert abs(n.numpy().mean() + 5.0) < 0.05 and abs(n.numpy().std() - 0.5) < 0.05
    # other bounds, same graph: the bounds are inputs, not traced values
    u, _, n = draw(rt.constant(0.0), rt.constant(1.0), rt.constant(3.0), rt.constant(2.0))
    assert 0.0 <= u.numpy().min() and u.numpy().max() < 1.0
    assert abs(n.numpy().mean() - 3.0) < 0.15
    assert draw.experimental_get_tracing_count() == 1
    g = draw.get_concrete_function(*[rt.TensorSpec([], rt.float32)] * 4).graph
    assert "RandomUniform" in {op.type for op in g.get_operations()}


def test_integer_uniform_with_tensor_bounds(seeded):
    @rt.function(input_signature=[rt.TensorSpec([], rt.int32), rt.TensorSpec([], rt.int32)])
    def draw(lo, hi):
        return rt.random.uniform([3000], lo, hi, dtype=rt.int32)

    got = draw(rt.constant(-3), rt.constant(4)).numpy()
    assert got.dtype == np.int32 and set(got.tolist()) == set(range(-3, 4))
    assert draw(rt.constant(7), rt.constant(8)).numpy().tolist() == [7] * 3000
    with pytest.raises(rt.errors.InvalidArgumentError, match="Need minval < maxval: 5 >= 5"):
        draw(rt.constant(5), rt.constant(5))
    with pytest.raises(ValueError, match="Must specify maxval for integer dtype int32"):
        rt.function(lambda lo: rt.random.uniform([2], lo, dtype=rt.int32))(rt.constant(1))


def test_float_bounds_broadcast_with_the_shape(seeded):
    @rt.function
    def draw(lo):
        return rt.random.uniform([1000, 2], lo, lo + 1.0)

    got = draw(rt.constant([0.0, 100.0])).numpy()
    assert got.shape == (1000, 2)
    assert got[:, 0].max() < 1.0 and got[:, 1].min() >= 100.0


def test_seeded_graph_draws_repeat_across_programs():
    def program():
        rt.random.set_seed(11)

        @rt.function
        def draw(m):
            return rt.random.normal([4], m, 2.0, seed=5)
        return draw(rt.constant(1.0)).numpy(), draw(rt.constant(1.0)).numpy()
    first, second = program(), program()
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])
    assert not np.array_equal(first[0], first[1])  # draws anew at every run
    rt.random.set_seed(None)


def test_gradients_flow_to_tensor_bounds():
    mean, sd = rt.Variable(1.0), rt.Variable(2.0)

    @rt.function
    def step():
        with rt.GradientTape() as tape:
            z = rt.random.normal([1000], mean, sd, seed=2)
            loss = rt.reduce_mean(z)
        return tape.gradient(loss, [mean, sd]), z

    (gm, gs), z = step()
    assert gm.numpy() == pytest.approx(1.0)
    assert gs.numpy() == pytest.approx(float(np.mean((z.numpy() - 1.0) / 2.0)), rel=1e-4)


@pytest.mark.parametrize("make,error,match", [
    (lambda: rt.random.uniform([2], rt.constant(0), 1.0), TypeError, "minval must be a float32"),
    (lambda: rt.random.normal([2], 0.0, rt.constant([1, 2])), TypeError, "stddev must be a float32"),
    (lambda: rt.random.uniform([2], rt.constant([0, 1]), 5, dtype=rt.int32),
     rt.errors.InvalidArgumentError, "minval must be a scalar"),
    (lambda: rt.random.uniform([2], "a", 1.0), TypeError, "minval"),
    (lambda: rt.random.uniform([2], dtype=rt.string), rt.errors.InvalidArgumentError,
     "integer or floating dtype, got string"),
])
def test_bad_bounds_are_clear_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()
    g = rt.Graph()
    with g.as_default(), pytest.raises(error, match=match):
        make()


def test_saved_and_onnx(tmp_path):
    @rt.function(input_signature=[rt.TensorSpec([], rt.float32), rt.TensorSpec([], rt.int32)])
    def draw(lo, hi):
        return rt.random.uniform([50], lo, lo + 1.0), rt.random.uniform([50], 0, hi, dtype=rt.int32)

    rt.saved.save(draw, str(tmp_path / "m"))
    u, i = rt.saved.load(str(tmp_path / "m")).draw(rt.constant(5.0), rt.constant(3))
    assert 5.0 <= u.numpy().min() and u.numpy().max() < 6.0
    assert set(i.numpy().tolist()) <= {0, 1, 2}
    pytest.importorskip("onnx")
    with pytest.raises(rt.onnx.ExportError, match="RandomUniformInt .*floats only"):
        rt.onnx.export(draw.get_concrete_function())
