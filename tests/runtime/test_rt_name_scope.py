"""`rt.name_scope` and `rt.newaxis`, as TensorFlow users write them."""
import numpy as np
import pytest

import runtime as rt


def op_names(graph):
    return [op.name for op in graph.get_operations()]


def test_newaxis_is_none_and_slices_eagerly_and_staged():
    assert rt.newaxis is None
    x = rt.constant([1, 2, 3])
    want = np.array([1, 2, 3])[:, np.newaxis]
    assert x[:, rt.newaxis].numpy().tolist() == want.tolist()
    assert x[rt.newaxis].shape == rt.TensorShape([1, 3])

    @rt.function
    def f(t):
        return t[:, rt.newaxis] * t[rt.newaxis, :]
    got = f(rt.constant([1, 2, 3]))
    assert got.numpy().tolist() == (want * want.T).tolist()
    cf = f.get_concrete_function(rt.TensorSpec([None], rt.int32))
    assert cf.outputs[0].shape == rt.TensorShape([None, None])


def test_ops_in_a_scope_are_prefixed_and_nested_scopes_join():
    g = rt.Graph()
    with g.as_default():
        p = rt.placeholder(rt.float32, [None], name="x")
        with rt.name_scope("block") as scope:
            assert scope == "block/"
            y = p + 1.0
            with rt.name_scope("inner") as inner:
                assert inner == "block/inner/"
                z = rt.multiply(y, 2.0, name="double")
        w = z - 1.0
    assert y.op.name == "block/add"
    assert z.op.name == "block/inner/double"
    assert w.op.name == "sub"
    assert "block/Const" in op_names(g)
    assert y.name == "block/add:0"
    assert g.get_tensor_by_name("block/inner/double:0") is z
    assert g.run(w, {p: [1.0, 2.0]}).numpy().tolist() == [3.0, 5.0]


def test_a_scope_name_used_twice_gets_a_suffix_and_trailing_slash_reuses():
    g = rt.Graph()
    with g.as_default():
        with rt.name_scope("block") as a:
            rt.constant(1)
        with rt.name_scope("block") as b:
            rt.constant(2)
        with rt.name_scope("block/") as c:  # a full scope name: taken as it stands
            rt.constant(3)
    assert (a, b, c) == ("block/", "block_1/", "block/")
    assert op_names(g) == ["block/Const", "block_1/Const", "block/Const_1"]


def test_empty_name_resets_to_the_root_scope():
    g = rt.Graph()
    with g.as_default():
        with rt.name_scope("outer"):
            with rt.name_scope("") as root:
                t = rt.constant(1)
    assert root == "" and t.op.name == "Const"


def test_eager_scope_is_a_no_op_that_gives_its_name():
    with rt.name_scope("a") as a:
        with rt.name_scope("b") as b:
            y = rt.constant(2) + 1
    assert (a, b) == ("a/", "a/b/")
    assert y.numpy() == 3
    with rt.name_scope("a") as again:  # eagerly nothing is made unique
        pass
    assert again == "a/"


def test_usable_as_an_object_as_in_tensorflow():
    scope = rt.name_scope("layer")
    assert scope.name == "layer"
    g = rt.Graph()
    with g.as_default():
        with scope as s:
            t = rt.constant(1.0)
    assert s == "layer/" and t.op.name == "layer/Const"


def test_bad_names_are_clear_errors():
    with pytest.raises(TypeError, match="str name"):
        rt.name_scope(3)
    with pytest.raises(ValueError, match="not a valid scope name"):
        rt.name_scope("has space")


def test_scopes_inside_rt_function_with_staged_control_flow():
    @rt.function
    def f(x):
        with rt.name_scope("block"):
            y = x + 1
            if y > 2:
                y = y * 2
        with rt.name_scope("tail"):
            return y - 1

    for v in (0, 5):
        eager = (v + 1) * (2 if v + 1 > 2 else 1) - 1
        assert f(rt.constant(v)).numpy() == eager
    graph = f.get_concrete_function(rt.TensorSpec([], rt.int32)).graph
    names = op_names(graph)
    assert "block/add" in names and "tail/sub" in names
    assert any(n.startswith("block/") and graph.get_operation_by_name(n).type in
               ("If", "StatelessIf") for n in names)
    assert "block/" in str(graph.as_graph_def()) and "block/add" in graph.to_dot()


def test_scoped_names_save_and_load(tmp_path):
    @rt.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    def f(x):
        with rt.name_scope("dense"):
            return rt.reduce_sum(x * 2.0)

    rt.saved.save(f, str(tmp_path / "m"))
    loaded = rt.saved.load(str(tmp_path / "m"))
    assert loaded.f(rt.constant([1.0, 2.0])).numpy() == 6.0
