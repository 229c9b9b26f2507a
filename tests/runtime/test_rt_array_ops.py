"""Shape and layout ops, tensor makers, indexing/slicing and string ops: eager against
numpy, staged against eager, static shapes with unknown dims and unknown rank."""
import numpy as np
import pytest

import runtime as rt
from rt_helpers import assert_same, check_eager_and_staged, staged

A = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
M = np.arange(6, dtype=np.float32).reshape(2, 3)

# name, fn, numpy expected
LAYOUT = [
    ("reshape", lambda t: rt.reshape(t, [4, 6]), A.reshape(4, 6)),
    ("reshape_-1", lambda t: rt.reshape(t, [-1, 4]), A.reshape(-1, 4)),
    ("reshape_scalar", lambda t: rt.reshape(t[0, 0, :1], []), A[0, 0, :1].reshape(())),
    ("transpose", rt.transpose, A.transpose()),
    ("transpose_perm", lambda t: rt.transpose(t, [1, 0, 2]), A.transpose(1, 0, 2)),
    ("expand_dims_0", lambda t: rt.expand_dims(t, 0), A[None]),
    ("expand_dims_-1", lambda t: rt.expand_dims(t, -1), A[..., None]),
    ("squeeze", lambda t: rt.squeeze(t[:, :1, :]), A[:, :1, :].squeeze()),
    ("squeeze_axis", lambda t: rt.squeeze(t[:1, :1], axis=1), A[:1, :1].squeeze(1)),
    ("concat_0", lambda t: rt.concat([t, t], 0), np.concatenate([A, A], 0)),
    ("concat_-1", lambda t: rt.concat([t, t * 2], -1), np.concatenate([A, A * 2], -1)),
    ("stack_0", lambda t: rt.stack([t, t]), np.stack([A, A])),
    ("stack_2", lambda t: rt.stack([t, t + 1], axis=2), np.stack([A, A + 1], 2)),
    ("gather", lambda t: rt.gather(t, [1, 0, 1]), A[[1, 0, 1]]),
    ("gather_axis", lambda t: rt.gather(t, [[2, 0]], axis=2), np.take(A, [[2, 0]], axis=2)),
    ("zeros_like", rt.zeros_like, np.zeros_like(A)),
    ("ones_like", rt.ones_like, np.ones_like(A)),
    ("zeros_like_f", lambda t: rt.zeros_like(t, dtype=rt.float32), np.zeros(A.shape, np.float32)),
    ("identity", rt.identity, A),
]


@pytest.mark.parametrize("name,fn,expected", LAYOUT, ids=[c[0] for c in LAYOUT])
def test_layout_ops(name, fn, expected):
    check_eager_and_staged(fn, A, expected=expected, unknown=True)


def test_unstack():
    for axis in (0, 1, -1):
        parts = rt.unstack(A, axis=axis)
        expected = [np.take(A, i, axis=axis) for i in range(A.shape[axis])]
        assert len(parts) == len(expected)
        for p, e in zip(parts, expected):
            assert_same(p.numpy(), e)
    result, sym = staged(lambda t: rt.unstack(t, axis=1), A, shapes=[[None, 3, 4]])
    assert [s.shape for s in sym] == [rt.TensorShape([None, 4])] * 3
    for r, e in zip(result, rt.unstack(A, axis=1)):
        assert_same(r.numpy(), e.numpy())


def test_unstack_needs_a_known_count():
    g = rt.Graph()
    with g.as_default():
        p = rt.placeholder(rt.int32, [None, 3])
        with pytest.raises(ValueError, match="num"):
            rt.unstack(p)
        parts = rt.unstack(p, num=2)
    assert [r.numpy().tolist() for r in g.run(parts, {p: [[1, 2, 3], [4, 5, 6]]})] == [
        [1, 2, 3], [4, 5, 6]]
    with pytest.raises(rt.errors.InvalidArgumentError, match="expected 2 values"):
        g.run(parts, {p: [[1, 2, 3]]})


def test_static_shapes_with_unknown_dims():
    g = rt.Graph()
    with g.as_default():
        p = rt.placeholder(rt.int32, [None, 3])
        u = rt.placeholder(rt.int32, None)
        S = rt.TensorShape
        assert rt.transpose(p).shape == S([3, None])
        assert rt.concat([p, p], 0).shape == S([None, 3])
        assert rt.concat([p, p], 1).shape == S([None, 6])
        assert rt.concat([p, u], 1).shape == S([None, None])
        assert rt.stack([p, p], 1).shape == S([None, 2, 3])
        assert rt.expand_dims(p, 1).shape == S([None, 1, 3])
        assert rt.reshape(p, [-1]).shape == S([None])
        assert rt.reshape(p, [-1, 3, 1]).shape == S([None, 3, 1])
        assert rt.gather(p, [0, 1], axis=1).shape == S([None, 2])
        assert rt.squeeze(p[:, :1], 1).shape == S([None])
        assert rt.shape(p).shape == S([2])
        assert rt.size(p).shape == S([])
        assert rt.transpose(u).shape.rank is None
        assert rt.reshape(u, [2, -1]).shape == S([2, None])
        assert rt.expand_dims(u, 0).shape.rank is None
        assert rt.shape(u).shape == S([None])
        r = rt.rank(u)
        assert r.shape == S([])
    assert g.run(r, {u: np.zeros((2, 5, 1), np.int32)}).numpy() == 3


