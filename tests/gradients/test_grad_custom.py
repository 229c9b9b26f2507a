"""rt.custom_gradient, rt.recompute_grad and rt.vectorized_map: gradients against autodiff
of the same formula and against numpy, eagerly, with the tape inside rt.function (numpy
backend and jit_compile=True), and for an rt.function differentiated from outside."""
import importlib.util

import numpy as np
import pytest

import runtime as rt

# (jit_compile needs JAX: the other Pythons' CI venvs install no jax extra)
NEEDS_JAX = pytest.mark.skipif(importlib.util.find_spec("jax") is None,
                               reason="jit_compile needs JAX (the jax extra)")

WAYS = ["eager", "function", pytest.param("jit", marks=NEEDS_JAX)]


def run(fn, way, *args):
    if way == "eager":
        return fn(*args)
    return rt.function(fn, jit_compile=(way == "jit"))(*args)


def grads_of(f, xs, variables=()):
    """The gradients of sum(f(*xs)) with respect to xs and variables, under a tape."""
    def g(*xs):
        with rt.GradientTape() as tape:
            tape.watch(list(xs))
            y = sum(rt.reduce_sum(t) for t in rt.nest.flatten(f(*xs)))
        return tape.gradient(y, list(xs) + list(variables))
    return g


# -- custom_gradient ----------------------------------------------------------------------

@rt.custom_gradient
def log1pexp(x):
    e = rt.exp(x)

    def grad(dy):
        return dy * (1.0 - 1.0 / (1.0 + e))
    return rt.math.log1p(e), grad


@rt.custom_gradient
def scaled_grad(x, y):
    """Forward x * y; gradients replaced by (3 * dy, -dy)."""
    def grad(dy):
        return 3.0 * dy, -dy
    return x * y, grad


@pytest.mark.parametrize("way", WAYS)
def test_custom_gradient_replaces_the_gradient(way):
    x = rt.constant([-2.0, 0.0, 3.0, 50.0])
    got = run(grads_of(log1pexp, [x]), way, x)[0]
    want = 1.0 / (1.0 + np.exp(-x.numpy().astype(np.float64)))   # the stable sigmoid
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    # the forward value is f's
    np.testing.assert_allclose(run(log1pexp, way, x).numpy(),
                               np.log1p(np.exp(x.numpy())), rtol=1e-6)


@pytest.mark.parametrize("way", WAYS)
def test_custom_gradient_of_several_inputs_is_what_grad_fn_says(way):
    x, y = rt.constant([1.0, 2.0]), rt.constant([5.0, 7.0])

    def f(x, y):
        return scaled_grad(x, y) * rt.constant([1.0, 10.0])
    dx, dy = run(grads_of(f, [x, y]), way, x, y)
    np.testing.assert_allclose(dx.numpy(), [3.0, 30.0])
    np.testing.assert_allclose(dy.numpy(), [-1.0, -10.0])


@pytest.mark.parametrize("way", WAYS)
def test_custom_gradient_equal_to_autodiff_when_grad_fn_is_the_true_gradient(way):
    @rt.custom_gradient
    def f(x):
        y = rt.sin(x) * x

        def grad(dy):
            return dy * (rt.cos(x) * x + rt.sin(x))
        return y, grad
    x = rt.constant(np.linspace(-3, 3, 7).astype(np.float32))
    got = run(grads_of(f, [x]), way, x)[0]
    want = run(grads_of(lambda x: rt.sin(x) * x, [x]), way, x)[0]
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


@pytest.mark.parametrize("way", WAYS)
def test_custom_gradient_with_variables(way):
    v = rt.Variable([2.0, 3.0])

    @rt.custom_gradient
    def f(x):
        def grad(dy, variables=None):
            assert len(variables) == 1 and variables[0] is v
            return dy * 10.0, [dy * 100.0]
        return x * v, grad
    x = rt.constant([1.0, 1.0])
    dx, dv = run(grads_of(f, [x], [v]), way, x)
    np.testing.assert_allclose(dx.numpy(), [10.0, 10.0])
    np.testing.assert_allclose(dv.numpy(), [100.0, 100.0])


