"""The examples of "Better performance with tf.function", with `rt` in place of `tf`."""

import numpy as np
import pytest

import autograph
import runtime as rt


def test_usage_and_nested_functions():
    @rt.function
    def add(a, b):
        return a + b

    assert add(rt.ones([2, 2]), rt.ones([2, 2])).numpy().tolist() == [[2.0, 2.0], [2.0, 2.0]]

    @rt.function
    def dense_layer(x, w, b):
        return add(rt.matmul(x, w), b)

    out = dense_layer(rt.ones([3, 2]), rt.ones([2, 2]), rt.ones([2]))
    assert repr(out) == ("<rt.Tensor: shape=(3, 2), dtype=float32, numpy=\n"
                         "array([[3., 3.],\n       [3., 3.],\n       [3., 3.]], dtype=float32)>")


@rt.function
def double(a):
    print("Tracing with", a)
    return a + a


def test_tracing_and_concrete_functions(capsys):
    print(double(rt.constant(1)))
    print()
    print(double(rt.constant(1.1)))
    print()
    print(double(rt.constant("a")))
    print()
    print(double(rt.constant("b")))
    assert capsys.readouterr().out == (
        'Tracing with Tensor("a:0", shape=(), dtype=int32)\n'
        "rt.Tensor(2, shape=(), dtype=int32)\n\n"
        'Tracing with Tensor("a:0", shape=(), dtype=float32)\n'
        "rt.Tensor(2.2, shape=(), dtype=float32)\n\n"
        'Tracing with Tensor("a:0", shape=(), dtype=string)\n'
        "rt.Tensor(b'aa', shape=(), dtype=string)\n\n"
        "rt.Tensor(b'bb', shape=(), dtype=string)\n")
    print(double.pretty_printed_concrete_signatures())
    sigs = capsys.readouterr().out
    assert sigs == "\n\n".join(
        f"double(a)\n  Args:\n    a: {d} Tensor, shape=()\n  Returns:\n    {d} Tensor, shape=()"
        for d in ("int32", "float32", "string")) + "\n"

    double_strings = double.get_concrete_function(rt.constant("a"))
    print(double_strings(rt.constant("a")))
    print(double_strings(a=rt.constant("b")))
    from_spec = double.get_concrete_function(rt.TensorSpec(shape=[], dtype=rt.string))
    print(from_spec(rt.constant("c")))
    print(double_strings)
    print(double_strings.structured_input_signature)
    print(double_strings.structured_outputs)
    for node in double_strings.graph.as_graph_def().node:
        print(f"{node.input} -> {node.name}")
    assert capsys.readouterr().out == (
        "rt.Tensor(b'aa', shape=(), dtype=string)\n"
        "rt.Tensor(b'bb', shape=(), dtype=string)\n"
        "rt.Tensor(b'cc', shape=(), dtype=string)\n"
        "ConcreteFunction double(a)\n  Args:\n    a: string Tensor, shape=()\n  Returns:\n"
        "    string Tensor, shape=()\n"
        "((TensorSpec(shape=(), dtype=rt.string, name='a'),), {})\n"
        'Tensor("Identity:0", shape=(), dtype=string)\n'
        "[] -> a\n['a', 'a'] -> add\n['add'] -> Identity\n")
    with pytest.raises(rt.errors.InvalidArgumentError, match="expected to be a string tensor"):
        double_strings(rt.constant(1))


def test_python_arguments_in_concrete_signatures():
    @rt.function
    def pow(a, b):
        return a ** b

    square = pow.get_concrete_function(a=rt.TensorSpec(None, rt.float32), b=2)
    assert str(square) == ("ConcreteFunction pow(a, b=2)\n  Args:\n    a: float32 Tensor, "
                           "shape=<unknown>\n  Returns:\n    float32 Tensor, shape=<unknown>")
    assert square(rt.constant(10.0)) == 100
    with pytest.raises(TypeError, match=r"ConcreteFunction pow\(a, b\) was constructed with "
                                        r"int value 2 in b, but was called with int value 3\."):
        square(rt.constant(10.0), b=3)


