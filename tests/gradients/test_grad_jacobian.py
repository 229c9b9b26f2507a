"""GradientTape.jacobian and batch_jacobian, as TensorFlow defines them: shapes
target.shape + source.shape and [b, y..., x...], unconnected sources, the persistent tape
rule; eagerly, inside rt.function (known and unknown sizes) and under jit_compile, against
jacobians written out in float64 numpy."""
import numpy as np
import pytest

import runtime as rt

try:
    import jax  # noqa: F401
    HAVE_JAX = True
except ImportError:
    HAVE_JAX = False


def curve(x):
    """y_i = sin(x_i) * sum(x^2): every element of y depends on every element of x."""
    return rt.sin(x) * rt.reduce_sum(x * x)


def curve_jacobian(x):
    x = x.astype(np.float64)
    eye = np.eye(x.size)
    return eye * (np.cos(x) * np.sum(x * x))[None, :] + np.sin(x)[:, None] * (2 * x)[None, :]


def jacobian_of_curve(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = curve(x)
    return tape.jacobian(y, x)


def _ways(fn, spec):
    ways = {"eager": fn, "staged": rt.function(fn, input_signature=[spec])}
    if HAVE_JAX:  # the jax extra is optional
        ways["jit"] = rt.function(fn, input_signature=[spec], jit_compile=True)
    return ways


INPUTS = {"empty": np.zeros(0, np.float32), "one": np.array([0.5], np.float32),
          "three": np.array([0.5, -1.0, 2.0], np.float32),
          "nan": np.array([1.0, np.nan], np.float32)}


def sliced_rows(fn, data, rows):
    """What TensorFlow's definition computes: row i is the gradient of one element of the
    target (taken by slicing it, each its own backward pass), stacked on `axis`."""
    x = rt.constant(data)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = fn(x)
        elements = [rows(y, i) for i in range(int(np.prod(y.shape.as_list()[rows.axis:])))]
    grads = [tape.gradient(e, x, unconnected_gradients="zero").numpy() for e in elements]
    return np.stack(grads, axis=rows.axis) if grads else None


def _element(y, i):
    return rt.reshape(y, [-1])[i]


_element.axis = 0


def _column(y, j):
    return y[:, j]


_column.axis = 1


def _want(formula, fn, data, rows):
    """The jacobian written out; with a NaN input, the sliced gradients (a zero seed times
    a NaN is NaN in the backward pass, as in TensorFlow; the formula does not know that)."""
    if np.all(np.isfinite(data)) or not data.size:
        return formula(data)
    return sliced_rows(fn, data, rows)


@pytest.mark.parametrize("name", list(INPUTS))
@pytest.mark.parametrize("known", [True, False], ids=["known size", "unknown size"])
def test_jacobian_agrees_with_the_written_out_one_every_way(name, known):
    data = INPUTS[name]
    spec = rt.TensorSpec(data.shape if known else [None], rt.float32)
    want = _want(curve_jacobian, curve, data, _element)
    for way, fn in _ways(jacobian_of_curve, spec).items():
        got = fn(rt.constant(data))
        assert got.shape.as_list() == [data.size, data.size], way
        assert got.dtype is rt.float32
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6, equal_nan=True,
                                   err_msg=way)


def test_the_written_out_jacobians_are_the_sliced_gradients():
    data = INPUTS["three"]
    np.testing.assert_allclose(sliced_rows(curve, data, _element), curve_jacobian(data),
                               rtol=1e-5)
    data = BATCHES["one"]
    np.testing.assert_allclose(sliced_rows(batch_curve, data, _column),
                               batch_curve_jacobian(data), rtol=1e-5)


