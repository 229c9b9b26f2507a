"""rt.cond and rt.while_loop: staged (branches and bodies traced once, chosen and repeated
at run time) and eager (plain Python)."""
import collections

import pytest

import runtime as rt


def graph_with(dtype=rt.int32, shape=()):
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(dtype, shape, name="x")
    return g, x


def values(result):
    """Tensors as Python values; tuples (not namedtuples) as lists, for comparisons."""
    out = rt.nest.map_structure(lambda t: t.numpy().tolist(), result)
    return _lists(out)


def _lists(x):
    if isinstance(x, dict):
        return {k: _lists(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*[_lists(v) for v in x])
    if isinstance(x, (list, tuple)):
        return [_lists(v) for v in x]
    return x


# -- cond --------------------------------------------------------------------------------------

def test_cond_chooses_at_run_time():
    g, x = graph_with()
    with g.as_default():
        out = rt.cond(x > 0, lambda: x * 2, lambda: -x)
    assert isinstance(out, rt.SymbolicTensor) and out.shape == rt.TensorShape([])
    assert [g.run(out, {x: v}).numpy() for v in (3, -4, 0)] == [6, 4, 0]


def test_nested_cond():
    g, x = graph_with()
    with g.as_default():
        out = rt.cond(x > 0,
                      lambda: rt.cond(x > 10, lambda: 2, lambda: 1),
                      lambda: rt.cond(x < -10, lambda: -2, lambda: rt.identity(-1)))
    assert [g.run(out, {x: v}).numpy() for v in (20, 5, -5, -20)] == [2, 1, -1, -2]


def test_cond_nested_structures_and_python_numbers():
    g, x = graph_with()
    with g.as_default():
        out = rt.cond(x > 0,
                      lambda: {"a": x, "b": (x + 1, [1.5])},
                      lambda: {"a": x * 0, "b": (x - 1, [rt.constant(2.5)])})
    assert isinstance(out, dict) and isinstance(out["b"], tuple) and isinstance(out["b"][1], list)
    assert out["b"][1][0].dtype is rt.float32
    assert values(g.run(out, {x: 3})) == {"a": 3, "b": [4, [1.5]]}
    assert values(g.run(out, {x: -3})) == {"a": 0, "b": [-4, [2.5]]}


def test_cond_output_shape_is_the_common_shape():
    g, x = graph_with(rt.float32, [None])
    with g.as_default():
        out = rt.cond(rt.size(x) > 2, lambda: rt.ones([2]) * x[0], lambda: rt.zeros([2]))
        some = rt.cond(rt.size(x) > 2, lambda: x[:2], lambda: rt.zeros([2]))
        ragged = rt.cond(rt.size(x) > 2, lambda: x, lambda: rt.zeros([2, 2]))
    assert out.shape == rt.TensorShape([2]) and some.shape == rt.TensorShape([None])
    assert ragged.shape.rank is None
    assert g.run(some, {x: [1.0, 2.0, 3.0]}).numpy().tolist() == [1.0, 2.0]
    assert g.run(out, {x: [3.0, 2.0, 1.0]}).numpy().tolist() == [3.0, 3.0]
    assert g.run(ragged, {x: [1.0]}).numpy().tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_cond_branches_capture_outer_tensors():
    g, x = graph_with()
    with g.as_default():
        y = rt.placeholder(rt.int32, [])
        big = x * 100
        out = rt.cond(x > y, lambda: big + y, lambda: big - y)
    assert g.run(out, {x: 2, y: 1}).numpy() == 201
    assert g.run(out, {x: 0, y: 1}).numpy() == -1


def test_cond_runs_only_the_taken_branch(capsys):
    g, x = graph_with()
    with g.as_default():
        out = rt.cond(x > 0,
                      lambda: (rt.print("then", x), x + rt.gather([1], [0])[0])[1],
                      lambda: (rt.print("else", x), rt.gather(rt.stack([x]), [1])[0])[1])
    assert g.run(out, {x: 5}).numpy() == 6  # the else branch's bad gather does not run
    with pytest.raises(rt.errors.InvalidArgumentError, match="not in"):
        g.run(out, {x: -5})
    assert capsys.readouterr().out == "then 5\nelse -5\n"


def test_cond_with_a_side_effect_and_no_outputs(capsys):
    g, x = graph_with()
    with g.as_default():
        rt.cond(x > 0, lambda: rt.print("positive"), lambda: None)
        out = x + 0
    g.run(out, {x: 1})
    g.run(out, {x: -1})
    assert capsys.readouterr().out == "positive\n"


@pytest.mark.parametrize("true_fn,false_fn,error,match", [
    (lambda x: x, lambda x: 1.5, rt.errors.DTypeMismatchError, "int32 .* float32"),
    (lambda x: x, lambda x: rt.cast(x, rt.float32), TypeError, "'output' is int32"),
    (lambda x: (x, x), lambda x: x, TypeError, "structure"),
    (lambda x: {"a": x}, lambda x: {"b": x}, TypeError, "structure"),
    (lambda x: [x], lambda x: (x,), TypeError, "structure"),
    (lambda x: x, lambda x: "s", TypeError, "string"),
    (lambda x: print, lambda x: len, TypeError, "builtin_function"),
], ids=["float", "cast", "tuple", "keys", "list-vs-tuple", "string", "objects"])
def test_cond_branch_mismatches(true_fn, false_fn, error, match):
    g, x = graph_with()
    with g.as_default():
        with pytest.raises(error, match=match):
            rt.cond(x > 0, lambda: true_fn(x), lambda: false_fn(x))


def test_cond_passes_the_same_python_object_through():
    g, x = graph_with()
    with g.as_default():
        fn, t = rt.cond(x > 0, lambda: (len, x), lambda: (len, -x))
    assert fn is len and g.run(t, {x: -2}).numpy() == 2


def test_cond_predicate_must_be_a_bool_of_one_element():
    """A bool of one element (shape (1,), (1, 1)) is that element, as TensorFlow squeezes
    the predicate; of more elements it is ambiguous, as numpy's truth value."""
    g, x = graph_with(shape=[2])
    with g.as_default():
        with pytest.raises(TypeError, match="scalar bool"):
            rt.cond(x[0], lambda: 1, lambda: 2)
        with pytest.raises(ValueError, match="more than one element is ambiguous"):
            rt.cond(x > 0, lambda: 1, lambda: 2)
        one = rt.cond(x[:1] > 0, lambda: 1, lambda: 2)
        square = rt.cond(rt.reshape(x[1:], [1, 1]) > 0, lambda: 1, lambda: 2)
    assert [g.run(one, {x: [3, -1]}).numpy(), g.run(one, {x: [-3, 1]}).numpy()] == [1, 2]
    assert [g.run(square, {x: [3, -1]}).numpy(), g.run(square, {x: [-3, 1]}).numpy()] == [2, 1]


def test_eager_cond_runs_one_branch_as_python():
    calls = []
    out = rt.cond(rt.constant(3) > 2, lambda: calls.append("t") or "yes",
                  lambda: calls.append("f") or "no")
    assert out == "yes" and calls == ["t"]
    assert rt.cond(False, lambda: 1, lambda: 2) == 2


# -- while_loop --------------------------------------------------------------------------------

def test_while_loop_runs_as_often_as_the_data_says():
    g, x = graph_with()
    with g.as_default():
        i, total = rt.while_loop(lambda i, s: i < x, lambda i, s: (i + 1, s + i), (0, 0))
    assert i.shape == rt.TensorShape([]) and i.dtype is rt.int32
    for n in (0, 1, 5, 100):
        assert values(g.run((i, total), {x: n})) == [n, n * (n - 1) // 2] if n else [0, 0]


def test_while_loop_that_runs_zero_times_returns_the_initial_values():
    g, x = graph_with(rt.float32, [None])
    with g.as_default():
        out = rt.while_loop(lambda v: rt.reduce_sum(v) > 100.0, lambda v: v / 2.0, [x])
    assert g.run(out, {x: [1.0, 2.0]})[0].numpy().tolist() == [1.0, 2.0]
    assert g.run(out, {x: [300.0]})[0].numpy().tolist() == [75.0]


def test_nested_while_loops():
    g, x = graph_with()
    with g.as_default():
        def outer_body(i, total):
            _, inner = rt.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + j), (0, total))
            return i + 1, inner
        out = rt.while_loop(lambda i, t: i < x, outer_body, (0, 0))
    expected = sum(j for i in range(5) for j in range(i))
    assert values(g.run(out, {x: 5})) == [5, expected]