def test_input_signature(capsys):
    @rt.function(input_signature=(rt.TensorSpec(shape=[None], dtype=rt.int32),))
    def next_collatz(x):
        print("Tracing with", x)
        return rt.where(x % 2 == 0, x // 2, 3 * x + 1)

    print(next_collatz(rt.constant([1, 2])))
    with pytest.raises(ValueError) as e:
        next_collatz(rt.constant([[1, 2], [3, 4]]))
    assert str(e.value) == (
        "Python inputs incompatible with input_signature:\n  inputs: (\n    rt.Tensor(\n"
        "[[1 2]\n [3 4]], shape=(2, 2), dtype=int32))\n  input_signature: (\n"
        "    TensorSpec(shape=(None,), dtype=rt.int32, name=None)).\n"
        "next_collatz(): argument 'x': expected int32[?], got int32[2,2]")
    with pytest.raises(ValueError, match="incompatible with input_signature"):
        next_collatz(rt.constant([1.0, 2.0]))
    assert capsys.readouterr().out == ('Tracing with Tensor("x:0", shape=(None,), dtype=int32)\n'
                                       "rt.Tensor([4 1], shape=(2,), dtype=int32)\n")

    @rt.function(input_signature=(rt.TensorSpec(shape=[None], dtype=rt.int32),))
    def g(x):
        print("Tracing with", x)
        return x

    print(g(rt.constant([1, 2, 3])))
    print(g(rt.constant([1, 2, 3, 4, 5])))
    assert capsys.readouterr().out == (
        'Tracing with Tensor("x:0", shape=(None,), dtype=int32)\n'
        "rt.Tensor([1 2 3], shape=(3,), dtype=int32)\n"
        "rt.Tensor([1 2 3 4 5], shape=(5,), dtype=int32)\n")


def test_python_vs_tensor_arguments(capsys):
    def train_one_step():
        pass

    @rt.function
    def train(num_steps):
        print("Tracing with num_steps = ", num_steps)
        rt.print("Executing with num_steps = ", num_steps)
        for _ in rt.range(num_steps):
            train_one_step()

    train(num_steps=10)
    train(num_steps=20)
    train(num_steps=rt.constant(10))
    train(num_steps=rt.constant(20))
    assert capsys.readouterr().out == (
        "Tracing with num_steps =  10\nExecuting with num_steps =  10\n"
        "Tracing with num_steps =  20\nExecuting with num_steps =  20\n"
        'Tracing with num_steps =  Tensor("num_steps:0", shape=(), dtype=int32)\n'
        "Executing with num_steps =  10\nExecuting with num_steps =  20\n")


def test_new_function_objects_never_share_traces(capsys):
    def f():
        print("Tracing!")
        rt.print("Executing")

    rt.function(f)()
    rt.function(f)()
    assert capsys.readouterr().out == "Tracing!\nExecuting\nTracing!\nExecuting\n"


def test_autograph_while_loop(capsys):
    @rt.function
    def f(x):
        while rt.reduce_sum(x) > 1:
            rt.print(x)
            x = rt.tanh(x)
        return x

    x0 = rt.constant([0.666458249, 0.713946581, 0.723879576, 0.330758929, 0.184087753])
    out = f(x0)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "[0.666458249 0.713946581 0.723879576 0.330758929 0.184087753]"
    # The guide's second line, up to the last digit of float32 tanh (TensorFlow's own
    # tanh approximation differs from numpy's in the last ulp).
    second = [float(v) for v in lines[1].strip("[]").split()]
    assert np.allclose(second, [0.582645297, 0.613145649, 0.619306684, 0.319202513, 0.182036072],
                       rtol=1e-6)
    assert len(lines) == 28
    expected = x0.numpy()
    while expected.sum() > 1:
        expected = np.tanh(expected)
    assert np.allclose(out.numpy(), expected)
    code = autograph.to_code(f.python_function)
    compile(code, "<to_code>", "exec")


def test_fizzbuzz(capsys):
    @rt.function
    def fizzbuzz(n):
        for i in rt.range(1, n + 1):
            print("Tracing for loop")
            if i % 15 == 0:
                print("Tracing fizzbuzz branch")
                rt.print("fizzbuzz")
            elif i % 3 == 0:
                print("Tracing fizz branch")
                rt.print("fizz")
            elif i % 5 == 0:
                print("Tracing buzz branch")
                rt.print("buzz")
            else:
                print("Tracing default branch")
                rt.print(i)

    fizzbuzz(rt.constant(5))
    fizzbuzz(rt.constant(20))
    expected = ["Tracing for loop", "Tracing fizzbuzz branch", "Tracing fizz branch",
                "Tracing buzz branch", "Tracing default branch"]
    for n in (5, 20):
        for i in range(1, n + 1):
            expected.append("fizzbuzz" if i % 15 == 0 else "fizz" if i % 3 == 0
                            else "buzz" if i % 5 == 0 else str(i))
    assert capsys.readouterr().out.splitlines() == expected


def test_looping_over_python_data_unrolls(capsys):
    def measure_graph_size(f, *args):
        g = f.get_concrete_function(*args).graph
        print("{}({}) contains {} nodes in its graph".format(
            f.__name__, ", ".join(map(str, args)), len(g.as_graph_def().node)))

    @rt.function
    def train(dataset):
        loss = rt.constant(0)
        for x, y in dataset:
            loss += rt.abs(y - x)
        return loss

    measure_graph_size(train, [(1, 1)] * 3)
    measure_graph_size(train, [(1, 1)] * 10)
    assert capsys.readouterr().out == (
        "train([(1, 1), (1, 1), (1, 1)]) contains 11 nodes in its graph\n"
        "train([(1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1)]) "
        "contains 32 nodes in its graph\n")


def test_tensor_array_accumulates_in_a_staged_loop():
    batch_size, seq_len, feature_size = 2, 3, 4

    def rnn_step(inp, state):
        return inp + state

    @rt.function
    def dynamic_rnn(rnn_step, input_data, initial_state):
        input_data = rt.transpose(input_data, [1, 0, 2])
        max_seq_len = input_data.shape[0]
        states = rt.TensorArray(rt.float32, size=max_seq_len)
        state = initial_state
        for i in rt.range(max_seq_len):
            state = rnn_step(input_data[i], state)
            states = states.write(i, state)
        return rt.transpose(states.stack(), [1, 0, 2])

    data = rt.random.uniform([batch_size, seq_len, feature_size])
    out = dynamic_rnn(rnn_step, data, rt.zeros([batch_size, feature_size]))
    assert out.shape == (2, 3, 4)
    assert np.allclose(out.numpy(), np.cumsum(data.numpy(), axis=1), rtol=1e-6)
