"""One program, every way it can run: the differential test helper.

`agree(fn, *cases)` runs `fn` on each case

- eagerly (the reference: TensorFlow's eager semantics, `fn` called on eager tensors),
- staged by `rt.function` on the numpy backend, traced for the case's shapes,
- staged again for unknown dimensions (`input_signature` with every dimension None),
- under `jit_compile=True` (when JAX is installed), for the case's shapes and unknown ones,
- exported to ONNX and run by onnxruntime (when both are installed and the function
  exports; `onnx="required"` makes a refused export a failure),

and, for each case, on its variants as a matter of course: the leading dimension cut to
zero rows and to one row, and NaN in float inputs. Every way must give the eager answer
(dtype, shape, values, NaN where eager has NaN, and the text `rt.print` writes), or, where
eager raises, raise too. A new feature gets all of it by calling `agree` once.
"""
from __future__ import annotations

import contextlib
import io
from typing import Callable, Iterable, Optional

import numpy as np

import runtime as rt

try:
    import jax  # noqa: F401
    HAVE_JAX = True
except ImportError:  # pragma: no cover - the jax extra is optional
    HAVE_JAX = False

try:
    import onnx  # noqa: F401
    import onnxruntime as ort
    # onnxruntime 1.23 (the last with Python 3.10 wheels) runs some TensorArray loops
    # wrongly (a Gather out of bounds in a loop that writes every item): the exported
    # models are checked with 1.32 and later
    HAVE_ONNX = tuple(int(p) for p in ort.__version__.split(".")[:2]) >= (1, 32)
except ImportError:  # pragma: no cover - the onnx extra is optional
    HAVE_ONNX = False

VARIANTS = ("given", "empty", "one", "nan")


class Outcome:
    """What one way of running gave: flattened numpy results and printed text, or an
    exception."""

    def __init__(self, values=None, printed="", error=None):
        self.values, self.printed, self.error = values, printed, error

    def __repr__(self):
        if self.error is not None:
            return f"raised {type(self.error).__name__}: {self.error}"
        return f"{self.values!r} printed {self.printed!r}"


def _flat_numpy(result) -> list:
    out = []
    for leaf in rt.nest.flatten(result, expand_composites=True):
        # a Python number eager code returns is what rt.function's output makes of it
        out.append(np.asarray(leaf.numpy() if hasattr(leaf, "numpy")
                              else rt.constant(leaf).numpy()))
    return out


def _run(call: Callable, args) -> Outcome:
    text = io.StringIO()
    try:
        with contextlib.redirect_stdout(text):
            result = call(*args)
    except Exception as e:  # the comparison decides whether raising was right
        return Outcome(printed=text.getvalue(), error=e)
    return Outcome(_flat_numpy(result), text.getvalue())


def _tensors(arrays) -> list:
    return [rt.constant(a) if isinstance(a, np.ndarray) else a for a in arrays]


def _unknown_signature(arrays) -> list:
    return [rt.TensorSpec([None] * a.ndim, rt.as_dtype(a.dtype)) for a in arrays]


def variants(case, which: Iterable[str] = VARIANTS) -> list:
    """(name, arrays) for each variant of `case` that differs from it: zero rows and one
    row of every array with a leading dimension, NaN as the first element of float
    arrays."""
    arrays = [np.asarray(a) for a in case]
    out = []
    for name in which:
        if name == "given":
            made = arrays
        elif name in ("empty", "one"):
            rows = 0 if name == "empty" else 1
            if not any(a.ndim and a.shape[0] != rows for a in arrays):
                continue
            made = [a[:rows] if a.ndim else a for a in arrays]
        elif name == "nan":
            if not any(a.dtype.kind == "f" and a.size for a in arrays):
                continue
            made = []
            for a in arrays:
                if a.dtype.kind == "f" and a.size:
                    a = a.copy()
                    a.reshape(-1)[0] = np.nan
                made.append(a)
        else:
            raise ValueError(f"unknown variant {name!r}; expected one of {VARIANTS}")
        out.append((name, made))
    return out


