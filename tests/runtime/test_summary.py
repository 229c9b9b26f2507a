"""rt.summary: TensorBoard event files written eagerly and inside rt.function (numpy
backend and jit_compile), read back with TensorBoard's own reader and compared with what
the values were (TensorBoard's own numpy histogram, `histogram_pb`, for the buckets)."""
import doctest
import inspect

import importlib.util

import numpy as np
import pytest

import runtime as rt

# (jit_compile needs JAX: the other Pythons' CI venvs install no jax extra)
NEEDS_JAX = pytest.mark.skipif(importlib.util.find_spec("jax") is None,
                               reason="jit_compile needs JAX (the jax extra)")

pytest.importorskip("tensorboardX")
ea = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
from tensorboard.plugins.histogram.summary_v2 import histogram_pb  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402

JIT = [False, pytest.param(True, marks=NEEDS_JAX)]


def read(logdir):
    acc = ea.EventAccumulator(str(logdir), size_guidance={ea.SCALARS: 0, ea.HISTOGRAMS: 0,
                                                          ea.TENSORS: 0})
    acc.Reload()
    return acc


def scalars(acc, tag):
    return [(e.step, e.value) for e in acc.Scalars(tag)]


def reference_buckets(data, buckets=30):
    return tensor_util.make_ndarray(histogram_pb("t", data, buckets).value[0].tensor)


@pytest.fixture(autouse=True)
def _clean_state():
    yield
    rt.summary.experimental.set_step(None)


def test_eager_scalars_histograms_text(tmp_path):
    rng = np.random.default_rng(0)
    values = [0.5, -1.25, np.float32(3.0)]
    hists = [rng.normal(size=50), np.array([]), np.array([2.0, 2.0, 2.0])]
    writer = rt.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        for step, (v, h) in enumerate(zip(values, hists)):
            assert bool(rt.summary.scalar("loss", v, step=step))
            assert bool(rt.summary.histogram("w", rt.constant(h, dtype=rt.float64), step=step,
                                             buckets=7))
            assert bool(rt.summary.text("note", f"step **{step}**", step=step))
    writer.close()
    acc = read(tmp_path)
    assert scalars(acc, "loss") == [(i, float(np.float32(v))) for i, v in enumerate(values)]
    for (step, h), event in zip(enumerate(hists), acc.Histograms("w")):
        ref = reference_buckets(h, 7)
        hv = event.histogram_value
        assert event.step == step
        np.testing.assert_array_equal(hv.bucket, ref[:, 2])
        np.testing.assert_array_equal(hv.bucket_limit, ref[:, 1])
        assert hv.num == h.size and np.isclose(hv.sum, h.sum())
        assert np.isclose(hv.sum_squares, np.sum(h * h))
        if h.size:
            assert (hv.min, hv.max) == (h.min(), h.max())
    texts = [(e.step, tensor_util.make_ndarray(e.tensor_proto).item()) for e in acc.Tensors("note")]
    assert texts == [(i, f"step **{i}**".encode()) for i in range(3)]


def test_histogram_buckets_match_tensorboard():
    from runtime.ops.summary_ops import histogram_buckets
    rng = np.random.default_rng(1)
    cases = [rng.normal(size=(4, 5)), np.array([]), np.array([7.0]), np.arange(10.0),
             np.array([1.0, np.nan, 3.0]), np.array([0.0, np.inf]), np.array([-1e300, 1e300])]
    with np.errstate(all="ignore"):
        for data in cases:
            for k in (0, 1, 3, 30):
                np.testing.assert_array_equal(histogram_buckets(data, k),
                                              reference_buckets(data, k))


def test_text_of_any_shape_and_description(tmp_path):
    writer = rt.summary.create_file_writer(str(tmp_path))
    words = [["a", "b"], ["c", "dé"]]
    with writer.as_default(step=4):
        rt.summary.text("grid", rt.constant(words), description="a grid")
        rt.summary.scalar("x", 1, description="the x")
    writer.close()
    acc = read(tmp_path)
    [event] = acc.Tensors("grid")
    got = tensor_util.make_ndarray(event.tensor_proto)
    assert event.step == 4 and got.shape == (2, 2)
    assert [[s.decode() for s in row] for row in got] == words
    assert acc.SummaryMetadata("grid").summary_description == "a grid"
    assert acc.SummaryMetadata("x").summary_description == "the x"


