"""rt.data pipelines over data of any length, differentially: the same program eagerly,
staged on the numpy backend with the length unknown while tracing (`TensorSpec([None])`)
and known, and under jit_compile=True; with no, one and several rows. Also saved and
exported to ONNX, and the iterator protocol (`iter(ds)` given to or made in a function)."""
from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

D = rt.data.Dataset
ANY = [rt.TensorSpec([None], rt.float32)]
SIZES = (0, 1, 5, 6)

PIPELINES = {
    "plain": lambda d: d,
    "map": lambda d: d.map(lambda v: v * 2 + 1),
    "filter": lambda d: d.filter(lambda v: v > 2),
    "batch": lambda d: d.batch(2),
    "batch_drop": lambda d: d.batch(2, drop_remainder=True),
    "batch_more_than_all": lambda d: d.batch(8),
    "shuffle_full": lambda d: d.shuffle(10, seed=5),
    "shuffle_buffer": lambda d: d.shuffle(2, seed=5),
    "take_skip": lambda d: d.skip(1).take(3),
    "take_all": lambda d: d.take(-1),
    "repeat": lambda d: d.repeat(2),
    "repeat_forever_take": lambda d: d.repeat().take(7),
    "zip": lambda d: D.zip((d, d.map(lambda v: v * v))),
    "enumerate": lambda d: d.enumerate(1),
    "prefetch_cache": lambda d: d.prefetch(2).cache(),
    "filter_batch": lambda d: d.filter(lambda v: v > 1).batch(2),
    "shuffle_batch": lambda d: d.shuffle(4, seed=1).batch(2, drop_remainder=True),
    "batch_map": lambda d: d.batch(2).map(rt.reduce_sum),
    "zip_batch_drop": lambda d: D.zip((d, d)).batch(2, drop_remainder=True),
}

# Under XLA every shape is known while compiling: a pipeline whose batches are not all
# full (or which slices a batch of a filtered dataset) is a clear error there.
JIT_PIPELINES = ["map", "filter", "batch", "batch_drop", "shuffle_full", "shuffle_buffer",
                 "repeat_forever_take", "zip_batch_drop"]


def _summary(element):
    """(number of scalars, their sum) of an element (any nest)."""
    size, total = rt.constant(0.0), rt.constant(0.0)
    for leaf in rt.nest.flatten(element):
        size += rt.cast(rt.size(leaf), rt.float32)
        total += rt.reduce_sum(rt.cast(leaf, rt.float32))
    return size, total


def _program(make):
    """The elements' count, and sums of their sizes and values weighted by position (an
    order-sensitive digest, exact in float32 for these small values)."""
    def run(x):
        k, values, sizes = rt.constant(0.0), rt.constant(0.0), rt.constant(0.0)
        for element in make(D.from_tensor_slices(x)):
            k += 1.0
            size, total = _summary(element)
            values += k * total
            sizes += k * size
        return rt.stack([k, values, sizes])
    return run


def _data(n):
    return rt.constant(np.arange(1, n + 1, dtype=np.float32))


def _partial_batches(name, n):
    """Whether the pipeline's batches under XLA would not all have one shape."""
    return name == "batch" and n % 2 == 1 and n > 2     # (one batch of all: one shape)


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_unknown_length_staged_as_eager(name):
    run = _program(PIPELINES[name])
    staged = rt.function(run, input_signature=ANY)
    for n in SIZES:
        expected = run(_data(n)).numpy().tolist()
        assert staged(_data(n)).numpy().tolist() == expected, n
    assert len(staged._cache) == 1


@pytest.mark.parametrize("name", ["batch", "shuffle_buffer", "zip", "repeat"])
def test_known_length_staged_as_eager(name):
    run = _program(PIPELINES[name])
    staged = rt.function(run)
    for n in (0, 1, 5):
        assert staged(_data(n)).numpy().tolist() == run(_data(n)).numpy().tolist(), n


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.slow) if n.startswith("shuffle") else n   # compile longest
    for n in JIT_PIPELINES])
