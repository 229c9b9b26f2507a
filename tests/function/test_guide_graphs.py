"""Every example of the guide "Introduction to graphs and tf.function", with `rt` in place
of `tf`: the printed output is the guide's (up to random values)."""
import timeit

import numpy as np
import pytest

import autograph
import runtime as rt


def test_function_gives_same_value_as_python():
    def a_regular_function(x, y, b):
        x = rt.matmul(x, y)
        x = x + b
        return x

    a_function_that_uses_a_graph = rt.function(a_regular_function)
    x1 = rt.constant([[1.0, 2.0]])
    y1 = rt.constant([[2.0], [3.0]])
    b1 = rt.constant(4.0)
    orig_value = a_regular_function(x1, y1, b1).numpy()
    tf_function_value = a_function_that_uses_a_graph(x1, y1, b1).numpy()
    assert orig_value == tf_function_value


def test_function_applies_to_inner_functions():
    def inner_function(x, y, b):
        x = rt.matmul(x, y)
        x = x + b
        return x

    @rt.function
    def outer_function(x):
        y = rt.constant([[2.0], [3.0]])
        b = rt.constant(4.0)
        return inner_function(x, y, b)

    out = outer_function(rt.constant([[1.0, 2.0]])).numpy()
    assert repr(out) == "array([[12.]], dtype=float32)"


def simple_relu(x):
    if rt.greater(x, 0):
        return x
    else:
        return 0


def test_simple_relu_branches(capsys):
    tf_simple_relu = rt.function(simple_relu)
    print("First branch, with graph:", tf_simple_relu(rt.constant(1)).numpy())
    print("Second branch, with graph:", tf_simple_relu(rt.constant(-1)).numpy())
    assert capsys.readouterr().out == ("First branch, with graph: 1\n"
                                       "Second branch, with graph: 0\n")


def test_simple_relu_code_and_graph():
    code = autograph.to_code(simple_relu)
    compile(code, "<to_code>", "exec")
    assert "def " in code and "simple_relu" in code
    tf_simple_relu = rt.function(simple_relu)
    gd = tf_simple_relu.get_concrete_function(rt.constant(1)).graph.as_graph_def()
    ops = [n.op for n in gd.node]
    assert ops[0] == "Placeholder" and gd.node[0].name == "x"
    assert "Greater" in ops and any(o in ("If", "StatelessIf") for o in ops)
    assert gd.node[-1].op == "Identity"
    text = str(gd)
    assert 'name: "x"' in text and 'op: "Greater"' in text and "library {" in text


def test_polymorphism(capsys):
    @rt.function
    def my_relu(x):
        return rt.maximum(0., x)

    print(my_relu(rt.constant(5.5)))
    print(my_relu([1, -1]))
    print(my_relu(rt.constant([3., -3.])))
    print(my_relu(rt.constant(-2.5)))
    print(my_relu(rt.constant([-1., 1.])))
    assert capsys.readouterr().out == (
        "rt.Tensor(5.5, shape=(), dtype=float32)\n"
        "rt.Tensor([1. 0.], shape=(2,), dtype=float32)\n"
        "rt.Tensor([3. 0.], shape=(2,), dtype=float32)\n"
        "rt.Tensor(0.0, shape=(), dtype=float32)\n"
        "rt.Tensor([0. 1.], shape=(2,), dtype=float32)\n")
    assert my_relu.experimental_get_tracing_count() == 3
    print(my_relu.pretty_printed_concrete_signatures())
    assert capsys.readouterr().out == (
        "my_relu(x)\n  Args:\n    x: float32 Tensor, shape=()\n  Returns:\n"
        "    float32 Tensor, shape=()\n\n"
        "my_relu(x=[1, -1])\n  Returns:\n    float32 Tensor, shape=(2,)\n\n"
        "my_relu(x)\n  Args:\n    x: float32 Tensor, shape=(2,)\n  Returns:\n"
        "    float32 Tensor, shape=(2,)\n")


@pytest.fixture
def mse_inputs():
    rt.random.set_seed(7)
    y_true = rt.random.uniform([5], maxval=10, dtype=rt.int32)
    y_pred = rt.random.uniform([5], maxval=10, dtype=rt.int32)
    rt.random.set_seed(None)
    return y_true, y_pred


def test_graph_and_eager_execution_agree(mse_inputs, capsys):
    y_true, y_pred = mse_inputs

    @rt.function
    def get_MSE(y_true, y_pred):
        sq_diff = rt.pow(y_true - y_pred, 2)
        return rt.reduce_mean(sq_diff)

    expected = int(np.trunc(np.mean((y_true.numpy() - y_pred.numpy()) ** 2)))
    graph_value = get_MSE(y_true, y_pred)
    assert graph_value.dtype is rt.int32 and graph_value.numpy() == expected
    assert repr(graph_value) == f"<rt.Tensor: shape=(), dtype=int32, numpy={expected}>"
    rt.config.run_functions_eagerly(True)
    try:
        assert get_MSE(y_true, y_pred).numpy() == expected
    finally:
        rt.config.run_functions_eagerly(False)


def test_print_runs_only_while_tracing(mse_inputs, capsys):
    y_true, y_pred = mse_inputs

    @rt.function
    def get_MSE(y_true, y_pred):
        print("Calculating MSE!")
        sq_diff = rt.pow(y_true - y_pred, 2)
        return rt.reduce_mean(sq_diff)

    for _ in range(3):
        get_MSE(y_true, y_pred)
    assert capsys.readouterr().out == "Calculating MSE!\n"
    rt.config.run_functions_eagerly(True)
    try:
        for _ in range(3):
            get_MSE(y_true, y_pred)
    finally:
        rt.config.run_functions_eagerly(False)
    assert capsys.readouterr().out == "Calculating MSE!\n" * 3


def test_non_strict_execution(capsys):
    def unused_return_eager(x):
        rt.gather(x, [1])  # unused
        return x

    with pytest.raises(rt.errors.InvalidArgumentError):
        unused_return_eager(rt.constant([0.0]))

    @rt.function
    def unused_return_graph(x):
        rt.gather(x, [1])  # unused
        return x

    print(unused_return_graph(rt.constant([0.0])))
    assert capsys.readouterr().out == "rt.Tensor([0.], shape=(1,), dtype=float32)\n"


def test_power_speedup_example_agrees():
    x = rt.random.uniform(shape=[10, 10], minval=-1, maxval=2, dtype=rt.int32)

    def power(x, y):
        result = rt.eye(10, dtype=rt.int32)
        for _ in range(y):
            result = rt.matmul(x, result)
        return result

    power_as_graph = rt.function(power)
    assert np.array_equal(power(x, 100).numpy(), power_as_graph(x, 100).numpy())
    assert timeit.timeit(lambda: power_as_graph(x, 100), number=3) > 0


def test_when_is_a_function_tracing(capsys):
    @rt.function
    def a_function_with_python_side_effect(x):
        print("Tracing!")
        return x * x + rt.constant(2)

    print(a_function_with_python_side_effect(rt.constant(2)))
    print(a_function_with_python_side_effect(rt.constant(3)))
    print(a_function_with_python_side_effect(2))
    print(a_function_with_python_side_effect(3))
    assert capsys.readouterr().out == (
        "Tracing!\nrt.Tensor(6, shape=(), dtype=int32)\nrt.Tensor(11, shape=(), dtype=int32)\n"
        "Tracing!\nrt.Tensor(6, shape=(), dtype=int32)\n"
        "Tracing!\nrt.Tensor(11, shape=(), dtype=int32)\n")
