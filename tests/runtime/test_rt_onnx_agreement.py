"""The exported ONNX model agrees with the numpy backend for every op it exports: a sweep
over programs using each op (onnx_sweep_cases.py) with NaN, inf, empty, one-element,
negative and out-of-range indices and integer edge cases. For each input the model run by
onnxruntime must give our values (dtype, shape, NaN where we have NaN), or raise where
our backend raises; or the export must refuse the function with ExportError."""
import numpy as np
import pytest

import runtime as rt

pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
if tuple(int(p) for p in ort.__version__.split(".")[:2]) < (1, 32):
    # onnxruntime 1.23 (the last with Python 3.10 wheels) dies of a floating point
    # exception in some integer kernels on edge inputs (one_hot's): the sweep was
    # checked with 1.32
    pytest.skip("the ONNX edge-input sweep needs onnxruntime >= 1.32", allow_module_level=True)

from onnx_sweep_cases import programs  # noqa: E402

PROGRAMS = programs()


def _session(model):
    options = ort.SessionOptions()
    options.log_severity_level = 4
    return ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])


def _ours(cf, case):
    try:
        result = cf(*[rt.constant(a) for a in case])
    except (rt.errors.InvalidArgumentError, IndexError, ValueError) as e:
        return e
    return [np.asarray(t.numpy()) for t in rt.nest.flatten(result)]


def _theirs(session, case):
    names = [i.name for i in session.get_inputs()]
    try:
        return [np.asarray(v) for v in session.run(None, dict(zip(names, case)))]
    except Exception as e:  # onnxruntime's own error classes
        return e


def _disagreement(ours, theirs):
    """None when the two outcomes agree, else what differs."""
    if isinstance(ours, Exception) or isinstance(theirs, Exception):
        if isinstance(ours, Exception) and isinstance(theirs, Exception):
            return None
        return f"ours: {ours!r}\n     onnx: {theirs!r}"
    if len(ours) != len(theirs):
        return f"{len(ours)} results, onnx {len(theirs)}"
    for a, b in zip(ours, theirs):
        if a.dtype != b.dtype or a.shape != b.shape:
            return f"ours {a.dtype}{a.shape}, onnx {b.dtype}{b.shape}"
        if a.dtype.kind in "fc":
            close = np.isclose(a, b, rtol=2e-5, atol=1e-6, equal_nan=True)
            if not close.all():
                return f"ours {a[~close][:5]}, onnx {b[~close][:5]}"
        elif not np.array_equal(a, b):
            return f"ours {a}, onnx {b}"
    return None


def _specs(case):
    return [rt.TensorSpec([None] * np.ndim(a), rt.as_dtype(a.dtype)) for a in case]


def _sweep(name, fn, cases):
    problems, exported = [], 0
    signatures = {}
    for case in cases:
        case = tuple(np.asarray(a) for a in case)
        key = tuple((a.dtype, np.ndim(a)) for a in case)
        if key not in signatures:
            cf = rt.function(fn).get_concrete_function(*_specs(case))
            try:
                signatures[key] = (cf, _session(rt.onnx.export(cf)))
            except rt.onnx.ExportError:
                signatures[key] = (cf, None)
        cf, session = signatures[key]
        if session is None:
            continue
        exported += 1
        problem = _disagreement(_ours(cf, case), _theirs(session, case))
        if problem:
            problems.append(f"{name} on {[a.tolist() for a in case]}:\n     {problem}")
    return problems, exported