def test_unknown_length_jit_as_eager(name):
    pytest.importorskip("jax")
    lowering_error = pytest.importorskip("runtime.backends.xla.backend").XlaLoweringError
    run = _program(PIPELINES[name])
    jitted = rt.function(run, input_signature=ANY, jit_compile=True)
    for n in SIZES:
        if _partial_batches(name, n):
            with pytest.raises(lowering_error, match="drop_remainder=True"):
                jitted(_data(n))
            continue
        assert jitted(_data(n)).numpy().tolist() == run(_data(n)).numpy().tolist(), n


def test_jit_batches_of_rows():
    pytest.importorskip("jax")

    def total(x):
        s = rt.constant(0.0)
        for v in D.from_tensor_slices(x).batch(2):
            s = s * 2.0 + rt.reduce_sum(v)
        return s
    rows = rt.constant(np.arange(12, dtype=np.float32).reshape(6, 2))
    assert float(rt.function(total, jit_compile=True)(rows)) == float(total(rows))
    one = rt.constant(np.ones((1, 2), np.float32))    # one batch, of one row
    assert float(rt.function(total, jit_compile=True)(one)) == float(total(one)) == 2.0


@pytest.mark.parametrize("jit", [False, True])
def test_reduce_and_cardinality_of_unknown_length(jit):
    if jit:
        pytest.importorskip("jax")

    def fold(x):
        ds = D.from_tensor_slices(x).batch(2, drop_remainder=True)
        folded = ds.reduce(rt.constant(0.0), lambda s, b: s * 3.0 + rt.reduce_sum(b))
        return folded, ds.cardinality(), D.from_tensor_slices(x).repeat().cardinality()
    staged = rt.function(fold, input_signature=ANY, jit_compile=jit)
    for n in SIZES:
        got = [t.numpy().tolist() for t in staged(_data(n))]
        assert got == [t.numpy().tolist() for t in fold(_data(n))], n
        assert got[1] == n // 2 and got[2] == (0 if n == 0 else -1)


def test_unknown_length_saved_and_exported(tmp_path):
    run = _program(lambda d: d.map(lambda v: v * 2.0).batch(2))
    staged = rt.function(run, input_signature=ANY)
    rt.saved.save(staged, str(tmp_path / "m"))
    loaded = rt.saved.load(str(tmp_path / "m")).signatures["serving_default"]
    for n in SIZES:
        got = rt.nest.flatten(loaded(_data(n)))[0]
        assert got.numpy().tolist() == run(_data(n)).numpy().tolist(), n
    ort = pytest.importorskip("onnxruntime")
    model = rt.onnx.export(staged)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    for n in SIZES:
        (got,) = session.run(None, {name: _data(n).numpy()})
        assert got.tolist() == run(_data(n)).numpy().tolist(), n


# -- shuffles made in a function ------------------------------------------------------------

def _two_orders():
    shuffled = D.range(6).shuffle(6, seed=3)
    first, second = rt.constant(0, rt.int64), rt.constant(0, rt.int64)
    for v in shuffled:
        first = first * 10 + v
    for v in shuffled:
        second = second * 10 + v
    return first, second


@pytest.mark.parametrize("jit", [False, True])
def test_shuffle_made_in_a_function_reshuffles_each_iteration_as_eagerly(jit):
    if jit:
        pytest.importorskip("jax")
    expected = [int(t) for t in _two_orders()]
    assert expected[0] != expected[1]
    staged = rt.function(_two_orders, jit_compile=jit)
    assert [int(t) for t in staged()] == expected
    assert [int(t) for t in staged()] == expected      # each call: the seed's orders again


# -- functions of the pipeline reading the function's tensors -------------------------------

@pytest.mark.parametrize("jit", [False, True])
def test_map_filter_reduce_read_the_functions_tensors(jit):
    if jit:
        pytest.importorskip("jax")

    def f(x, k):
        ds = D.from_tensor_slices(x).map(lambda v: v * k).filter(lambda v: v > k)
        s = rt.constant(0.0)
        for v in ds:
            s += v
        return s, ds.reduce(rt.constant(0.0), lambda a, v: a + v / k)
    staged = rt.function(f, input_signature=ANY + [rt.TensorSpec([], rt.float32)],
                         jit_compile=jit)
    for n in SIZES:
        args = (_data(n), rt.constant(1.5))
        assert [float(t) for t in staged(*args)] == [float(t) for t in f(*args)], n


