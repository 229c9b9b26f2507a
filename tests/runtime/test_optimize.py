"""The graph optimisation passes (runtime/optimize): each pass, and the pipeline, gives
bit-for-bit the results of the graph as traced (differential), keeps side effects and
errors, never folds or merges what is not pure, and shrinks the graph as expected."""
import numpy as np
import pytest

import runtime as rt
from examples import programs
from runtime.errors import InvalidArgumentError
from runtime.optimize import (PASSES, count_ops, eliminate_common_subexpressions,
                              fold_constants, optimize, prune, simplify_arithmetic)
from runtime.optimize import constant_folding

ALL = [*PASSES, optimize]
IDS = [p.__name__ for p in ALL]


def concrete(fn, *specs):
    return rt.function(fn).get_concrete_function(*specs)


def spec(shape, dtype=rt.float32):
    return rt.TensorSpec(shape, dtype)


def same(a, b):
    """Equal values, dtypes, shapes, NaNs and signs of zero."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    if a.dtype.kind == "f":
        assert np.array_equal(np.signbit(a), np.signbit(b))


def check(cf, *arg_sets, passes=ALL):
    """Runs the traced graph and each pass's graph on every argument set: same results."""
    reference = cf.graph.compile(cf.inputs, cf.outputs)
    for p in passes:
        g, outs = p(cf.graph, cf.outputs)
        plan = g.compile(g.inputs, outs)
        for args in arg_sets:
            want = [np.array(a, copy=True) for a in reference(*args)]
            for _ in range(2):  # twice: a run must not change what the next computes
                got = plan(*args)
                assert len(got) == len(want)
                for x, y in zip(want, got):
                    same(x, y)


def ops_of(graph, recursive=True) -> list:
    out = []
    for op in graph.operations:
        out.append(op.type)
        if recursive:
            for v in op.attrs.values():
                if hasattr(v, "params") and hasattr(v, "graph"):
                    out.extend(ops_of(v.graph))
    return out


def f32(*v):
    return np.array(v, np.float32)


def i32(*v):
    return np.array(v, np.int32)


# -- differential: every pass on a spread of graphs ------------------------------------------

def test_passes_keep_results_of_arithmetic():
    def f(x, y):
        a = rt.constant(3.0) * rt.constant(4.0)
        p = x * y + a
        q = x * y + a
        r = rt.negative(rt.negative(p - q * 1.0)) / 1.0
        return rt.identity(rt.identity(r + x * a)), p, rt.reduce_sum(q)
    cf = concrete(f, spec([3]), spec([3]))
    check(cf, (f32(1, -0.0, np.nan), f32(2, 3, 4)), (f32(-1, 0, np.inf), f32(0, -2, 1)))


def test_passes_keep_results_of_integer_graphs():
    def f(x):
        c = rt.constant(7) + rt.constant(0)
        return x + 0, 0 + x * 1, rt.negative(rt.negative(x)), x // c, x % c - 0
    cf = concrete(f, spec([None], rt.int32))
    check(cf, (i32(1, -2, 2**31 - 1, -2**31),), (i32(),))


def test_passes_keep_results_of_cond_and_while():
    def f(x, n):
        total = rt.constant(0.0)
        i = rt.constant(0)
        while i < n:
            if rt.reduce_sum(x) > 2.0 * 1.0:
                total += rt.reduce_sum(x * 1.0) + 2.0 * 3.0
            else:
                total -= rt.reduce_sum(x * x) + 2.0 * 3.0
            x = rt.tanh(x)
            i += 1
        return total, x
    cf = concrete(f, spec([3]), spec([], rt.int32))
    # n is a scalar (its spec's shape []), as a call feeds it
    check(cf, (f32(1, 2, 3), np.int32(5)), (f32(0.1, 0.2, 0.3), np.int32(3)),
          (f32(1, 1, 1), np.int32(0)))


def test_passes_keep_results_of_fizzbuzz_counting():
    cf = concrete(programs.fizzbuzz_counts, spec([], rt.int32))
    check(cf, (np.int32(100),), (np.int32(0),), (np.int32(15),))
    assert [int(v) for v in cf(rt.constant(100))] == [27, 14, 6, 53]


def test_passes_keep_results_of_a_tensor_array_loop():
    def rnn(inputs, state):
        inputs = rt.transpose(inputs, [1, 0, 2])
        states = rt.TensorArray(rt.float32, size=inputs.shape[0])
        for i in rt.range(inputs.shape[0]):
            state = inputs[i] + state
            states = states.write(i, state)
        return rt.transpose(rt.transpose(rt.transpose(states.stack(), [1, 0, 2]), [0, 2, 1]),
                            [0, 2, 1])
    cf = concrete(rnn, spec([2, 5, 3]), spec([2, 3]))
    x = np.arange(30, dtype=np.float32).reshape(2, 5, 3)
    check(cf, (x, np.ones((2, 3), np.float32)))


