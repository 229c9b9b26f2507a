"""gather_nd, scatter_nd, tensor_scatter_nd_update/add, reduce_logsumexp, top_k, linspace,
reverse, roll, unique, sequence_mask and is_nan/is_inf/is_finite against numpy references,
every way a program runs (tests/agreement.py: eager, rt.function, unknown dimensions,
jit_compile, ONNX), on ordinary, empty, one-row and NaN inputs, and their errors."""
import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError
from tests.agreement import HAVE_JAX, HAVE_ONNX, agree

RNG = np.random.default_rng(7)
ONNX = "required"   # these functions must export (where onnx and onnxruntime are installed)
P = RNG.normal(size=(4, 3, 2)).astype(np.float32)


def np_gather_nd(params, indices):
    k = indices.shape[-1]
    rows = indices.reshape(-1, k)
    out = np.stack([params[tuple(r)] for r in rows]) if len(rows) else \
        np.zeros((0,) + params.shape[k:], params.dtype)
    return out.reshape(indices.shape[:-1] + params.shape[k:])


def np_scatter_add(base, indices, updates):
    out = base.copy()
    k = indices.shape[-1]
    rows = indices.reshape(-1, k)
    values = updates.reshape((len(rows),) + base.shape[k:])
    for r, v in zip(rows, values):
        out[tuple(r)] += v
    return out


# -- gather_nd ----------------------------------------------------------------------------

@pytest.mark.parametrize("indices", [
    np.array([[3, 2, 1], [0, 0, 0], [3, 2, 1]], np.int32),       # full tuples, repeated
    np.array([[[1, 2]], [[0, 1]]], np.int64),                   # slices, nested batch
    np.array([[2], [0]], np.int32),                             # k=1: whole rows
    np.zeros((0, 2), np.int32),                                 # no tuples
])
def test_gather_nd_matches_numpy_every_way(indices):
    fn = lambda p, i: rt.gather_nd(p, i)  # noqa: E731
    outs = agree(fn, (P, indices))
    np.testing.assert_array_equal(outs[0].values[0], np_gather_nd(P, indices))


def test_gather_nd_index_depth_zero_repeats_params():
    got = rt.gather_nd(rt.constant(P), np.zeros((3, 0), np.int32))
    np.testing.assert_array_equal(got.numpy(), np.stack([P] * 3))
    agree(lambda p, i: rt.gather_nd(p, i), (P, np.zeros((2, 0), np.int32)), which=("given",))


def test_gather_nd_batch_dims_matches_a_loop_over_the_batch():
    params = RNG.normal(size=(2, 3, 4)).astype(np.float32)
    indices = np.array([[[2, 1], [0, 3]], [[1, 1], [2, 0]]], np.int32)
    want = np.stack([np_gather_nd(params[b], indices[b]) for b in range(2)])
    outs = agree(lambda p, i: rt.gather_nd(p, i, batch_dims=1), (params, indices),
                 which=("given",))
    np.testing.assert_array_equal(outs[0].values[0], want)
    idx1 = np.array([[1], [2]], np.int32)
    want1 = np.stack([np_gather_nd(params[b], idx1[b]) for b in range(2)])
    np.testing.assert_array_equal(rt.gather_nd(params, idx1, batch_dims=1).numpy(), want1)


@pytest.mark.parametrize("bad", [[[4, 0, 0]], [[0, 3, 0]], [[-1, 0, 0]]])
def test_gather_nd_out_of_range_raises_every_way(bad):
    bad = np.array(bad, np.int32)
    with pytest.raises(InvalidArgumentError, match="does not index into shape"):
        rt.gather_nd(P, bad)
    agree(lambda p, i: rt.gather_nd(p, i), (P, bad), which=("given",))   # all raise


# -- scatter_nd and tensor_scatter_nd_* -----------------------------------------------------

def test_scatter_nd_adds_duplicates_as_tensorflow():
    indices = np.array([[1], [3], [1], [0]], np.int32)
    updates = RNG.normal(size=(4, 3)).astype(np.float32)
    fn = lambda i, u: rt.scatter_nd(i, u, [5, 3])  # noqa: E731
    outs = agree(fn, (indices, updates), onnx=ONNX)
    np.testing.assert_allclose(outs[0].values[0],
                               np_scatter_add(np.zeros((5, 3), np.float32), indices, updates),
                               rtol=1e-6)