def test_jacobian_shapes_are_target_shape_plus_source_shape():
    x = rt.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    v = rt.Variable([1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reshape(rt.reduce_sum(x, axis=1) * v, [1, 2, 1])  # [1, 2, 1]
    jx, jv = tape.jacobian(y, [x, v])
    assert jx.shape.as_list() == [1, 2, 1, 2, 3] and jv.shape.as_list() == [1, 2, 1, 2]
    # y[0, i, 0] = v_i * sum_k x[i, k]
    want_x = np.zeros((2, 2, 3))
    want_x[0, 0, :], want_x[1, 1, :] = v.numpy()[0], v.numpy()[1]
    np.testing.assert_array_equal(jx.numpy().reshape(2, 2, 3), want_x)
    np.testing.assert_array_equal(jv.numpy().reshape(2, 2), np.diag(x.numpy().sum(axis=1)))


def test_a_scalar_target_gives_the_gradient_and_a_dict_of_sources_keeps_its_structure():
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = rt.reduce_sum(x * x)
    got = tape.jacobian(y, {"x": x})
    assert list(got) == ["x"]
    np.testing.assert_array_equal(got["x"].numpy(), tape.gradient(y, x).numpy())


@pytest.mark.parametrize("staged", [False, True], ids=["eager", "staged"])
def test_unconnected_sources_are_none_or_zeros_shaped_like_the_jacobian(staged):
    def jacobians(x, other):
        with rt.GradientTape(persistent=True) as tape:
            tape.watch([x, other])
            y = x * 2.0
        none = tape.jacobian(y, [x, other])
        zero = tape.jacobian(y, [x, other], unconnected_gradients="zero")
        return none[1] is None, zero[1]

    run = rt.function(jacobians) if staged else jacobians
    is_none, zero = run(rt.constant([1.0, 2.0, 3.0]), rt.constant([[5.0, 6.0]]))
    assert bool(is_none)
    assert zero.shape.as_list() == [3, 1, 2] and not np.any(zero.numpy())


def test_a_non_persistent_tape_gives_one_jacobian():
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.jacobian(y, x)
    with pytest.raises(RuntimeError, match="non-persistent GradientTape"):
        tape.jacobian(y, x)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    first, second = tape.jacobian(y, x), tape.jacobian(y, x)
    np.testing.assert_array_equal(first.numpy(), second.numpy())


def test_a_persistent_tape_differentiates_a_jacobian_again():
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        j = inner.jacobian(y, x)          # diag(3 x^2)
    hessians = outer.jacobian(j, x)        # [2, 2, 2]: 6 x_i where i == j == k
    want = np.zeros((2, 2, 2))
    want[0, 0, 0], want[1, 1, 1] = 6.0, 12.0
    np.testing.assert_allclose(hessians.numpy(), want)


# -- batch_jacobian ---------------------------------------------------------------------------

def batch_curve(x):
    """[b, 2] -> [b, 3]: each row depends on its own row of x only."""
    a, b = x[:, 0], x[:, 1]
    return rt.stack([a * b, rt.sin(a), b * b * a], axis=1)


def batch_curve_jacobian(x):
    x = x.astype(np.float64)
    a, b = x[:, 0], x[:, 1]
    rows = [[b, a], [np.cos(a), 0 * a], [b * b, 2 * a * b]]
    return np.stack([np.stack(r, axis=-1) for r in rows], axis=1)      # [b, 3, 2]


def batch_jacobian_of_curve(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = batch_curve(x)
    return tape.batch_jacobian(y, x)


BATCHES = {"empty": np.zeros((0, 2), np.float32), "one": np.array([[0.5, 2.0]], np.float32),
           "nan": np.array([[1.0, np.nan], [0.25, -3.0]], np.float32)}


@pytest.mark.parametrize("name", list(BATCHES))
@pytest.mark.parametrize("spec", [None, [None, 2], [None, None]],
                         ids=["known", "unknown batch", "unknown row"])
def test_batch_jacobian_agrees_with_the_written_out_one_every_way(name, spec):
    data = BATCHES[name]
    spec = rt.TensorSpec(data.shape if spec is None else spec, rt.float32)
    want = _want(batch_curve_jacobian, batch_curve, data, _column)
    for way, fn in _ways(batch_jacobian_of_curve, spec).items():
        got = fn(rt.constant(data))
        assert got.shape.as_list() == [data.shape[0], 3, 2], way
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6, equal_nan=True,
                                   err_msg=way)


def test_batch_jacobian_is_the_diagonal_blocks_of_the_jacobian():
    x = rt.constant(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 2, 2))
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = rt.reshape(rt.reduce_sum(x * x, axis=2, keepdims=True) * rt.exp(x), [2, 4])
    batch = tape.batch_jacobian(y, x)
    full = tape.jacobian(y, x)
    assert batch.shape.as_list() == [2, 4, 2, 2] and full.shape.as_list() == [2, 4, 2, 2, 2]
    for i in range(2):
        np.testing.assert_allclose(batch.numpy()[i], full.numpy()[i, :, i], rtol=1e-6)


def test_batch_jacobian_refuses_what_tensorflow_refuses():
    x = rt.constant([[1.0, 2.0]])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        flat = rt.reshape(x, [2])
        three = rt.concat([x, x, x], axis=0)
    with pytest.raises(ValueError, match="rank 2 or more"):
        tape.batch_jacobian(flat, x)
    with pytest.raises(ValueError, match="Need first dimension of target shape"):
        tape.batch_jacobian(three, x)
    assert tape.batch_jacobian(x * 1.0, rt.constant([[3.0, 4.0]])) is None
    zeros = tape.batch_jacobian(x * 1.0, rt.constant([[3.0, 4.0]]), unconnected_gradients="zero")
    assert zeros.shape.as_list() == [1, 2, 2] and not np.any(zeros.numpy())


@pytest.mark.parametrize("size", [40, 80])
def test_a_large_target_is_one_staged_loop_not_a_graph_growing_with_it(size):
    data = np.linspace(-1.0, 1.0, size, dtype=np.float32)
    spec = rt.TensorSpec([size], rt.float32)
    want = curve_jacobian(data)
    for way, fn in _ways(jacobian_of_curve, spec).items():
        got = fn(rt.constant(data))
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-5, err_msg=way)
    batch = np.stack([data, data[::-1]], axis=1)        # [size, 2]
    want = np.tile(batch_curve_jacobian(batch), [1, 20, 1])
    for way, fn in _ways(wide_batch_jacobian, rt.TensorSpec([size, 2], rt.float32)).items():
        got = fn(rt.constant(batch))                     # 60 passes: staged too
        assert got.shape.as_list() == [size, 60, 2], way
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6, err_msg=way)


def wide_batch_jacobian(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.tile(batch_curve(x), [1, 20])               # [b, 60]
    return tape.batch_jacobian(y, x)


def test_the_staged_loop_keeps_the_graph_the_same_size_whatever_the_target():
    sizes = {}
    for size in (40, 80):
        cf = rt.function(jacobian_of_curve).get_concrete_function(
            rt.TensorSpec([size], rt.float32))
        sizes[size] = len(cf.graph.get_operations())
    assert sizes[40] == sizes[80]
