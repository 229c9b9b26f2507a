"""Every gradient rule against central finite differences in float64, on random inputs
(shapes that broadcast included), taken eagerly, staged and through a Function call."""
import numpy as np
import pytest

import runtime as rt
from grad_helpers import check_gradients

RNG = np.random.default_rng(7)


def normal(*shape):
    return RNG.normal(size=shape)


def positive(*shape):
    return RNG.uniform(0.5, 2.0, size=shape)


def away_from_zero(*shape):
    return RNG.uniform(0.5, 2.0, size=shape) * RNG.choice([-1.0, 1.0], size=shape)


UNARY = [
    ("negative", rt.negative, normal), ("abs", rt.abs, away_from_zero),
    ("sign", rt.sign, away_from_zero), ("square", rt.square, normal),
    ("sqrt", rt.sqrt, positive), ("exp", rt.exp, normal), ("log", rt.log, positive),
    ("tanh", rt.tanh, normal), ("sigmoid", rt.sigmoid, normal), ("sin", rt.sin, normal),
    ("cos", rt.cos, normal), ("identity", rt.identity, normal),
    ("neg_operator", lambda x: -x, normal),
]


@pytest.mark.parametrize("name,op,make", UNARY, ids=[u[0] for u in UNARY])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_unary(name, op, make, shape):
    check_gradients(op, [make(*shape)])


BROADCAST_SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((2, 3, 4), ()),
                    ((), (2, 3)), ((2, 1, 4), (3, 1))]


BINARY = [
    ("add", rt.add, normal, normal), ("subtract", rt.subtract, normal, normal),
    ("multiply", rt.multiply, normal, normal), ("divide", rt.divide, normal, away_from_zero),
    ("pow", rt.pow, positive, normal), ("maximum", rt.maximum, normal, normal),
    ("minimum", rt.minimum, normal, normal), ("mod", rt.mod, positive, positive),
    ("operators", lambda x, y: (x - y) * x / (y * y + 1.0) + 2.0 * y, normal, normal),
]


@pytest.mark.parametrize("name,op,make_x,make_y", BINARY, ids=[b[0] for b in BINARY])
@pytest.mark.parametrize("shapes", BROADCAST_SHAPES, ids=str)
def test_binary_broadcasting(name, op, make_x, make_y, shapes):
    # Random inputs: ties of max/min and jumps of mod are (almost surely) farther away
    # than the finite-difference step.
    x, y = make_x(*shapes[0]), make_y(*shapes[1])
    check_gradients(op, [x, y])


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul(ta, tb):
    a = normal(4, 3) if ta else normal(3, 4)
    b = normal(5, 4) if tb else normal(4, 5)
    check_gradients(lambda a, b: rt.matmul(a, b, transpose_a=ta, transpose_b=tb), [a, b])


def test_matmul_batch_broadcast():
    check_gradients(rt.matmul, [normal(2, 3, 4), normal(4, 5)])
    check_gradients(lambda a, b: a @ b, [normal(3, 4), normal(2, 4, 2)])


REDUCTIONS = [("sum", rt.reduce_sum), ("mean", rt.reduce_mean), ("max", rt.reduce_max),
              ("min", rt.reduce_min), ("prod", rt.reduce_prod)]


@pytest.mark.parametrize("name,op", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)], ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(name, op, axis, keepdims):
    x = away_from_zero(2, 3, 4)
    check_gradients(lambda x: op(x, axis=axis, keepdims=keepdims), [x])


def test_reduce_prod_with_zeros():
    x = normal(3, 4)
    x[1, 2] = 0.0
    x[2, 0] = x[2, 3] = 0.0
    check_gradients(lambda x: rt.reduce_prod(x, axis=1), [x])