def test_while_loop_with_cond_inside_and_cond_with_loop_inside():
    g, x = graph_with()
    with g.as_default():
        collatz = rt.while_loop(
            lambda n, k: n > 1,
            lambda n, k: (rt.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1), k + 1),
            (x, 0))
        out = rt.cond(x > 0, lambda: collatz[1], lambda: rt.while_loop(
            lambda i: i > x, lambda i: i - 1, [0])[0])
    assert g.run(out, {x: 6}).numpy() == 8
    assert g.run(out, {x: -3}).numpy() == -3


Point = collections.namedtuple("Point", "x y")


def test_while_loop_nested_structures():
    g, x = graph_with()
    with g.as_default():
        out = rt.while_loop(
            lambda s: s["i"] < x,
            lambda s: {"i": s["i"] + 1, "acc": [s["acc"][0] * 2, (s["acc"][1][0] + 1.5,)],
                       "p": Point(s["p"].y, s["p"].x)},
            [{"i": 0, "acc": [1, (0.0,)], "p": Point(rt.constant(1), rt.constant(2))}])
    [state] = out
    assert isinstance(state["p"], Point) and isinstance(state["acc"][1], tuple)
    assert values(g.run(state, {x: 3})) == {"i": 3, "acc": [8, [4.5]], "p": Point(2, 1)}


