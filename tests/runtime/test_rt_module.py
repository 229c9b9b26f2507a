"""rt.Module: finding Variables and sub-Modules (attributes, lists, tuples, dicts, dedup,
cycles, trainable flags), name scopes, GradientTape, rt.function methods, saving."""
import collections
import logging

import numpy as np
import pytest

import runtime as rt
from runtime import saved


class Dense(rt.Module):
    def __init__(self, n_in, n_out, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.w = rt.Variable(np.full((n_in, n_out), 0.5, np.float32), name="w")
            self.b = rt.Variable(np.zeros(n_out, np.float32), name="b")

    def __call__(self, x):
        return rt.matmul(x, self.w) + self.b


def names(variables):
    return [v.name for v in variables]


def test_name_defaults_to_snake_case_class_name_and_is_checked():
    class MyDenseLayer(rt.Module):
        pass

    assert MyDenseLayer().name == "my_dense_layer"
    assert rt.Module().name == "module"
    assert rt.Module(name="enc").name == "enc"
    with pytest.raises(ValueError, match="not a valid module name"):
        rt.Module(name="bad name")
    with pytest.raises(ValueError, match="not a valid module name"):
        rt.Module(name="1x")


def test_name_scope_prefixes_variables_and_nests():
    d = Dense(2, 3)
    assert names(d.variables) == ["dense/b:0", "dense/w:0"]  # sorted by attribute name
    with rt.name_scope("outer"):
        inner = Dense(1, 1, name="inner")
    assert names(inner.variables) == ["outer/inner/b:0", "outer/inner/w:0"]
    with d.name_scope as scope:
        assert scope == "dense/"
        v = rt.Variable(1.0)
    assert v.name == "dense/Variable:0"
    g = rt.Graph()
    with g.as_default(), d.name_scope:
        t = rt.constant(1.0) + 1.0
    assert t.op.name.startswith("dense/")


def test_with_name_scope_decorator():
    class Lazy(rt.Module):
        def __init__(self):
            super().__init__(name="lazy")
            self.v = None

        @rt.Module.with_name_scope
        def __call__(self, x):
            if self.v is None:
                self.v = rt.Variable(2.0, name="scale")
            return x * self.v

    m = Lazy()
    assert float(m(rt.constant(3.0))) == 6.0
    assert names(m.variables) == ["lazy/scale:0"]


def test_discovery_through_attributes_lists_tuples_dicts():
    Pair = collections.namedtuple("Pair", "first second")

    class Model(rt.Module):
        def __init__(self):
            super().__init__()
            self.blocks = [Dense(2, 2, name="b0"), (Dense(2, 2, name="b1"),)]
            self.heads = {"z": Dense(2, 1, name="hz"), "a": Dense(2, 1, name="ha")}
            self.pair = Pair(rt.Variable(1.0, name="p1"), rt.Variable(2.0, name="p2"))
            self.scale = rt.Variable(3.0, name="scale")
            self.count = rt.Variable(0, trainable=False, name="count")
            self.note = "not a variable"

    m = Model()
    assert [s.name for s in m.submodules] == ["b0", "b1", "ha", "hz"]
    # the module's own attributes (sorted) first, then each sub-Module's
    assert names(m.variables) == ["count:0", "p1:0", "p2:0", "scale:0",
                                  "b0/b:0", "b0/w:0", "b1/b:0", "b1/w:0",
                                  "ha/b:0", "ha/w:0", "hz/b:0", "hz/w:0"]
    assert names(m.trainable_variables) == [n for n in names(m.variables) if n != "count:0"]
    assert names(m.non_trainable_variables) == ["count:0"]
    assert isinstance(m.variables, tuple) and isinstance(m.submodules, tuple)


def test_shared_values_listed_once_and_cycles_end():
    shared = Dense(1, 1, name="shared")
    a, b = rt.Module(name="a"), rt.Module(name="b")
    a.layers = [shared, shared]
    a.other = b
    b.back = a            # a cycle of Modules
    b.same = shared
    b.alias = shared.w    # a Variable reached twice
    cyclic = [shared]
    cyclic.append(cyclic)  # a list inside itself
    b.cyclic = cyclic
    # attributes in sorted order: a.layers (shared) before a.other (b)
    assert [s.name for s in a.submodules] == ["shared", "b"]
    assert names(a.variables) == ["shared/b:0", "shared/w:0"]
    assert [s.name for s in b.submodules] == ["a", "shared"]
    assert names(b.variables) == ["shared/w:0", "shared/b:0"]  # b.alias comes first
    paths = [p for p, _ in a._flatten(predicate=lambda x: isinstance(x, rt.Variable),
                                      with_path=True)]
    assert ("layers", 0, "w") in paths and ("layers", 1, "w") in paths


def test_module_variables_under_gradient_tape():
    class Model(rt.Module):
        def __init__(self):
            super().__init__()
            self.l1, self.l2 = Dense(2, 3), Dense(3, 1)
            self.frozen = rt.Variable(1.0, trainable=False)

        def __call__(self, x):
            return self.l2(rt.tanh(self.l1(x))) * self.frozen

    m = Model()
    x = rt.constant([[1.0, -1.0], [0.5, 2.0]])
    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(m(x))
    grads = tape.gradient(loss, m.trainable_variables)
    assert len(grads) == 4 and all(g is not None for g in grads)
    for g, v in zip(grads, m.trainable_variables):
        assert g.shape == v.shape
    # d loss / d l2.b = number of rows
    assert names(m.trainable_variables)[0] == "dense/b:0"
    by_name = dict(zip([id(v) for v in m.trainable_variables], grads))
    np.testing.assert_allclose(by_name[id(m.l2.b)].numpy(), [2.0])


def test_function_methods_trace_once_per_instance_and_may_create_variables_first():
    class Lazy(rt.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.w = None

        @rt.function
        def __call__(self, x):
            if self.w is None:
                with self.name_scope:
                    self.w = rt.Variable(np.ones((x.shape[-1], 2), np.float32), name="w")
            return rt.matmul(x, self.w)

    a, b = Lazy("a"), Lazy("b")
    x = rt.constant([[1.0, 2.0]])
    for _ in range(3):
        np.testing.assert_allclose(a(x).numpy(), [[3.0, 3.0]])
    assert names(a.variables) == ["a/w:0"]
    a.w.assign_sub(np.ones((2, 2), np.float32))
    np.testing.assert_allclose(a(x).numpy(), [[0.0, 0.0]])
    assert b.w is None
    b(x)
    assert names(b.variables) == ["b/w:0"] and a.w is not b.w
    assert a.__call__.experimental_get_tracing_count() == 2  # (creation trace + check)
    a(x)
    assert a.__call__.experimental_get_tracing_count() == 2


def test_function_method_making_variables_every_call_is_refused():
    class Bad(rt.Module):
        @rt.function
        def __call__(self, x):
            self.v = rt.Variable(1.0)
            return x * self.v

    with pytest.raises(ValueError, match="singleton"):
        Bad()(rt.constant(1.0))


class Model(rt.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = Dense(2, 3), Dense(3, 1, name="out")
        self.steps = rt.Variable(0, trainable=False, name="steps")
        self.unused = rt.Variable([7.0], name="unused")

    @rt.function(input_signature=[rt.TensorSpec([None, 2], rt.float32)])
    def __call__(self, x):
        return self.l2(rt.tanh(self.l1(x)))

    @rt.function(input_signature=[rt.TensorSpec([None, 2], rt.float32),
                                  rt.TensorSpec([None, 1], rt.float32)])
    def train(self, x, y):
        with rt.GradientTape() as tape:
            loss = rt.reduce_mean(rt.square(self(x) - y))
        grads = tape.gradient(loss, self.trainable_variables)
        for g, v in zip(grads, self.trainable_variables):
            if g is not None:
                v.assign_sub(0.1 * g)
        self.steps.assign_add(1)
        return loss

    @rt.function
    def never_traced(self, x):
        return x


def test_saving_a_module(tmp_path, caplog):
    m = Model()
    x = rt.constant([[1.0, 2.0], [-1.0, 0.5]])
    y = rt.constant([[1.0], [0.0]])
    m.train(x, y)
    with caplog.at_level(logging.WARNING, logger="runtime"):
        saved.save(m, str(tmp_path / "m"))
    assert "never_traced" in caplog.text
    loaded = saved.load(str(tmp_path / "m"))
    np.testing.assert_allclose(loaded(x).numpy(), m(x).numpy(), rtol=1e-6)
    np.testing.assert_allclose(loaded.__call__(x).numpy(), m(x).numpy(), rtol=1e-6)
    # every Variable, in the module's order, used by a function or not
    assert [v.name for v in loaded.variables] == names(m.variables)
    assert [v.name for v in loaded.trainable_variables] == names(m.trainable_variables)
    for a, b in zip(loaded.variables, m.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # the loaded train step updates the loaded Variables, as the original does its own
    want = float(m.train(x, y))
    assert float(loaded.train(x, y)) == pytest.approx(want, rel=1e-6)
    np.testing.assert_allclose(loaded(x).numpy(), m(x).numpy(), rtol=1e-6)
    assert int(loaded.variables[names(m.variables).index("steps:0")].numpy()) == 2
    assert not hasattr(loaded, "never_traced")


def test_saving_a_module_without_functions_keeps_its_variables(tmp_path):
    d = Dense(2, 1)
    saved.save(d, str(tmp_path / "d"))
    loaded = saved.load(str(tmp_path / "d"))
    assert [v.name for v in loaded.variables] == ["dense/b:0", "dense/w:0"]
    with pytest.raises(TypeError, match="not callable"):
        loaded(rt.constant([[1.0, 1.0]]))
