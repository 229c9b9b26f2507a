"""The "Limitations" and "Known issues" examples of the performance guide."""
import pytest

import runtime as rt


def test_print_vs_rt_print(capsys):
    @rt.function
    def f(x):
        print("Traced with", x)
        rt.print("Executed with", x)

    f(1)
    f(1)
    f(2)
    assert capsys.readouterr().out == ("Traced with 1\nExecuted with 1\nExecuted with 1\n"
                                       "Traced with 2\nExecuted with 2\n")


def test_list_append_happens_only_while_tracing(capsys):
    external_list = []

    @rt.function
    def side_effect(x):
        print("Python side effect")
        external_list.append(x)

    side_effect(1)
    side_effect(1)
    side_effect(1)
    assert len(external_list) == 1
    assert capsys.readouterr().out == "Python side effect\n"


def test_python_counter_guard_vs_init_scope():
    class Model:
        def __init__(self):
            self.v = rt.Variable(0)
            self.counter = 0

        @rt.function
        def __call__(self):
            if self.counter == 0:
                self.counter += 1
                self.v.assign_add(1)
            return self.v

    m = Model()
    assert [m().numpy() for _ in range(3)] == [1, 2, 3]

    class LiftedModel:
        def __init__(self):
            self.v = rt.Variable(0)
            self.counter = 0

        @rt.function
        def __call__(self):
            if self.counter == 0:
                with rt.init_scope():
                    self.counter += 1
                    self.v.assign_add(1)
            return self.v

    m = LiftedModel()
    assert [m().numpy() for _ in range(3)] == [1, 1, 1]


def test_python_iterator_is_consumed_only_while_tracing(capsys):
    @rt.function
    def buggy_consume_next(iterator):
        rt.print("Value:", next(iterator))

    iterator = iter([1, 2, 3])
    for _ in range(3):
        buggy_consume_next(iterator)
    assert capsys.readouterr().out == "Value: 1\n" * 3


def test_leaked_tensors():
    leaked = {}

    @rt.function
    def leaky_function(a):
        leaked["x"] = a + 1
        return a + 2

    assert leaky_function(rt.constant(1)).numpy() == 3
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'numpy'"):
        leaked["x"].numpy()

    @rt.function
    def captures_leaked_tensor(b):
        b += leaked["x"]
        return b

    with pytest.raises(TypeError, match="external symbolic tensor"):
        captures_leaked_tensor(rt.constant(2))
    with pytest.raises(TypeError, match="leaked"):
        leaked["x"] + 1


def test_recursion_on_tensors_is_reported():
    @rt.function
    def recursive_fn(n):
        if n > 0:
            return recursive_fn(n - 1)
        else:
            return 1

    with pytest.raises(Exception, match="itself"):
        recursive_fn(rt.constant(5))


def _factorial(n):
    if n <= 1:
        return 1
    return n * _factorial(n - 1)


def test_recursion_of_a_plain_function_on_tensors_is_reported_with_its_name():
    """A plain Python function (not an rt.function) that calls itself on tensor values,
    traced inside one: the staged `if` traces the recursive branch whatever the value,
    so the trace never ends. A StagingError names the function and its `def`, where
    Python's RecursionError named neither."""
    with pytest.raises(rt.errors.StagingError, match=r"_factorial \(.*test_guide_limitations"
                                                     r"\.py:\d+\) called itself") as e:
        rt.function(_factorial)(rt.constant(4))
    assert "loop" in str(e.value)
    assert rt.function(_factorial)(4).numpy() == 24         # on Python values: a constant


def test_recursion_on_python_values_traces_each_level(capsys):
    @rt.function
    def recursive_fn(n):
        if n > 0:
            print("tracing")
            return recursive_fn(n - 1)
        else:
            return 1

    assert repr(recursive_fn(5)) == "<rt.Tensor: shape=(), dtype=int32, numpy=1>"
    assert capsys.readouterr().out == "tracing\n" * 5


def test_globals_are_captured_at_trace_time(capsys):
    foo = {"v": 1}

    @rt.function
    def buggy_add():
        return 1 + foo["v"]

    @rt.function
    def recommended_add(foo):
        return 1 + foo

    print("Buggy:", buggy_add())
    print("Correct:", recommended_add(foo["v"]))
    foo["v"] = 100
    print("Buggy:", buggy_add())
    print("Correct:", recommended_add(foo["v"]))
    assert capsys.readouterr().out == (
        "Buggy: rt.Tensor(2, shape=(), dtype=int32)\nCorrect: rt.Tensor(2, shape=(), dtype=int32)\n"
        "Buggy: rt.Tensor(2, shape=(), dtype=int32)\nCorrect: rt.Tensor(101, shape=(), dtype=int32)\n")

    var = rt.Variable(1)

    @rt.function
    def variable_add():
        return 1 + var

    print("Variable:", variable_add())
    var.assign(100)
    print("Variable:", variable_add())
    assert capsys.readouterr().out == ("Variable: rt.Tensor(2, shape=(), dtype=int32)\n"
                                       "Variable: rt.Tensor(101, shape=(), dtype=int32)\n")


def test_objects_are_keyed_by_identity():
    class SimpleModel:
        def __init__(self):
            self.bias = 0.
            self.weight = 2.

    @rt.function
    def evaluate(model, x):
        return model.weight * x + model.bias

    simple_model = SimpleModel()
    x = rt.constant(10.)
    assert evaluate(simple_model, x).numpy() == 20.0
    simple_model.bias += 5.0
    assert evaluate(simple_model, x).numpy() == 20.0  # the guide's "Didn't change :("

    def evaluate_fn(model, x):
        return model.weight * x + model.bias

    new_model = SimpleModel()
    no_bias = rt.function(evaluate_fn).get_concrete_function(new_model, x)
    assert no_bias(x).numpy() == 20.0
    new_model.bias += 5.0
    with_bias = rt.function(evaluate_fn).get_concrete_function(new_model, x)
    assert with_bias(x).numpy() == 25.0

    class BetterModel:
        def __init__(self):
            self.bias = rt.Variable(0.)
            self.weight = rt.Variable(2.)

    better_model = BetterModel()
    assert evaluate(better_model, x).numpy() == 20.0
    better_model.bias.assign_add(5.0)
    assert evaluate(better_model, x).numpy() == 25.0


def test_variables_only_on_the_first_call():
    @rt.function
    def f(x):
        v = rt.Variable(1.0)
        return v

    with pytest.raises(ValueError, match="only supports singleton rt.Variables created on the "
                                         "first call"):
        f(1.0)

    class Count:
        def __init__(self):
            self.count = None

        @rt.function
        def __call__(self):
            if self.count is None:
                self.count = rt.Variable(0)
            return self.count.assign_add(1)

    c = Count()
    assert str(c()) == "rt.Tensor(1, shape=(), dtype=int32)"
    assert str(c()) == "rt.Tensor(2, shape=(), dtype=int32)"
