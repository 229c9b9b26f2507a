"""TensorFlow's small names: rt.saved_model.save/load, ConcreteFunction.variables,
rt.config.list_physical_devices, rt.get_logger."""
from __future__ import annotations

import logging

import numpy as np
import pytest

import runtime as rt


def test_saved_model_is_rt_saved_under_tensorflows_names(tmp_path):
    @rt.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    def double(x):
        return x * 2.0
    rt.saved_model.save(double, tmp_path / "m", options=None)
    assert rt.saved_model.contains_saved_model(tmp_path / "m")
    assert not rt.saved_model.contains_saved_model(tmp_path)
    x = np.array([1.0, -2.5, np.nan], np.float32)
    loaded = rt.saved_model.load(str(tmp_path / "m"), tags=None)
    np.testing.assert_array_equal(loaded.double(rt.constant(x)).numpy(), x * 2.0)
    rt.saved.save(double, str(tmp_path / "n"))
    np.testing.assert_array_equal(rt.saved.load(str(tmp_path / "n")).double(x).numpy(),
                                  loaded.double(x).numpy())


def test_concrete_function_variables_are_those_its_graph_uses():
    read, written, inside, unused = (rt.Variable(1.0), rt.Variable(2.0, trainable=False),
                                     rt.Variable(3.0), rt.Variable(4.0))

    @rt.function
    def f(x):
        written.assign_add(x)
        return rt.cond(x > 0, lambda: x * read, lambda: x + inside)
    cf = f.get_concrete_function(rt.constant(1.0))
    assert {id(v) for v in cf.variables} == {id(read), id(written), id(inside)}
    assert isinstance(cf.variables, tuple)
    assert [id(v) for v in cf.trainable_variables] == [id(v) for v in cf.variables
                                                       if v.trainable]
    assert id(unused) not in {id(v) for v in cf.variables}
    assert rt.function(lambda x: x + 1).get_concrete_function(rt.constant(1)).variables == ()


def test_list_physical_devices_has_the_cpu():
    devices = rt.config.list_physical_devices()
    assert devices[0].name == "/physical_device:CPU:0" and devices[0].device_type == "CPU"
    assert rt.config.list_physical_devices("cpu") == devices[:1]
    assert all(d.device_type == "GPU" for d in rt.config.list_physical_devices("GPU"))
    jax = pytest.importorskip("jax")
    gpus = [d for d in jax.devices() if d.platform in ("gpu", "cuda", "rocm")]
    assert len(rt.config.list_physical_devices("GPU")) == len(gpus)
    assert [d.name for d in rt.config.list_logical_devices("CPU")] == ["/device:CPU:0"]


def test_get_logger_is_the_runtimes_logger(caplog):
    logger = rt.get_logger()
    assert isinstance(logger, logging.Logger) and logger.name == "runtime"
    assert logger is logging.getLogger("runtime")
    v = rt.Variable(1.0)
    with caplog.at_level(logging.WARNING, logger="runtime"):
        rt.optimizers.SGD(0.1).apply_gradients([(None, rt.Variable(0.0)),
                                                (rt.constant(1.0), v)])
    assert any(r.name == "runtime" and "Gradients do not exist" in r.getMessage()
               for r in caplog.records)
