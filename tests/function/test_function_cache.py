"""rt.function's cache-key rules, signature relaxation, the retracing warning, methods
and instance lifetime, thread safety, eager mode, and the concrete-function API."""
import collections
import gc
import logging
import threading
import weakref

import numpy as np
import pytest

import runtime as rt


def counting(fn=None, **kwargs):
    """A Function whose Python body counts its traces in `.traces`."""
    traces = []

    def body(*args, **kw):
        traces.append(args)
        return args[0] if args else rt.constant(0)

    f = rt.function(fn or body, **kwargs)
    f.traces = traces
    return f


def test_tensors_key_by_dtype_and_shape():
    f = counting()
    f(rt.constant(1))
    f(rt.constant(2))
    assert f.experimental_get_tracing_count() == 1
    f(rt.constant(1.0))
    f(rt.constant([1, 2]))
    f(rt.constant([3, 4]))
    assert f.experimental_get_tracing_count() == 3
    f(np.array([1, 2], dtype=np.int32))  # numpy arrays are tensors by dtype and shape
    assert f.experimental_get_tracing_count() == 3


def test_python_primitives_key_by_value_and_type():
    f = counting()
    f(1), f(1), f(2)
    assert f.experimental_get_tracing_count() == 2
    f(1.0)  # 1 == 1.0 but a float is another trace
    f(True)
    assert f.experimental_get_tracing_count() == 4
    f("a"), f("a"), f(None)
    assert f.experimental_get_tracing_count() == 6


def test_nested_structures_key_by_structure_and_leaves():
    Point = collections.namedtuple("Point", "x y")

    @rt.function
    def f(s):
        return rt.constant(0)

    f([rt.constant(1), 2])
    f([rt.constant(5), 2])
    assert f.experimental_get_tracing_count() == 1
    f([rt.constant(1), 3])
    f((rt.constant(1), 2))
    f({"a": rt.constant(1), "b": 2})
    f({"a": rt.constant(7), "b": 2})
    f(Point(rt.constant(1), 2))
    assert f.experimental_get_tracing_count() == 5
    # A dict's order is what the function sees when it iterates it: another order,
    # another trace (`list(d)[0]` would otherwise answer for the first order).
    f({"b": 2, "a": rt.constant(7)})
    assert f.experimental_get_tracing_count() == 6


def test_variables_key_by_identity_and_are_read_at_call_time():
    @rt.function
    def f(v):
        return v + 1

    a, b = rt.Variable(1), rt.Variable(10)
    assert f(a).numpy() == 2 and f(b).numpy() == 11
    a.assign(5)
    assert f(a).numpy() == 6
    assert f.experimental_get_tracing_count() == 2


def test_other_objects_key_by_identity_held_weakly():
    class Config:
        scale = 3

    @rt.function
    def f(cfg, x):
        return x * cfg.scale

    c1, c2 = Config(), Config()
    x = rt.constant(2)
    assert f(c1, x).numpy() == 6 and f(c1, x).numpy() == 6
    assert f(c2, x).numpy() == 6
    assert f.experimental_get_tracing_count() == 2
    ref = weakref.ref(c1)
    del c1
    gc.collect()
    assert ref() is None


def test_different_functions_never_share_traces():
    def body(x):
        return x

    f, g = rt.function(body), rt.function(body)
    f(rt.constant(1)), g(rt.constant(1))
    assert f.experimental_get_tracing_count() == g.experimental_get_tracing_count() == 1


def test_reduce_retracing_relaxes_shapes_after_a_second_shape():
    f = counting(reduce_retracing=True)
    f(rt.constant([1, 2]))
    f(rt.constant([1, 2, 3]))
    assert f.experimental_get_tracing_count() == 2
    for n in range(4, 9):
        assert f(rt.constant(list(range(n)))).numpy().tolist() == list(range(n))
    assert f.experimental_get_tracing_count() == 2
    assert str(f.traces[-1][0].shape) == "(None,)"


