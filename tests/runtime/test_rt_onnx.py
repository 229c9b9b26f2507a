"""rt.onnx.export: onnxruntime runs the exported model with our results -- the guides'
examples, staged loops and branches, TensorArrays -- and ops without an ONNX
equivalent are named. Runs when onnx and onnxruntime are installed (.ci/run installs
them)."""
import os
import sys

import numpy as np
import pytest

import runtime as rt
from examples.programs import collatz_steps

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "autograph"))
import guide_examples as guide  # noqa: E402

F32 = rt.float32


def _session(model):
    options = ort.SessionOptions()
    options.log_severity_level = 3
    return ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])


def _agree(cf, *calls, drop_prints=False, tol=1e-5):
    """Runs every call (numpy arrays for the tensor inputs) both ways; returns the results."""
    model = rt.onnx.export(cf, drop_prints=drop_prints)
    sess = _session(model)
    names = [i.name for i in sess.get_inputs()]
    out = []
    for call in calls:
        result = cf(*[rt.constant(a) for a in call])
        ours = [t.numpy() for t in rt.nest.flatten(result) if hasattr(t, "numpy")]
        theirs = sess.run(None, {n: np.asarray(a) for n, a in zip(names, call)})
        assert len(theirs) == len(ours)
        for a, b in zip(theirs, ours):
            b = np.asarray(b)
            assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
        out.append(theirs)
    return out


def _cf(fn, *specs):
    return rt.function(fn).get_concrete_function(*specs)


# -- the guides' examples -------------------------------------------------------------------

def test_guide_regular_function_and_relus():
    _agree(_cf(guide.a_regular_function, rt.TensorSpec([1, 2], F32), rt.TensorSpec([2, 2], F32),
               rt.TensorSpec([2], F32)),
           [np.array([[1., 2.]], np.float32), np.array([[2., 2.], [3., 3.]], np.float32),
            np.array([4., 1.], np.float32)])
    relu = _cf(guide.simple_relu, rt.TensorSpec([], F32))
    assert [r[0] for r in _agree(relu, [np.float32(3.5)], [np.float32(-1.0)])] == [3.5, 0.0]
    _agree(_cf(guide.my_relu, rt.TensorSpec([None], F32)), [np.array([-1., 0., 2.], np.float32)])


def test_guide_mse_power_collatz_pow():
    _agree(_cf(guide.get_MSE, rt.TensorSpec([None, 3], F32), rt.TensorSpec([None, 3], F32)),
           [np.random.rand(4, 3).astype(np.float32), np.random.rand(4, 3).astype(np.float32)])
    power = rt.function(guide.power).get_concrete_function(rt.TensorSpec([10, 10], rt.int32), 3)
    _agree(power, [np.random.randint(-3, 3, (10, 10)).astype(np.int32)])
    _agree(_cf(guide.next_collatz, rt.TensorSpec([None], rt.int32)),
           [np.array([1, 2, 3, 27, 100], np.int32)])
    _agree(_cf(guide.pow_, rt.TensorSpec([], F32), rt.TensorSpec([], F32)),
           [np.float32(2.0), np.float32(0.5)])


def test_guide_while_with_print_needs_drop_prints():
    cf = _cf(guide.f, rt.TensorSpec([None], F32))
    with pytest.raises(rt.onnx.ExportError, match=r"PrintV2 \('PrintV2'.*guide_examples.py:"):
        rt.onnx.export(cf)
    _agree(cf, [np.array([1.0, 2.0, 3.0], np.float32)], [np.array([0.1], np.float32)],
           drop_prints=True)


def test_guide_dynamic_rnn_tensor_array():
    cf = rt.function(lambda x, s: guide.dynamic_rnn(guide.rnn_step, x, s)).get_concrete_function(
        rt.TensorSpec([3, 5, 4], F32), rt.TensorSpec([3, 4], F32))
    _agree(cf, [np.random.rand(3, 5, 4).astype(np.float32), np.random.rand(3, 4).astype(np.float32)])


# -- staged loops and branches --------------------------------------------------------------

def test_collatz_loop_with_branch():
    model = rt.onnx.export(_cf(collatz_steps, rt.TensorSpec([], rt.int32)))
    ops = [n.op_type for n in model.graph.node]
    assert "Loop" in ops
    loop = next(n for n in model.graph.node if n.op_type == "Loop")
    body = onnx.helper.get_attribute_value(loop.attribute[0])
    assert "If" in [n.op_type for n in body.node]   # the branch, inside the loop body
    results = _agree(_cf(collatz_steps, rt.TensorSpec([], rt.int32)),
                     *[[np.int32(n)] for n in (1, 2, 6, 27, 97)])
    assert [int(r[0]) for r in results] == [0, 1, 8, 111, 118]