def test_scatter_nd_full_tuples_and_errors():
    indices = np.array([[0, 1], [2, 2], [0, 1]], np.int64)
    updates = np.array([1, 2, 3], np.int32)
    got = rt.scatter_nd(indices, updates, [3, 3]).numpy()
    np.testing.assert_array_equal(got, np_scatter_add(np.zeros((3, 3), np.int32), indices,
                                                      updates))
    agree(lambda i, u: rt.scatter_nd(i, u, [3, 3]), (indices, updates), which=("given",))
    with pytest.raises(InvalidArgumentError):
        rt.scatter_nd([[3, 0]], [1], [3, 3])
    with pytest.raises(InvalidArgumentError):
        rt.scatter_nd([[0]], [[1, 2]], [3, 3])   # updates of the wrong shape


def test_tensor_scatter_nd_update_and_add():
    base = RNG.normal(size=(4, 2)).astype(np.float32)
    indices = np.array([[3], [0]], np.int32)
    updates = RNG.normal(size=(2, 2)).astype(np.float32)
    want = base.copy()
    want[[3, 0]] = updates
    outs = agree(lambda t, i, u: rt.tensor_scatter_nd_update(t, i, u), (base, indices, updates),
                 onnx=ONNX)
    np.testing.assert_array_equal(outs[0].values[0], want)
    dup = np.array([[1], [1], [2]], np.int32)
    more = RNG.normal(size=(3, 2)).astype(np.float32)
    outs = agree(lambda t, i, u: rt.tensor_scatter_nd_add(t, i, u), (base, dup, more), onnx=ONNX)
    np.testing.assert_allclose(outs[0].values[0], np_scatter_add(base, dup, more), rtol=1e-6)
    with pytest.raises(InvalidArgumentError):
        rt.tensor_scatter_nd_update(base, [[4]], updates[:1])


# -- reduce_logsumexp ---------------------------------------------------------------------

def np_logsumexp(x, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True) if x.size else np.array(-np.inf, x.dtype)
    m = np.where(np.isfinite(m), m, 0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis) if axis is not None else \
        out.reshape(())


@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, False), (0, True), (-1, True),
                                           ((0, 1), False)])
def test_reduce_logsumexp_matches_a_shifted_reference(axis, keepdims):
    x = np.array([[0.0, 1.0, 1000.0], [-np.inf, -np.inf, -np.inf], [np.inf, 1.0, 2.0],
                  [-1e4, -1e4 + 1, 3.0]], np.float32)
    fn = lambda t: rt.reduce_logsumexp(t, axis=axis, keepdims=keepdims)  # noqa: E731
    outs = agree(fn, (x,), onnx=ONNX)
    np.testing.assert_allclose(outs[0].values[0], np_logsumexp(x, axis, keepdims), rtol=1e-6)
    assert np.isfinite(rt.reduce_logsumexp(x[:1], axis=1).numpy()).all()   # no overflow


def test_reduce_logsumexp_of_nothing_is_minus_infinity():
    assert rt.reduce_logsumexp(np.zeros((0,), np.float32)).numpy() == -np.inf
    with pytest.raises(TypeError):
        rt.reduce_logsumexp(rt.constant([1, 2]))


# -- top_k -------------------------------------------------------------------------------

def np_top_k(x, k):
    order = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, -1), order.astype(np.int32)


@pytest.mark.parametrize("k", [0, 1, 3, 5])
def test_top_k_values_and_indices_ties_lower_index_first(k):
    x = np.array([[1.0, 3.0, 2.0, 3.0, 0.5], [4.0, 4.0, 4.0, -1.0, 4.0]], np.float32)
    outs = agree(lambda t: tuple(rt.math.top_k(t, k=k)), (x,), which=("given", "empty", "one"),
                 onnx=ONNX)
    values, indices = np_top_k(x, k)
    np.testing.assert_array_equal(outs[0].values[0], values)
    np.testing.assert_array_equal(outs[0].values[1], indices)


def test_top_k_counts_nan_as_the_largest_as_sort_does():
    x = np.array([[1.0, np.nan, 3.0, np.nan, -np.inf], [2.0, 2.0, np.inf, 0.0, 1.0]], np.float32)
    outs = agree(lambda t: tuple(rt.math.top_k(t, k=3)), (x,), which=("given",), onnx=ONNX)
    for row, values, indices in zip(x, *outs[0].values):
        order = sorted(range(len(row)), key=lambda j: (not np.isnan(row[j]),
                                                       0.0 if np.isnan(row[j]) else -row[j], j))
        np.testing.assert_array_equal(indices, order[:3])
        np.testing.assert_array_equal(values, row[order[:3]])
    np.testing.assert_array_equal(outs[0].values[0],
                                  rt.sort(x, direction="DESCENDING").numpy()[:, :3])