def test_while_loop_keeps_the_container_type():
    g, x = graph_with()
    with g.as_default():
        single = rt.while_loop(lambda i: i < x, lambda i: i + 1, rt.constant(0))
        as_list = rt.while_loop(lambda i: i < x, lambda i: [i + 1], [0])
        as_tuple = rt.while_loop(lambda i: i < x, lambda i: (i + 1,), (0,))
        # a namedtuple of loop vars is unpacked into the arguments, as in TensorFlow
        point = rt.while_loop(lambda a, b: a < x, lambda a, b: Point(a + 1, b), Point(0, 5))
    assert isinstance(single, rt.Tensor) and isinstance(as_list, list)
    assert isinstance(as_tuple, tuple) and isinstance(point, Point)
    assert values(g.run([single, as_list, as_tuple, point], {x: 2})) == [2, [2], [2], Point(2, 5)]


@pytest.mark.parametrize("max_iter", [3, "tensor"])
def test_maximum_iterations(max_iter):
    g, x = graph_with()
    with g.as_default():
        m = x if max_iter == "tensor" else max_iter
        out = rt.while_loop(lambda i: i < 10, lambda i: i + 1, [0], maximum_iterations=m)
    feed = {x: 3} if max_iter == "tensor" else {}
    assert g.run(out, feed)[0].numpy() == 3
    if max_iter == "tensor":
        assert g.run(out, {x: 0})[0].numpy() == 0
        assert g.run(out, {x: 50})[0].numpy() == 10


def test_eager_maximum_iterations():
    assert rt.while_loop(lambda i: i < 10, lambda i: i + 1, [0], maximum_iterations=4) == [4]


def test_shape_invariants_let_a_shape_grow():
    g, x = graph_with()
    with g.as_default():
        [v] = rt.while_loop(lambda v: rt.size(v) < x, lambda v: rt.concat([v, v], 0),
                            [rt.ones([1])], shape_invariants=[rt.TensorShape([None])])
    assert v.shape == rt.TensorShape([None])
    assert g.run(v, {x: 5}).numpy().tolist() == [1.0] * 8


def test_loop_var_changing_shape_without_invariant_names_it():
    g, x = graph_with()
    with g.as_default():
        with pytest.raises(ValueError, match=r"'loop_vars\[1\]' has shape \(1,\) before the "
                                             r"loop, but shape \(2,\).*shape_invariants"):
            rt.while_loop(lambda i, v: i < x, lambda i, v: (i + 1, rt.concat([v, v], 0)),
                          (0, rt.ones([1])))


