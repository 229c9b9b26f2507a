"""Dataset.window against tf.data's semantics (its documented examples, and a plain-Python
reference of the definition: window k holds the positions k*shift + j*stride, j < size,
that exist, for every k with k*shift a position; drop_remainder keeps full ones), eagerly,
inside rt.function and under jit_compile; Dataset.range(output_type=) and rt.fill of
int64 dims."""
import numpy as np
import pytest

import runtime as rt

try:
    import jax  # noqa: F401
    HAVE_JAX = True
except ImportError:  # pragma: no cover - the jax extra is optional
    HAVE_JAX = False


def ref_windows(xs, size, shift=None, stride=1, drop_remainder=False):
    xs, shift, out, k = list(xs), shift or size, [], 0
    while k * shift < len(xs):
        last = k * shift + (size - 1) * stride
        if drop_remainder and last >= len(xs):
            break
        out.append([xs[p] for p in range(k * shift, min(last + 1, len(xs)), stride)])
        k += 1
    return out


def _py(x):
    return np.asarray(x).tolist()


def eager_windows(ds):
    return [[_py(x) for x in w] for w in ds]


def batched(ds, size):
    """window(...).flat_map(lambda w: w.batch(size)), eagerly."""
    return [_py(b) for b in ds.flat_map(lambda w: w.batch(size)).as_numpy_iterator()]


# -- tf.data's documented examples -----------------------------------------------------

def test_documented_examples():
    ds = rt.data.Dataset.range(7)
    assert eager_windows(ds.window(3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert eager_windows(ds.window(3, 2, 1, True)) == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
    assert eager_windows(ds.window(3, 1, 2, True)) == [[0, 2, 4], [1, 3, 5], [2, 4, 6]]
    for args in ((3,), (3, 2, 1, True), (3, 1, 2, True), (3, 1)):
        assert eager_windows(ds.window(*args)) == ref_windows(range(7), *args)


def test_documented_tuple_and_dict_examples():
    ds = rt.data.Dataset.from_tensor_slices(([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]))
    got = [(eager_windows([a])[0], eager_windows([b])[0]) for a, b in ds.window(2)]
    assert got == [([1, 2], [6, 7]), ([3, 4], [8, 9]), ([5], [10])]
    d = rt.data.Dataset.from_tensor_slices({"a": [1, 2, 3], "b": [4, 5, 6], "c": [7, 8, 9]})
    got = [{k: [int(x) for x in w] for k, w in e.items()} for e in d.window(2)]
    assert got == [{"a": [1, 2], "b": [4, 5], "c": [7, 8]}, {"a": [3], "b": [6], "c": [9]}]
    spec = d.window(2).element_spec
    assert sorted(spec) == ["a", "b", "c"]
    assert spec["a"].element_spec == rt.TensorSpec([], rt.int32)


# -- the definition, on a grid ----------------------------------------------------------

CASES = [(n, size, shift, stride, drop)
         for n in (0, 1, 7)
         for size, shift, stride in ((1, None, 1), (3, None, 1), (3, 1, 1), (2, 5, 1),
                                     (3, 2, 2), (2, 1, 3), (4, 6, 2))
         for drop in (False, True)]


@pytest.mark.parametrize("n,size,shift,stride,drop", [
    case if case[0] == 0 or case[0] == 7 and not case[4] else
    pytest.param(*case, marks=pytest.mark.slow) for case in CASES])
def test_matches_definition(n, size, shift, stride, drop):
    ds = rt.data.Dataset.range(n).window(size, shift, stride, drop)
    want = ref_windows(range(n), size, shift, stride, drop)
    assert batched(ds, size) == want
    assert int(ds.cardinality()) == len(want)


@pytest.mark.parametrize("n,size,shift,stride,drop",
                         [c for c in CASES if c[0] == 7] + [(0, 3, 1, 1, False)])
def test_inside_function(n, size, shift, stride, drop):
    want = ref_windows(range(n), size, shift, stride, drop)

    @rt.function
    def total():
        ds = rt.data.Dataset.range(n).window(size, shift, stride, drop)
        s = rt.constant(0, rt.int64)
        for b in ds.flat_map(lambda w: w.batch(size)):
            s = s * 100 + rt.reduce_sum(b) * 10 + rt.size(b, out_type=rt.int64)
        return s

    expect = 0
    for w in want:
        expect = expect * 100 + sum(w) * 10 + len(w)
    assert int(total()) == expect


def test_nonrange_input_and_filter():
    """A source without random access (filter): the windows come from a staged buffer."""
    ds = rt.data.Dataset.range(20).filter(lambda x: x % 3 == 0).window(3, 2, 1)
    assert batched(ds, 3) == ref_windows(range(0, 20, 3), 3, 2, 1)
    assert int(ds.cardinality()) == rt.data.UNKNOWN_CARDINALITY


@pytest.mark.skipif(not HAVE_JAX, reason="JAX is not installed")
def test_jit_compile_full_windows():
    def total():
        s = rt.constant(0, rt.int64)
        ds = rt.data.Dataset.range(9).window(4, 2, drop_remainder=True)
        for b in ds.flat_map(lambda w: w.batch(4, drop_remainder=True)):
            s = s * 100 + rt.reduce_sum(b)
        return s
    expect = 0
    for w in ref_windows(range(9), 4, 2, 1, True):
        expect = expect * 100 + sum(w)
    assert int(rt.function(total, jit_compile=True)()) == expect
    assert int(rt.function(total)()) == expect


def test_tuple_windows_zip_inside_function():
    xs, ys = [1, 2, 3, 4, 5], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0], [9.0, 0.5]]
    ds = rt.data.Dataset.from_tensor_slices((xs, ys)).window(2, 1, drop_remainder=True)
    flat = ds.flat_map(lambda a, b: rt.data.Dataset.zip((a.batch(2), b.batch(2))))
    want = list(zip(ref_windows(xs, 2, 1, 1, True), ref_windows(ys, 2, 1, 1, True)))
    assert [(_py(a), _py(b)) for a, b in flat.as_numpy_iterator()] == want

    @rt.function
    def sums():
        s = rt.constant(0.0)
        for a, b in flat:
            s = s * 10.0 + rt.cast(rt.reduce_sum(a), rt.float32) + rt.reduce_sum(b)
        return s
    expect = 0.0
    for a, b in want:
        expect = expect * 10.0 + sum(a) + float(np.sum(b))
    assert float(sums()) == pytest.approx(expect, rel=1e-5)


