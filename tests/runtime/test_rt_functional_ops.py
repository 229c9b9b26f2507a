"""map_fn, scan, foldl, foldr and switch_case: eagerly, in a graph (one while loop
whatever the length) and under XLA, against numpy; gradients by finite differences."""
import os
import sys

import numpy as np
import pytest

import runtime as rt

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "gradients"))
from grad_helpers import check_gradients  # noqa: E402

X = np.array([1.5, -2.0, 3.0, 0.5], np.float32)


def programs(x, only=None):
    table = {
        "map": lambda: rt.map_fn(lambda v: v * v + 1.0, x),
        "map_branch": lambda: rt.map_fn(lambda v: -v if v < 0.0 else v * 2.0, x),   # fn converted
        "map_tuple": lambda: rt.map_fn(lambda v: (v, rt.cast(v > 0.0, rt.int32)), x,
                               fn_output_signature=(rt.float32, rt.int32)),
        "scan": lambda: rt.scan(lambda a, v: a + v, x),
        "scan_init": lambda: rt.scan(lambda a, v: a * 0.5 + v, x,
                                     initializer=rt.constant(10.0, x.dtype)),
        "scan_reverse": lambda: rt.scan(lambda a, v: a + v, x, reverse=True),
        "foldl": lambda: rt.foldl(lambda a, v: a * 2.0 + v, x),
        "foldr": lambda: rt.foldr(lambda a, v: a * 2.0 + v, x,
                                  initializer=rt.constant(1.0, x.dtype)),
        "nested": lambda: rt.map_fn(lambda p: p[0] * p[1], (x, x + 1.0),
                                    fn_output_signature=x.dtype),
    }
    return {k: v() for k, v in table.items() if only is None or k == only}


def reference(x):
    x = x.astype(np.float64)
    acc, scan_init, a = [], [], 10.0
    for v in x:
        a = a * 0.5 + v
        scan_init.append(a)
    foldl = x[0]
    for v in x[1:]:
        foldl = foldl * 2.0 + v
    foldr = 1.0
    for v in x[::-1]:
        foldr = foldr * 2.0 + v
    return {
        "map": x * x + 1.0,
        "map_branch": np.where(x < 0, -x, x * 2.0),
        "map_tuple": (x, (x > 0).astype(np.int32)),
        "scan": np.cumsum(x),
        "scan_init": np.array(scan_init),
        "scan_reverse": np.cumsum(x[::-1])[::-1],
        "foldl": foldl,
        "foldr": foldr,
        "nested": x * (x + 1.0),
    }


def _compare(got, expected):
    for key, e in expected.items():
        g = got[key]
        if isinstance(e, tuple):
            for gi, ei in zip(g, e):
                np.testing.assert_allclose(gi.numpy(), ei, rtol=1e-6, atol=1e-5, err_msg=key)
        else:
            np.testing.assert_allclose(g.numpy(), e, rtol=1e-6, atol=1e-5, err_msg=key)


def test_eagerly():
    _compare(programs(rt.constant(X)), reference(X))


@pytest.mark.parametrize("jit", [False, True])
def test_in_a_graph(jit):
    if jit:
        pytest.importorskip("jax", reason="jit_compile needs the [jax] extra")
    f = rt.function(programs, jit_compile=jit)
    _compare(f(rt.constant(X)), reference(X))
    longer = np.linspace(-3, 3, 11).astype(np.float32)
    _compare(f(rt.constant(longer)), reference(longer))


def test_one_loop_whatever_the_length():
    def one_map(x):
        return rt.map_fn(lambda v: v * 2.0, x)

    sizes = []
    for n in (3, 300):
        cf = rt.function(one_map).get_concrete_function(rt.TensorSpec([n], rt.float32))
        loops = [op for op in cf.graph.operations if op.opdef.body_attrs]
        assert len(loops) == 1
        sizes.append(len(cf.graph.operations))
    assert sizes[0] == sizes[1]


def test_unknown_length():
    f = rt.function(lambda x: rt.scan(lambda a, v: a + v, x),
                    input_signature=[rt.TensorSpec([None], rt.float32)])
    np.testing.assert_allclose(f(X).numpy(), np.cumsum(X), rtol=1e-6)
    np.testing.assert_allclose(f(X[:1]).numpy(), X[:1])


@pytest.mark.parametrize("name", ["map", "scan", "scan_init", "foldl", "foldr", "nested"])
def test_gradients(name):
    check_gradients(lambda x: programs(x, name)[name], [X.astype(np.float64)])


def test_switch_case():
    branches = [lambda: rt.constant(10), lambda: rt.constant(20), lambda: rt.constant(30)]
    f = rt.function(lambda k: rt.switch_case(k, branches))
    g = rt.function(lambda k: rt.switch_case(k, {3: lambda: rt.constant(3), 7: lambda: rt.constant(7)},
                                             default=lambda: rt.constant(-1)))
    for k, expected in ((0, 10), (1, 20), (2, 30), (9, 30), (-1, 30)):
        assert int(rt.switch_case(k, branches)) == expected
        assert int(f(rt.constant(k))) == expected
    for k, expected in ((3, 3), (7, 7), (5, -1)):
        assert int(rt.switch_case(k, {3: lambda: 3, 7: lambda: 7}, default=lambda: -1)) == expected
        assert int(g(rt.constant(k))) == expected


def test_bad_input():
    with pytest.raises(ValueError, match="first dimension"):
        rt.map_fn(lambda v: v, rt.constant(1.0))
    with pytest.raises(ValueError, match="same first dimension"):
        rt.map_fn(lambda p: p[0], (rt.ones([2]), rt.ones([3])))
    with pytest.raises(ValueError, match="fn_output_signature"):
        rt.function(lambda x: rt.map_fn(lambda v: (v, v), x))(rt.constant(X))
    with pytest.raises(TypeError, match="not callable"):
        rt.switch_case(0, [1, 2])