@pytest.mark.parametrize("jit", JIT)
def test_in_function_writes_at_every_run_with_a_variable_step(tmp_path, jit):
    writer = rt.summary.create_file_writer(str(tmp_path))
    step = rt.Variable(0, dtype=rt.int64)

    @rt.function(jit_compile=jit)
    def train(x):
        loss = x * x
        rt.summary.scalar("loss", loss, step=step)
        rt.summary.histogram("x", rt.stack([x, loss, x - 1.0]), step=step, buckets=4)
        rt.summary.text("phase", "train", step=step)
        step.assign_add(1)
        return loss

    xs = [1.5, -2.0, 0.25, 3.0]
    with writer.as_default():
        for x in xs:
            train(rt.constant(x))
    writer.close()
    assert len(train.concrete_functions) == 1   # traced once, written at every call
    acc = read(tmp_path)
    assert scalars(acc, "loss") == [(i, float(np.float32(x) ** 2)) for i, x in enumerate(xs)]
    for i, (x, event) in enumerate(zip(xs, acc.Histograms("x"))):
        x = np.float32(x)
        ref = reference_buckets(np.array([x, x * x, x - 1], dtype=np.float32), 4)
        assert event.step == i
        np.testing.assert_array_equal(event.histogram_value.bucket, ref[:, 2])
        np.testing.assert_allclose(event.histogram_value.bucket_limit, ref[:, 1])
    assert [e.step for e in acc.Tensors("phase")] == list(range(len(xs)))


@pytest.mark.parametrize("jit", JIT)
def test_in_function_step_from_set_step_and_order_of_effects(tmp_path, jit):
    writer = rt.summary.create_file_writer(str(tmp_path))
    step = rt.Variable(10, dtype=rt.int64)
    rt.summary.experimental.set_step(step)

    @rt.function(jit_compile=jit)
    def f(x):
        rt.summary.scalar("before", x)
        step.assign_add(5)
        rt.summary.scalar("after", x + 1.0)
        return x

    with writer.as_default():
        for x in (1.0, 2.0):
            f(rt.constant(x))
    writer.close()
    acc = read(tmp_path)
    assert scalars(acc, "before") == [(10, 1.0), (15, 2.0)]
    assert scalars(acc, "after") == [(15, 2.0), (20, 3.0)]


def test_python_step_is_fixed_at_trace_as_tensorflow(tmp_path):
    writer = rt.summary.create_file_writer(str(tmp_path))

    @rt.function
    def f(x):
        rt.summary.scalar("v", x)
        return x

    with writer.as_default(step=3):
        f(rt.constant(1.0))
        rt.summary.experimental.set_step(9)
        f(rt.constant(2.0))
    writer.close()
    assert scalars(read(tmp_path), "v") == [(3, 1.0), (3, 2.0)]


@pytest.mark.parametrize("jit", JIT)
def test_record_if(tmp_path, jit):
    writer = rt.summary.create_file_writer(str(tmp_path))
    step = rt.Variable(0, dtype=rt.int64)

    @rt.function(jit_compile=jit)
    def f(x):
        with rt.summary.record_if(rt.equal(step % 2, 0)):  # a tensor: decided at every run
            wrote = rt.summary.scalar("even", x, step=step)
        with rt.summary.record_if(lambda: False):
            rt.summary.scalar("never", x, step=step)
        step.assign_add(1)
        return wrote

    with writer.as_default():
        wrote = [bool(f(rt.constant(float(i)))) for i in range(5)]
        with rt.summary.record_if(False):
            assert not bool(rt.summary.scalar("never", 1.0, step=0))
            assert not bool(rt.summary.should_record_summaries())
        assert bool(rt.summary.should_record_summaries())
    writer.close()
    assert wrote == [i % 2 == 0 for i in range(5)]
    acc = read(tmp_path)
    assert scalars(acc, "even") == [(i, float(i)) for i in range(0, 5, 2)]
    assert "never" not in acc.Tags()["scalars"]


def test_no_default_writer_writes_nothing_and_needs_no_step(tmp_path):
    assert rt.summary.experimental.get_step() is None
    assert not bool(rt.summary.scalar("x", 1.0))
    assert not bool(rt.summary.histogram("h", [1.0, 2.0]))
    assert not bool(rt.summary.text("t", "x"))

    @rt.function
    def f(x):
        return rt.summary.scalar("x", x, step=0)

    assert not bool(f(rt.constant(1.0)))
    writer = rt.summary.create_file_writer(str(tmp_path))
    writer.close()
    assert read(tmp_path).Tags()["scalars"] == []


