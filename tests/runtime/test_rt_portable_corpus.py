"""The staged corpus and the random programs of the autograph tests, saved and loaded
(rt.saved) and exported to ONNX (rt.onnx, run by onnxruntime): every result must be what
plain Python gives."""
import copy
import os
import sys

import numpy as np
import pytest

import runtime as rt

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "autograph"))
import corpus  # noqa: E402
import random_programs  # noqa: E402

STAGED = [(fn, arg_sets) for fn, arg_sets, staged in corpus.PY if staged]
RANDOM_ARGS = [(0, 0), (5, 3), (13, 6), (40, 2)]


def _py(x):
    if isinstance(x, (tuple, list)):
        return type(x)(_py(v) for v in x)
    if hasattr(x, "numpy"):
        v = np.asarray(x.numpy())
        return v.item() if v.ndim == 0 else v.tolist()
    return x


def _traced(fn, args):
    """The rt.function of `fn` traced for `args`, or None when the runtime cannot stage
    it (those programs are the runtime tests' business, not this file's)."""
    staged = rt.function(fn)
    try:
        staged.get_concrete_function(*[rt.constant(a) for a in args])
    except Exception:  # noqa: BLE001
        return None
    return staged


def _programs():
    for fn, arg_sets in STAGED:
        yield fn.__name__, fn, arg_sets
    for seed in range(60):
        _, fn = random_programs.make(seed)
        yield f"random_{seed}", fn, RANDOM_ARGS


PROGRAMS = list(_programs())


@pytest.mark.parametrize("name, fn, arg_sets", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_saved_and_loaded_gives_python_results(tmp_path, name, fn, arg_sets):
    staged = _traced(fn, arg_sets[0])
    if staged is None:
        pytest.skip("the runtime does not stage this program")
    rt.saved.save(staged, str(tmp_path / "m"))
    loaded = getattr(rt.saved.load(str(tmp_path / "m")), staged.__name__)
    for args in arg_sets:
        try:
            expected = ("ok", _py(fn(*copy.deepcopy(args))))
        except Exception as e:  # noqa: BLE001 - the saved graph must fail the same way
            expected = ("raised", type(e).__name__)
        try:
            got = ("ok", _py(loaded(*[rt.constant(a) for a in args])))
        except rt.errors.InvalidArgumentError:
            got = ("raised", "InvalidArgumentError")
        if expected[0] == "raised":
            assert got[0] == "raised", args
        else:
            assert got == expected, args


@pytest.mark.parametrize("name, fn, arg_sets", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_onnx_gives_python_results(name, fn, arg_sets):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    staged = _traced(fn, arg_sets[0])
    if staged is None:
        pytest.skip("the runtime does not stage this program")
    cf = staged.get_concrete_function(*[rt.constant(a) for a in arg_sets[0]])
    # autograph's checks of variables assigned on some paths only are assertions: left
    # out, the model gives a value where Python raises (those calls are not compared)
    model = rt.onnx.export(cf, drop_asserts=True)
    options = ort.SessionOptions()
    options.log_severity_level = 3
    sess = ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    for args in arg_sets:
        try:
            expected = fn(*copy.deepcopy(args))
        except Exception:  # noqa: BLE001 - errors are checked by the saved test above
            continue
        ours = cf(*[rt.constant(a) for a in args])
        theirs = sess.run(None, {n: np.asarray(rt.constant(a).numpy()) for n, a in zip(names, args)})
        leaves = [t for t in rt.nest.flatten(ours) if hasattr(t, "numpy")]
        assert len(theirs) == len(leaves)
        for a, t in zip(theirs, leaves):
            assert a.dtype == t.numpy().dtype and a.shape == np.shape(t.numpy()), args
            np.testing.assert_allclose(a, t.numpy(), rtol=1e-6, err_msg=str(args))
        assert _py(ours) == _py(expected)