def test_retracing_warning_names_the_changing_argument(caplog):
    @rt.function
    def f(x, n):
        return x + n

    with caplog.at_level(logging.WARNING, logger="runtime"):
        for n in range(6):
            f(rt.constant(1), n)
    text = caplog.text
    assert "triggered rt.function retracing" in text
    assert "argument 'n' changed from int value" in text


def test_no_warning_without_retracing(caplog):
    f = counting()
    with caplog.at_level(logging.WARNING, logger="runtime"):
        for i in range(20):
            f(rt.constant(i))
    assert "retracing" not in caplog.text


def test_methods_trace_per_instance_and_release_instances():
    class Scaler:
        def __init__(self, k):
            self.k = k

        @rt.function
        def __call__(self, x):
            return x * self.k

    a, b = Scaler(2), Scaler(3)
    x = rt.constant(5)
    assert a(x).numpy() == 10 and b(x).numpy() == 15 and a(x).numpy() == 10
    assert a.__call__.experimental_get_tracing_count() == 1
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is None


def test_thread_safety_one_trace_many_threads():
    traces = []
    barrier = threading.Barrier(8)

    @rt.function
    def f(x):
        traces.append(1)
        return x * 2 + 1

    results, errors = [], []

    def worker(i):
        try:
            barrier.wait()
            for j in range(20):
                results.append((i * 100 + j, f(rt.constant(i * 100 + j)).numpy()))
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(traces) == 1
    assert len(results) == 160 and all(v == 2 * k + 1 for k, v in results)


def test_run_functions_eagerly_runs_python_each_call():
    f = counting()
    rt.config.run_functions_eagerly(True)
    try:
        f(rt.constant(1)), f(rt.constant(1))
    finally:
        rt.config.run_functions_eagerly(False)
    assert len(f.traces) == 2 and f.experimental_get_tracing_count() == 0


def test_concrete_function_api():
    @rt.function
    def f(x, y=2):
        return {"sum": x + y, "x": x}

    cf = f.get_concrete_function(rt.TensorSpec([None], rt.float32))
    assert [t.name for t in cf.inputs] == ["x:0"]
    assert sorted(cf.structured_outputs) == ["sum", "x"]
    assert all(t.graph is cf.graph for t in cf.outputs)
    out = cf(rt.constant([1.0, 2.0]))
    assert out["sum"].numpy().tolist() == [3.0, 4.0]
    assert cf(x=rt.constant([0.5]))["x"].numpy().tolist() == [0.5]
    with pytest.raises(rt.errors.InvalidArgumentError, match="shape"):
        cf(rt.constant([[1.0]]))
    with pytest.raises(rt.errors.InvalidArgumentError, match="float32"):
        cf(rt.constant([1, 2]))
    assert f.get_concrete_function(rt.TensorSpec([None], rt.float32)) is cf


def test_outputs_python_values_become_tensors_none_stays():
    @rt.function
    def f():
        return 1, None, [2.5]

    one, none, (two_and_half,) = f()
    assert one.dtype is rt.int32 and none is None and two_and_half.dtype is rt.float32


def test_leaked_tensor_in_eager_op_raises_type_error():
    box = []

    @rt.function
    def f(x):
        box.append(x * 2)
        return x

    f(rt.constant(1))
    with pytest.raises(TypeError, match="leaked"):
        rt.add(box[0], 1)


def test_input_signature_rejects_non_specs():
    with pytest.raises(TypeError, match="input_signature"):
        rt.function(lambda x: x, input_signature=[1])


def test_trace_errors_name_the_users_line():
    @rt.function
    def f(x):
        s = 0
        for i in rt.range(x):
            s = s + 0.5  # an int32 loop variable meets a float
        return s

    with pytest.raises(rt.errors.InvalidArgumentError) as e:
        f(rt.constant(3))
    notes = "\n".join(getattr(e.value, "__notes__", []))
    assert __file__ in notes or __file__ in str(e.value)
    assert "s = s + 0.5" in notes or "s = s + 0.5" in str(e.value)