def test_reduce_max_ties_share_the_gradient():
    x = rt.constant([1.0, 3.0, 3.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_max(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.0, 0.5, 0.5])


def test_where_broadcasting():
    c = RNG.uniform(size=(3, 4)) > 0.5
    check_gradients(lambda x, y: rt.where(rt.constant(c), x, y), [normal(3, 4), normal(4)])
    check_gradients(lambda x: rt.where(x > 0.0, x * x, -x), [away_from_zero(5)])


def test_cast_between_floats():
    x = rt.constant([0.5, -2.0], dtype=rt.float32)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(rt.square(rt.cast(x, rt.float64)))
    g = tape.gradient(y, x)
    assert g.dtype is rt.float32
    np.testing.assert_allclose(g.numpy(), [1.0, -4.0])


def test_slice_with_a_tensor_bound():
    # staged, the bound is only known at run time (the slice's shape is not static)
    check_gradients(lambda x, i: rt.reduce_sum(rt.sin(x[i:, i - 1])), [normal(4, 3), np.int32(2)])


ARRAY = [
    ("reshape", lambda x: rt.reshape(x, [4, 3]), (2, 6)),
    ("reshape_minus_one", lambda x: rt.reshape(x, [-1]), (2, 3)),
    ("transpose", lambda x: rt.transpose(x), (2, 3)),
    ("transpose_perm", lambda x: rt.transpose(x, [1, 2, 0]), (2, 3, 4)),
    ("expand_dims", lambda x: rt.expand_dims(x, 1), (2, 3)),
    ("squeeze", lambda x: rt.squeeze(x, 1), (2, 1, 3)),
    ("slice", lambda x: x[1:, ::2], (3, 5)),
    ("slice_int", lambda x: x[1], (3, 5)),
    ("slice_ellipsis_newaxis", lambda x: x[..., None, 1:3], (2, 3, 4)),
    ("slice_negative_step", lambda x: x[::-1, -2], (4, 3)),
    ("stack", lambda x: rt.stack([x, x * 2.0, -x], axis=1), (2, 3)),
    ("unstack", lambda x: rt.unstack(x, axis=1), (2, 3)),
    ("concat", lambda x: rt.concat([x, x * x], axis=0), (2, 3)),
    ("concat_last", lambda x: rt.concat([x, x[:, :1]], axis=-1), (2, 3)),
    ("gather", lambda x: rt.gather(x, [2, 0, 2]), (3, 4)),
    ("gather_axis1", lambda x: rt.gather(x, [[1, 1], [0, 3]], axis=1), (3, 4)),
    ("fill", lambda x: rt.fill([2, 3], x) * 2.0, ()),
    ("zeros_like_is_constant", lambda x: rt.zeros_like(x) + x * 3.0, (3,)),
]


@pytest.mark.parametrize("name,op,shape", ARRAY, ids=[a[0] for a in ARRAY])
def test_array_ops(name, op, shape):
    check_gradients(op, [normal(*shape)])


def test_gather_with_tensor_indices():
    check_gradients(lambda x, i: rt.gather(x, i, axis=0), [normal(4, 2), np.array([3, 1, 3])])


def test_composite_network():
    def net(x, w, b):
        h = rt.tanh(x @ w + b)
        return rt.reduce_mean(rt.square(h - 0.5), axis=0)
    check_gradients(net, [normal(5, 3), normal(3, 4), normal(4)])


def test_softmax_cross_entropy_like():
    def loss(logits):
        m = rt.reduce_max(logits, axis=1, keepdims=True)
        e = rt.exp(logits - m)
        return rt.log(rt.reduce_sum(e, axis=1)) + rt.reduce_sum(m, axis=1)
    check_gradients(loss, [normal(3, 4)])


def test_rules_of_the_gradient_helper_ops():
    """The ops that gradient rules emit have rules too (so gradients differentiate again)."""
    from runtime.ops.array_ops import GATHER_GRAD
    from runtime.ops.broadcast_ops import broadcast_like, sum_to
    from runtime.ops.core import apply_op
    from runtime.ops.slicing import SLICE_GRAD, _spec
    like_x = rt.constant(np.zeros((3, 1)))
    check_gradients(lambda g: sum_to(g, like_x), [normal(2, 3, 4)])
    check_gradients(lambda g: broadcast_like(g, rt.constant(np.zeros((2, 3, 4)))), [normal(3, 1)])
    indices = rt.constant([2, 0, 2])
    check_gradients(lambda g: apply_op(GATHER_GRAD, [g, indices, rt.constant([4, 2])],
                                       {"axis": 0}), [normal(3, 2)])
    spec, _ = _spec((slice(1, None), 0))
    check_gradients(lambda g: apply_op(SLICE_GRAD, [g, rt.constant(np.zeros((3, 2)))],
                                       {"spec": spec}), [normal(2)])


def test_second_derivative_of_reduce_prod_with_and_without_zeros():
    """d/dx sum(grad(prod)(x)): JAX's values, also where x holds one, two or three zeros;
    along an axis, against finite differences of the first derivative."""
    expected = {(0.5, 2.0, 3.0): [5.0, 3.5, 2.5], (0.0, 2.0, 3.0): [5.0, 3.0, 2.0],
                (0.0, 0.0, 3.0): [3.0, 3.0, 0.0], (0.0, 0.0, 0.0): [0.0, 0.0, 0.0]}
    for xs, want in expected.items():
        x = rt.constant(xs, rt.float64)
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                y = rt.reduce_prod(x)
            s = rt.reduce_sum(inner.gradient(y, x))
        np.testing.assert_allclose(outer.gradient(s, x).numpy(), want, rtol=1e-12)

    def first(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(rt.reduce_prod(x, axis=1) * rt.constant([1.0, -2.0], rt.float64))
        return tape.gradient(y, x)

    check_gradients(first, [np.array([[0.5, 0.0, 1.5], [2.0, -1.0, 0.25]])])