@pytest.mark.parametrize("fn,expected", [
    (rt.shape, np.array([2, 3, 4], np.int32)),
    (rt.size, np.int32(24)),
    (rt.rank, np.int32(3)),
    (lambda t: rt.shape(t, out_type=rt.int64), np.array([2, 3, 4], np.int64)),
], ids=["shape", "size", "rank", "shape_int64"])
def test_shape_size_rank(fn, expected):
    check_eager_and_staged(fn, A, expected=expected, unknown=True)


# -- makers ---------------------------------------------------------------------------------

MAKERS = [
    ("fill", lambda: rt.fill([2, 3], 7), np.full((2, 3), 7, np.int32)),
    ("fill_float", lambda: rt.fill([2], 0.5), np.full(2, 0.5, np.float32)),
    ("zeros", lambda: rt.zeros([2, 2]), np.zeros((2, 2), np.float32)),
    ("zeros_int", lambda: rt.zeros([3], rt.int32), np.zeros(3, np.int32)),
    ("ones", lambda: rt.ones((1, 2), dtype=rt.float64), np.ones((1, 2))),
    ("eye", lambda: rt.eye(3), np.eye(3, dtype=np.float32)),
    ("eye_rect", lambda: rt.eye(2, 3, dtype=rt.int32), np.eye(2, 3, dtype=np.int32)),
    ("range", lambda: rt.range(5), np.arange(5, dtype=np.int32)),
    ("range_start", lambda: rt.range(2, 9, 3), np.arange(2, 9, 3, dtype=np.int32)),
    ("range_down", lambda: rt.range(5, 0, -2), np.arange(5, 0, -2, dtype=np.int32)),
    ("range_empty", lambda: rt.range(3, 1), np.arange(3, 1, dtype=np.int32)),
    ("range_float", lambda: rt.range(0, 1, 0.25), np.arange(0, 1, 0.25, dtype=np.float32)),
    ("constant_shape", lambda: rt.constant(3, shape=[2, 2]), np.full((2, 2), 3, np.int32)),
]


@pytest.mark.parametrize("name,fn,expected", MAKERS, ids=[m[0] for m in MAKERS])
def test_makers(name, fn, expected):
    assert_same(fn().numpy(), expected)
    g = rt.Graph()
    with g.as_default():
        sym = fn()
    assert sym.shape == rt.TensorShape(expected.shape)
    assert_same(g.run(sym).numpy(), expected)


def test_makers_with_run_time_shapes():
    g = rt.Graph()
    with g.as_default():
        n = rt.placeholder(rt.int32, [])
        z = rt.zeros([n, 2], rt.int32)
        f = rt.fill(rt.stack([n, n]), 1.5)
        r = rt.range(n)
        r2 = rt.range(1, n + 1, 2)
    assert z.shape == rt.TensorShape([None, 2]) and r.shape == rt.TensorShape([None])
    zv, fv, rv, r2v = g.run([z, f, r, r2], {n: 3})
    assert_same(zv.numpy(), np.zeros((3, 2), np.int32))
    assert_same(fv.numpy(), np.full((3, 3), 1.5, np.float32))
    assert_same(rv.numpy(), np.arange(3, dtype=np.int32))
    assert_same(r2v.numpy(), np.array([1, 3], np.int32))
    with pytest.raises(rt.errors.InvalidArgumentError, match="Fill"):
        g.run(z, {n: -1})


def test_maker_errors():
    with pytest.raises(rt.errors.InvalidArgumentError, match="string"):
        rt.ones_like(rt.constant(["a"]))
    with pytest.raises(rt.errors.InvalidArgumentError, match="delta"):
        rt.range(0, 5, 0)
    with pytest.raises(rt.errors.InvalidArgumentError, match=">= 0"):
        rt.fill([-1, 2], 0)


# -- indexing and slicing ---------------------------------------------------------------------

INDEXES = [
    ("int", lambda t: t[1]), ("neg_int", lambda t: t[-1]), ("two_ints", lambda t: t[1, 2]),
    ("three_ints", lambda t: t[1, 2, 3]), ("slice", lambda t: t[:, 1:]),
    ("step", lambda t: t[:, ::2, ::-1]), ("neg_slice", lambda t: t[..., -3:-1]),
    ("ellipsis", lambda t: t[..., 0]), ("newaxis", lambda t: t[None, 0, :, None]),
    ("empty_slice", lambda t: t[:, 3:1]), ("out_of_range_slice", lambda t: t[:, 1:100]),
    ("tensor_int", lambda t: t[rt.constant(1)]),
    ("tensor_slice", lambda t: t[:, rt.constant(1):rt.constant(3)]),
    ("computed", lambda t: t[rt.shape(t)[0] - 1, :rt.shape(t)[1] - 1]),
]


