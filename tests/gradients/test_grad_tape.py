"""GradientTape behaviour: watching, Variables, persistent tapes, errors, integer paths,
Functions and ConcreteFunctions under a tape, and a staged training step."""
import numpy as np
import pytest

import runtime as rt


def test_guide_example_gradient_through_a_function():
    @rt.function
    def add(a, b):
        return a + b

    v = rt.Variable(1.0)
    with rt.GradientTape() as tape:
        result = add(v, 1.0)
    assert repr(tape.gradient(result, v)) == "<rt.Tensor: shape=(), dtype=float32, numpy=1.0>"


def test_trainable_variables_are_watched_automatically():
    w = rt.Variable([1.0, 2.0])
    frozen = rt.Variable(3.0, trainable=False)
    with rt.GradientTape() as tape:
        y = rt.reduce_sum(w * w) * frozen
    dw, df = tape.gradient(y, [w, frozen])
    np.testing.assert_allclose(dw.numpy(), [6.0, 12.0])
    assert df is None
    assert tape.watched_variables() == (w,)


def test_watch_a_non_trainable_variable_and_no_automatic_watching():
    frozen = rt.Variable(3.0, trainable=False)
    w = rt.Variable(2.0)
    with rt.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(frozen)
        y = frozen * w
    assert tape.gradient(y, frozen).numpy() == 2.0
    with rt.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(frozen)
        y = frozen * w
    assert tape.gradient(y, w) is None


def test_unwatched_constant_has_no_gradient():
    x = rt.constant(2.0)
    with rt.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None
    with rt.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x, unconnected_gradients="zero").numpy() == 0.0


