"""The graph walker (runtime.core.walk): which ops run, in what order, how a Visitor
dispatches them, and the liveness the numpy executor frees values by."""
import numpy as np
import pytest

import runtime as rt
from runtime.core import walk
from runtime.control_flow import IF, Body
from runtime.core.graph import Operation
from runtime.core.opdef import CONST
from runtime.ops.io_ops import print_


def build_small():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float64, [3], name="x")
        a = x + 1.0
        b = a * 2.0
        c = b + a
        unused = rt.exp(x)
    return g, x, a, b, c, unused


def index_of(ops, t):
    return next(i for i, op in enumerate(ops) if op is t.op)


# -- schedule and needed ------------------------------------------------------------------

def test_schedule_keeps_what_the_outputs_need_in_creation_order():
    g, x, a, b, c, unused = build_small()
    ops = walk.schedule(g, [b])
    assert unused.op not in ops and c.op not in ops
    assert [op for op in g.operations if op in ops] == ops  # creation order
    assert x.op in ops and a.op in ops and b.op in ops
    assert walk.schedule(g) == list(g.operations)


def test_schedule_keeps_side_effects_nothing_reads():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float64, [], name="x")
        y = x * 2.0
        printed = x + 1.0
        print_(printed)
        dropped = rt.exp(x)  # no side effect, nothing reads it
    ops = walk.schedule(g, [y])
    assert any(op.opdef.side_effect for op in ops)
    assert printed.op in ops
    assert [op for op in g.operations if op not in ops] == [dropped.op]


def test_needed_nested_reaches_into_the_bodies_of_needed_control_flow():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float64, [], name="x")
        y = rt.cond(x > 0.0, lambda: x * 2.0, lambda: x - 1.0)
    live = walk.needed_nested(g, [y])
    [cond] = [op for op in g.operations if op.opdef.body_attrs]
    for body in cond.opdef.bodies(cond):
        for t in body.outputs:
            assert id(t.op) in live
    assert id(cond) in walk.needed(g, [y])
    assert not any(id(op) in walk.needed(g, [y])
                   for b in cond.opdef.bodies(cond) for op in b.graph.operations)


# -- Visitor ------------------------------------------------------------------------------

class Recorder(walk.Visitor):
    def __init__(self):
        self.seen = []

    def placeholder(self, op):
        self.seen.append(("placeholder", op))

    def const(self, op):
        self.seen.append(("const", op))

    def cond(self, op):
        self.seen.append(("cond", op))

    def while_loop(self, op):
        self.seen.append(("while", op))

    def op(self, op):
        self.seen.append(("op", op))


def control_graph():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float64, [], name="x")
        y = rt.cond(x > 0.0, lambda: x * 2.0, lambda: x - 1.0)
        z = rt.while_loop(lambda i: i < 10.0, lambda i: (i + y,), (x,))[0]
    return g, x, y, z


def test_visitor_dispatches_on_traits_and_control_flow_classes():
    g, x, y, z = control_graph()
    r = Recorder()
    r.walk(g, [z])
    kinds = {}
    for kind, op in r.seen:
        kinds.setdefault(kind, []).append(op)
    assert kinds["placeholder"] == [x.op]
    assert all(op.opdef is CONST for op in kinds["const"])
    assert kinds["cond"] == [y.op]
    assert kinds["while"] == [z.op]
    assert all(not op.opdef.body_attrs and not op.opdef.constant and not op.opdef.feedable
               for op in kinds["op"])
    assert [op for _, op in r.seen] == walk.schedule(g, [z])


def test_visitor_defaults_skip_placeholders_and_send_the_rest_to_op():
    g, x, y, z = control_graph()
    seen = []

    class OnlyOps(walk.Visitor):
        def op(self, op):
            seen.append(op)

    OnlyOps().walk(g, [z])
    assert x.op not in seen
    assert y.op in seen and z.op in seen
    assert any(op.opdef is CONST for op in seen)
    with pytest.raises(NotImplementedError, match="does not handle"):
        walk.Visitor().walk(g, [z])


# -- liveness -----------------------------------------------------------------------------

def dies_at(dead, t):
    return [i for i, ts in dead.items() if any(u is t for u in ts)]


def test_a_value_dies_after_its_last_read():
    g, x, a, b, c, unused = build_small()
    ops = walk.schedule(g, [c])
    dead = walk.last_reads(ops, [c])
    assert dies_at(dead, a) == [index_of(ops, c)]  # read by b and by c: c reads it last
    assert dies_at(dead, b) == [index_of(ops, c)]
    assert dies_at(dead, x) == [index_of(ops, a)]


def test_outputs_are_never_freed():
    g, x, a, b, c, unused = build_small()
    ops = walk.schedule(g, [a, c])
    dead = walk.last_reads(ops, [a, c])
    assert dies_at(dead, a) == [] and dies_at(dead, c) == []


def test_a_value_nothing_reads_dies_where_it_is_made():
    g, x, a, b, c, unused = build_small()
    ops = walk.schedule(g)
    dead = walk.last_reads(ops, [c])
    assert dies_at(dead, unused) == [index_of(ops, unused)]