def test_passes_keep_results_with_maximum_iterations_and_multi_output_ops():
    def f(x, y, z):
        k = rt.constant(2.0) * rt.constant(1.5)

        def body(i, a):
            unused = y * 2.0  # noqa: F841 - a capture nothing uses
            return i + 1, a * k + z
        i, a = rt.while_loop(lambda i, a: rt.reduce_sum(a) < 1e6, body, [rt.constant(0), x],
                             maximum_iterations=5)
        b = rt.cond(rt.reduce_sum(a) > 0.0, lambda: a * k * 1.0, lambda: a - z)
        return i, b, rt.unstack(rt.constant([[1.0, 2.0], [3.0, 4.0]]))[1] + 0.0
    cf = concrete(f, spec([2]), spec([]), spec([]))
    check(cf, (f32(1, 2), np.float32(3), np.float32(0.5)),
          (f32(-1, -2), np.float32(3), np.float32(0.5)))
    g, _ = optimize(cf.graph, cf.outputs)
    assert count_ops(g) < count_ops(cf.graph)
    (loop,) = [op for op in g.operations if op.type in ("While", "StatelessWhile")]
    assert all(t.op.name != "y" for t in loop.inputs)


def test_passes_keep_results_of_nested_control_flow():
    def f(x, n):
        c = rt.constant(0.5) + rt.constant(0.25)
        i = rt.constant(0)
        while i < n:
            if i % 2 == 0:
                j = rt.constant(0)
                while j < i:
                    x = x * c + rt.cast(j, rt.float32) * 1.0
                    j += 1
            else:
                x = rt.negative(rt.negative(x)) - c * 2.0
            i += 1
        return x
    cf = concrete(f, spec([3]), spec([], rt.int32))
    check(cf, (f32(1, 2, 3), np.int32(6)), (f32(0, -0.0, 1), np.int32(0)))


def test_passes_keep_print_side_effects_and_their_order(capsys):
    def f(x):
        unused = x * 2.0  # noqa: F841 - dead code next to the side effects
        rt.print("first", x)
        if rt.reduce_sum(x) > 0.0:
            rt.print("positive")
        rt.print("last", rt.constant(2) * rt.constant(3))
        return x + 1.0
    cf = concrete(f, spec([2]))
    reference = cf.graph.compile(cf.inputs, cf.outputs)
    reference(f32(1, 2))
    expected = capsys.readouterr().out
    assert expected == "first [1 2]\npositive\nlast 6\n"
    for p in ALL:
        g, outs = p(cf.graph, cf.outputs)
        g.compile(g.inputs, outs)(f32(1, 2))
        assert capsys.readouterr().out == expected, p.__name__


def test_passes_keep_variable_reads_and_writes_in_order():
    v = rt.Variable(1.0)

    def f(x):
        before = v.read_value()
        v.assign_add(x)
        after = v.read_value()
        v.assign(v.read_value() * 2.0)
        return before, after, v.read_value() * 1.0
    cf = concrete(f, spec([]))
    reference = cf.graph.compile(cf.inputs, cf.outputs)
    v.assign(1.0)
    want = [np.asarray(a).copy() for a in reference(np.float32(3))]
    assert [float(a) for a in want] == [1.0, 4.0, 8.0]
    for p in ALL:
        g, outs = p(cf.graph, cf.outputs)
        # CSE must not merge the reads, folding must not fold them, pruning must keep writes
        assert ops_of(g).count("ReadVariableOp") == ops_of(cf.graph).count("ReadVariableOp")
        v.assign(1.0)
        for x, y in zip(want, g.compile(g.inputs, outs)(np.float32(3))):
            same(x, y)
        assert float(v.numpy()) == 8.0


def test_random_ops_are_not_folded_or_merged():
    def f():
        a = rt.random.uniform([4], seed=3)
        b = rt.random.uniform([4], seed=3)
        return a, b
    cf = concrete(f)
    for p in ALL:
        g, outs = p(cf.graph, cf.outputs)
        assert ops_of(g).count("RandomUniform") == 2, p.__name__
        a, b = g.compile(g.inputs, outs)()
        a2, _ = g.compile(g.inputs, outs)()
        assert not np.array_equal(a, a2)  # a fresh draw on every run


