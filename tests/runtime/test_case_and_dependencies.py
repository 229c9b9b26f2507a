"""rt.case, rt.switch_case and rt.control_dependencies as TensorFlow defines them: against
the plain-Python choice they stand for, eagerly, inside rt.function and under
jit_compile; their errors; the order of side effects; and saving a function that uses
the new ops."""
import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError
from tests.agreement import HAVE_JAX, agree


def python_case(x, exclusive=False, with_default=True):
    """The plain-Python meaning of `choose` below, for a scalar x."""
    preds = [x < 0, x < 10, x > 100]
    if exclusive and sum(preds) > 1:
        return "raise"
    fns = [lambda: x * 2, lambda: x + 1, lambda: x - 100]
    for p, f in zip(preds, fns):
        if p:
            return f()
    if with_default:
        return x * 0 + 7
    return "raise"


def choose(exclusive, with_default):
    def fn(x):
        pairs = [(x < 0, lambda: x * 2), (x < 10, lambda: x + 1), (x > 100, lambda: x - 100)]
        default = (lambda: x * 0 + 7) if with_default else None
        return rt.case(pairs, default=default, exclusive=exclusive)
    return fn


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("with_default", [False, True])
@pytest.mark.parametrize("value", [-5.0, 3.0, 50.0, 500.0])
def test_case_is_the_first_true_branch(exclusive, with_default, value):
    want = python_case(value, exclusive, with_default)
    x = np.float32(value)
    fn = choose(exclusive, with_default)
    outs = agree(fn, (x,), which=("given",))
    if want == "raise":
        assert outs[0].error is not None
        assert isinstance(outs[0].error, InvalidArgumentError)
    else:
        assert outs[0].error is None
        np.testing.assert_allclose(outs[0].values[0], np.float32(want))


def test_case_with_python_predicates_calls_one_branch():
    calls = []

    def branch(v):
        calls.append(v)
        return v
    assert rt.case([(False, lambda: branch(1)), (True, lambda: branch(2)),
                    (True, lambda: branch(3))]) == 2
    assert calls == [2]
    with pytest.raises(InvalidArgumentError, match="more than one"):
        rt.case([(True, lambda: 1), (True, lambda: 2)], exclusive=True)
    with pytest.raises(ValueError):
        rt.case([])
    with pytest.raises(TypeError):
        rt.case([(True, 1)])


def test_case_traces_every_branch_once_in_a_graph():
    traced = []

    @rt.function
    def f(x):
        def b(k):
            def run():
                traced.append(k)
                return x + k
            return run
        return rt.case([(x < 0, b(1)), (x < 5, b(2))], default=b(3))
    got = [int(f(rt.constant(v)).numpy()) for v in (-1, 2, 9)]
    assert got == [0, 4, 12]
    assert sorted(traced) == [1, 2, 3]


@pytest.mark.parametrize("index", [0, 1, 2, 7, -1])
def test_switch_case_matches_indexing_a_list(index):
    branches = [lambda: rt.constant(10.0), lambda: rt.constant(20.0), lambda: rt.constant(30.0)]
    want = [10.0, 20.0, 30.0][index] if 0 <= index < 3 else 30.0   # the last is the default
    outs = agree(lambda i: rt.switch_case(i, branches), (np.int32(index),), which=("given",))
    assert outs[0].values[0] == want
    outs = agree(lambda i: rt.switch_case(i, branches[:2], default=lambda: rt.constant(-1.0)),
                 (np.int32(index),), which=("given",))
    assert outs[0].values[0] == ([10.0, 20.0][index] if 0 <= index < 2 else -1.0)


def test_switch_case_nested_in_case():
    def fn(x, i):
        def inner():
            return rt.switch_case(i, [lambda: x,
                                      lambda: x * 10])
        return rt.case([(x > 0, inner)], default=lambda: -x)
    for x, i in [(2.0, 0), (2.0, 1), (-3.0, 1)]:
        want = (x if i == 0 else x * 10) if x > 0 else -x
        outs = agree(fn, (np.float32(x), np.int32(i)), which=("given",))
        assert outs[0].values[0] == np.float32(want)


# -- control_dependencies -----------------------------------------------------------------

@pytest.mark.parametrize("jit", [False, True] if HAVE_JAX else [False])
def test_ops_in_control_dependencies_run_after_the_control_inputs(jit, capsys):
    v = rt.Variable(1.0)

    @rt.function(jit_compile=jit)
    def f():
        step = v.assign_add(1.0)
        with rt.control_dependencies([step]):
            r = v.read_value() * 10
            rt.print("read", r)
        return r
    assert float(f().numpy()) == 20.0
    assert float(f().numpy()) == 30.0
    assert capsys.readouterr().out == "read 20\nread 30\n"


def test_control_dependencies_records_the_inputs_on_new_ops():
    seen = {}

    @rt.function
    def f(x):
        a = x + 1
        with rt.control_dependencies([a, None]):
            b = x * 2
        seen["a"], seen["b"] = a, b
        return b
    assert float(f(rt.constant(3.0)).numpy()) == 6.0
    assert seen["b"].op.control_inputs == (seen["a"].op,)
    assert seen["a"].op.control_inputs == ()


def test_control_dependencies_eagerly_is_a_no_op_calling_callables():
    calls = []
    with rt.control_dependencies([rt.constant(1.0), lambda: calls.append(1)]) as ctx:
        y = rt.constant(2.0) * 3
    assert ctx is None and calls == [1] and float(y.numpy()) == 6.0
    with pytest.raises(TypeError):
        with rt.function(lambda: None).get_concrete_function().graph.as_default():
            with rt.control_dependencies(["not a tensor"]):
                pass


# -- saving -------------------------------------------------------------------------------

def test_saved_functions_with_the_new_ops_load_and_agree(tmp_path):
    def fn(p, i, x, t):
        g = rt.gather_nd(p, i)
        s = rt.scatter_nd(i, g, [3, 4])
        u = rt.tensor_scatter_nd_update(s, i, g * 2)
        a = rt.tensor_scatter_nd_add(u, i, g)
        y, idx = rt.unique(t)
        vals, pos = rt.math.top_k(x, k=2)
        return (a, y, idx, vals, pos, rt.reduce_logsumexp(x, axis=1), rt.linspace(0.0, 1.0, 3),
                rt.reverse(x, [1]), rt.roll(x, 1, 1), rt.sequence_mask(idx, 4),
                rt.math.is_nan(x), rt.math.is_finite(x), rt.math.is_inf(x))
    sig = [rt.TensorSpec([3, 4], rt.float32), rt.TensorSpec([None, 2], rt.int32),
           rt.TensorSpec([None, 5], rt.float32), rt.TensorSpec([None], rt.int32)]
    f = rt.function(fn, input_signature=sig)
    args = [rt.constant(np.arange(12, dtype=np.float32).reshape(3, 4)),
            rt.constant([[2, 1], [0, 3]]),
            rt.constant([[1.0, np.nan, 3.0, -np.inf, 0.0], [2.0, 2.0, 1.0, 0.0, 5.0]]),
            rt.constant([3, 1, 3, 0])]
    path = str(tmp_path / "ops")
    rt.saved.save(f, path)
    loaded = rt.saved.load(path)
    for a, b in zip(rt.nest.flatten(f(*args)), rt.nest.flatten(loaded.fn(*args))):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