def test_missing_step_raises_value_error(tmp_path):
    writer = rt.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        with pytest.raises(ValueError, match="No step set"):
            rt.summary.scalar("x", 1.0)
        with pytest.raises(ValueError, match="scalar shape"):
            rt.summary.scalar("x", [1.0, 2.0], step=0)
        with pytest.raises(TypeError):
            rt.summary.text("t", rt.constant(1.0), step=0)
    writer.close()


def test_flush_on_close_and_on_leaving_as_default(tmp_path):
    writer = rt.summary.create_file_writer(str(tmp_path / "a"), max_queue=1000,
                                           flush_millis=10 ** 7)
    with writer.as_default():
        rt.summary.scalar("x", 1.0, step=0)
    assert scalars(read(tmp_path / "a"), "x") == [(0, 1.0)]   # flushed on leaving
    with rt.summary.create_noop_writer().as_default():  # restores the default writer
        writer.set_as_default(step=1)
        rt.summary.scalar("x", 2.0)
        writer.close()
        writer.close()   # twice: nothing
        with pytest.raises(rt.errors.InvalidArgumentError, match="closed"):
            rt.summary.scalar("x", 3.0)   # through the closed default writer
    assert scalars(read(tmp_path / "a"), "x") == [(0, 1.0), (1, 2.0)]
    with pytest.raises(RuntimeError, match="closed"):
        writer.as_default()


def test_flush_inside_function_runs_every_call(tmp_path):
    writer = rt.summary.create_file_writer(str(tmp_path), max_queue=1000, flush_millis=10 ** 7)

    @rt.function
    def f(x, s):
        rt.summary.scalar("x", x, step=s)
        rt.summary.flush()
        return x

    with writer.as_default():
        f(rt.constant(1.0), rt.constant(0, rt.int64))
        assert scalars(read(tmp_path), "x") == [(0, 1.0)]
        f(rt.constant(2.0), rt.constant(1, rt.int64))
        assert scalars(read(tmp_path), "x") == [(0, 1.0), (1, 2.0)]
    writer.close()


def test_name_scope_prefixes_the_tag(tmp_path):
    writer = rt.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0), rt.name_scope("train"):
        rt.summary.scalar("loss", 1.0)
    writer.close()
    assert read(tmp_path).Tags()["scalars"] == ["train/loss"]


def test_export_and_save_refuse_summaries(tmp_path):
    writer = rt.summary.create_file_writer(str(tmp_path))
    f = rt.function(lambda x: (rt.summary.scalar("x", x, step=0), x * 2.0)[1],
                    input_signature=[rt.TensorSpec([], rt.float32)])
    with writer.as_default():
        cf = f.get_concrete_function()
    pytest.importorskip("onnx")
    with pytest.raises(rt.onnx.ExportError, match="rt.summary writes TensorBoard files"):
        rt.onnx.export(cf)
    writer.close()


def test_docstring_examples_run_with_tensorboardx(tmp_path):
    """The examples the doc tests skip (they need tensorboardX) run here."""
    for obj in (rt.summary.SummaryWriter, rt.summary.create_file_writer, rt.summary.scalar):
        doc = inspect.getdoc(obj).replace("# doctest: +SKIP", "")
        test = doctest.DocTestParser().get_doctest(doc, {"rt": rt, "np": np}, obj.__name__,
                                                   None, 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        out = []
        runner.run(test, out=out.append)
        assert runner.failures == 0, "".join(out)


@pytest.mark.parametrize("jit", JIT)
def test_in_a_staged_loop_every_iteration_writes(tmp_path, jit):
    writer = rt.summary.create_file_writer(str(tmp_path))

    @rt.function(jit_compile=jit)
    def f(n):
        for i in rt.range(n):
            rt.summary.scalar("i", rt.cast(i, rt.float32) * 2.0, step=rt.cast(i, rt.int64))
        return n

    with writer.as_default():
        for n in (3, 0, 2):
            f(rt.constant(n))
    writer.close()
    expected = [(i, 2.0 * i) for n in (3, 0, 2) for i in range(n)]
    assert scalars(read(tmp_path), "i") == expected
