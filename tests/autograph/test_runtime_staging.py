"""The staged corpus through the real runtime: rt.function traces the converted function
once per dtype/shape, and the graph gives what plain Python gives, for several values."""
import copy

import numpy as np
import pytest

import corpus

rt = pytest.importorskip("runtime")
if getattr(rt, "function", None) is None:
    pytest.skip("runtime has no rt.function yet", allow_module_level=True)


def _py(x):
    if isinstance(x, (tuple, list)):
        return type(x)(_py(v) for v in x)
    if hasattr(x, "numpy"):
        v = np.asarray(x.numpy())
        return v.item() if v.ndim == 0 else v.tolist()
    return x


STAGED = [(fn, arg_sets) for fn, arg_sets, staged in corpus.PY if staged]


@pytest.mark.parametrize("fn, arg_sets", STAGED, ids=[fn.__name__ for fn, _ in STAGED])
def test_one_trace_many_values(fn, arg_sets):
    staged = rt.function(fn)
    for args in arg_sets:
        expected = fn(*copy.deepcopy(args))
        got = staged(*[rt.constant(a) for a in args])
        assert _py(got) == _py(expected), args
    assert staged.experimental_get_tracing_count() == 1


def test_undefined_name_raises_at_run_time_with_line():
    staged = rt.function(corpus.defined_in_one_branch)
    assert _py(staged(rt.constant(3))) == 4
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"'y' is used at .*corpus.py:\d+"):
        staged(rt.constant(-1))


def test_first_assigned_in_staged_loop():
    staged = rt.function(corpus.first_assigned_in_loop)
    assert _py(staged(rt.constant(3))) == 4
    with pytest.raises(rt.errors.InvalidArgumentError, match="'last'"):
        staged(rt.constant(0))


def test_for_over_tensor_with_break_and_else():
    staged = rt.function(corpus.for_else)
    assert _py(staged(rt.constant([1, -2, 3]))) == -2
    assert _py(staged(rt.constant([1, 2]))) == 0


def test_return_inside_staged_for_over_tensor():
    staged = rt.function(corpus.for_return)
    assert _py(staged(rt.constant([4, 5, 6]), rt.constant(5))) == 1
    assert _py(staged(rt.constant([4, 5, 6]), rt.constant(9))) == -1
    assert staged.experimental_get_tracing_count() == 1


def test_fall_off_is_a_staging_error():
    import autograph as ag
    with pytest.raises(ag.StagingError, match=r"corpus.py:\d+.*None"):
        rt.function(corpus.fall_off)(rt.constant(1))


def loop_with_return_inside_branch(x, n):
    if x > 0:
        for i in rt.range(n):
            if i * x > 10:
                return i
        y = x * 100
    else:
        y = -x
    return y


@pytest.mark.parametrize("x, n, expected", [(3, 10, 4), (1, 5, 100), (-2, 5, 2)])
def test_staged_loop_with_return_inside_staged_branch(x, n, expected):
    staged = rt.function(loop_with_return_inside_branch)
    assert _py(staged(rt.constant(x), rt.constant(n))) == expected


@pytest.mark.parametrize("seed", range(60))
def test_random_program_through_runtime(seed):
    import random_programs
    source, fn = random_programs.make(seed)
    staged = rt.function(fn)

    def outcome(f, args):
        try:
            return ("ok", _py(f(*args)))
        except (UnboundLocalError, rt.errors.InvalidArgumentError) as e:
            return ("unbound", "'d'" in str(e))    # `d` is assigned on some paths only

    for x, n in [(0, 0), (5, 3), (13, 6), (40, 2)]:
        assert outcome(staged, (rt.constant(x), rt.constant(n))) == outcome(fn, (x, n)), source
    assert staged.experimental_get_tracing_count() <= 1     # 0: every call failed tracing