def _same(way: str, got: Outcome, want: Outcome, rtol: float, where: str) -> None:
    if want.error is not None:
        assert got.error is not None, (
            f"{where}: eager raised {type(want.error).__name__}: {want.error}, "
            f"but {way} gave {got}")
        return
    assert got.error is None, f"{where}: eager gave {want}, but {way} {got}"
    assert len(got.values) == len(want.values), (where, way, got, want)
    for a, e in zip(got.values, want.values):
        assert a.dtype == e.dtype, f"{where}: {way} gave dtype {a.dtype}, eager {e.dtype}"
        assert a.shape == e.shape, f"{where}: {way} gave shape {a.shape}, eager {e.shape}"
        if a.dtype.kind in "fc":
            np.testing.assert_allclose(a, e, rtol=rtol, atol=rtol, equal_nan=True,
                                       err_msg=f"{where}: {way}")
        else:
            np.testing.assert_array_equal(a, e, err_msg=f"{where}: {way}")
    if way != "onnx":  # ONNX has no printing
        assert got.printed == want.printed, (where, way, got.printed, want.printed)


def _check(way, got, want, rtol, where, jit):
    if way.startswith("jit_compile") and jit == "refuses":
        from runtime.backends.xla.backend import XlaLoweringError
        assert isinstance(got.error, XlaLoweringError), f"{where}: {way} gave {got}"
        return
    _same(way, got, want, rtol, where)


def _onnx_outcome(fn, arrays, onnx_mode: str, where: str) -> Optional[Outcome]:
    try:
        cf = rt.function(fn).get_concrete_function(*_unknown_signature(arrays))
    except Exception as e:  # a trace that raises (as eager raises, or a mismatch)
        return Outcome(error=e)
    try:
        model = rt.onnx.export(cf)
    except rt.onnx.ExportError:
        if onnx_mode == "required":
            raise
        return None
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    try:
        values = session.run(None, dict(zip(names, arrays)))
    except Exception as e:  # onnxruntime's own error class
        return Outcome(error=e)
    return Outcome([np.asarray(v) for v in values])


def agree(fn: Callable, *cases, which: Iterable[str] = VARIANTS, jit: str = "agrees",
          unknown: bool = True, onnx: str = "optional", rtol: float = 1e-5) -> list:
    """Runs `fn` on every case and its variants, every way; all must agree with eager.

    Args:
      fn: a function of tensors (not yet an rt.function).
      *cases: each a tuple of numpy arrays (the tensor arguments).
      which: the variants to run (`VARIANTS`).
      jit: "agrees" (run under `jit_compile=True` when JAX is installed and agree),
        "refuses" (XLA cannot compile it: every jit_compile call must raise the
        backend's XlaLoweringError, never give another answer), or "skip".
      unknown: also trace for unknown dimensions.
      onnx: "optional" (compare when the function exports), "required" (it must
        export), or "skip".

    Returns:
      The eager outcomes, one per variant run, for further checks.
    """
    if jit not in ("agrees", "refuses", "skip"):
        raise ValueError(f"jit must be 'agrees', 'refuses' or 'skip', got {jit!r}")
    ways = [("numpy", rt.function(fn))]
    if jit != "skip" and HAVE_JAX:
        ways.append(("jit_compile", rt.function(fn, jit_compile=True)))
    wanted = []
    for case in cases:
        for name, arrays in variants(case, which):
            where = f"{getattr(fn, '__name__', fn)} on {name} inputs {[a.shape for a in arrays]}"
            want = _run(fn, _tensors(arrays))
            wanted.append(want)
            for way, staged in ways:
                _check(way, _run(staged, _tensors(arrays)), want, rtol, where, jit)
            if unknown and any(a.ndim for a in arrays):
                signature = _unknown_signature(arrays)
                ways_unknown = [("numpy, unknown dims", rt.function(fn, input_signature=signature))]
                if jit != "skip" and HAVE_JAX:
                    ways_unknown.append(("jit_compile, unknown dims", rt.function(
                        fn, input_signature=signature, jit_compile=True)))
                for way, staged in ways_unknown:
                    _check(way, _run(staged, _tensors(arrays)), want, rtol, where, jit)
            if onnx != "skip" and HAVE_ONNX and not want.printed:
                got = _onnx_outcome(fn, arrays, onnx, where)
                if got is not None:
                    _same("onnx", got, want, rtol, where)
    return wanted