def test_persistent_tape_gives_several_gradients():
    x = rt.constant(3.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert tape.gradient(z, x).numpy() == 108.0
    assert tape.gradient(y, x).numpy() == 6.0
    assert tape.gradient(z, y).numpy() == 18.0


def test_non_persistent_tape_gradient_twice_raises():
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent GradientTape"):
        tape.gradient(y, x)


def test_integer_and_boolean_paths_give_none():
    x = rt.constant([1.5, 2.5])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        through_int = rt.cast(rt.cast(x, rt.int32), rt.float32)
        through_bool = rt.cast(x > 2.0, rt.float32)
        index = rt.argmax(x)
    assert tape.gradient(through_int, x) is None
    assert tape.gradient(through_bool, x) is None
    assert tape.gradient(index, x) is None
    i = rt.constant(3)
    with rt.GradientTape() as tape:
        tape.watch(i)
        y = rt.cast(i * 2, rt.float32)
    assert tape.gradient(y, i) is None


def test_structures_and_output_gradients():
    x, y = rt.constant(2.0), rt.constant(5.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        a, b = x * y, x + y
    grads = tape.gradient([a, b], {"x": x, "y": y})
    assert grads["x"].numpy() == 6.0 and grads["y"].numpy() == 3.0
    assert tape.gradient(a, x, output_gradients=rt.constant(10.0)).numpy() == 50.0


def test_stop_recording():
    x = rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            z = y * 10.0
        w = y + z
    assert tape.gradient(w, x).numpy() == 4.0


def test_second_order_with_nested_tapes():
    x = rt.constant(3.0)
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        dy = inner.gradient(y, x)
    assert dy.numpy() == 27.0
    assert outer.gradient(dy, x).numpy() == 18.0


def test_op_without_gradient_raises_lookup_error():
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.py_function(lambda t: t * 2.0, [x], rt.float32)
    with pytest.raises(LookupError, match="No gradient defined for operation"):
        tape.gradient(y, x)


def test_function_under_tape_matches_eager_and_runs_its_graph():
    calls = []

    def model(x, w):
        calls.append(1)
        h = rt.tanh(x @ w)
        if rt.reduce_sum(h) > 0.0:
            h = h * 2.0
        return rt.reduce_mean(h * h)

    f = rt.function(model)
    x = rt.constant(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    w = rt.Variable(np.ones((3, 2), np.float32) * 0.3)
    with rt.GradientTape() as tape:
        eager = model(x, w)
    expected = tape.gradient(eager, w)
    for _ in range(3):
        with rt.GradientTape() as tape:
            staged = f(x, w)
        np.testing.assert_allclose(tape.gradient(staged, w).numpy(), expected.numpy(), rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1
    assert len(calls) == 2  # the eager run, and one trace


def test_function_with_input_signature_and_concrete_function_under_tape():
    f = rt.function(lambda x: rt.reduce_sum(x * x),
                    input_signature=[rt.TensorSpec([None], rt.float32)])
    x = rt.constant([1.0, 2.0, 3.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 4.0, 6.0])
    cf = f.get_concrete_function()
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = cf(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 4.0, 6.0])


def test_function_calling_function_inside_a_trace():
    inner = rt.function(lambda x: x * x)

    @rt.function
    def outer(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = inner(x) + inner(x * 2.0)
        return tape.gradient(y, x)
    assert outer(rt.constant(1.0)).numpy() == 10.0


def test_function_with_several_outputs_some_unused():
    f = rt.function(lambda x: (x * 2.0, x * x, rt.cast(x, rt.int32)))
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        a, b, c = f(x)
    assert tape.gradient(b, x).numpy() == 6.0


def test_staged_training_step_traces_once_and_is_one_graph():
    w = rt.Variable(np.zeros((3, 1), np.float32))
    b = rt.Variable(np.zeros((1,), np.float32))
    xs = np.random.default_rng(0).normal(size=(32, 3)).astype(np.float32)
    ys = xs @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3

    @rt.function
    def step(x, y):
        with rt.GradientTape() as tape:
            loss = rt.reduce_mean(rt.square(x @ w + b - y))
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(dw * 0.1)
        b.assign_sub(db * 0.1)
        return loss

    losses = [float(step(rt.constant(xs), rt.constant(ys)).numpy()) for _ in range(100)]
    assert step.experimental_get_tracing_count() == 1
    assert losses[-1] < losses[0] * 1e-3
    graph = step.get_concrete_function(rt.constant(xs), rt.constant(ys)).graph
    types = {op.type for op in graph.get_operations()}
    assert {"MatMul", "AssignVariableOp", "ReadVariableOp"} <= types
    np.testing.assert_allclose(w.numpy().ravel(), [1.0, -2.0, 0.5], atol=1e-2)


def test_tape_used_inside_a_staged_loop():
    @rt.function
    def newton_sqrt(a):
        x = a
        for _ in rt.range(8):
            with rt.GradientTape() as tape:
                tape.watch(x)
                f = x * x - a
            x = x - f / tape.gradient(f, x)
        return x
    assert newton_sqrt(rt.constant(2.0)).numpy() == pytest.approx(np.sqrt(2.0), rel=1e-6)


def test_second_order_through_a_function_call():
    f = rt.function(lambda x: rt.sin(x) * x)
    loop = rt.function(lambda x: rt.while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, y * x),
                                               [0, x])[1])
    x = rt.constant(0.5)
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = f(x) + loop(x)   # sin(x) x + x^3
        dy = inner.gradient(y, x)
    assert dy.numpy() == pytest.approx(np.cos(0.5) * 0.5 + np.sin(0.5) + 3 * 0.25, rel=1e-6)
    assert outer.gradient(dy, x).numpy() == pytest.approx(
        -np.sin(0.5) * 0.5 + 2 * np.cos(0.5) + 6 * 0.5, rel=1e-6)


def test_second_order_with_nested_tapes_inside_a_function():
    @rt.function
    def f(x):
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                y = rt.sin(x) * x
            dy = inner.gradient(y, x)
        return outer.gradient(dy, x)
    assert f(rt.constant(0.5)).numpy() == pytest.approx(-np.sin(0.5) * 0.5 + 2 * np.cos(0.5),
                                                        rel=1e-6)


# Ops without a rule, and why: bool/int/string outputs, no inputs, side effects, helpers.
NO_RULE = {
    "All", "Any", "Equal", "Greater", "GreaterEqual", "Less", "LessEqual", "LogicalAnd",
    "LogicalNot", "LogicalOr", "NotEqual",                       # bool outputs
    "ArgMax", "ArgMin", "Where", "Rank", "Shape", "Size", "StringLength",
    "TensorArraySizeV3", "RandomUniformInt",                    # integer outputs
    "RandomPermutation",                # rt.random.shuffle's indices (no inputs)
    "AsString", "StringJoin",                                   # strings
    "Const", "Placeholder", "Eye", "RandomStandardNormal", "RandomUniform",
    "TensorArrayV3", "TruncatedNormal",                         # no float inputs
    "StatelessRandom",                  # a generator's draws: its input is an integer key
    "ReadVariableOp",                                           # a source: the Variable's
    "Assert", "PrintV2", "WriteSummary",                        # no outputs
    "EagerPyFunc",                      # Python code: LookupError (tested above)
    # staged Python lists change storage in place, as Variables do: not differentiable
    # (a TensorArray is, where gradients through a loop are needed)
    "StagedListNew", "StagedListAppend", "StagedListPop", "StagedListGet", "StagedListSet",
    "StagedListLength", "StagedListStack",
}


def test_every_op_has_a_gradient_rule_or_a_reason():
    from runtime.saved.schema import registry   # every op: runtime.ops' and control flow's
    missing = sorted(name for name, op in registry().items() if op.grad is None)
    assert missing == sorted(NO_RULE)


def test_unknown_dimensions_reduce_and_broadcast_when_the_graph_runs():
    @rt.function(input_signature=[rt.TensorSpec([None, 3], rt.float64),
                                  rt.TensorSpec([None], rt.float64)])
    def grads(x, b):
        with rt.GradientTape() as tape:
            tape.watch([x, b])
            y = rt.reduce_mean(rt.square(x + b[:1]) * rt.expand_dims(b, 1)) + rt.reduce_max(x)
        return tape.gradient(y, [x, b])

    for n in (2, 4):
        x = np.arange(3.0 * n).reshape(n, 3) / 7.0
        b = np.linspace(0.5, 1.5, n)
        gx, gb = grads(rt.constant(x), rt.constant(b))
        xs, bs = rt.constant(x), rt.constant(b)
        with rt.GradientTape() as tape:
            tape.watch([xs, bs])
            y = rt.reduce_mean(rt.square(xs + bs[:1]) * rt.expand_dims(bs, 1)) + rt.reduce_max(xs)
        ex, eb = tape.gradient(y, [xs, bs])
        np.testing.assert_allclose(gx.numpy(), ex.numpy())
        np.testing.assert_allclose(gb.numpy(), eb.numpy())
    assert grads.experimental_get_tracing_count() == 1


def test_function_method_under_tape_and_unwatched_calls_unchanged():
    class Dense:
        def __init__(self):
            self.w = rt.Variable([[1.0], [2.0]])
            self.traces = 0

        @rt.function
        def __call__(self, x):
            self.traces += 1
            return x @ self.w

    layer = Dense()
    x = rt.constant([[1.0, 1.0]])
    with rt.GradientTape() as tape:
        y = layer(x)
        z = layer(rt.constant([[3.0, 3.0]]))
    assert z.numpy()[0, 0] == 9.0
    np.testing.assert_allclose(tape.gradient(y, layer.w).numpy(), [[1.0], [1.0]])
    with rt.GradientTape():  # another tape: the same trace serves it
        layer(x)
    assert layer.traces == 1


def test_gradient_inside_the_tape_block():
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        dy = tape.gradient(y, x)
        z = dy * 2.0  # a non-persistent tape records nothing after its gradient
    assert z.numpy() == 12.0
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        dy = tape.gradient(y, x)
        z = dy * y
    # a persistent tape records its own backward ops: z = 2x * x^2, dz/dx = 6x^2
    assert tape.gradient(z, x).numpy() == 54.0


def test_op_without_gradient_in_a_trace_names_the_users_line():
    @rt.function
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.py_function(lambda t: t * 2.0, [x], rt.float32)
        return tape.gradient(y, x)
    with pytest.raises(LookupError, match=r"EagerPyFunc, created at .*test_grad_tape.py:\d+"):
        f(rt.constant(1.0))


def test_concrete_function_call_errors_are_the_same_under_a_tape():
    f = rt.function(lambda x, k: x * k)
    cf = f.get_concrete_function(rt.constant([1.0]), 2)
    calls = [(rt.constant([1.0]), 3), (rt.constant([1], rt.int32), 2),
             (rt.constant([1.0, 2.0]), 2), ()]

    def outcome(args, taped):
        try:
            if taped:
                with rt.GradientTape():
                    cf(*args)
            else:
                cf(*args)
        except Exception as e:  # noqa: BLE001 - the errors are what is compared
            return type(e).__name__, str(e)
        return None
    for args in calls:
        assert outcome(args, True) == outcome(args, False) is not None


def test_stop_gradient():
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * rt.stop_gradient(x * x)
    assert tape.gradient(y, x).numpy() == 9.0

    @rt.function
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x * rt.stop_gradient(x * x)
        return tape.gradient(y, x)
    assert f(rt.constant(3.0)).numpy() == 9.0