@pytest.mark.parametrize("name,fn,cases", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_onnx_agrees_with_numpy_backend(name, fn, cases):
    problems, _ = _sweep(name, fn, cases)
    assert not problems, "\n".join(problems)


# -- the cases named where ONNX's operator differs from ours, one by one ---------------------

def _export_and_run(fn, *arrays):
    specs = [rt.TensorSpec([None] * np.ndim(a), rt.as_dtype(np.asarray(a).dtype)) for a in arrays]
    cf = rt.function(fn).get_concrete_function(*specs)
    session = _session(rt.onnx.export(cf))
    arrays = tuple(np.asarray(a) for a in arrays)
    return _ours(cf, arrays), _theirs(session, arrays)


def test_argmax_and_argmin_give_the_first_nan():
    x = np.array([[1.0, np.nan, 5.0, np.nan], [2.0, 0.0, -1.0, 7.0]], np.float32)
    for fn in (lambda x: rt.math.argmax(x, axis=1), lambda x: rt.math.argmin(x, axis=1)):
        ours, theirs = _export_and_run(fn, x)
        np.testing.assert_array_equal(theirs[0], ours[0])
        assert theirs[0][0] == 1 == np.argmax(x[0])


def test_max_and_min_propagate_nan_and_mean_of_nothing_is_nan():
    x = np.array([[1.0, np.nan], [2.0, 3.0]], np.float32)
    for fn in (rt.reduce_max, rt.reduce_min):
        ours, theirs = _export_and_run(lambda x: fn(x, axis=1), x)
        np.testing.assert_array_equal(theirs[0], ours[0])
        assert np.isnan(theirs[0][0]) and not np.isnan(theirs[0][1])
    ours, theirs = _export_and_run(lambda x: rt.reduce_mean(x), np.zeros(0, np.float32))
    assert np.isnan(ours[0]) and np.isnan(theirs[0])


def test_a_negative_gather_index_fails_in_the_model_as_ours_raises():
    ours, theirs = _export_and_run(lambda p, i: rt.gather(p, i), np.array([1.0, 2.0], np.float32),
                                   np.array([-1], np.int32))
    assert isinstance(ours, rt.errors.InvalidArgumentError)
    assert isinstance(theirs, Exception) and "negative index" in str(theirs)


def test_a_loop_of_zero_trips_stacks_no_rows():
    def squares(n):
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
        for i in rt.range(n):
            ta = ta.write(i, rt.ones([2]) * rt.cast(i, rt.float32))
        return ta.stack()
    for n in (0, 1, 3):
        ours, theirs = _export_and_run(squares, np.int32(n))
        assert ours[0].shape == theirs[0].shape == (n, 2)
        np.testing.assert_array_equal(theirs[0], ours[0])


def test_export_refuses_inputs_of_unknown_rank_clearly():
    cf = rt.function(lambda m: m * 2.0).get_concrete_function(rt.TensorSpec(None, rt.float32))
    with pytest.raises(rt.onnx.ExportError, match="need a known rank.*input 0 \\('m'\\)"):
        rt.onnx.export(cf)


def test_export_refuses_einsum_with_ellipsis_of_unknown_rank():
    cf = rt.function(lambda a, s: rt.einsum("...i,...i->...", rt.reshape(a, s), rt.reshape(a, s))
                     ).get_concrete_function(rt.TensorSpec([None], rt.float32),
                                             rt.TensorSpec([None], rt.int32))
    with pytest.raises(rt.onnx.ExportError, match="ranks to be known"):
        rt.onnx.export(cf)


def test_the_sweep_covers_every_op_the_rules_export():
    """Each op with an ONNX rule is exported by some program of the sweep (but random
    draws, whose values differ, and variable reads, exported as constants)."""
    from runtime.backends.onnx.rules import RULES
    seen = set()
    for name, fn, cases in PROGRAMS:
        case = tuple(np.asarray(a) for a in cases[0])
        graph = rt.function(fn).get_concrete_function(*_specs(case)).graph
        stack = [graph]
        while stack:
            g = stack.pop()
            for op in g.get_operations():
                seen.add(op.opdef)
                stack += [b.graph for b in op.opdef.bodies(op)] if op.opdef.body_attrs else []
    missing = sorted(d.name for d in RULES if d not in seen)
    assert missing == ["RandomStandardNormal", "RandomUniform", "ReadVariableOp"], str(missing)