def search(xs, target):
    """A loop with break and an early return inside, over a tensor."""
    found = -1
    for i in rt.range(rt.shape(xs)[0]):
        if xs[i] == target:
            found = i
            break
    if found < 0:
        return found, rt.reduce_sum(xs)
    return found, xs[found] * 2


def test_loop_with_break_and_return():
    cf = _cf(search, rt.TensorSpec([None], rt.int32), rt.TensorSpec([], rt.int32))
    results = _agree(cf, [np.array([4, 7, 9, 7], np.int32), np.int32(7)],
                     [np.array([4, 7, 9], np.int32), np.int32(5)],
                     [np.array([], np.int32), np.int32(1)])
    assert [int(r[0]) for r in results] == [1, -1, -1]


def nested(x):
    total = rt.zeros([])
    for i in rt.range(3):
        j = 0
        while j < i + 1:
            if (i + j) % 2 == 0:
                total += rt.reduce_sum(x) * rt.cast(j, F32)
            else:
                total -= 1.0
            j += 1
    return total, rt.where(x > 0, x, -x), rt.concat([x, x[::-1], x[1:2]], 0)


def test_nested_loops_and_branches():
    _agree(_cf(nested, rt.TensorSpec([None], F32)), [np.array([1., -2., 3.], np.float32)],
           [np.array([-5., 0.5], np.float32)])


def test_while_loop_with_maximum_iterations_and_tuple_state():
    def fn(x):
        return rt.while_loop(lambda i, v: rt.reduce_sum(v) < 1000.0,
                             lambda i, v: (i + 1, v * 3.0), (0, x), maximum_iterations=4)

    results = _agree(_cf(fn, rt.TensorSpec([2], F32)), [np.array([1., 1.], np.float32)],
                     [np.array([400., 400.], np.float32)])
    assert [int(r[0]) for r in results] == [4, 1]


def test_array_ops_and_reductions():
    def fn(x, k):
        y = rt.reshape(x, [2, -1])
        parts = rt.unstack(y, axis=1)
        return (rt.reduce_max(y, axis=1), rt.reduce_mean(y, axis=0, keepdims=True),
                rt.reduce_any(y > 2.0), rt.reduce_prod(y, axis=[0, 1]), rt.argmin(y, axis=1),
                rt.stack(parts, axis=0), rt.squeeze(rt.expand_dims(x, 0)), rt.gather(x, [0, 2]),
                y[:, k], y[-1, ::-1], x[None, ...], rt.size(x), rt.rank(y), rt.shape(y),
                rt.ones_like(x), rt.fill([2, 2], 3.0), rt.eye(2), rt.range(k, 10, 3),
                rt.cast(x, rt.int32), rt.matmul(y, y, transpose_b=True), x // 2.0, x % 3.0,
                rt.sign(x), rt.sqrt(rt.abs(x)), rt.sigmoid(x), rt.floordiv(k, 2),
                rt.mod(-k, 4), x / 3.0, rt.logical_not(x > 0.0))

    _agree(_cf(fn, rt.TensorSpec([6], F32), rt.TensorSpec([], rt.int32)),
           [np.array([1., -2., 3., 4.5, -5., 6.], np.float32), np.int32(1)],
           [np.array([0., 2., 3., 9., 5., 1.], np.float32), np.int32(-2)])


def test_variables_are_frozen_at_export():
    v = rt.Variable([1.0, 2.0])

    @rt.function(input_signature=[rt.TensorSpec([2], F32)])
    def scale(x):
        return x * v

    model = rt.onnx.export(scale.get_concrete_function())
    v.assign([5.0, 5.0])
    got = _session(model).run(None, {"x": np.array([1., 1.], np.float32)})[0]
    np.testing.assert_array_equal(got, [1.0, 2.0])


def test_export_writes_a_file(tmp_path):
    path = str(tmp_path / "collatz.onnx")
    rt.onnx.export(rt.function(collatz_steps, input_signature=[rt.TensorSpec([], rt.int32)]), path)
    model = onnx.load(path)
    onnx.checker.check_model(model)
    assert [i.name for i in model.graph.input] == ["n"]
    assert [o.name for o in model.graph.output] == ["output_0"]
    assert _session(model).run(None, {"n": np.asarray(27, np.int32)})[0] == 111