def test_shape_invariant_that_the_body_breaks():
    g, x = graph_with()
    with g.as_default():
        with pytest.raises(ValueError, match="shape invariant"):
            rt.while_loop(lambda v: rt.size(v) < x, lambda v: rt.concat([v, v], 1),
                          [rt.ones([1, 1])], shape_invariants=[rt.TensorShape([1, 1])])
        with pytest.raises(ValueError, match="does not fit its shape invariant"):
            rt.while_loop(lambda v: True, lambda v: v, [rt.ones([2])],
                          shape_invariants=[rt.TensorShape([3])])


def test_loop_var_changing_dtype_names_it():
    g, x = graph_with()
    with g.as_default():
        with pytest.raises(TypeError, match=r"'loop_vars\[1\]' has dtype int32 before the loop, "
                                            r"but dtype float32"):
            rt.while_loop(lambda i, s: i < x, lambda i, s: (i + 1, rt.cast(s, rt.float32)),
                          (0, 0))
        with pytest.raises(TypeError, match=r"'loop_vars\[0\]\['n'\]' has dtype int32.*keep its dtype"):
            rt.while_loop(lambda s: s["n"] < 3, lambda s: {"n": rt.cast(s["n"], rt.float64)},
                          [{"n": 0}])


def test_loop_var_changing_structure_names_it():
    g, x = graph_with()
    with g.as_default():
        with pytest.raises(TypeError, match=r"'loop_vars\[1\]' does not have the same nested structure"):
            rt.while_loop(lambda i, t: i < x, lambda i, t: (i + 1, (t[0],)), (0, (1, 2)))
        with pytest.raises(ValueError, match="returned 3 values for 2 loop variables"):
            rt.while_loop(lambda i, j: i < x, lambda i, j: (i, j, i), (0, 0))


def test_loop_test_must_be_a_bool_of_one_element():
    g, x = graph_with()
    with g.as_default():
        with pytest.raises(TypeError, match="scalar bool"):
            rt.while_loop(lambda i: i, lambda i: i + 1, [x])
        with pytest.raises(ValueError, match="more than one element is ambiguous"):
            rt.while_loop(lambda i: rt.stack([i, i]) < 3, lambda i: i + 1, [x])
        count, = rt.while_loop(lambda i: rt.reshape(i, [1]) < 3, lambda i: i + 1, [x])
    assert g.run(count, {x: 0}).numpy() == 3


def test_while_loop_captures_outer_tensors():
    g, x = graph_with()
    with g.as_default():
        step = rt.placeholder(rt.int32, [])
        scaled = step * 2
        out = rt.while_loop(lambda i: i < x, lambda i: i + scaled, [0])
    assert g.run(out, {x: 7, step: 1})[0].numpy() == 8
    assert g.run(out, {x: 7, step: 3})[0].numpy() == 12


def test_loop_body_side_effects_run_every_iteration(capsys):
    g, x = graph_with()
    with g.as_default():
        def body(i):
            rt.print("i =", i)
            return i + 1
        out = rt.while_loop(lambda i: i < x, body, [0])
    g.run(out, {x: 3})
    g.run(out, {x: 0})
    assert capsys.readouterr().out == "i = 0\ni = 1\ni = 2\n"


def test_eager_while_loop_is_python():
    trace = []

    def body(i, s):
        trace.append(int(i))
        return i + 1, s * 2
    i, s = rt.while_loop(lambda i, s: i < 4, body, (rt.constant(0), rt.constant(1)))
    assert isinstance(i, rt.EagerTensor) and (int(i), int(s)) == (4, 16)
    assert trace == [0, 1, 2, 3]
    assert rt.while_loop(lambda i: i < 0, lambda i: i + 1, [7]) == [7]
    assert rt.while_loop(lambda i: i < 3, lambda i: i + 1, rt.constant(0)).numpy() == 3


def test_loop_with_python_number_initial_values_converts_them():
    g, x = graph_with(rt.float32)
    with g.as_default():
        i, acc = rt.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a + x), (0, 0.0))
    assert i.dtype is rt.int32 and acc.dtype is rt.float32
    assert values(g.run((i, acc), {x: 1.5})) == [3, 4.5]


def test_while_loop_large_trip_count_is_fast():
    g, x = graph_with()
    with g.as_default():
        out = rt.while_loop(lambda i, s: i < x, lambda i, s: (i + 1, s + i % 3), (0, 0))
    assert values(g.run(out, {x: 20000})) == [20000, sum(i % 3 for i in range(20000))]
