"""Traced graphs read like the code: loop variables named as in Python, no node that
feeds nothing, and `Graph.to_text()` one line per node with bodies indented."""
import runtime as rt
from examples.programs import collatz_steps
from runtime.core import walk


def nested(x, n):
    total = x * 0.0
    i = 0
    while i < n:
        j = 0
        while j < i:            # its test is traced once outside its loop, then staged
            total += x
            j += 1
        i += 1
    unused = x * 3.0            # noqa: F841  (feeds nothing: pruned)
    return total


def _graphs(graph):
    yield graph
    for op in graph.operations:
        for body in op.opdef.bodies(op):
            yield from _graphs(body.graph)


def _concrete(fn, *specs):
    return rt.function(fn).get_concrete_function(*specs)


def test_no_node_feeds_nothing():
    for fn, specs in ((collatz_steps, [rt.TensorSpec([], rt.int32)]),
                      (nested, [rt.TensorSpec([], rt.float32), rt.TensorSpec([], rt.int32)])):
        cf = _concrete(fn, *specs)
        outputs = list(cf.outputs)
        needed = walk.needed_nested(cf.graph, outputs)
        for g in _graphs(cf.graph):
            dead = [op.name for op in g.operations
                    if id(op) not in needed and not op.opdef.feedable]
            assert dead == [], (fn.__name__, g.name, dead)


def test_results_unchanged_by_pruning():
    f = rt.function(nested)
    assert float(f(rt.constant(2.0), rt.constant(4))) == 12.0
    g = rt.function(collatz_steps)
    assert [int(g(rt.constant(n))) for n in (1, 6, 27)] == [0, 8, 111]


def test_loop_variables_carry_their_python_names():
    text = _concrete(collatz_steps, rt.TensorSpec([], rt.int32)).graph.to_text()
    assert "  cond_body(n, steps):" in text and "  body(n, steps):" in text
    assert "loop_var" not in text


def test_to_text_is_one_line_per_node():
    graph = _concrete(collatz_steps, rt.TensorSpec([], rt.int32)).graph
    text = graph.to_text()
    lines = text.splitlines()
    assert lines[0] == "n: int32[] = Placeholder(shape=())"
    assert lines[-1] == "Identity: int32[] = Identity(while:1)"
    assert any(line.startswith("while: int32[], while:1: int32[] = StatelessWhile(n, ")
               for line in lines)
    assert "      then_body(n_capture):" in lines
    assert len(lines) < 40
    assert graph.to_text(graph_def=True) == str(graph.as_graph_def())
    assert 'op: "StatelessWhile"' in graph.to_text(graph_def=True)