def test_ops_without_an_onnx_equivalent_are_named():
    v = rt.Variable(0.0)

    def fn(x):
        y = rt.py_function(lambda a: a * 2.0, [x], F32)
        rt.debugging.assert_greater(x, 0.0)
        v.assign_add(x)
        return y + rt.cast(rt.strings.length(rt.strings.as_string(x)), F32)

    cf = _cf(fn, rt.TensorSpec([], F32))
    with pytest.raises(rt.onnx.ExportError) as e:
        rt.onnx.export(cf)
    text = str(e.value)
    assert text.startswith("cannot export fn to ONNX: these ops have no ONNX equivalent:")
    for name in ("EagerPyFunc", "Assert", "AssignVariableOp", "StringLength", "AsString"):
        assert f"\n  {name} (" in text


def test_gradients_computed_in_the_function():
    def grads(x, b, c):
        with rt.GradientTape() as tape:
            tape.watch([x, b, c])
            y = rt.reduce_sum(rt.tanh(x + b) * x[:, 1:2] * c) + rt.reduce_mean(x[0] * 3.0)
            if y > 0:
                y = y * y
        return tape.gradient(y, [x, b, c])

    rand = np.random.default_rng(0)
    for batch, dim in ((3, 1), (None, 1), (None, None)):   # broadcast dims known or not
        cf = rt.function(grads).get_concrete_function(
            rt.TensorSpec([batch, 2], F32), rt.TensorSpec([2], F32), rt.TensorSpec([dim, 2], F32))
        _agree(cf, [rand.random((3, 2), np.float32), rand.random(2, np.float32),
                    rand.random((1, 2), np.float32)])


def test_gradient_of_gather_scatters_and_adds():
    def grads(p, i):
        with rt.GradientTape() as tape:
            tape.watch(p)
            y = rt.reduce_sum(rt.gather(p, i, axis=1) * rt.constant([[1.0], [2.0], [3.0]]))
        return tape.gradient(y, p)

    cf = rt.function(grads).get_concrete_function(rt.TensorSpec([None, 4, 2], F32),
                                                  rt.TensorSpec([2, 3], rt.int32))
    assert "GatherGrad" in {op.type for op in cf.graph.get_operations()}
    _agree(cf, [np.random.rand(2, 4, 2).astype(np.float32),
                np.array([[0, 3, 3], [1, 1, 0]], np.int32)])


def test_drop_asserts_leaves_assertions_out():
    def checked(x):
        rt.debugging.assert_greater(x, 0.0)
        return x * 2.0

    cf = _cf(checked, rt.TensorSpec([], F32))
    with pytest.raises(rt.onnx.ExportError, match=r"drop_asserts=True leaves them out"):
        rt.onnx.export(cf)
    model = rt.onnx.export(cf, drop_asserts=True)
    assert "Greater" not in [n.op_type for n in model.graph.node]  # the check's ops go too
    assert _session(model).run(None, {"x": np.asarray(-1.5, np.float32)})[0] == -3.0
    with pytest.raises(rt.errors.InvalidArgumentError):
        cf(rt.constant(-1.5))


def _mirrored_and_joined(x, s):
    y = rt.pad(x, [[1, 1]], mode="SYMMETRIC")
    if rt.reduce_sum(x) > 0.0:
        s2 = s + s
    else:
        s2 = s
    return y, s2


def test_unsupported_ops_are_listed_with_the_line_that_made_them():
    """Each op that cannot be exported, in graph order (a branch's ops after its node),
    with its reason and the user's file:line; a limit of an op that has a rule (a
    SYMMETRIC pad, string concatenation) is named the same way."""
    import inspect
    source, first = inspect.getsourcelines(_mirrored_and_joined)
    line = {key: first + next(i for i, text in enumerate(source) if key in text)
            for key in ("SYMMETRIC", "s + s")}
    here = inspect.getsourcefile(_mirrored_and_joined)
    cf = _cf(_mirrored_and_joined, rt.TensorSpec([3], F32), rt.TensorSpec([], rt.string))
    with pytest.raises(rt.onnx.ExportError) as e:
        rt.onnx.export(cf)
    text = str(e.value).splitlines()
    assert text == [
        "cannot export _mirrored_and_joined to ONNX: these ops have no ONNX equivalent:",
        f"  MirrorPad ('MirrorPad', made at {here}:{line['SYMMETRIC']} in _mirrored_and_joined): "
        "ONNX Pad has no SYMMETRIC mode (it has constant, reflect and edge)",
        f"  AddV2 ('add', made at {here}:{line['s + s']} in _mirrored_and_joined): string "
        "concatenation has no ONNX operator in opset 17"]


def test_drop_prints_leaves_out_what_only_the_print_reads():
    def fn(x):
        rt.print("mean", rt.reduce_mean(rt.exp(x)))
        return x + 1.0

    cf = _cf(fn, rt.TensorSpec([2], F32))
    model = rt.onnx.export(cf, drop_prints=True)
    kinds = {n.op_type for n in model.graph.node}
    assert "Add" in kinds and not kinds & {"Exp", "ReduceMean"}