@pytest.mark.parametrize("name,index", INDEXES, ids=[i[0] for i in INDEXES])
def test_indexing(name, index):
    computed = "tensor" in name or name == "computed"
    expected = None if computed else index(A.copy())
    # constant tensor bounds stay static; computed bounds (rt.shape(t)[0] - 1) may leave
    # static dims unknown, but the values must still match
    eager = check_eager_and_staged(index, A, expected=expected, unknown=True,
                                   exact_shape=name != "computed")
    if name == "tensor_int":
        assert_same(eager.numpy(), A[1])
    if name == "tensor_slice":
        assert_same(eager.numpy(), A[:, 1:3])
    if name == "computed":
        assert_same(eager.numpy(), A[1, :2])


def test_constant_tensors_as_shapes_axes_and_bounds_stay_static():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [2, 3, 4])
        y = rt.placeholder(rt.int32, [6, 4])
        assert rt.reshape(x, rt.shape(y)).shape == rt.TensorShape([6, 4])
        assert rt.reduce_sum(x, rt.constant(1)).shape == rt.TensorShape([2, 4])
        assert x[:, rt.constant(1):rt.constant(3)].shape == rt.TensorShape([2, 2, 4])
        assert rt.zeros(rt.constant([2, 5])).shape == rt.TensorShape([2, 5])
        n = rt.placeholder(rt.int32, [])
        assert x[:, :n].shape == rt.TensorShape([2, None, 4])
        with pytest.raises(rt.errors.InvalidArgumentError, match="known when the graph is built"):
            rt.reduce_sum(x, n)


def test_indexing_with_a_placeholder_index():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [2, 3, 4])
        i = rt.placeholder(rt.int32, [])
        item, part = x[i], x[:, i:]
    assert item.shape == rt.TensorShape([3, 4]) and part.shape == rt.TensorShape([2, None, 4])
    for k in (0, 1, -1):
        a, b = g.run([item, part], {x: A, i: k})
        assert_same(a.numpy(), A[k])
        assert_same(b.numpy(), A[:, k:])
    with pytest.raises(rt.errors.InvalidArgumentError, match="out of bounds"):
        g.run(item, {x: A, i: 5})


@pytest.mark.parametrize("index,error", [
    (lambda t: t[5], rt.errors.InvalidArgumentError),
    (lambda t: t[0, 0, 0, 0], rt.errors.InvalidArgumentError),
    (lambda t: t[::0], rt.errors.InvalidArgumentError),
    (lambda t: t[1.0], TypeError),
    (lambda t: t[True], TypeError),
    (lambda t: t[rt.constant(1.0)], TypeError),
    (lambda t: t[rt.constant([0, 1])], TypeError),
    (lambda t: t[..., ...], IndexError),
], ids=["out_of_bounds", "too_many", "zero_step", "float", "bool", "float_tensor",
        "vector_tensor", "two_ellipses"])
def test_bad_indexes(index, error):
    with pytest.raises(error):
        index(rt.constant(A))


# -- strings ------------------------------------------------------------------------------------

def test_string_constants_and_join():
    t = rt.constant(["a", "bc"])
    assert t.dtype is rt.string
    assert t.numpy().tolist() == [b"a", b"bc"]
    out = rt.strings.join([t, rt.constant("!")], separator="-")
    assert out.numpy().tolist() == [b"a-!", b"bc-!"]
    result, sym = staged(lambda x, y: rt.strings.join([x, y], separator=" "), "fizz", "buzz")
    assert sym.dtype is rt.string and sym.shape == rt.TensorShape([])
    assert result.numpy() == b"fizz buzz"


def test_string_add():
    assert (rt.constant("fizz") + "buzz").numpy() == b"fizzbuzz"
    assert ("x" + rt.constant("y")).numpy() == b"xy"
    assert rt.strings.add("a", rt.constant(["b", "c"])).numpy().tolist() == [b"ab", b"ac"]
    result, _ = staged(lambda a, b: a + b, "fizz", "buzz")
    assert result.numpy() == b"fizzbuzz"


def test_string_equality_and_errors():
    assert bool(rt.constant("a") == "a")
    assert bool(rt.constant("a") != rt.constant("b"))
    with pytest.raises(rt.errors.DTypeMismatchError, match="string"):
        rt.constant("a") + 1
    with pytest.raises(rt.errors.InvalidArgumentError, match="string"):
        rt.constant("a") * 2
    with pytest.raises(TypeError):
        rt.strings.join([rt.constant("a"), rt.constant(1)])
