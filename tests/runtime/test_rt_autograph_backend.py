"""The runtime's side of the staging protocol (docs/staging_protocol.md): what autograph's
operators call when a condition or an iterable is a symbolic tensor."""
import pytest

import runtime as rt

UNDEF = object()


def is_undefined(v):
    return v is UNDEF


@pytest.fixture
def graph():
    g = rt.Graph()
    with g.as_default():
        yield g


def backend_of(t):
    return type(t).__autograph_backend__


def test_only_symbolic_tensors_name_the_backend(graph):
    x = rt.placeholder(rt.int32, [])
    assert backend_of(x) is not None
    assert getattr(rt.EagerTensor, "__autograph_backend__", None) is None
    with rt.init_scope():
        assert getattr(type(rt.constant(1)), "__autograph_backend__", None) is None


def test_cond_with_names_and_a_name_defined_on_one_path(graph):
    x = rt.placeholder(rt.int32, [], name="x")
    be = backend_of(x)
    outs, defined = be.cond(x > 0, lambda: (x + 1, 5, UNDEF), lambda: (x - 1, 6, x * 10),
                            ("a", "b", "c"), is_undefined)
    a, b, c = outs
    assert defined[0] is None and defined[1] is None and defined[2] is not None
    assert b.dtype is rt.int32
    got = graph.run([a, b, c, defined[2]], {x: 3})
    assert [t.numpy() for t in got] == [4, 5, 0, False]
    got = graph.run([a, b, c, defined[2]], {x: -3})
    assert [t.numpy() for t in got] == [-4, 6, -30, True]


def test_cond_undefined_on_both_paths_passes_the_marker(graph):
    x = rt.placeholder(rt.int32, [])
    outs, defined = backend_of(x).cond(x > 0, lambda: (UNDEF, x), lambda: (UNDEF, x),
                                       ("u", "x"), is_undefined)
    assert outs[0] is UNDEF and defined == (None, None)


def test_cond_names_the_variable_in_errors(graph):
    x = rt.placeholder(rt.int32, [])
    be = backend_of(x)
    with pytest.raises(TypeError, match="'total' is int32 .* float32"):
        be.cond(x > 0, lambda: (x,), lambda: (1.5,), ("total",), is_undefined)
    with pytest.raises(TypeError, match="'pair' has a different structure"):
        be.cond(x > 0, lambda: ((x, x),), lambda: (x,), ("pair",), is_undefined)


def test_while_loop_relaxes_shapes_and_learns_undefined_vars(graph):
    n = rt.placeholder(rt.int32, [])
    be = backend_of(n)

    def body(i, v, last):
        return i + 1, rt.concat([v, v], 0), i * 2
    outs, defined = be.while_loop(lambda i, v, last: i < n, body, (0, rt.ones([1]), UNDEF),
                                  ("i", "v", "last"), is_undefined, {})
    i, v, last = outs
    assert v.shape == rt.TensorShape([None])  # relaxed, not an error
    assert defined[0] is None and defined[2] is not None
    got = graph.run([i, v, last, defined[2]], {n: 3})
    assert got[0].numpy() == 3 and got[1].numpy().tolist() == [1.0] * 8
    assert got[2].numpy() == 4 and got[3].numpy()
    got = graph.run([last, defined[2]], {n: 0})
    assert not got[1].numpy()


def test_while_loop_opts(graph):
    n = rt.placeholder(rt.int32, [])
    be = backend_of(n)
    outs, _ = be.while_loop(lambda i: i < 100, lambda i: (i + 1,), (0,), ("i",), is_undefined,
                            {"maximum_iterations": n})
    assert graph.run(outs[0], {n: 7}).numpy() == 7
    with pytest.raises(ValueError, match="'v' has shape .* after one iteration, which does not conform to the shape invariant \\(1,\\)"):
        be.while_loop(lambda v: rt.size(v) < n, lambda v: (rt.concat([v, v], 0),),
                      (rt.ones([1]),), ("v",), is_undefined,
                      {"shape_invariants": {"v": rt.TensorShape([1])}})
    outs, _ = be.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v[1:]),
                            (0, rt.ones([4])), ("i", "v"), is_undefined,
                            {"shape_invariants": {"v": rt.TensorShape(None)}})
    assert outs[1].shape.rank is None
    assert graph.run(outs[1], {n: 3}).numpy().tolist() == [1.0]


def test_while_loop_names_the_variable_whose_dtype_changes(graph):
    n = rt.placeholder(rt.int32, [])
    with pytest.raises(TypeError, match="'acc' has dtype int32 before the loop, but dtype float32"):
        backend_of(n).while_loop(lambda acc: acc < n, lambda acc: (rt.cast(acc, rt.float32),),
                                 (0,), ("acc",), is_undefined, {})