def test_values_read_inside_a_loop_live_until_the_loop_ends():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float64, [], name="x")
        step = x * 3.0  # captured by the loop's body
        z = rt.while_loop(lambda i: i < 10.0, lambda i: (i + step,), (x,))[0]
        w = z + 1.0
    ops = walk.schedule(g, [w])
    dead = walk.last_reads(ops, [w])
    assert dies_at(dead, step) == [index_of(ops, z)]
    assert dies_at(dead, z) == [index_of(ops, w)]


def outer_read_cond():
    """A cond whose then-branch reads an outer tensor directly, not through a param."""
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float64, [2], name="x")
        outer = x * 3.0
        pred = rt.placeholder(rt.bool, [], name="p")
    spec = [(outer.shape, outer.dtype)]
    then_g = rt.Graph("then", outer=g)
    # (add_op would capture `outer` through a placeholder; a rewriting pass may not)
    mul = Operation(then_g, "mul", outer.op.opdef, (outer, outer), dict(outer.op.attrs), spec)
    then_g.append_operation(mul)
    read = mul.outputs[0]
    else_g = rt.Graph("else", outer=g)
    zero = else_g.add_op(CONST, (), {"value": np.zeros(2), "dtype": rt.float64},
                         spec).outputs[0]
    node = g.add_op(IF, (pred,), {"then_body": Body(then_g, [], [read]),
                                  "else_body": Body(else_g, [], [zero]),
                                  "out_specs": spec}, spec)
    with g.as_default():
        after = node.outputs[0] + 1.0
    return g, x, pred, outer, node, after


def test_values_read_inside_a_cond_body_directly_live_until_the_node_ends():
    g, x, pred, outer, node, after = outer_read_cond()
    assert any(t is outer for t in walk.reads(node))
    ops = walk.schedule(g, [after])
    dead = walk.last_reads(ops, [after])
    assert dies_at(dead, outer) == [ops.index(node)]
    plan = g.compile([x, pred], [after])
    np.testing.assert_array_equal(plan(np.array([1.0, 2.0]), True)[0], [10.0, 37.0])
    np.testing.assert_array_equal(plan(np.array([1.0, 2.0]), False)[0], [1.0, 1.0])


# -- the executor frees by that liveness ---------------------------------------------------

def body_lines(plan):
    return plan.source.splitlines()[1:]


def test_executor_frees_each_value_after_its_last_read_and_never_an_output():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float64, [4], name="x")
        a = rt.exp(x)
        b = rt.sin(a)
        c = rt.cos(b)
        d = c * a
    plan = g.compile([x], [d, b])
    lines = body_lines(plan)
    dels = [n for line in lines if line.strip().startswith("del ")
            for n in line.strip()[4:].split(", ")]
    ret = lines[-1]
    assert ret.strip().startswith("return")
    returned = ret.strip()[len("return ("):-1].split(", ")
    assert not set(dels) & {n for n in returned if n}
    assert len(dels) == 2  # a and c, after the multiplication
    mul = next(i for i, line in enumerate(lines) if line.strip().startswith(returned[0] + " ="))
    assert lines[mul + 1].strip().startswith("del ")
    xs = np.linspace(0.0, 1.0, 4)
    got_d, got_b = plan(xs)
    np.testing.assert_allclose(got_d, np.cos(np.sin(np.exp(xs))) * np.exp(xs))
    np.testing.assert_allclose(got_b, np.sin(np.exp(xs)))


def test_executor_writes_a_ufunc_into_its_dead_fresh_input():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float64, [4], name="x")
        y = rt.tanh(rt.exp(x))
    plan = g.compile([x], [y])
    assert "out=" in plan.source
    xs = np.linspace(0.0, 1.0, 4)
    before = xs.copy()
    np.testing.assert_allclose(plan(xs)[0], np.tanh(np.exp(before)))
    np.testing.assert_array_equal(xs, before)  # never into a fed input


def test_executor_keeps_values_read_in_a_loop_until_the_loop_ends():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float64, [3], name="x")
        step = rt.exp(x)
        z = rt.while_loop(lambda i: rt.reduce_sum(i) < 100.0, lambda i: (i + step,), (x,))[0]
        w = z * 2.0
    plan = g.compile([x], [w])
    lines = body_lines(plan)
    loop = next(i for i, line in enumerate(lines) if line.strip() == "while True:")
    end = next(i for i in range(loop + 1, len(lines)) if not lines[i].startswith("        "))
    inside = "\n".join(lines[loop:end])
    step_name = next(line.split(" = ")[0].strip() for line in lines[:loop] if "k" in line
                     and "(" in line)
    assert step_name in inside
    assert not any(line.strip().startswith("del") and step_name in line
                   for line in lines[:end])
    assert lines[end].strip().startswith("del") and step_name in lines[end]
    xs = np.ones(3)
    expected = xs.copy()
    while expected.sum() < 100.0:
        expected = expected + np.exp(xs)
    np.testing.assert_allclose(plan(xs)[0], expected * 2.0)


def test_executor_frees_a_loops_initial_value_before_the_loop():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float64, [3], name="x")
        start = rt.exp(x)
        z = rt.while_loop(lambda i: rt.reduce_sum(i) < 100.0, lambda i: (i * 2.0,), (start,))[0]
    plan = g.compile([x], [z])
    lines = body_lines(plan)
    loop = next(i for i, line in enumerate(lines) if line.strip() == "while True:")
    assert lines[loop - 1].strip().startswith("del ")