def test_windows_iterated_inside_function():
    @rt.function
    def digits():
        s = rt.constant(0, rt.int64)
        for w in rt.data.Dataset.range(1, 8).window(3, 2):
            for x in w:
                s = s * 10 + x
            s = s * 10
        return s
    expect = 0
    for w in ref_windows(range(1, 8), 3, 2):
        for x in w:
            expect = expect * 10 + x
        expect *= 10
    assert int(digits()) == expect


# -- what does not work says what does ------------------------------------------------------

def test_other_uses_name_what_works():
    ds = rt.data.Dataset.range(7).window(3)
    with pytest.raises(TypeError, match="flat_map"):
        ds.map(lambda w: w)
    with pytest.raises(TypeError, match="flat_map"):
        ds.batch(2)
    with pytest.raises(TypeError, match="flat_map"):
        rt.function(lambda: ds.window(2))()


@pytest.mark.parametrize("args", [(0,), (2, 0), (2, 1, 0), (-1,)])
def test_counts_must_be_positive(args):
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.data.Dataset.range(3).window(*args)


# -- range(output_type=) and fill of int64 dims -------------------------------------------

@pytest.mark.parametrize("dtype", [rt.int32, rt.int64, rt.float32])
def test_range_output_type(dtype):
    ds = rt.data.Dataset.range(1, 7, 2, output_type=dtype)
    assert ds.element_spec.dtype is dtype
    assert [float(x) for x in ds] == [float(v) for v in range(1, 7, 2)]
    assert rt.data.Dataset.range(3, dtype=dtype).element_spec.dtype is dtype
    with pytest.raises(TypeError, match="output_type"):
        rt.data.Dataset.range(3, output_type=dtype, dtype=rt.int16)


@pytest.mark.parametrize("dims", [[2, 3], [0, 4], [1]])
def test_fill_int64_dims(dims):
    want = np.full(dims, 7.5, np.float32)
    d64 = rt.constant(dims, rt.int64)
    assert np.array_equal(rt.fill(d64, 7.5).numpy(), want)
    assert np.array_equal(rt.fill(np.array(dims, np.int64), 7.5).numpy(), want)
    for jit in (False, True) if HAVE_JAX else (False,):
        f = rt.function(lambda d: rt.fill(d, 7.5), jit_compile=jit)
        if jit:
            f = rt.function(lambda x: rt.fill(rt.shape(x, out_type=rt.int64), 7.5),
                            jit_compile=True)
            assert np.array_equal(f(rt.zeros(dims)).numpy(), want)
        else:
            assert np.array_equal(f(d64).numpy(), want)
