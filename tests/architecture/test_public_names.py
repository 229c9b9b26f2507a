"""`dir()` of the packages and of their public modules lists their API, not the names
they are built from (imported helpers, internal modules)."""
import autograph as ag
import runtime as rt

INTERNAL = {"np", "annotations", "backends", "control_flow", "backprop", "tracing", "retracing",
            "traceback_filter", "autograph_backend", "display", "dot", "apply_op", "walk",
            "core", "ops", "concrete", "gradients", "elementwise_ops", "cumulative_ops"}


def test_dir_of_runtime_and_autograph():
    names = set(dir(rt))
    assert not names & INTERNAL
    for public in ("function", "Variable", "GradientTape", "map_fn", "data", "nn", "linalg",
                   "optimizers", "saved", "onnx", "random", "math", "autograph", "Module"):
        assert public in names, public
    assert {"to_graph", "to_code", "set_verbosity", "do_not_convert"} <= set(dir(ag))
    assert not [n for n in dir(ag) if n.startswith("_")]


def test_dir_of_public_modules():
    for module in (rt.nn, rt.optimizers, rt.linalg, rt.data, rt.distribute, rt.onnx, rt.config,
                   rt.errors):
        names = dir(module)
        assert names == sorted(module.__all__), module.__name__
        assert not set(names) & INTERNAL, module.__name__
        for name in names:
            assert getattr(module, name) is not None or name == "AUTOTUNE", (module, name)
