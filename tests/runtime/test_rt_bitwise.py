"""`& | ^ ~` on tensors as on Python's ints and bools (and as TensorFlow): bitwise on
integer tensors (rt.bitwise), logical on bool ones; eager, traced, under jit_compile, in
converted code, saved and loaded. Floats are an error that names the operator."""
import itertools
import re

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError

INTS = [-7, -1, 0, 1, 5, 12, 2 ** 31 - 1, -2 ** 31]
OPERATORS = [("&", lambda a, b: a & b), ("|", lambda a, b: a | b), ("^", lambda a, b: a ^ b)]


def _function(jit):
    if jit:
        pytest.importorskip("jax")
    return lambda f: rt.function(f, jit_compile=True) if jit else rt.function(f)


@pytest.mark.parametrize("symbol, op", OPERATORS)
@pytest.mark.parametrize("dtype", [rt.int32, rt.int64, rt.uint8])
def test_binary_operators_on_integers_match_python(symbol, op, dtype):
    values = [v for v in INTS if np.can_cast(np.min_scalar_type(v), dtype.np_dtype)
              or (dtype is not rt.uint8 and abs(v) < 2 ** 31)]
    pairs = list(itertools.product(values, values))
    x = np.array([a for a, _ in pairs], dtype.np_dtype)
    y = np.array([b for _, b in pairs], dtype.np_dtype)
    want = [op(int(a), int(b)) for a, b in zip(x, y)]
    got = op(rt.constant(x), rt.constant(y))
    assert got.dtype is dtype
    assert got.numpy().tolist() == want


@pytest.mark.parametrize("jit", [False, True])
def test_staged_and_jit_match_eager(jit):
    function = _function(jit)

    @function
    def f(a, b):
        return a & b, a | b, a ^ b, ~a, a & 6, 6 | a, (a > 2) ^ (b > 2), ~(a > 2)

    a, b = np.array(INTS[:6], np.int32), np.array(INTS[2:8], np.int32)
    got = [t.numpy().tolist() for t in f(rt.constant(a), rt.constant(b))]
    av, bv = [int(v) for v in a], [int(v) for v in b]
    assert got == [[p & q for p, q in zip(av, bv)], [p | q for p, q in zip(av, bv)],
                   [p ^ q for p, q in zip(av, bv)], [~p for p in av], [p & 6 for p in av],
                   [6 | p for p in av], [(p > 2) != (q > 2) for p, q in zip(av, bv)],
                   [not p > 2 for p in av]]


def test_invert_matches_python_on_ints():
    assert rt.bitwise.invert(rt.constant(INTS)).numpy().tolist() == [~v for v in INTS]
    assert (~rt.constant(np.uint8(5))).numpy() == np.uint8(250)


def test_bool_operators_stay_logical():
    t, f = rt.constant(True), rt.constant(False)
    for p, q in itertools.product([True, False], repeat=2):
        a, b = (t if p else f), (t if q else f)
        assert [bool((a & b).numpy()), bool((a | b).numpy()), bool((a ^ b).numpy())] == [
            p and q, p or q, p != q]
    assert bool((~t).numpy()) is False       # TensorFlow's `~` on bools: logical not


def test_the_namespace_and_names():
    assert rt.bitwise.bitwise_and(12, 6).numpy() == 4
    assert rt.bitwise.bitwise_or([12], 6).numpy().tolist() == [14]
    assert rt.bitwise.bitwise_xor(rt.constant(12, rt.int64), 6).dtype is rt.int64
    assert "bitwise" in dir(rt)

    @rt.function
    def f(a):
        return a & 3, ~a
    graph = f.get_concrete_function(rt.TensorSpec([], rt.int32)).graph
    assert {"BitwiseAnd", "Invert"} <= {op.type for op in graph.get_operations()}


@pytest.mark.parametrize("expr, symbol", [(lambda x: x & x, "&"), (lambda x: x | 1.0, "|"),
                                          (lambda x: x ^ x, "^"), (lambda x: ~x, "~")])
def test_floats_are_an_error_naming_the_operator(expr, symbol):
    with pytest.raises(InvalidArgumentError, match=f"`{re.escape(symbol)}` takes bool or "
                                                   "integer tensors, not float32 ones"):
        expr(rt.constant([1.5]))


def test_mixed_dtypes_are_an_error_as_for_other_operators():
    with pytest.raises(Exception, match="int32.*int64|int64.*int32"):
        rt.constant(1) & rt.constant(1, rt.int64)


def test_in_converted_code_python_ints_carried_by_a_staged_loop():
    def mask_bits(n):
        acc = 0
        for i in rt.range(n):
            acc = acc ^ (1 << 3) if i % 2 == 0 else acc | i
        return acc & 255

    def python(n):
        acc = 0
        for i in range(n):
            acc = acc ^ (1 << 3) if i % 2 == 0 else acc | i
        return acc & 255
    for n in range(6):
        assert rt.function(mask_bits)(rt.constant(n)).numpy() == python(n)


def test_no_gradient_flows_through_them():
    x = rt.Variable(3.0)
    with rt.GradientTape() as tape:
        k = rt.cast(x, rt.int32) & 1
        y = rt.cast(k, rt.float32) * x
    assert tape.gradient(y, x).numpy() == 1.0


def test_saved_and_loaded(tmp_path):
    @rt.function(input_signature=[rt.TensorSpec([None], rt.int32)])
    def f(x):
        return (x & 12) | (x ^ 5), ~x

    rt.saved.save(f, str(tmp_path / "m"))
    loaded = rt.saved.load(str(tmp_path / "m"))
    x = rt.constant(INTS[:6])
    for a, b in zip(loaded.f(x), f(x)):
        assert a.numpy().tolist() == b.numpy().tolist()


def test_onnx_says_it_cannot_export_them():
    pytest.importorskip("onnx")

    @rt.function(input_signature=[rt.TensorSpec([None], rt.int32)])
    def f(x):
        return x & 3

    with pytest.raises(rt.onnx.ExportError, match="BitwiseAnd.*opset 17 has no bitwise ops"):
        rt.onnx.export(f.get_concrete_function())
