"""Graph building, names, GraphDef and its text, feeding and fetching, the compiling
executor, non-strict execution, and tensors that belong to other graphs."""
import numpy as np
import pytest

import runtime as rt


def build_small():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [None], name="x")
        a = x + 1
        b = a * 2
        c = b + a
        s = rt.reduce_sum(c)
    return g, x, (a, b, c, s)


def test_as_default_records_ops_and_restores_eager():
    g, x, (a, b, c, s) = build_small()
    assert isinstance(s, rt.SymbolicTensor)
    assert [op.type for op in g.get_operations()] == [
        "Placeholder", "Const", "AddV2", "Const", "Mul", "AddV2", "Sum"]
    assert isinstance(rt.constant(1) + 1, rt.EagerTensor)  # eager again outside


def test_nested_as_default_uses_the_innermost_graph():
    g1, g2 = rt.Graph(), rt.Graph()
    with g1.as_default():
        with g2.as_default():
            t = rt.constant(1)
        u = rt.constant(2)
    assert t.graph is g2 and u.graph is g1


def test_unique_stable_names():
    def build():
        g = rt.Graph()
        with g.as_default():
            x = rt.placeholder(rt.float32, [])
            outs = [x + 1.0, x + 2.0, rt.add(x, x), rt.add(x, x, name="add_1_x"),
                    rt.add(x, x, name="add_1"), rt.multiply(x, x, name="add")]
        return g, outs
    g, outs = build()
    names = [op.name for op in g.get_operations()]
    assert len(names) == len(set(names))
    assert [t.op.name for t in outs] == ["add", "add_1", "AddV2", "add_1_x", "add_1_1", "add_2"]
    assert names == [op.name for op in build()[0].get_operations()]  # stable across builds


def test_graph_def_nodes():
    g, x, (a, b, c, s) = build_small()
    gd = g.as_graph_def()
    by_name = {n.name: n for n in gd.node}
    assert [n.name for n in gd.node] == [op.name for op in g.get_operations()]
    assert by_name["x"].op == "Placeholder" and by_name["x"].input == []
    assert by_name["x"].attr["dtype"] is rt.int32
    assert by_name["x"].attr["shape"] == rt.TensorShape([None])
    assert by_name[a.op.name].op == "AddV2"
    assert by_name[a.op.name].input == ["x", "Const"]
    assert by_name[c.op.name].input == [b.op.name, a.op.name]
    assert by_name[a.op.name].attr["T"] is rt.int32
    assert by_name[s.op.name].attr["keepdims"] is False


def test_graph_def_text_is_readable():
    g, x, (a, b, c, s) = build_small()
    text = str(g.as_graph_def())
    assert text == g.to_text(graph_def=True)
    first = text.split("node {")[1]
    assert 'name: "x"' in first and 'op: "Placeholder"' in first
    assert "type: DT_INT32" in first and "dim { size: -1 }" in first
    add = text.split("node {")[3]
    assert add.splitlines()[1:5] == ['  name: "add"', '  op: "AddV2"', '  input: "x"',
                                     '  input: "Const"']
    assert text.count("node {") == len(g.get_operations())
    assert text.count("{") == text.count("}")


def test_graph_def_library_holds_branches_and_bodies():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        rt.cond(x > 0, lambda: x + 1, lambda: x - 1)
        rt.while_loop(lambda i: i < x, lambda i: i + 1, [0])
    gd = g.as_graph_def()
    ops = {n.op for n in gd.node}
    assert {"StatelessIf", "StatelessWhile"} <= ops
    cond = next(n for n in gd.node if n.op == "StatelessIf")
    assert cond.attr["then_body"][0] == "func"
    assert len(gd.library) == 4
    body_ops = [[n.op for n in f.node_def] for f in gd.library]
    assert any("Sub" in ops_ for ops_ in body_ops)
    text = str(gd)
    assert "library {" in text and "function {" in text and 'op: "Less"' in text