def test_top_k_result_fields_and_errors():
    r = rt.math.top_k(rt.constant([5, 1, 7]), k=2)
    assert r.values.numpy().tolist() == [7, 5] and r.indices.numpy().tolist() == [2, 0]
    with pytest.raises(InvalidArgumentError, match="at least k"):
        rt.math.top_k(rt.constant([1.0, 2.0]), k=3)
    # too few columns, known only when the graph runs: every way raises
    agree(lambda t: tuple(rt.math.top_k(t, k=3)), (np.ones((2, 2), np.float32),),
          which=("given",))
    with pytest.raises(InvalidArgumentError):
        rt.math.top_k(rt.constant(1.0))


# -- linspace ----------------------------------------------------------------------------

@pytest.mark.parametrize("num", [0, 1, 2, 7])
def test_linspace_matches_numpy(num):
    fn = lambda a, b: rt.linspace(a, b, num)  # noqa: E731
    start, stop = np.array(-2.0, np.float32), np.array(3.0, np.float32)
    outs = agree(fn, (start, stop), onnx=ONNX)
    np.testing.assert_allclose(outs[0].values[0], np.linspace(-2.0, 3.0, num), rtol=1e-6)
    if num >= 2:
        assert outs[0].values[0][-1] == 3.0 and outs[0].values[0][0] == -2.0


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_linspace_of_vectors_along_an_axis(axis):
    start = np.array([0.0, 10.0, -1.0], np.float64)
    stop = np.array([1.0, 20.0, -5.0], np.float64)
    fn = lambda a, b: rt.linspace(a, b, 4, axis=axis)  # noqa: E731
    outs = agree(fn, (start, stop), which=("given", "nan"))
    np.testing.assert_allclose(outs[0].values[0], np.linspace(start, stop, 4, axis=axis))


def test_linspace_num_as_a_tensor_and_errors():
    f = rt.function(lambda n: rt.linspace(0.0, 1.0, n))
    for n in (1, 3, 5):
        np.testing.assert_allclose(f(rt.constant(n)).numpy(), np.linspace(0, 1, n), rtol=1e-6)
    with pytest.raises(TypeError):
        rt.linspace(rt.constant(0), rt.constant(1), 3)


# -- reverse, roll -----------------------------------------------------------------------

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("axis", [[0], [1], [-1], [0, 2], []])
def test_reverse_matches_numpy_flip(axis):
    outs = agree(lambda t: rt.reverse(t, axis), (X,), onnx=ONNX)
    np.testing.assert_array_equal(outs[0].values[0], np.flip(X, axis=tuple(axis)))


def test_reverse_errors():
    with pytest.raises(InvalidArgumentError):
        rt.reverse(X, [3])
    with pytest.raises(InvalidArgumentError):
        rt.reverse(X, [1, -2])


@pytest.mark.parametrize("shift,axis", [(1, 0), (-2, 2), (7, 1), (0, 1), ([1, 2], [0, 2]),
                                        ([1, -1], [1, 1])])
def test_roll_matches_numpy(shift, axis):
    outs = agree(lambda t: rt.roll(t, shift, axis), (X,), onnx=ONNX)
    np.testing.assert_array_equal(outs[0].values[0],
                                  np.roll(X, shift, axis=tuple(np.atleast_1d(axis))))


def test_roll_by_a_tensor_shift():
    fn = lambda t, s: rt.roll(t, s, 2)  # noqa: E731
    for s in (-5, 0, 3, 9):
        outs = agree(fn, (X, np.array(s, np.int32)), which=("given", "empty"), onnx="skip")
        np.testing.assert_array_equal(outs[0].values[0], np.roll(X, s, axis=2))


# -- unique ------------------------------------------------------------------------------

def np_unique_first_order(x):
    values, first = [], {}
    idx = []
    for v in x.tolist():
        if v != v:           # NaN: a value of its own
            values.append(v)
            idx.append(len(values) - 1)
            continue
        if v not in first:
            first[v] = len(values)
            values.append(v)
        idx.append(first[v])
    return np.array(values, x.dtype), np.array(idx, np.int32)