def test_iterate_range_logical_not_and_assert(graph):
    x = rt.placeholder(rt.float32, [None, 2])
    be = backend_of(x)
    count, get_item = be.iterate(x)
    assert count.dtype is rt.int32
    row = get_item(rt.constant(1))
    assert row.shape == rt.TensorShape([2])
    r = be.range(0, count, 1)
    nz = be.logical_not(rt.cast(count, rt.int32))
    be.assert_(count > 1, "demo.py:3: need two rows")
    out = graph.run([count, row, r, nz], {x: [[1, 2], [3, 4]]})
    assert out[0].numpy() == 2 and out[1].numpy().tolist() == [3.0, 4.0]
    assert out[2].numpy().tolist() == [0, 1] and not out[3].numpy()
    with pytest.raises(rt.errors.InvalidArgumentError, match="demo.py:3: need two rows"):
        graph.run(count, {x: [[1, 2]]})
    with pytest.raises(TypeError, match="scalar"):
        be.iterate(x[0, 0])


# -- len() and `in` (autograph's ag__.len_ / ag__.in_ hand staged values to these) -----------

def test_len_is_a_python_int_when_the_first_dimension_is_known(graph):
    be = backend_of(rt.placeholder(rt.int32, []))
    x = rt.placeholder(rt.float32, [3, None])
    n = be.len(x)
    assert type(n) is int and n == 3
    assert be.len(rt.zeros([0, 2])) == 0


def test_len_is_a_tensor_when_the_first_dimension_is_unknown(graph):
    x = rt.placeholder(rt.float32, [None, 2])
    r = rt.placeholder(rt.float32, None)  # unknown rank: the tensor form too
    be = backend_of(x)
    n, m = be.len(x), be.len(r)
    assert isinstance(n, rt.SymbolicTensor) and n.dtype is rt.int32 and n.shape == rt.TensorShape([])
    value = [[1.0, 2.0]] * 5
    got = graph.run([n, m], {x: value, r: [[1.0]] * 4})
    assert [t.numpy() for t in got] == [len(value), 4]


def test_len_of_a_scalar_is_a_type_error(graph):
    x = rt.placeholder(rt.int32, [])
    with pytest.raises(TypeError, match=r"len\(\) of a scalar tensor"):
        backend_of(x).len(x)


def test_len_of_a_tensor_array_is_its_size(graph):
    x = rt.placeholder(rt.int32, [])
    ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True).write(0, 1.0).write(x, 2.0)
    n = backend_of(x).len(ta)
    assert graph.run(n, {x: 4}).numpy() == 5


@pytest.mark.parametrize("container,item", [
    ([1, 2, 3], 2), ([1, 2, 3], 4), ([[1, 2], [3, 4]], 4), ([[1, 2], [3, 4]], [3, 5]),
    ([], 1), ([0.5, 1.5], 1.5), (["a", "b"], "b"), (["a", "b"], "c"),
])
def test_contains_is_elementwise_equality_anywhere(graph, container, item):
    import numpy as np
    arr = np.array(container, dtype=None if container else np.int32)
    c = rt.placeholder(rt.as_dtype(arr.dtype) if arr.dtype.kind != "U" else rt.string, arr.shape)
    got = backend_of(c).contains(c, item)
    assert got.dtype is rt.bool and got.shape == rt.TensorShape([])
    want = bool(np.any(arr == np.array(item, dtype=arr.dtype)))
    assert graph.run(got, {c: container if container else arr}).numpy() == want


def test_contains_with_a_staged_item_and_clear_dtype_errors(graph):
    c = rt.placeholder(rt.int32, [None])
    i = rt.placeholder(rt.int32, [])
    be = backend_of(c)
    got = be.contains(c, i)
    assert graph.run(got, {c: [4, 5], i: 5}).numpy()
    assert not graph.run(got, {c: [4, 5], i: 6}).numpy()
    with pytest.raises(TypeError, match="float32 value is in a tensor of dtype int32: rt.cast"):
        be.contains(c, rt.placeholder(rt.float32, []))
    with pytest.raises(TypeError, match="float32 value is in a tensor of dtype int32"):
        be.contains(c, 2.5)
    with pytest.raises(TypeError, match="string value is in a tensor of dtype int32"):
        be.contains(c, "x")
    with pytest.raises(TypeError, match="needs a tensor container"):
        be.contains(rt.TensorArray(rt.int32, size=1), 1)