def test_compiled_once_run_many_times():
    g, x, (a, b, c, s) = build_small()
    for n in range(20):
        values = np.arange(n, dtype=np.int32)
        out = g.run(s, {x: values})
        assert out.numpy() == np.sum((values + 1) * 3)
    assert len(g._compiled) == 1  # one plan for one (feeds, fetches) pair


def test_run_nested_fetches():
    g, x, (a, b, c, s) = build_small()
    out = g.run({"a": a, "pair": (b, [s])}, {x: [1, 2]})
    assert out["a"].numpy().tolist() == [2, 3]
    assert out["pair"][0].numpy().tolist() == [4, 6]
    assert out["pair"][1][0].numpy() == 15


def test_graph_runs_after_more_ops_are_added():
    g, x, (a, b, c, s) = build_small()
    assert g.run(s, {x: [1]}).numpy() == 6
    with g.as_default():
        s2 = s * 10
    assert g.run(s2, {x: [1]}).numpy() == 60


def test_a_graph_runs_without_the_python_that_built_it():
    def make():
        g = rt.Graph()
        with g.as_default():
            x = rt.placeholder(rt.float32, [2])
            y = rt.reduce_sum(rt.square(x))
        return g, x.name, y.name
    g, xname, yname = make()
    x, y = g.get_tensor_by_name(xname), g.get_tensor_by_name(yname)
    assert g.run(y, {x: [3.0, 4.0]}).numpy() == 25.0
    with pytest.raises(KeyError, match="nope"):
        g.get_operation_by_name("nope")


# -- non-strict execution -------------------------------------------------------------------

def test_unused_failing_op_is_not_run():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [None])
        bad = rt.gather(x, [1])
        good = x + 1
    assert g.run(good, {x: [5]}).numpy().tolist() == [6]
    with pytest.raises(rt.errors.InvalidArgumentError,
                       match=r"indices\[0\] = 1 is not in \[0, 1\)"):
        g.run(bad, {x: [5]})


def test_eager_gather_out_of_range_raises_immediately():
    with pytest.raises(rt.errors.InvalidArgumentError, match="not in"):
        rt.gather(rt.constant([5]), [1])


def test_unused_placeholder_need_not_be_fed():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        y = rt.placeholder(rt.int32, [], name="y")
        out = x * 2
        other = y * 2
    assert g.run(out, {x: 4}).numpy() == 8
    with pytest.raises(rt.errors.InvalidArgumentError, match="placeholder.*'y'.*int32"):
        g.run(other, {x: 4})


def test_side_effects_are_never_pruned(capsys):
    v = rt.Variable(0)
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        rt.print("saw", x)
        v.assign_add(x)
        out = x + 1
    assert g.run(out, {x: 3}).numpy() == 4
    assert g.run(out, {x: 4}).numpy() == 5
    assert capsys.readouterr().out == "saw 3\nsaw 4\n"
    assert v.numpy() == 7


# -- bad feeds and fetches -------------------------------------------------------------------

@pytest.mark.parametrize("value,match", [
    ([[1, 2], [3, 4]], r"shape \(2, 2\).*\(None,\)"),
    (5, r"shape \(\).*\(None,\)"),
    ([1.5, 2.0], "not an integer"),
    (["a"], "int32"),
    ([[1], [2, 3]], "ragged"),
])
def test_bad_feeds(value, match):
    g, x, (a, b, c, s) = build_small()
    with pytest.raises(rt.errors.InvalidArgumentError, match=match) as info:
        g.run(s, {x: value})
    assert "'x:0'" in str(info.value)