def test_custom_gradient_needs_variables_argument_when_f_reads_variables():
    v = rt.Variable(2.0)

    @rt.custom_gradient
    def f(x):
        return x * v, lambda dy: dy
    with pytest.raises(TypeError, match="variables"):
        f(rt.constant(1.0))


@pytest.mark.parametrize("jit", [False, pytest.param(True, marks=NEEDS_JAX)])
def test_custom_gradient_in_a_function_differentiated_from_outside(jit):
    f = rt.function(lambda x: rt.reduce_sum(log1pexp(x) * x), jit_compile=jit)
    x = rt.constant([0.5, -1.0, 20.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    xs = x.numpy().astype(np.float64)
    sig = 1.0 / (1.0 + np.exp(-xs))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), sig * xs + np.log1p(np.exp(xs)),
                               rtol=1e-5)


def test_custom_gradient_nested_output_and_second_order():
    @rt.custom_gradient
    def pair(x):
        def grad(da, db):
            return da * 2.0 * x + db * 3.0
        return (x * x, {"b": x * 3.0}), grad
    x = rt.constant(1.5)
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            a, d = pair(x)
            y = a + d["b"]
        g = inner.gradient(y, x)
    assert float(g) == pytest.approx(2 * 1.5 + 3.0)
    assert float(outer.gradient(g, x)) == pytest.approx(2.0)


@pytest.mark.parametrize("way", WAYS)
def test_second_order_follows_grad_fn_through_f_intermediates(way):
    # grad_fn uses e = exp(x) made by f: an outer tape differentiates the first gradient
    # through e back to x, as TensorFlow's tapes record f (d2/dx2 log1p(exp x) = s(1 - s)).
    def second(x):
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                y = log1pexp(x)
            g = inner.gradient(y, x)
        return g, outer.gradient(g, x)
    xs = np.array([-2.0, 0.0, 1.0, 3.0], np.float32)
    g, h = run(second, way, rt.constant(xs))
    s = 1.0 / (1.0 + np.exp(-xs.astype(np.float64)))
    np.testing.assert_allclose(g.numpy(), s, rtol=1e-5)
    np.testing.assert_allclose(h.numpy(), s * (1.0 - s), rtol=1e-5)


def test_custom_gradient_without_a_tape_is_f():
    np.testing.assert_allclose(log1pexp(rt.constant([1.0])).numpy(), np.log1p(np.e), rtol=1e-6)


# -- recompute_grad -----------------------------------------------------------------------

def block(x):
    return rt.tanh(rt.matmul(x, rt.transpose(x))) * 2.0 + rt.reduce_sum(x * x)


@pytest.mark.parametrize("way", WAYS)
def test_recompute_grad_equals_autodiff(way):
    x = rt.constant(np.random.default_rng(0).normal(size=(3, 2)).astype(np.float32))
    got = run(grads_of(rt.recompute_grad(block), [x]), way, x)[0]
    want = run(grads_of(block, [x]), way, x)[0]
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)
    np.testing.assert_allclose(run(rt.recompute_grad(block), way, x).numpy(),
                               block(x).numpy(), rtol=1e-6)


@pytest.mark.parametrize("way", WAYS)
def test_recompute_grad_with_variables_and_two_inputs(way):
    w = rt.Variable([[0.5, -1.0], [2.0, 0.25]])

    def layer(x, y):
        return rt.nn.relu(rt.matmul(x, w)) * y

    x = rt.constant([[1.0, 2.0], [-1.0, 0.5]])
    y = rt.constant([[3.0, 1.0], [1.0, 2.0]])
    got = run(grads_of(rt.recompute_grad(layer), [x, y], [w]), way, x, y)
    want = run(grads_of(layer, [x, y], [w]), way, x, y)
    for g, h in zip(got, want):
        np.testing.assert_allclose(g.numpy(), h.numpy(), rtol=1e-6)


# -- vectorized_map -----------------------------------------------------------------------