@pytest.mark.parametrize("x", [np.array([4, 1, 4, 2, 1, 7], np.int32),
                               np.array([2.5, -1.0, 2.5, np.nan, 0.0, np.nan], np.float32),
                               np.array([], np.int64), np.array([3.0], np.float64)])
def test_unique_keeps_first_occurrence_order(x):
    outs = agree(lambda t: tuple(rt.unique(t)), (x,), jit="refuses")
    y, idx = np_unique_first_order(x)
    np.testing.assert_array_equal(outs[0].values[0], y)
    np.testing.assert_array_equal(outs[0].values[1], idx)


def test_unique_out_idx_and_fields():
    r = rt.unique(rt.constant([5, 5, 3]), out_idx=rt.int64)
    assert r.idx.dtype is rt.int64 and r.y.numpy().tolist() == [5, 3]
    with pytest.raises(InvalidArgumentError):
        rt.unique(rt.constant([[1, 2]]))


# -- sequence_mask -----------------------------------------------------------------------

@pytest.mark.parametrize("lengths", [np.array([1, 3, 0, 2], np.int32),
                                     np.array([[2, 0], [4, 1]], np.int64)])
def test_sequence_mask_matches_a_comparison(lengths):
    outs = agree(lambda n: rt.sequence_mask(n, 5), (lengths,), onnx=ONNX)
    np.testing.assert_array_equal(outs[0].values[0], np.arange(5) < lengths[..., None])
    outs = agree(lambda n: rt.sequence_mask(n, 4, dtype=rt.float32), (lengths,))
    np.testing.assert_array_equal(outs[0].values[0],
                                  (np.arange(4) < lengths[..., None]).astype(np.float32))


def test_sequence_mask_without_maxlen_uses_the_longest():
    lengths = np.array([1, 3, 0], np.int32)
    outs = agree(lambda n: rt.sequence_mask(n), (lengths,), jit="refuses")  # data-sized
    np.testing.assert_array_equal(outs[0].values[0], np.arange(3) < lengths[:, None])
    assert rt.sequence_mask(np.array([], np.int32)).shape.as_list() == [0, 0]


# -- is_nan, is_inf, is_finite -------------------------------------------------------------

@pytest.mark.parametrize("fn,ref", [(rt.math.is_nan, np.isnan), (rt.math.is_inf, np.isinf),
                                    (rt.math.is_finite, np.isfinite)])
def test_float_classes_match_numpy(fn, ref):
    x = np.array([[0.0, -0.0, np.inf], [-np.inf, np.nan, 1e38], [-3.5, 1e-45, np.nan]],
                 np.float32)
    outs = agree(lambda t: fn(t), (x,), onnx=ONNX)
    np.testing.assert_array_equal(outs[0].values[0], ref(x))
    with pytest.raises(TypeError):
        fn(rt.constant([1, 2]))


@pytest.mark.skipif(not HAVE_JAX, reason="jit_compile needs JAX")
def test_jit_compile_scatter_needs_a_known_shape():
    f = rt.function(lambda i, u, s: rt.scatter_nd(i, u, s), jit_compile=True)
    with pytest.raises(Exception, match="known only when the graph runs"):
        f(rt.constant([[0]]), rt.constant([1.0]), rt.constant([3]))


@pytest.mark.skipif(not HAVE_ONNX, reason="needs onnx and onnxruntime")
@pytest.mark.parametrize("batch_dims,indices", [
    (0, np.array([[3, 2], [0, 1], [3, 2]], np.int32)),
    (0, np.array([[[1, 0, 1]], [[2, 2, 0]]], np.int64)),
    (1, np.array([[2], [0], [1], [1]], np.int32)),
])
def test_gather_nd_exports_to_onnx_with_a_known_tuple_length(batch_dims, indices):
    import onnxruntime as ort
    fn = lambda p, i: rt.gather_nd(p, i, batch_dims=batch_dims)  # noqa: E731
    sig = [rt.TensorSpec([None] * P.ndim, rt.float32),
           rt.TensorSpec([None] * (indices.ndim - 1) + [indices.shape[-1]],
                         rt.as_dtype(indices.dtype))]
    model = rt.onnx.export(rt.function(fn).get_concrete_function(*sig))
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    got = session.run(None, dict(zip(names, [P, indices])))[0]
    np.testing.assert_array_equal(got, fn(P, indices).numpy())
    bad = indices.copy()
    bad.reshape(-1)[0] = -1     # ONNX would count it from the end; ours raises
    with pytest.raises(Exception, match="negative index"):
        session.run(None, dict(zip(names, [P, bad])))