def test_gradient_through_reduce_eagerly_as_staged():
    def grad(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            ds = D.from_tensor_slices(rt.constant([1.0, 2.0]))
            y = ds.reduce(rt.constant(0.0), lambda a, v: a + v * x * x)
        return tape.gradient(y, x)
    x = rt.constant(2.0)
    eager, staged = grad(x), rt.function(grad)(x)
    assert eager is not None and float(eager) == float(staged) == 12.0


# -- iterators --------------------------------------------------------------------------------

@pytest.mark.parametrize("jit", [False, True])
def test_an_iterator_given_to_a_function_advances_at_each_call(jit, capsys):
    if jit:
        pytest.importorskip("jax")

    @rt.function(jit_compile=jit)
    def consume(it):
        rt.print("Value:", next(it))

    it = iter(D.from_tensor_slices([1, 2, 3]))
    consume(it)
    consume(it)
    assert capsys.readouterr().out == "Value: 1\nValue: 2\n"
    assert int(next(it)) == 3                   # eagerly, from where the calls left it
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(rt.errors.OutOfRangeError, match="End of sequence"):
        consume(it)
    with pytest.raises(rt.errors.OutOfRangeError):
        it.get_next()


@pytest.mark.parametrize("jit", [False, True])
def test_a_for_over_an_iterator_leaves_it_after_the_last_element_taken(jit):
    if jit:
        pytest.importorskip("jax")

    def below_three(it):
        s = rt.constant(0, rt.int64)
        for x in it:
            if x >= 3:
                break
            s += x
        return s
    staged = rt.function(below_three, jit_compile=jit)
    it = iter(D.range(10))
    assert int(staged(it)) == 0 + 1 + 2
    assert int(next(it)) == 4                   # the body took 3, then broke
    assert int(staged(it)) == 0                 # 5 >= 3
    rest = rt.function(lambda it: rt.reduce_sum(rt.stack([next(it), next(it)])),
                       jit_compile=jit)
    assert int(rest(it)) == 6 + 7


@pytest.mark.parametrize("jit", [False, True])
def test_an_iterator_made_in_a_function_starts_at_each_call(jit):
    if jit:
        pytest.importorskip("jax")

    def first_two(x):
        it = iter(D.from_tensor_slices(x))
        s = next(it) * 10
        for _ in rt.range(1):                   # next() in a staged loop
            s += next(it)
        return s
    staged = rt.function(first_two, input_signature=[rt.TensorSpec([None], rt.int32)],
                         jit_compile=jit)
    x = rt.constant([4, 5, 6])
    assert int(staged(x)) == int(staged(x)) == int(first_two(x)) == 45
    with pytest.raises(rt.errors.OutOfRangeError):
        staged(rt.constant([4]))


def test_a_python_loop_over_a_dataset_in_an_unconverted_function():
    def total(x):
        s = 0
        for v in D.from_tensor_slices(x):       # unrolled: the length is known here
            s += v
        return s
    assert int(rt.function(total, autograph=False)(rt.constant([1, 2, 3]))) == 6
    unknown = rt.function(total, autograph=False, input_signature=[rt.TensorSpec([None],
                                                                                 rt.int32)])
    with pytest.raises(TypeError, match="autograph"):
        unknown(rt.constant([1, 2, 3]))


def test_filter_of_elements_with_unknown_dimensions():
    """Filter's search loop keeps the element's spec (a dimension unknown until run time)
    as the shape its loop variable may take, eagerly and inside rt.function."""
    ds = (rt.data.Dataset.range(1, 8, dtype=rt.int32).map(lambda x: rt.fill([x], x))
          .filter(lambda v: rt.reduce_sum(v) % 2 == 0))
    expected = [[x] * x for x in range(1, 8) if (x * x) % 2 == 0]
    assert [v.tolist() for v in ds.as_numpy_iterator()] == expected

    @rt.function
    def total():
        s = rt.constant(0)
        for v in ds:
            s += rt.reduce_sum(v)
        return s
    assert int(total()) == sum(map(sum, expected))