def loop_reference(fn, elems):
    """A Python loop over the rows, in numpy."""
    leaves = [np.asarray(e) for e in rt.nest.flatten(elems)]
    rows = [fn(rt.nest.pack_sequence_as(elems, [t[i] for t in leaves]))
            for i in range(leaves[0].shape[0])]
    return [np.stack(c) for c in zip(*[rt.nest.flatten(r) for r in rows])] if rows else None


VM_CASES = [
    (lambda x: rt.reduce_sum(x * x), lambda x: np.sum(x * x),
     np.arange(6, dtype=np.float32).reshape(3, 2)),
    (lambda x: rt.matmul(rt.expand_dims(x, 0), rt.ones([2, 3]))[0], lambda x: x @ np.ones((2, 3)),
     np.arange(8, dtype=np.float32).reshape(4, 2)),
    (lambda x: x * 2.0, lambda x: x * 2.0, np.array([[np.nan, 1.0]], np.float32)),
]


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("k", range(len(VM_CASES)))
def test_vectorized_map_matches_a_python_loop(k, way):
    fn, ref, x = VM_CASES[k]
    got = run(lambda e: rt.vectorized_map(fn, e), way, rt.constant(x))
    want = loop_reference(ref, x)[0]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    assert got.dtype is rt.float32
    # zero rows: shaped as fn's output for one row
    empty = run(lambda e: rt.vectorized_map(fn, e), way, rt.constant(x[:0]))
    assert empty.shape.as_list() == [0] + list(np.shape(ref(x[0])))


@pytest.mark.parametrize("way", WAYS)
def test_vectorized_map_nested_structures_and_gradient(way):
    a = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    b = np.array([1, 2, 3], np.int32)

    def fn(e):
        return {"s": rt.reduce_sum(e[0]) * rt.cast(e[1], rt.float32), "i": e[1] * 2}
    out = run(lambda x, y: rt.vectorized_map(fn, (x, y)), way, rt.constant(a), rt.constant(b))
    np.testing.assert_allclose(out["s"].numpy(), a.sum(1) * b)
    np.testing.assert_array_equal(out["i"].numpy(), b * 2)

    def f(x):
        return rt.vectorized_map(lambda r: rt.reduce_sum(r * r) * r, x)
    g = run(grads_of(f, [rt.constant(a)]), way, rt.constant(a))[0]
    # d/dr sum((r.r) r) = 2 r sum(r) + r.r
    want = 2 * a * a.sum(1, keepdims=True) + (a * a).sum(1, keepdims=True)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-6)


def test_vectorized_map_unknown_length_and_errors():
    f = rt.function(lambda x: rt.vectorized_map(lambda r: r[0] + r[1], x),
                    input_signature=[rt.TensorSpec([None, 2], rt.float32)])
    for n in (0, 1, 5):
        x = np.arange(2 * n, dtype=np.float32).reshape(n, 2)
        np.testing.assert_allclose(f(rt.constant(x)).numpy(), x[:, 0] + x[:, 1])
    with pytest.raises(ValueError):
        rt.vectorized_map(lambda x: x, rt.constant(1.0))
    with pytest.raises(ValueError):
        rt.vectorized_map(lambda e: e[0], (rt.zeros([2]), rt.zeros([3])))


def test_custom_gradient_exports_to_onnx_as_identity(tmp_path):
    ort = pytest.importorskip("onnxruntime")

    @rt.custom_gradient
    def f(x, y):
        return (x * y, x + y), lambda a, b: (a, b)
    g = rt.function(lambda x: f(x, 2.0 * x), input_signature=[rt.TensorSpec([2], rt.float32)])
    path = str(tmp_path / "m.onnx")
    rt.onnx.export(g.get_concrete_function(), path)
    session = ort.InferenceSession(path)
    x = np.array([1.0, -3.0], np.float32)
    got = session.run(None, {session.get_inputs()[0].name: x})
    for a, b in zip(got, g(rt.constant(x))):
        np.testing.assert_allclose(a, b.numpy())
