"""TensorFlow's segment reductions, repeat, band_part and in_top_k against numpy and
TensorFlow's documented examples (eagerly, in rt.function, under jit_compile), and the
ONNX export of the names of test_tf_names_more.py: the compositions and the ops with an
ONNX form agree with onnxruntime, the others are refused by name."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import runtime as rt
from tests.runtime.test_tf_names_more import (HAS_JAX, assert_gradient, check_every_way,
                                              every_way)


def _segment_reference(data, ids, n, reduce, empty):
    out = np.full((n,) + data.shape[ids.ndim:], empty, data.dtype)
    rows = data.reshape((-1,) + data.shape[ids.ndim:])
    for j in range(n):
        picked = rows[ids.reshape(-1) == j]
        if len(picked):
            out[j] = reduce(picked, axis=0)
    return out


def test_unsorted_segment_sum_documented_example_and_dropped_negative_ids():
    c = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [4, 3, 2, 1]], np.int32)
    check_every_way(lambda d, i: rt.math.unsorted_segment_sum(d, i, 2),
                    np.array([[5, 5, 5, 5], [5, 6, 7, 8]], np.int32), c,
                    np.array([0, 1, 0], np.int32))
    data = np.array([1.0, np.nan, 3.0, 4.0, 5.0], np.float32)
    ids = np.array([2, -1, 0, 2, -7], np.int32)
    check_every_way(lambda d, i: rt.math.unsorted_segment_sum(d, i, 4),
                    np.array([3.0, 0.0, 5.0, 0.0], np.float32), data, ids)
    check_every_way(lambda d, i: rt.math.unsorted_segment_sum(d, i, 3),
                    np.zeros((3, 2), np.float32), np.zeros((0, 2), np.float32),
                    np.zeros(0, np.int32))
    grid = np.arange(12.0, dtype=np.float32).reshape(2, 3, 2)
    grid_ids = np.array([[0, 1, 0], [1, 1, 2]], np.int32)
    check_every_way(lambda d, i: rt.math.unsorted_segment_sum(d, i, 3),
                    _segment_reference(grid, grid_ids, 3, np.sum, 0), grid, grid_ids)


def test_unsorted_segment_sum_raises_for_an_id_past_num_segments():
    data, ids = rt.constant([1.0, 2.0]), rt.constant([0, 2])
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.math.unsorted_segment_sum(data, ids, 2)
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.function(lambda d, i: rt.math.unsorted_segment_sum(d, i, 2))(data, ids)
    if HAS_JAX:
        with pytest.raises(rt.errors.InvalidArgumentError):
            rt.function(lambda d, i: rt.math.unsorted_segment_sum(d, i, 2),
                        jit_compile=True)(data, ids)


def test_unsorted_segment_mean_and_max_match_numpy_every_way():
    data = np.array([[1.0, -2.0], [5.0, np.nan], [2.0, -8.0], [-1.0, 0.5]], np.float32)
    ids = np.array([0, 0, 2, -1], np.int32)
    mean = _segment_reference(data, ids, 4, np.mean, 0)
    check_every_way(lambda d, i: rt.math.unsorted_segment_mean(d, i, 4), mean, data, ids)
    high = _segment_reference(data, ids, 4, np.max, -np.inf)
    check_every_way(lambda d, i: rt.math.unsorted_segment_max(d, i, 4), high, data, ids)
    ints = np.array([3, -5, 7], np.int32)
    check_every_way(lambda d, i: rt.math.unsorted_segment_max(d, i, 3),
                    np.array([3, np.iinfo(np.int32).min, 7], np.int32), ints,
                    np.array([0, 0, 2], np.int32))
    check_every_way(lambda d, i: rt.math.unsorted_segment_max(d, i, 2),
                    np.full(2, -np.inf, np.float32), np.zeros(0, np.float32),
                    np.zeros(0, np.int32))
    with pytest.raises(TypeError, match="floating"):
        rt.math.unsorted_segment_mean(rt.constant([1, 2]), rt.constant([0, 0]), 1)


def check_staged(fn, expected, *arrays):
    """Eagerly and in rt.function: the sorted forms count their segments from the ids'
    values, a shape XLA cannot compile (jit_compile refuses it by name)."""
    tensors = [rt.constant(a) for a in arrays]
    for got in (fn(*tensors), rt.function(fn)(*tensors)):
        assert got.dtype.np_dtype == expected.dtype
        np.testing.assert_array_equal(got.numpy(), expected)
    if HAS_JAX:
        with pytest.raises(Exception, match="known only when the graph runs"):
            rt.function(fn, jit_compile=True)(*tensors)


def test_sorted_segment_ops_match_tensorflows_documented_examples():
    c = np.array([[1, 2, 3, 4], [4, 3, 2, 1], [5, 6, 7, 8]], np.int32)
    ids = np.array([0, 0, 1], np.int32)
    check_staged(rt.math.segment_sum, np.array([[5, 5, 5, 5], [5, 6, 7, 8]], np.int32), c, ids)
    data = np.array([1.0, 5.0, -2.0], np.float32)
    gap = np.array([0, 0, 2], np.int32)
    check_staged(rt.math.segment_mean, np.array([3.0, 0.0, -2.0], np.float32), data, gap)
    check_staged(rt.math.segment_max, np.array([5.0, 0.0, -2.0], np.float32), data, gap)
    check_staged(rt.math.segment_sum, np.zeros(0, np.float32), np.zeros(0, np.float32),
                 np.zeros(0, np.int32))
    for bad in ([1, 0, 2], [-1, 0, 0]):
        with pytest.raises(rt.errors.InvalidArgumentError, match="sorted"):
            rt.math.segment_sum(rt.constant(data), rt.constant(bad))
        with pytest.raises(rt.errors.InvalidArgumentError, match="sorted"):
            rt.function(rt.math.segment_sum)(rt.constant(data), rt.constant(bad))


def test_segment_gradients_match_finite_differences():
    ids = rt.constant([0, 2, 0, -1])
    assert_gradient(lambda d: rt.math.unsorted_segment_sum(d, ids, 3) * [1.0, 2.0, 3.0],
                    np.array([1.0, 2.0, 3.0, 4.0]))
    assert_gradient(lambda d: rt.math.unsorted_segment_mean(d, ids, 3) * [1.0, 2.0, 3.0],
                    np.array([1.0, 2.0, 3.0, 4.0]))
    every_segment = rt.constant([0, 2, 1, -1, 0])
    assert_gradient(lambda d: rt.math.unsorted_segment_max(d, every_segment, 3) * [1.0, 2.0, 3.0],
                    np.array([1.0, 2.0, 3.0, 4.0, 0.5]))


# -- repeat, band_part, in_top_k -------------------------------------------------------------

def test_repeat_matches_tensorflows_documented_examples_and_numpy():
    assert rt.repeat(rt.constant(["a", "b", "c"]), repeats=[3, 0, 2], axis=0).numpy().tolist() \
        == [b"a", b"a", b"a", b"c", b"c"]
    m = np.array([[1, 2], [3, 4]], np.int32)
    check_every_way(lambda x: rt.repeat(x, repeats=[2, 3], axis=0),
                    np.repeat(m, [2, 3], axis=0), m)
    check_every_way(lambda x: rt.repeat(x, repeats=[2, 3], axis=1),
                    np.repeat(m, [2, 3], axis=1), m)
    check_every_way(lambda x: rt.repeat(x, repeats=2), np.repeat(m, 2), m)
    assert rt.repeat(3, repeats=4).numpy().tolist() == [3, 3, 3, 3]
    x = np.array([np.nan, 1.0], np.float32)
    check_every_way(lambda t: rt.repeat(t, [0, 0]), np.zeros(0, np.float32), x)
    check_every_way(lambda t: rt.repeat(t, 3, axis=-1), np.repeat(x, 3), x)
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.repeat(rt.constant([1, 2]), [1, 2, 3])
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.repeat(rt.constant([1, 2]), [1, -1])
    assert_gradient(lambda t: rt.repeat(t, [2, 1, 3]) * np.arange(6.0), np.array([1.0, 2.0, 3.0]))


def test_repeat_with_counts_known_only_when_the_graph_runs():
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    spec = [rt.TensorSpec([None, 2], rt.float32), rt.TensorSpec([None], rt.int32)]
    f = rt.function(lambda t, r: rt.repeat(t, r, axis=0), input_signature=spec)
    for counts in ([1, 0, 2], [0, 0, 0], [3, 1, 1]):
        np.testing.assert_array_equal(f(x, np.int32(counts)).numpy(),
                                      np.repeat(x, counts, axis=0))
    g = rt.function(lambda t, r: rt.repeat(t, r),
                    input_signature=[rt.TensorSpec([None], rt.float32),
                                     rt.TensorSpec([], rt.int32)])
    np.testing.assert_array_equal(g(x[:, 0], np.int32(2)).numpy(), np.repeat(x[:, 0], 2))
    np.testing.assert_array_equal(g(np.zeros(0, np.float32), np.int32(2)).numpy(),
                                  np.zeros(0, np.float32))


def _band_reference(a, lower, upper):
    m, n = a.shape[-2:]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return np.where(keep, a, np.zeros_like(a))


def test_band_part_matches_tensorflows_documented_example_every_way():
    a = np.array([[0, 1, 2, 3], [-1, 0, 1, 2], [-2, -1, 0, 1], [-3, -2, -1, 0]], np.float32)
    check_every_way(lambda x: rt.linalg.band_part(x, 1, -1),
                    np.array([[0, 1, 2, 3], [-1, 0, 1, 2], [0, -1, 0, 1], [0, 0, -1, 0]],
                             np.float32), a)
    check_every_way(lambda x: rt.linalg.band_part(x, 2, 1),
                    np.array([[0, 1, 0, 0], [-1, 0, 1, 0], [-2, -1, 0, 1], [0, -2, -1, 0]],
                             np.float32), a)
    batch = np.random.default_rng(1).normal(size=(2, 3, 5)).astype(np.float32)
    batch[0, 0, 0] = np.nan
    for lower, upper in ((0, 0), (0, -1), (-1, 0), (1, 2), (-1, -1)):
        check_every_way(lambda x: rt.linalg.band_part(x, lower, upper),
                        _band_reference(batch, lower, upper), batch)
    check_every_way(lambda x, lo, up: rt.linalg.band_part(x, lo, up),
                    _band_reference(batch, 1, 0), batch, np.int64(1), np.int64(0))
    check_every_way(lambda x: rt.linalg.band_part(x, 0, 0), np.zeros((0, 3), np.int32),
                    np.zeros((0, 3), np.int32))
    assert_gradient(lambda x: rt.linalg.band_part(x, 0, 1) * np.arange(9.0).reshape(3, 3),
                    np.ones((3, 3)))
    for lower, upper in ((4, 0), (0, 6)):   # past the 3 x 5 matrices, as TensorFlow refuses
        with pytest.raises(rt.errors.InvalidArgumentError, match="at most"):
            rt.linalg.band_part(rt.constant(batch), lower, upper)
        with pytest.raises(rt.errors.InvalidArgumentError, match="at most"):
            rt.function(lambda x, lo, up: rt.linalg.band_part(x, lo, up))(
                rt.constant(batch), rt.constant(lower), rt.constant(upper))
    spec = rt.TensorSpec([None, None], rt.float32)
    unknown = rt.function(lambda x: rt.linalg.band_part(x, 2, -1), input_signature=[spec])
    np.testing.assert_array_equal(unknown(batch[0]).numpy(), _band_reference(batch[0], 2, -1))
    with pytest.raises(rt.errors.InvalidArgumentError, match="at most"):
        unknown(batch[0][:1])


def test_in_top_k_counts_ties_in_and_refuses_non_finite_and_out_of_range_targets():
    p = np.array([[0.1, 0.9, 0.5], [0.2, 0.2, 0.6], [1.0, np.nan, 3.0],
                  [np.inf, 1.0, 2.0], [0.3, 0.3, 0.3]], np.float32)
    t = np.array([1, 0, 0, 0, 2], np.int32)
    # row 1: 0.2 ties with another 0.2 beneath 0.6: one larger, in the top 2
    check_every_way(lambda x, y: rt.math.in_top_k(x, y, 2),
                    np.array([True, True, False, False, True]), t, p)
    check_every_way(lambda x, y: rt.math.in_top_k(x, y, 1),
                    np.array([True, False, False, False, True]), t, p)
    check_every_way(lambda x, y: rt.nn.in_top_k(x, y, 3),
                    np.array([False, False]), np.array([3, -1], np.int32), p[:2])
    check_every_way(lambda x, y: rt.nn.in_top_k(x, y, 1), np.zeros(0, bool),
                    np.zeros(0, np.int64), np.zeros((0, 3), np.float32))


# -- ONNX ------------------------------------------------------------------------------------

needs_onnx = pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None
                                or importlib.util.find_spec("onnx") is None,
                                reason="needs onnx and onnxruntime")


def _onnx_agrees(fn, *arrays):
    import onnxruntime as ort
    specs = [rt.TensorSpec([None] * np.ndim(a), rt.as_dtype(np.asarray(a).dtype)) for a in arrays]
    cf = rt.function(fn).get_concrete_function(*specs)
    session = ort.InferenceSession(rt.onnx.export(cf).SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    theirs = session.run(None, dict(zip(names, arrays)))
    ours = [np.asarray(t.numpy()) for t in rt.nest.flatten(cf(*[rt.constant(a) for a in arrays]))]
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert o.dtype == t.dtype and o.shape == t.shape
        np.testing.assert_allclose(t, o, rtol=1e-6, equal_nan=True)


@needs_onnx
def test_onnx_export_agrees_for_the_compositions_and_float32_ops():
    f = np.array([1.0, np.nan, -0.0, 0.5, np.inf, -3.0], np.float32)
    g = np.array([2.0, 0.0, 0.0, -1.0, 4.0, 0.5], np.float32)
    i = np.array([7, -7, 7, -7, 0, 5], np.int32)
    j = np.array([5, 5, -5, -5, 3, -2], np.int32)
    for fn, args in [
        (lambda x, y: rt.add_n([x, y, x]), (f, g)), (rt.math.divide_no_nan, (f, g)),
        (rt.math.squared_difference, (f, g)), (rt.math.count_nonzero, (f,)),
        (rt.math.truncatediv, (i, j)), (rt.math.atan, (f,)), (rt.math.asin, (g / 4,)),
        (rt.math.acos, (g / 4,)), (rt.math.sinh, (f,)), (rt.math.cosh, (f,)),
        (lambda m: rt.linalg.band_part(m, 0, -1), (np.arange(12, dtype=np.float32).reshape(3, 4),)),
        (lambda m: rt.repeat(m, [1, 0, 2], axis=1), (np.ones((2, 3), np.float32),)),
        (lambda x, y: rt.math.in_top_k(y, x, 2),
         (np.array([[0.1, 0.9, 0.5], [np.nan, 1.0, 2.0]], np.float32), np.int32([2, 0]))),
        (lambda d, s: rt.math.unsorted_segment_sum(d, s, 3), (f, np.int32([0, 2, -1, 2, 0, 1]))),
    ]:
        _onnx_agrees(fn, *args)


@needs_onnx
@pytest.mark.parametrize("fn, args, reason", [
    (rt.math.expm1, (np.float32([0.5]),), "expm1"),
    (rt.math.atan2, (np.float32([0.5]), np.float32([1.0])), "Atan2"),
    (lambda m: rt.linalg.slogdet(m)[1], (np.eye(2, dtype=np.float32),), "log-determinant"),
    (rt.math.atan, (np.float64([0.5]),), "float32 only"),
    (rt.bitwise.left_shift, (np.int32([1]), np.int32([2])), "bitwise"),
])
def test_onnx_export_refuses_the_others_by_name(fn, args, reason):
    specs = [rt.TensorSpec([None], rt.as_dtype(a.dtype)) if a.ndim == 1 else
             rt.TensorSpec([None, None], rt.as_dtype(a.dtype)) for a in args]
    cf = rt.function(fn).get_concrete_function(*specs)
    with pytest.raises(rt.onnx.ExportError, match=reason):
        rt.onnx.export(cf)


@pytest.mark.skipif(not HAS_JAX, reason="needs jax")
def test_repeat_with_run_time_counts_is_refused_by_jit_compile():
    f = rt.function(lambda t, r: rt.repeat(t, r), jit_compile=True)
    with pytest.raises(Exception, match="(?i)shape|boolean_mask|known"):
        f(rt.constant([1.0, 2.0]), rt.constant([1, 2]))
    assert every_way(lambda t: rt.repeat(t, [1, 2]), np.float32([1.0, 2.0]))["eager"][0].size == 3


@pytest.mark.parametrize("jit", [False, pytest.param(True, marks=pytest.mark.skipif(
    not HAS_JAX, reason="needs jax"))])
def test_one_trace_of_unknown_length_serves_every_length(jit):
    """Traced once with lengths unknown (input_signature), each name gives numpy's
    answer for empty, one-element and longer inputs."""
    vec = rt.TensorSpec([None], rt.float32)
    ids = rt.TensorSpec([None], rt.int32)
    fns = {
        "count_nonzero": (rt.function(lambda x: rt.math.count_nonzero(x), input_signature=[vec],
                                      jit_compile=jit), lambda x, i: np.int64(np.sum(x != 0))),
        "divide_no_nan": (rt.function(lambda x: rt.math.divide_no_nan(x, x - 1.0),
                                      input_signature=[vec], jit_compile=jit),
                          lambda x, i: np.where(x == 1, 0, x / np.where(x == 1, 1, x - 1))),
        "add_n": (rt.function(lambda x: rt.add_n([x, x, x]), input_signature=[vec],
                              jit_compile=jit), lambda x, i: x + x + x),
        "segment_sum": (rt.function(lambda x, s: rt.math.unsorted_segment_sum(x, s, 3),
                                    input_signature=[vec, ids], jit_compile=jit),
                        lambda x, i: _segment_reference(x, i, 3, np.sum, 0)),
        "segment_max": (rt.function(lambda x, s: rt.math.unsorted_segment_max(x, s, 3),
                                    input_signature=[vec, ids], jit_compile=jit),
                        lambda x, i: _segment_reference(x, i, 3, np.max, -np.inf)),
        "atan2": (rt.function(lambda x: rt.math.atan2(x, x - 0.5), input_signature=[vec],
                              jit_compile=jit), lambda x, i: np.arctan2(x, x - 0.5)),
    }
    for n in (0, 1, 5):
        x = np.array([0.0, np.nan, 1.0, -2.5, 3.0][:n], np.float32)
        i = np.array([2, 0, -1, 2, 1][:n], np.int32)
        for name, (fn, want) in fns.items():
            args = (x, i) if name.startswith("segment") else (x,)
            with np.errstate(all="ignore"):
                expected = np.asarray(want(x, i)).astype(fn(*args).numpy().dtype)
            np.testing.assert_allclose(fn(*args).numpy(), expected, rtol=1e-6, equal_nan=True,
                                       err_msg=f"{name} n={n}")


def test_segment_max_splits_the_gradient_among_ties_as_tensorflow():
    x = rt.constant([3.0, 3.0, 1.0, 2.0], rt.float64)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(rt.math.unsorted_segment_max(x, rt.constant([0, 0, 0, 1]), 3))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.5, 0.5, 0.0, 1.0])


def test_the_new_ops_survive_saving_and_loading(tmp_path):
    @rt.function(input_signature=[rt.TensorSpec([None, 2, 2], rt.float32),
                                  rt.TensorSpec([None], rt.int32)])
    def program(m, bits):
        sign, logdet = rt.linalg.slogdet(m)
        flat = rt.reshape(m, [-1])
        return (sign, logdet, rt.math.atan2(flat, flat + 1.0), rt.math.expm1(flat),
                rt.math.atan(flat) + rt.math.asin(flat / 10.0) + rt.math.acos(flat / 10.0)
                + rt.math.sinh(flat) + rt.math.cosh(flat) + rt.math.erf(flat),
                rt.bitwise.left_shift(bits, 3), rt.bitwise.right_shift(bits, 40))
    rt.saved.save(program, str(tmp_path / "m"))
    loaded = rt.saved.load(str(tmp_path / "m"))
    m = np.array([[[1.0, 2.0], [3.0, -4.0]], [[np.nan, 0.0], [0.0, 1.0]]], np.float32)
    bits = np.array([1, -9, 0], np.int32)
    for got, want in zip(loaded.program(m, bits), program(m, bits)):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