def test_errors_still_happen_at_run_time_and_name_the_node():
    def f(x):
        bad = rt.constant(1) // rt.constant(0)  # an integer division by zero
        return x + bad
    cf = concrete(f, spec([], rt.int32))
    for p in ALL:
        g, outs = p(cf.graph, cf.outputs)
        assert "FloorDiv" in ops_of(g)
        with pytest.raises(InvalidArgumentError, match="Integer division by zero"):
            g.compile(g.inputs, outs)(np.int32(1))

    def g_(a, b):
        return rt.matmul(a * 1.0, b)
    cf = concrete(g_, spec([None, None]), spec([None, None]))
    with pytest.raises(InvalidArgumentError) as e:
        cf(np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
    assert "MatMul" in str(e.value) and "test_optimize.py" in str(e.value)


# -- constant folding ------------------------------------------------------------------------

def test_fold_constants_replaces_constant_subgraphs():
    def f(x):
        return x * (rt.constant(3) * rt.constant(4) + rt.constant(1))
    cf = concrete(f, spec([], rt.int32))
    g, outs = fold_constants(cf.graph, cf.outputs)
    assert ops_of(cf.graph).count("Mul") == 2
    assert ops_of(g).count("Mul") == 1 and "AddV2" not in ops_of(g)
    folded = [op for op in g.operations if op.type == "Const" and op.attrs["value"] == 13]
    assert len(folded) == 1 and folded[0].attrs["dtype"] is rt.int32
    g, outs = optimize(cf.graph, cf.outputs)
    assert sorted(ops_of(g)) == ["Const", "Identity", "Mul", "Placeholder"] or \
        sorted(ops_of(g)) == ["Const", "Mul", "Placeholder"]


def test_fold_constants_inlines_captured_constants_into_loops():
    def f(n):
        k = rt.constant(2) * rt.constant(3)
        i = rt.constant(0)
        s = rt.constant(0)
        while i < n:
            s += k * k
            i += 1
        return s
    cf = concrete(f, spec([], rt.int32))
    g, outs = optimize(cf.graph, cf.outputs)
    (loop,) = [op for op in g.operations if op.type in ("While", "StatelessWhile")]
    body = loop.attrs["body"]
    assert "Mul" not in ops_of(body.graph)   # k * k became 36 inside the body
    # the inputs: the loop variables i and s (one merged constant 0), and n; not k
    assert [t.op.type for t in loop.inputs] == ["Const", "Const", "Placeholder"]
    assert int(cf(rt.constant(4))) == 144
    check(cf, (np.int32(4),), (np.int32(0),))


def test_a_captured_constant_a_loop_still_uses_is_inlined_not_passed():
    def f(x, n):
        k = rt.constant(2.0) * rt.constant(1.5)
        i = rt.constant(0)
        while i < n:
            x = x * k
            i += 1
        return x
    cf = concrete(f, spec([]), spec([], rt.int32))
    g, _ = optimize(cf.graph, cf.outputs)
    (loop,) = [op for op in g.operations if op.type in ("While", "StatelessWhile")]
    assert [t.op.type for t in loop.inputs] == ["Const", "Placeholder", "Placeholder"]
    assert all(p is None or p.op.type == "Placeholder" for p in loop.attrs["body"].params)
    check(cf, (np.float32(1.5), np.int32(3)))


def test_fold_constants_leaves_large_results(monkeypatch):
    monkeypatch.setattr(constant_folding, "MAX_ELEMENTS", 10)

    def f(x):
        return x + rt.ones([4, 4]) * 2.0, x + rt.ones([2]) * 2.0
    cf = concrete(f, spec([]))
    g, _ = fold_constants(cf.graph, cf.outputs)
    assert ops_of(g).count("Fill") == 1 and ops_of(g).count("Mul") == 1
    check(cf, (np.float32(1),))


def test_fold_constants_inlines_a_cond_with_a_constant_predicate(capsys):
    def f(x):
        rt.print("before")
        k = rt.constant(3)
        if k > 2:
            rt.print("taken", x)
            y = x * 2
            j = rt.constant(0)
            while j < k:
                y = y + x
                j += 1
        else:
            rt.print("not taken")
            y = x - 1
        rt.print("after")
        return y
    cf = concrete(f, spec([], rt.int32))
    check(cf, (np.int32(5),), (np.int32(-1),))
    g, outs = optimize(cf.graph, cf.outputs)
    assert not {"If", "StatelessIf"} & set(ops_of(g))
    assert "While" in ops_of(g) or "StatelessWhile" in ops_of(g)
    capsys.readouterr()
    assert int(cf(rt.constant(5))) == 25
    assert capsys.readouterr().out == "before\ntaken 5\nafter\n"


def test_folded_constants_do_not_share_memory_with_other_constants():
    def f(x):
        c = rt.constant([[1.0, 2.0], [3.0, 4.0]])
        return x + rt.reshape(c, [4]), x * c
    cf = concrete(f, spec([]))
    g, outs = fold_constants(cf.graph, cf.outputs)
    values = [op.attrs["value"] for op in g.operations if op.type == "Const"]
    assert len(values) == 2  # the constant and the folded reshape
    assert not np.shares_memory(values[0], values[1])


def test_returned_values_are_not_folded_into_arrays_shared_by_every_call():
    @rt.function
    def f():
        return rt.zeros([3]), rt.identity(rt.ones([2]) * 2.0)
    a, b = f()
    a.numpy()[0] = 5.0
    b.numpy()[0] = 5.0
    a, b = f()
    assert a.numpy().tolist() == [0.0, 0.0, 0.0] and b.numpy().tolist() == [2.0, 2.0]


# -- CSE -------------------------------------------------------------------------------------

def test_cse_merges_duplicate_ops_and_equal_constants():
    def f(x, y):
        return (x * y + 2.0) + (x * y + 2.0)
    cf = concrete(f, spec([2]), spec([2]))
    g, _ = eliminate_common_subexpressions(cf.graph, cf.outputs)
    before, after = ops_of(cf.graph), ops_of(g)
    assert before.count("Mul") == 2 and after.count("Mul") == 1
    assert before.count("AddV2") == 3 and after.count("AddV2") == 2
    assert before.count("Const") == 2 and after.count("Const") == 1
    check(cf, (f32(1, 2), f32(3, -0.0)))


def test_cse_keeps_constants_that_differ_in_dtype_or_sign_of_zero():
    def f(x, n):
        return x + 0.0, x - (-0.0), n + 1, rt.cast(n, rt.int64) + 1
    cf = concrete(f, spec([]), spec([], rt.int32))
    g, _ = eliminate_common_subexpressions(cf.graph, cf.outputs)
    assert ops_of(g).count("Const") == ops_of(cf.graph).count("Const") == 4
    check(cf, (np.float32(-0.0), np.int32(3)))


def test_cse_works_inside_branches_and_respects_attrs():
    def f(x):
        if rt.reduce_sum(x) > 0.0:
            y = rt.reduce_sum(x * x, axis=0) + rt.reduce_sum(x * x, axis=0)
        else:
            y = rt.reduce_sum(x * x, axis=0) + rt.reduce_sum(x * x, axis=1)
        return y
    cf = concrete(f, spec([2, 2]))
    g, _ = eliminate_common_subexpressions(cf.graph, cf.outputs)
    (node,) = [op for op in g.operations if op.type in ("If", "StatelessIf")]
    then_ops, else_ops = ops_of(node.attrs["then_body"].graph), ops_of(node.attrs["else_body"].graph)
    assert then_ops.count("Sum") == 1 and then_ops.count("Mul") == 1
    assert else_ops.count("Sum") == 2 and else_ops.count("Mul") == 1
    check(cf, (np.array([[1, 2], [3, 4]], np.float32),), (-np.ones((2, 2), np.float32),))


# -- dead code -------------------------------------------------------------------------------

def test_prune_drops_dead_ops_keeps_side_effects_and_unused_captures():
    def f(x, y):
        dead = rt.tanh(x) * 3.0  # noqa: F841
        if x > 0.0:
            unused = y * 2.0  # noqa: F841 - captures y, then nothing uses it
            rt.print("x is positive")
            z = x + 1.0
        else:
            z = x - 1.0
        return z
    cf = concrete(f, spec([]), spec([]))
    g, outs = prune(cf.graph, cf.outputs)
    assert "Tanh" not in ops_of(g) and "PrintV2" in ops_of(g)
    (node,) = [op for op in g.operations if op.type in ("If", "StatelessIf")]
    assert all(t.op.name != "y" for t in node.inputs)  # y is not passed in any more
    assert [op.type for op in g.operations].count("Placeholder") == 2  # the caller still feeds y
    check(cf, (np.float32(1), np.float32(2)), (np.float32(-1), np.float32(2)))


# -- arithmetic simplification ---------------------------------------------------------------

def _simplified(fn, *specs):
    cf = concrete(fn, *specs)
    g, outs = simplify_arithmetic(cf.graph, cf.outputs)
    g, outs = prune(g, outs)
    return cf, g


def test_simplify_removes_identities_of_arithmetic():
    cf, g = _simplified(lambda x: rt.negative(rt.negative(x * 1.0)) / 1.0 - 0.0 + (-0.0),
                        spec([3]))
    assert [op.type for op in g.operations] == ["Placeholder"]
    check(cf, (f32(-0.0, np.nan, 2.5),))


def test_simplify_keeps_float_plus_zero_and_sub_of_negative_zero():
    cf, g = _simplified(lambda x: (x + 0.0, x - (-0.0)), spec([2]))
    assert [op.type for op in g.operations].count("AddV2") == 1
    assert [op.type for op in g.operations].count("Sub") == 1
    check(cf, (f32(-0.0, 1),))
    assert np.signbit(cf.graph.compile(cf.inputs, cf.outputs)(f32(-0.0, 1))[0][0]) == 0


def test_simplify_integer_plus_zero_goes():
    cf, g = _simplified(lambda n: (n + 0, 0 + n, n - 0, n * 1), spec([None], rt.int32))
    assert [op.type for op in g.operations] == ["Placeholder"]


def test_simplify_keeps_broadcasting_and_dtype_changes():
    cf, g = _simplified(lambda x, n: (x * rt.constant(np.ones((2, 3), np.float32)),
                                      x * rt.constant(f32(1)), n / 1),
                        spec([3]), spec([], rt.int32))
    types = [op.type for op in g.operations]
    assert types.count("Mul") == 1       # x * ones([2, 3]) broadcasts x to (2, 3): kept
    assert types.count("RealDiv") == 1   # int32 / 1 is a float64: kept
    check(cf, (f32(1, 2, 3), np.int32(4)))


def test_simplify_composes_transposes():
    def f(x):
        return (rt.transpose(rt.transpose(x, [1, 2, 0]), [2, 0, 1]),
                rt.transpose(rt.transpose(x, [1, 0, 2]), [0, 2, 1]),
                rt.transpose(rt.transpose(x)))
    cf, g = _simplified(f, spec([2, 3, 4]))
    transposes = [op for op in g.operations if op.type == "Transpose"]
    assert len(transposes) == 1 and transposes[0].attrs["perm"] == (1, 2, 0)
    check(cf, (np.arange(24, dtype=np.float32).reshape(2, 3, 4),))


# -- wiring ----------------------------------------------------------------------------------

def test_concrete_function_runs_the_optimised_graph_and_shows_the_traced_one():
    @rt.function
    def f(x):
        return x * (rt.constant(2.0) * rt.constant(3.0)) * 1.0
    cf = f.get_concrete_function(spec([2]))
    n_traced = count_ops(cf.graph)
    assert np.array_equal(f(rt.constant([1.0, 2.0])).numpy(), [6.0, 12.0])
    assert count_ops(cf.graph) == n_traced and cf.graph_for() is cf.graph
    assert cf.graph_for(optimized=True) is cf.optimized_graph
    assert count_ops(cf.optimized_graph) < n_traced
    assert "Mul" in cf.optimized_graph.to_text()


def test_config_switch_runs_graphs_as_traced():
    rt.config.optimize_graphs(False)
    try:
        @rt.function
        def f(x):
            return x * (rt.constant(2.0) * rt.constant(3.0))
        assert float(f(rt.constant(1.0))) == 6.0
        cf = f.get_concrete_function(spec([]))
        assert cf.optimized_graph is cf.graph
    finally:
        rt.config.optimize_graphs(True)
    assert rt.config.graphs_optimized()


def test_a_returned_value_simplified_to_a_folded_constant_stays_computed():
    @rt.function
    def f():
        return rt.zeros([3]) * 1.0
    a = f()
    a.numpy()[0] = 5.0
    assert f().numpy().tolist() == [0.0, 0.0, 0.0]


def test_optimised_graph_def():
    def f(x):
        y = x * (rt.constant(2.0) * rt.constant(3.0))
        return rt.negative(rt.negative(y * 1.0)) + y * (rt.constant(2.0) * rt.constant(3.0))
    cf = concrete(f, spec([]))
    g, _ = optimize(cf.graph, cf.outputs)
    nodes = [(n.name, n.op, list(n.input)) for n in g.as_graph_def().node]
    # 2 * 3 folded once (the second copy merged with it), -(-(y * 1)) is y, Identity gone
    assert nodes == [("x", "Placeholder", []),
                     ("mul", "Const", []),
                     ("mul_1", "Mul", ["x", "mul"]),
                     ("mul_4", "Mul", ["mul_1", "mul"]),
                     ("add", "AddV2", ["mul_1", "mul_4"])]
