"""rt.data's fast paths give the elements of the per-element ones: a map vectorised over
tensor slices and batches (only where its function is elementwise), and a buffered
shuffle of a known length computed as one order per epoch (against the same buffer run
element by element over an input of unknown length, and the buffer's definition)."""
import numpy as np
import pytest

import runtime as rt
from runtime.data.shuffle_order import buffer_order, reference_order
from runtime.data.vectorize import vectorized

D = rt.data.Dataset


def values(ds):
    return [np.asarray(v).tolist() for v in ds.as_numpy_iterator()]


def staged_values(ds, spec):
    """The batches of `ds` read by a staged `for` in an rt.function, stacked."""
    @rt.function
    def collect():
        out = rt.zeros([0] + spec, rt.float32)
        for b in ds:
            out = rt.concat([out, rt.cast(b, rt.float32)], 0)
        return out
    return collect().numpy()


X = np.random.default_rng(0).standard_normal((37, 3)).astype(np.float32)


@pytest.mark.parametrize("fn, ref, fused", [
    (lambda v: v * 2 + 1, lambda x: x * 2 + 1, True),
    (lambda v: rt.abs(v) - rt.constant([1.0, 2.0, 3.0]), lambda x: np.abs(x) - [1, 2, 3], True),
    (lambda v: v * rt.reduce_sum(v), lambda x: x * x.sum(-1, keepdims=True), False),
    (lambda v: rt.reverse(v, [0]), lambda x: x[..., ::-1], False),
    (lambda v: rt.reshape(v, [3, 1]) + 0, lambda x: x[..., None], False),
])
def test_map_gives_each_elements_value_fused_or_not(fn, ref, fused):
    ds = D.from_tensor_slices(X).map(fn)
    assert hasattr(ds, "_vget") == fused
    np.testing.assert_allclose(np.array(values(ds)), ref(X), rtol=1e-6)
    np.testing.assert_allclose(np.concatenate(values(ds.batch(5))), ref(X), rtol=1e-6)
    got = staged_values(ds.batch(8), list(ref(X).shape[1:]))
    np.testing.assert_allclose(got, ref(X), rtol=1e-6)


def test_map_with_a_print_or_python_side_effect():
    calls = []

    def noisy(v):
        calls.append(1)                  # Python: runs when traced, once
        return v + 1
    ds = D.from_tensor_slices(X[:, 0]).map(noisy).batch(4)
    assert np.allclose(np.concatenate(values(ds)), X[:, 0] + 1) and len(calls) == 1
    printing = D.from_tensor_slices([1, 2]).map(lambda v: rt.print(v) or v * 3)
    assert not hasattr(printing, "_vget")          # a print stays once per element
    assert values(printing) == [3, 6]


def test_nested_elements_fuse_and_keep_their_structure():
    a, b = X[:, 0], np.arange(37, dtype=np.int32)
    ds = D.from_tensor_slices((a, {"k": b})).map(lambda x, d: {"y": x * 2, "z": (d["k"] + 1,)})
    assert hasattr(ds, "_vget")
    got = list(ds.batch(10).as_numpy_iterator())
    np.testing.assert_allclose(np.concatenate([g["y"] for g in got]), a * 2)
    assert np.concatenate([g["z"][0] for g in got]).tolist() == (b + 1).tolist()


def test_unknown_length_after_filter_and_empty_inputs():
    ds = D.from_tensor_slices(X[:, 0]).filter(lambda v: v > 0).map(lambda v: v * 2).batch(3)
    np.testing.assert_allclose(np.concatenate(values(ds)), X[:, 0][X[:, 0] > 0] * 2)
    empty = D.from_tensor_slices(np.zeros((0, 3), np.float32)).map(lambda v: v - 1)
    assert values(empty.batch(2)) == [] and values(empty.shuffle(4, seed=1).batch(2)) == []
    assert staged_values(empty.shuffle(4, seed=1).batch(2), [3]).shape == (0, 3)


def test_vectorized_refuses_captured_tensors():
    scale = rt.constant(2.0)
    traced = D.from_tensor_slices([1.0]).map(lambda v: v * scale)._fn
    assert vectorized(traced) is None or np.allclose(values(
        D.from_tensor_slices([1.0, 2.0]).map(lambda v: v * scale)), [2.0, 4.0])


@pytest.mark.parametrize("n, b", [(10, 3), (17, 16), (50, 2), (64, 1), (300, 37)])
def test_buffer_order_is_the_buffers_definition(n, b):
    from runtime.data.shuffle import _M, _powers
    x = 12345
    got = buffer_order(rt.constant(_powers(n) * x % _M), n, b).numpy().tolist()
    assert got == reference_order(x, n, b)


@pytest.mark.parametrize("n, b, seed", [(20, 5, 3), (100, 7, 1), (64, 63, 9)])
def test_shuffle_order_matches_the_element_by_element_buffer(n, b, seed):
    known = D.range(n).shuffle(b, seed=seed)
    unknown = D.range(n).filter(lambda v: v >= 0).shuffle(b, seed=seed)   # elements buffered
    first, second = values(known), values(known)
    assert first == values(unknown) and second == values(unknown)    # epoch by epoch
    assert sorted(first) == list(range(n)) and first != second
    x = np.arange(n, dtype=np.float32)
    pipe = D.from_tensor_slices(x).map(lambda v: v * 2 + 1).shuffle(b, seed=seed).batch(8)
    ref = D.range(n).filter(lambda v: v >= 0).shuffle(b, seed=seed)
    order = values(ref)
    assert np.concatenate(values(pipe)).tolist() == (x[order] * 2 + 1).tolist()
    staged = staged_values(D.from_tensor_slices(x).map(lambda v: v * 2 + 1).shuffle(
        b, seed=seed).batch(8), [])
    staged_ref = staged_values(D.from_tensor_slices(x).filter(lambda v: v >= 0).map(
        lambda v: v * 2 + 1).shuffle(b, seed=seed).batch(8), [])
    assert staged.tolist() == staged_ref.tolist()