def test_bad_fetch_and_feed_keys():
    g, x, (a, b, c, s) = build_small()
    with pytest.raises(rt.errors.InvalidGraphError, match="cannot fetch 5"):
        g.run(5)
    with pytest.raises(rt.errors.InvalidGraphError, match="not a tensor of this graph"):
        g.run(rt.constant(1))
    with pytest.raises(rt.errors.InvalidGraphError, match="cannot feed 'x'"):
        g.run(s, {"x": [1]})
    with pytest.raises(rt.errors.InvalidGraphError, match="only placeholders"):
        g.run(b, {x: [1], a: [100]})  # TensorFlow 1 fed any tensor; we refuse, not ignore
    g2, x2, outs2 = build_small()
    with pytest.raises(rt.errors.InvalidGraphError):
        g.run(outs2[0], {x: [1]})


def test_placeholder_needs_a_graph():
    with pytest.raises(RuntimeError, match="graph"):
        rt.placeholder(rt.int32, [])


# -- tensors from other graphs ---------------------------------------------------------------

def test_tensor_from_another_graph_is_a_type_error():
    g1, x1, _ = build_small()
    g2 = rt.Graph()
    with g2.as_default():
        with pytest.raises(TypeError, match="another graph") as info:
            x1 + 1
    assert "'x:0'" in str(info.value)


def test_symbolic_tensor_used_eagerly_is_a_type_error():
    g1, x1, _ = build_small()
    with pytest.raises(TypeError, match="outside") as info:
        rt.square(x1)
    assert "x:0" in str(info.value)


def test_outer_tensor_captured_by_branch_graph():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [])
        y = x * 10
        out = rt.cond(x > 0, lambda: y + 1, lambda: y - 1)
    assert g.run(out, {x: 2}).numpy() == 21
    assert g.run(out, {x: -2}).numpy() == -21


# -- executor errors ------------------------------------------------------------------------

@pytest.mark.parametrize("build,feed,node,match", [
    (lambda p: rt.reshape(p, [2, 2]), [1.0, 2.0, 3.0], "Reshape",
     "tensor with 3 values, but the requested shape has 4"),
    (lambda p: p + p[1:], [1.0, 2.0, 3.0], "add", r"Incompatible shapes: \(3,\) and \(2,\)"),
    (lambda p: rt.matmul(rt.reshape(p, [1, -1]), rt.ones([2, 2])), [1.0, 2.0, 3.0], "MatMul",
     r"Matrix size-incompatible: In\[0\]: \(1, 3\), In\[1\]: \(2, 2\)"),
    (lambda p: p[5], [1.0], "strided_slice", "out of bounds"),
    (lambda p: rt.concat([p, rt.reshape(p, [-1, 1])], 0), [1.0], "ConcatV2", "different ranks"),
    (lambda p: rt.stack([p, p[1:]]), [1.0, 2.0], "Pack", r"must match: \['\(2,\)', '\(1,\)'\]"),
    (lambda p: rt.squeeze(p, 0), [1.0, 2.0], "Squeeze", "expected a dimension of 1, got 2"),
    (lambda p: rt.cast(p, rt.int32) // 0, [1.0], "floordiv", "Integer division by zero"),
])
def test_run_time_errors_name_the_node(build, feed, node, match):
    g = rt.Graph()
    with g.as_default():
        p = rt.placeholder(rt.float32, None)
        out = build(p)
    with pytest.raises(rt.errors.InvalidArgumentError, match=match) as info:
        g.run(out, {p: feed})
    err = info.value
    assert err.node_name == node
    assert f"[[node {node} " in str(err)
    assert __file__ in str(err)  # where the user made the node
    assert "Traceback" not in str(err)
    assert "ValueError" not in str(err)  # the op's own words, not numpy's


def test_run_time_error_inside_a_loop_body_names_the_node():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [None])
        out = rt.while_loop(lambda i: i < 3, lambda i: i + rt.gather(x, [i])[0], [0])
    assert g.run(out, {x: [1, 1, 1]})[0].numpy() == 3
    with pytest.raises(rt.errors.InvalidArgumentError, match="not in") as info:
        g.run(out, {x: [1]})
    assert "GatherV2" in info.value.node_name
