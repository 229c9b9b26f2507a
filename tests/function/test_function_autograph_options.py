"""rt.function(experimental_autograph_options=...) as in TensorFlow, handed to the
converter; and `rt.autograph`, TensorFlow's `tf.autograph`."""
import pytest

import autograph as ag
import runtime as rt


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@pytest.mark.parametrize("options", [None, ag.experimental.Feature.ALL,
                                     [ag.experimental.Feature.BUILTIN_FUNCTIONS],
                                     (ag.experimental.Feature.LISTS,
                                      ag.experimental.Feature.EQUALITY_OPERATORS)])
def test_accepted_and_the_function_still_converts_and_runs(options):
    f = rt.function(collatz_steps, experimental_autograph_options=options)
    assert f(rt.constant(6)).numpy() == collatz_steps(6) == 8
    assert f(rt.constant(27)).numpy() == collatz_steps(27)
    ops = {op.type for op in f.get_concrete_function(rt.TensorSpec([], rt.int32)).graph.get_operations()}
    assert ops & {"While", "StatelessWhile"}  # converted: the loop is staged

    @rt.function(experimental_autograph_options=options)
    def decorated(x):
        return collatz_steps(x)
    assert decorated(rt.constant(6)).numpy() == 8


def test_options_reach_the_converter(monkeypatch):
    seen = []
    real = ag.for_staging        # (what rt.function converts with: see test_for_staging.py)

    def spy(f, *args, **kwargs):
        seen.append(kwargs.get("experimental_optional_features"))
        return real(f, *args, **kwargs)
    monkeypatch.setattr(ag, "for_staging", spy)
    feature = ag.experimental.Feature.BUILTIN_FUNCTIONS
    rt.function(collatz_steps, experimental_autograph_options=feature)(rt.constant(6))
    rt.function(collatz_steps)(rt.constant(6))
    assert seen == [feature, None]


def test_methods_keep_their_options(monkeypatch):
    seen = []
    real = ag.for_staging
    monkeypatch.setattr(ag, "for_staging", lambda f, *a, **k: (
        seen.append(k.get("experimental_optional_features")), real(f, *a, **k))[1])

    class Model:
        @rt.function(experimental_autograph_options=ag.experimental.Feature.LISTS)
        def steps(self, n):
            return collatz_steps(n)
    assert Model().steps(rt.constant(6)).numpy() == 8
    assert seen == [ag.experimental.Feature.LISTS]


def test_bad_options_are_a_clear_error_at_decoration():
    for bad in ("LISTS", 3, ["LISTS"]):
        with pytest.raises(TypeError, match="experimental_autograph_options must be autograph"
                                            r"\.experimental\.Feature values .*got"):
            rt.function(collatz_steps, experimental_autograph_options=bad)


def test_rt_autograph_is_the_autograph_package():
    assert rt.autograph is ag
    assert rt.autograph.to_graph is ag.to_graph
    assert rt.autograph.experimental.set_loop_options is ag.experimental.set_loop_options
    with pytest.raises(AttributeError, match="no attribute 'autograf'"):
        rt.autograf  # noqa: B018


def test_tf_style_loop_options_through_rt_autograph():
    @rt.function
    def total(n):
        s = 0
        for i in rt.range(n):
            rt.autograph.experimental.set_loop_options(maximum_iterations=100)
            s += i
        return s
    assert total(rt.constant(5)).numpy() == 10
