"""Loop variables whose shape changes across iterations, staged through rt.function and
autograph: tracing always ends (a bounded number of retraces), the settled shapes are
true (no static shape the loop does not keep, which used to fold rt.shape() into a
constant and loop forever at run time), and results match eager. Every case runs under a
deadline so that a hang fails instead of stalling the suite."""
import contextlib
import signal

import numpy as np
import pytest

import runtime as rt
from runtime.control_flow import loops


class Hang(Exception):
    pass


@contextlib.contextmanager
def deadline(seconds=20):
    def fail(signum, frame):
        raise Hang(f"did not finish in {seconds} s")
    old = signal.signal(signal.SIGALRM, fail)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def doubling(n):
    x = rt.constant([1])
    while rt.shape(x)[0] < n:
        x = rt.concat([x, x], 0)
    return x


def appending(n):
    x = rt.constant([-1])
    for i in rt.range(n):
        x = rt.concat([x, [i]], 0)
    return x


def growing_rank(n):
    x = rt.constant(2.0)
    for _ in rt.range(n):
        x = rt.expand_dims(x, 0)
    return rt.reshape(x, [-1]), rt.rank(x)


def halving(x):
    while rt.shape(x)[0] > 1:  # hung at run time: x stayed a static (8,)
        x = x[: rt.shape(x)[0] // 2]
    return x


def transposing(n):
    x = rt.reshape(rt.range(6), [2, 3])
    i = 0
    while i < n:
        x = rt.transpose(x)
        i += 1
    return x


def relay(n):
    """Relaxing one variable changes the next one's shape only in the following trace."""
    a = b = c = d = e = f = g = rt.constant([1])
    while rt.shape(g)[0] < n:
        g = rt.reshape(f, rt.shape(f))
        f = rt.reshape(e, rt.shape(e))
        e = rt.reshape(d, rt.shape(d))
        d = rt.reshape(c, rt.shape(c))
        c = rt.reshape(b, rt.shape(b))
        b = rt.reshape(a, rt.shape(a))
        a = rt.concat([a, a], 0)
    return g


def nested(n):
    x = rt.zeros([1, 1])
    for i in rt.range(n):
        x = rt.concat([x, x], 0)
        j = 0
        while j < i:
            x = rt.concat([x, rt.ones_like(x)], 1)
            j += 1
    return x


CASES = [
    (doubling, [5]), (doubling, [1]), (appending, [4]), (appending, [0]), (growing_rank, [3]),
    (halving, [np.arange(8)]), (halving, [np.arange(1)]), (transposing, [3]),
    (transposing, [2]), (relay, [8]), (nested, [3]),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{c[0].__name__}{c[1]}" for c in CASES])
def test_staged_loops_end_and_match_eager(fn, args):
    tensors = [rt.constant(a) for a in args]
    want = rt.nest.flatten(fn(*tensors))       # eager: plain Python loops
    with deadline():
        staged = rt.function(fn)
        got = rt.nest.flatten(staged(*tensors))
        again = rt.nest.flatten(staged(*tensors))
    for w, g, a in zip(want, got, again):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
        np.testing.assert_array_equal(a.numpy(), w.numpy())
    assert staged.experimental_get_tracing_count() == 1


def test_one_graph_serves_every_trip_count():
    with deadline():
        f = rt.function(appending, input_signature=[rt.TensorSpec([], rt.int32)])
        for n in (0, 1, 5):
            assert f(rt.constant(n)).numpy().tolist() == [-1] + list(range(n))
        g = rt.function(growing_rank, input_signature=[rt.TensorSpec([], rt.int32)])
        flat, rank = g(rt.constant(4))
    assert rank.numpy() == 4 and flat.numpy().tolist() == [2.0]
    out = g.get_concrete_function().outputs
    assert out[0].shape == rt.TensorShape([None])


def test_settled_shapes_are_as_specific_as_true(monkeypatch):
    shapes_seen = []
    real = loops._trace

    def counting(*args, **kwargs):
        shapes_seen.append([str(s) for s in args[6]])
        return real(*args, **kwargs)
    monkeypatch.setattr(loops, "_trace", counting)
    with deadline():
        cf = rt.function(relay).get_concrete_function(rt.TensorSpec([], rt.int32))
    # seven variables relaxed one per retrace: eight traces, more than any fixed small limit
    assert len(shapes_seen) == 8 and shapes_seen[-1] == ["(None,)"] * 7
    assert cf.outputs[0].shape == rt.TensorShape([None])

    shapes_seen.clear()
    with deadline():
        cf = rt.function(transposing).get_concrete_function(rt.TensorSpec([], rt.int32))
    assert cf.outputs[0].shape == rt.TensorShape([None, None])  # rank kept, dims relaxed
    assert len(shapes_seen) == 2


def test_traces_are_bounded_even_when_every_trace_changes_something(monkeypatch):
    """A body that makes a variable's shape less specific at every trace, one dimension
    at a time: the relaxation turns coarse after the first retraces, so it still ends."""
    calls = []
    real = loops._trace

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(loops, "_trace", counting)

    def drop_one_dim(x):  # rank 6: (1, ..., 1) -> one more unknown dimension per trace
        dims = x.shape.as_list()
        k = next((i for i, d in enumerate(dims) if d is not None), None)
        if k is None:
            return x
        stop = rt.shape(x)[k]  # the same size, but a tensor: no longer known while tracing
        return x[(slice(None),) * k + (slice(0, stop),)]

    g = rt.Graph()
    with g.as_default(), deadline():
        n = rt.placeholder(rt.int32, [])
        be = type(n).__autograph_backend__
        (i, x), _ = be.while_loop(lambda i, x: i < n, lambda i, x: (i + 1, drop_one_dim(x)),
                                  (0, rt.ones([1] * 6)), ("i", "x"), lambda v: False, {})
    assert len(calls) == loops._PRECISE_RETRACES + 2  # precise, precise, coarse, settled
    assert x.shape == rt.TensorShape([None] * 6)
    assert g.run(x, {n: 3}).numpy().shape == (1,) * 6


def test_shape_invariants_that_forbid_the_change_name_the_variable():
    g = rt.Graph()
    with g.as_default(), deadline():
        n = rt.placeholder(rt.int32, [])
        be = type(n).__autograph_backend__
        body = lambda i, x: (i + 1, rt.concat([x, x], 0))  # noqa: E731
        with pytest.raises(ValueError, match=r"'x' has shape \(2,\) after one iteration, "
                                             r"which does not conform to the shape invariant \(1,\)"):
            be.while_loop(lambda i, x: i < n, body, (0, rt.ones([1])), ("i", "x"),
                          lambda v: False, {"shape_invariants": {"x": rt.TensorShape([1])}})
        (i, x), _ = be.while_loop(lambda i, x: i < n, body, (0, rt.ones([1])), ("i", "x"),
                                  lambda v: False, {"shape_invariants": {"x": rt.TensorShape([None])}})
    assert x.shape == rt.TensorShape([None]) and g.run(x, {n: 2}).numpy().shape == (4,)


def test_rt_while_loop_without_invariants_rejects_a_less_specific_shape():
    """As TensorFlow: a (4,) loop variable that the body makes (None,) needs an invariant
    (keeping (4,) would make rt.shape(x) a constant 4 and the test below never false)."""
    def cond(x):
        return rt.shape(x)[0] > 1

    def body(x):
        return [x[: rt.shape(x)[0] // 2]]

    g = rt.Graph()
    with g.as_default(), deadline():
        with pytest.raises(ValueError, match=r"'loop_vars\[0\]' has shape \(4,\) before the loop, "
                                             r"but shape \(None,\) after one iteration"):
            rt.while_loop(cond, body, [rt.range(4)])
        out = rt.while_loop(cond, body, [rt.range(4)], shape_invariants=[rt.TensorShape([None])])
    out = out[0] if isinstance(out, (list, tuple)) else out
    assert g.run(out).numpy().tolist() == [0]
