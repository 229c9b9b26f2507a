"""Side effects that happen every time a graph runs: printing, run-time assertions, and
calling back into Python (`py_function`)."""
from __future__ import annotations

import sys
import textwrap
from typing import Callable, Optional

import numpy as np

from .. import config as _config
from ..core import dtypes
from ..errors import InvalidArgumentError, OutOfRangeError
from ..core.graph import eager_scope
from ..core.shapes import TensorShape
from ..core.tensor import EagerTensor, Tensor
from . import math_ops, reduce_ops
from . import numerics_ops as _numerics
from .core import OpDef, apply_op, convert_to_tensor

# -- print ------------------------------------------------------------------------------


def format_scalar(v) -> str:
    if isinstance(v, (bytes, np.bytes_)):
        return v.decode("utf-8", "replace")
    if isinstance(v, (np.floating, float)):
        if np.isnan(v):
            return "nan"
        if np.isinf(v):
            return "inf" if v > 0 else "-inf"
        # TensorFlow's FloatToBuffer: 6 (15) significant digits when they read back as the
        # same value, else 9 (17): `0.405638`, `0.713946581`.
        short, full = (15, 17) if isinstance(v, (float, np.float64)) else (6, 9)
        text = "%.*g" % (short, v)
        return text if type(v)(text) == v else "%.*g" % (full, v)
    if isinstance(v, (np.bool_, bool)):
        return "1" if v else "0"
    return str(v)


def format_value(a, summarize: int = 3) -> str:
    """A value as `rt.print` shows it: `1`, `fizz`, `[0.666458249 0.713946581]`; dimensions
    longer than 2*summarize show their first and last `summarize` items around `...`."""
    a = np.asarray(a) if not isinstance(a, np.ndarray) else a
    if a.ndim == 0:
        return format_scalar(a[()])
    return _format_array(a, summarize, 1)


def _format_array(a, summarize, depth):
    n = a.shape[0]
    if summarize is not None and summarize >= 0 and n > 2 * summarize:
        idx = list(range(summarize)) + [None] + list(range(n - summarize, n))
    else:
        idx = list(range(n))
    if a.ndim == 1:
        return "[" + " ".join("..." if i is None else format_scalar(a[i]) for i in idx) + "]"
    sep = "\n" * (a.ndim - 1) + " " * depth
    return "[" + sep.join("..." if i is None else _format_array(a[i], summarize, depth + 1)
                          for i in idx) + "]"


def _print_infer(inputs, template, sep, end, stream, summarize):
    return []


def _print_kernel(*values, template, sep, end, stream, summarize):
    # one entry per argument: its text pieces, where ("t", i) is the value of tensor i
    parts = ["".join(format_value(values[p[1]], summarize) if isinstance(p, tuple) else p
                     for p in pieces) for pieces in template]
    out = stream if stream is not None else sys.stdout
    if isinstance(out, str):
        out = {"sys.stdout": sys.stdout, "sys.stderr": sys.stderr}[out]
    out.write(sep.join(parts) + end)
    return ()


PRINT = OpDef("PrintV2", _print_infer, _print_kernel, side_effect=True, multi_output=True,
              observer=True, effect="prints")


def print_(*inputs, sep: str = " ", end: str = "\n", output_stream=None, summarize: int = 3,
           name: Optional[str] = None):
    """Prints tensors (and other values) every time it runs: eagerly now, or at every run of
    the graph it is recorded in, in program order. `output_stream=None` means the
    `sys.stdout` of the moment it prints; "sys.stderr" or a file object also work.

    Tensors print their values as TensorFlow's tf.print does (`[1 2]`, floats with 6 or 9
    significant digits, bools as 1 and 0), also inside lists, tuples and dicts; other
    values print as `str` at the top level and as `repr` inside containers.

    Args:
      *inputs: the values to print, tensors or Python values.
      sep: the text between two inputs.
      end: the text after the last input.
      output_stream: None (sys.stdout), sys.stdout, sys.stderr, "sys.stderr" or a file
        object.
      summarize: the number of items shown at each end of a longer dimension (the middle
        prints as `...`).
      name: an optional name for the op.

    Returns:
      None (in a graph the op runs for its effect, in program order).

    >>> rt.print("x:", rt.constant([1, 2]), {"y": rt.constant(0.5)})
    x: [1 2] {'y': 0.5}
    >>> rt.print(rt.range(10), summarize=2)
    [0 1 ... 8 9]
    >>> @rt.function
    ... def f(x):
    ...     rt.print("running with", x)
    ...     return x + 1
    >>> _ = f(rt.constant(1)); _ = f(rt.constant(2))
    running with 1
    running with 2
    """
    template, tensors = [], []
    for v in inputs:
        pieces = []
        _text_pieces(v, pieces, tensors, top=True)
        template.append(tuple(pieces))
    if output_stream is sys.stdout:
        output_stream = None
    elif output_stream is sys.stderr:
        output_stream = "sys.stderr"
    apply_op(PRINT, tensors, {"template": tuple(template), "sep": sep, "end": end,
                              "stream": output_stream, "summarize": summarize}, name=name)


def _text_pieces(v, pieces: list, tensors: list, top: bool = False) -> None:
    """How one argument prints: Python text, with ("t", i) where tensor i's value goes, so
    that tensors inside lists, tuples and dicts print their values (`[1, 2]`) every run."""
    if getattr(v, "_as_tensor", None) is not None:
        v = v._as_tensor()
    if isinstance(v, Tensor):
        pieces.append(("t", len(tensors)))
        tensors.append(v)
    elif isinstance(v, (list, tuple, dict)):
        items = list(v.items()) if isinstance(v, dict) else list(enumerate(v))
        open_, close = "{}" if isinstance(v, dict) else "[]" if isinstance(v, list) else "()"
        pieces.append(open_)
        for n, (k, x) in enumerate(items):
            if n:
                pieces.append(", ")
            if isinstance(v, dict):
                pieces.append(f"{k!r}: ")
            _text_pieces(x, pieces, tensors)
        if isinstance(v, tuple) and len(items) == 1:
            pieces.append(",")
        pieces.append(close)
    else:
        pieces.append(str(v) if top else repr(v))


# -- assertions -------------------------------------------------------------------------


def _assert_infer(inputs, message, **error):   # (`error` when not InvalidArgumentError)
    c = inputs[0]
    if not c.dtype.is_bool:
        raise InvalidArgumentError(f"an assertion needs a bool condition, got {c.dtype.name}")
    return []


def _assert_kernel(cond, *data, message, error="invalid_argument"):
    if not np.all(cond):
        shown = "\n".join(format_value(d, 3) for d in data)
        raise ASSERTION_ERRORS[error](message + ("\n" + shown if shown else ""))
    return ()


# The error a failed assertion raises, by its `error` attribute (a dataset iterator read
# past its end raises OutOfRangeError, as TensorFlow's IteratorGetNext)
ASSERTION_ERRORS = {"invalid_argument": InvalidArgumentError, "out_of_range": OutOfRangeError}


ASSERT = OpDef("Assert", _assert_infer, _assert_kernel, side_effect=True, multi_output=True,
               observer=True, repeatable=True)
OPS = [PRINT, ASSERT]


def Assert(condition, data=(), summarize=None, name: Optional[str] = None):  # noqa: N802
    """Raises InvalidArgumentError when `condition` is False (at every graph run).

    Eagerly it checks at once; in a graph the check runs, in program order, every time
    the graph runs. The message lists the values of `data`.

    Args:
      condition: a bool tensor; the assertion holds when all its elements are True (a
        non-bool tensor raises InvalidArgumentError).
      data: tensors whose values the error message shows.
      summarize: accepted for TensorFlow's signature; unused.
      name: an optional name for the op.

    Returns:
      None.

    >>> rt.Assert(rt.constant(True), [rt.constant(1)])
    >>> rt.Assert(rt.constant([1, 2]) > 1, [rt.constant([1, 2])])
    Traceback (most recent call last):
    ...
    runtime.errors.InvalidArgumentError: assertion failed
    [1 2]
    """
    c = convert_to_tensor(condition)
    apply_op(ASSERT, [c, *[convert_to_tensor(d) for d in data]],
             {"message": "assertion failed"}, name=name)


def assert_that(condition, message: str, data=(), name: Optional[str] = None,
                error: str = "invalid_argument"):
    """The run-time check behind every rt.debugging assertion; `error` names the error
    class it raises (a key of ASSERTION_ERRORS)."""
    c = convert_to_tensor(condition)
    attrs = {"message": message} if error == "invalid_argument" else \
        {"message": message, "error": error}
    apply_op(ASSERT, [c, *[convert_to_tensor(d) for d in data]], attrs, name=name or "Assert")


def _comparison_assert(op_name: str, symbol: str):
    def check(x, y, message: Optional[str] = None, summarize=None, name: Optional[str] = None):
        x, y = math_ops.binary_operands(x, y)
        held = reduce_ops.reduce_all(getattr(math_ops, op_name)(x, y))
        text = (message + "\n" if message else "") + (
            f"Condition x {symbol} y did not hold element-wise:\n"
            f"x (shape={x.shape} dtype={x.dtype.name}) and y (shape={y.shape} "
            f"dtype={y.dtype.name}) are:")
        assert_that(held, text, (x, y), name=name or f"assert_{op_name}")
    check.__name__ = check.__qualname__ = f"assert_{op_name}"
    check.__doc__ = _COMPARISON_DOC.format(symbol=symbol, name=check.__name__,
                                           example=textwrap.dedent(_COMPARISON_EXAMPLES[op_name]).strip())
    return check


_COMPARISON_DOC = """Raises InvalidArgumentError unless x {symbol} y for every element.

x and y broadcast against each other and must have one dtype (a Python number takes the
tensor's). Eagerly it checks at once; in a graph the check runs every time the graph runs.
The error message shows `message`, the condition and both values.

Args:
  x: a tensor (or what converts to one).
  y: a tensor (or what converts to one) of x's dtype.
  message: text to put first in the error message.
  summarize: accepted for TensorFlow's signature; unused.
  name: an optional name for the op.

Returns:
  None.

{example}
"""

_COMPARISON_EXAMPLES = {
    "equal": """
    >>> rt.debugging.assert_equal(rt.constant([1, 2]), rt.constant([1, 2]))
    >>> rt.debugging.assert_equal(rt.constant([1, 2]), 1, message="not all ones")
    Traceback (most recent call last):
    ...
    runtime.errors.InvalidArgumentError: not all ones
    Condition x == y did not hold element-wise:
    x (shape=(2,) dtype=int32) and y (shape=() dtype=int32) are:
    [1 2]
    1
    """,
    "not_equal": """
    >>> rt.debugging.assert_none_equal(rt.constant([1, 2]), 3)
    >>> rt.debugging.assert_none_equal(rt.constant([1, 2]), rt.constant([0, 2]))
    Traceback (most recent call last):
    ...
    runtime.errors.InvalidArgumentError: Condition x != y did not hold element-wise:
    x (shape=(2,) dtype=int32) and y (shape=(2,) dtype=int32) are:
    [1 2]
    [0 2]
    """,
    "less": """
    >>> rt.debugging.assert_less(rt.constant([1, 2]), 3)
    >>> rt.debugging.assert_less(rt.constant([1, 2]), 2)
    Traceback (most recent call last):
    ...
    runtime.errors.InvalidArgumentError: Condition x < y did not hold element-wise:
    x (shape=(2,) dtype=int32) and y (shape=() dtype=int32) are:
    [1 2]
    2
    """,
    "less_equal": """
    >>> rt.debugging.assert_less_equal(rt.constant([1, 2]), 2)
    >>> rt.debugging.assert_less_equal(rt.constant([1.0, 2.5]), 2.0)
    Traceback (most recent call last):
    ...
    runtime.errors.InvalidArgumentError: Condition x <= y did not hold element-wise:
    x (shape=(2,) dtype=float32) and y (shape=() dtype=float32) are:
    [1 2.5]
    2
    """,
    "greater": """
    >>> rt.debugging.assert_greater(rt.constant([1, 2]), 0)
    >>> rt.debugging.assert_greater(rt.constant([1, 2]), 1)
    Traceback (most recent call last):
    ...
    runtime.errors.InvalidArgumentError: Condition x > y did not hold element-wise:
    x (shape=(2,) dtype=int32) and y (shape=() dtype=int32) are:
    [1 2]
    1
    """,
    "greater_equal": """
    >>> rt.debugging.assert_greater_equal(rt.constant([1, 2]), 1)
    >>> rt.debugging.assert_greater_equal(rt.constant([1, 2]), rt.constant([2, 2]))
    Traceback (most recent call last):
    ...
    runtime.errors.InvalidArgumentError: Condition x >= y did not hold element-wise:
    x (shape=(2,) dtype=int32) and y (shape=(2,) dtype=int32) are:
    [1 2]
    [2 2]
    """,
}


def _sign_assert(name: str, symbol: str, op_name: str):
    def check(x, message: Optional[str] = None, summarize=None, name_: Optional[str] = None):
        x = convert_to_tensor(x)
        held = reduce_ops.reduce_all(getattr(math_ops, op_name)(x, convert_to_tensor(0, dtype=x.dtype)))
        text = (message + "\n" if message else "") + (
            f"Condition x {symbol} 0 did not hold element-wise: x (shape={x.shape} "
            f"dtype={x.dtype.name}) =")
        assert_that(held, text, (x,), name=name)
    check.__name__ = check.__qualname__ = name
    check.__doc__ = _SIGN_DOC.format(symbol=symbol,
                                     example=textwrap.dedent(_SIGN_EXAMPLES[name]).strip())
    return check


_SIGN_DOC = """Raises InvalidArgumentError unless x {symbol} 0 for every element.

Eagerly it checks at once; in a graph the check runs every time the graph runs. The error
message shows `message`, the condition and x's value.

Args:
  x: a tensor (or what converts to one) of a numeric dtype.
  message: text to put first in the error message.
  summarize: accepted for TensorFlow's signature; unused.
  name_: an optional name for the op.

Returns:
  None.

{example}
"""

_SIGN_EXAMPLES = {
    "assert_positive": """
    >>> rt.debugging.assert_positive(rt.constant([1, 2]))
    >>> rt.debugging.assert_positive(rt.constant([0, 2]))
    Traceback (most recent call last):
    ...
    runtime.errors.InvalidArgumentError: Condition x > 0 did not hold element-wise: x (shape=(2,) dtype=int32) =
    [0 2]
    """,
    "assert_negative": """
    >>> rt.debugging.assert_negative(rt.constant([-1.5]))
    >>> rt.debugging.assert_negative(rt.constant([-1, 0]))
    Traceback (most recent call last):
    ...
    runtime.errors.InvalidArgumentError: Condition x < 0 did not hold element-wise: x (shape=(2,) dtype=int32) =
    [-1 0]
    """,
    "assert_non_negative": """
    >>> rt.debugging.assert_non_negative(rt.constant([0, 2]))
    >>> rt.debugging.assert_non_negative(rt.constant([-1, 2]))
    Traceback (most recent call last):
    ...
    runtime.errors.InvalidArgumentError: Condition x >= 0 did not hold element-wise: x (shape=(2,) dtype=int32) =
    [-1 2]
    """,
    "assert_non_positive": """
    >>> rt.debugging.assert_non_positive(rt.constant([0, -2]))
    >>> rt.debugging.assert_non_positive(rt.constant([1, -2]), message="x")
    Traceback (most recent call last):
    ...
    runtime.errors.InvalidArgumentError: x
    Condition x <= 0 did not hold element-wise: x (shape=(2,) dtype=int32) =
    [1 -2]
    """,
}


class debugging:  # noqa: N801 - the namespace `rt.debugging`
    """Run-time assertions (`rt.debugging.assert_equal(x, y)` ...) and the switch of
    traceback filtering.

    The value checks (assert_equal, assert_positive, assert_all_finite, Assert ...) run
    eagerly at once and, in a graph, every time it runs; they raise InvalidArgumentError.
    assert_rank and assert_type check what is known when the op is built (ValueError,
    TypeError).

    >>> rt.debugging.assert_equal(rt.constant([1, 2]), rt.constant([1, 2]))
    >>> @rt.function
    ... def safe_sqrt(x):
    ...     rt.debugging.assert_non_negative(x, message="safe_sqrt")
    ...     return rt.sqrt(x)
    >>> safe_sqrt(rt.constant([4.0]))
    <rt.Tensor: shape=(1,), dtype=float32, numpy=array([2.], dtype=float32)>
    >>> safe_sqrt(rt.constant([-4.0]))
    Traceback (most recent call last):
    ...
    runtime.errors.InvalidArgumentError: safe_sqrt
    Condition x >= 0 did not hold element-wise: x (shape=(1,) dtype=float32) =
    [-4]
      [[node assert_non_negative (Assert), defined at ...:3 in safe_sqrt]]
    """

    assert_equal = staticmethod(_comparison_assert("equal", "=="))
    assert_none_equal = staticmethod(_comparison_assert("not_equal", "!="))
    assert_less = staticmethod(_comparison_assert("less", "<"))
    assert_less_equal = staticmethod(_comparison_assert("less_equal", "<="))
    assert_greater = staticmethod(_comparison_assert("greater", ">"))
    assert_greater_equal = staticmethod(_comparison_assert("greater_equal", ">="))
    assert_positive = staticmethod(_sign_assert("assert_positive", ">", "greater"))
    assert_negative = staticmethod(_sign_assert("assert_negative", "<", "less"))
    assert_non_negative = staticmethod(_sign_assert("assert_non_negative", ">=", "greater_equal"))
    assert_non_positive = staticmethod(_sign_assert("assert_non_positive", "<=", "less_equal"))
    Assert = staticmethod(Assert)
    # TensorFlow's names for the switch of runtime/traceback_filter.py
    disable_traceback_filtering = staticmethod(_config.disable_traceback_filtering)
    enable_traceback_filtering = staticmethod(_config.enable_traceback_filtering)
    is_traceback_filtering_enabled = staticmethod(_config.traceback_filtering_enabled)
    # NaN/Inf checks (runtime/ops/numerics_ops.py)
    check_numerics = staticmethod(_numerics.check_numerics)
    enable_check_numerics = staticmethod(_numerics.enable_check_numerics)
    disable_check_numerics = staticmethod(_numerics.disable_check_numerics)

    @staticmethod
    def assert_rank(x, rank: int, message: Optional[str] = None, name=None):
        """Raises ValueError if x's static rank is known and is not `rank`.

        The check happens when the op is built (an unknown rank passes); no op is added.

        Args:
          x: a tensor (or what converts to one).
          rank: the rank x must have.
          message: text to put first in the error message.
          name: accepted for TensorFlow's signature; unused.

        Returns:
          None.

        >>> rt.debugging.assert_rank(rt.constant([[1, 2]]), 2)
        >>> rt.debugging.assert_rank(rt.constant([1, 2]), 2)
        Traceback (most recent call last):
        ...
        ValueError: Tensor must have rank 2; it has shape (2,)
        """
        x = convert_to_tensor(x)
        if x.shape.rank is not None and x.shape.rank != rank:
            raise ValueError((message + " " if message else "") +
                             f"Tensor must have rank {rank}; it has shape {x.shape}")

    @staticmethod
    def assert_type(tensor, tf_type, message: Optional[str] = None, name=None):
        """Raises TypeError unless `tensor` has the dtype `tf_type`.

        The check happens when the op is built; no op is added.

        Args:
          tensor: a tensor (or what converts to one).
          tf_type: the dtype it must have (an rt dtype or its name).
          message: text to put first in the error message.
          name: accepted for TensorFlow's signature; unused.

        Returns:
          None.

        >>> rt.debugging.assert_type(rt.constant([1.0]), rt.float32)
        >>> rt.debugging.assert_type(rt.constant([1]), rt.float32)
        Traceback (most recent call last):
        ...
        TypeError: expected a float32 tensor, got int32
        """
        t = convert_to_tensor(tensor)
        if t.dtype is not dtypes.as_dtype(tf_type):
            raise TypeError((message + " " if message else "") +
                            f"expected a {dtypes.as_dtype(tf_type).name} tensor, got {t.dtype.name}")

    @staticmethod
    def assert_all_finite(t, message: str, name=None):
        """Raises InvalidArgumentError if `t` holds an inf or a nan; else returns `t`.

        Eagerly it checks at once; in a graph the check runs every time the graph runs.

        Args:
          t: a tensor (or what converts to one) of a floating-point dtype.
          message: the error message (empty: "Tensor had Inf or NaN values").
          name: an optional name for the op.

        Returns:
          `t`, as a tensor.

        >>> rt.debugging.assert_all_finite(rt.constant([1.0, 2.0]), "bad")
        <rt.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>
        >>> rt.debugging.assert_all_finite(rt.constant([1.0, np.nan]), "bad values")
        Traceback (most recent call last):
        ...
        runtime.errors.InvalidArgumentError: bad values
        """
        t = convert_to_tensor(t)
        finite = reduce_ops.reduce_all(math_ops.less(math_ops.abs(t), convert_to_tensor(np.inf, dtype=t.dtype)))
        assert_that(finite, message or "Tensor had Inf or NaN values", (), name=name)
        return t


# -- py_function --------------------------------------------------------------------------


def _py_infer(inputs, func, tout, single):
    return [(TensorShape(None), d) for d in tout]


def _py_kernel(*args, func, tout, single):
    with eager_scope():
        result = func(*[EagerTensor(np.asarray(a), dtypes.as_dtype(np.asarray(a).dtype))
                        if not isinstance(a, EagerTensor) else a for a in args])
    results = [result] if single else list(result or ())
    if len(results) != len(tout):
        raise InvalidArgumentError(f"py_function: {getattr(func, '__name__', func)} returned "
                                   f"{len(results)} values, Tout declares {len(tout)}")
    out = []
    for r, d in zip(results, tout):
        with eager_scope():
            t = convert_to_tensor(r, dtype=d)
        out.append(t._value)
    return tuple(out)


PY_FUNC = OpDef("EagerPyFunc", _py_infer, _py_kernel, side_effect=True, multi_output=True,
                calls_python=True, effect="calls Python (rt.py_function)")
OPS.append(PY_FUNC)


def py_function(func: Callable, inp, Tout, name: Optional[str] = None):  # noqa: N803
    """Calls the Python function `func` on eager tensors every time the op runs.

    Eagerly `func` runs at once; in a graph it runs, in program order, every time the graph
    runs. `func` may use any Python; its results are converted to the dtypes of `Tout` (a
    count that differs from Tout's raises InvalidArgumentError). The results' shapes are
    unknown while the graph is built. A graph holding a py_function has no XLA lowering
    (jit_compile=True raises XlaLoweringError) and cannot be saved.

    Args:
      func: a Python function taking as many tensors as `inp` has.
      inp: a list of tensors (or what converts to them), the arguments of `func`.
      Tout: a dtype (func returns one value) or a list of dtypes (func returns a list).
      name: an optional name for the op.

    Returns:
      A tensor if Tout is a dtype, else a list of tensors.

    >>> def count_nonzero(x):
    ...     return int(np.count_nonzero(x.numpy()))
    >>> rt.py_function(count_nonzero, [rt.constant([0, 3, 5])], rt.int32)
    <rt.Tensor: shape=(), dtype=int32, numpy=2>
    >>> @rt.function
    ... def f(x):
    ...     return rt.py_function(lambda t: [t * 2, t + 1], [x], [rt.int32, rt.int32])
    >>> f(rt.constant(4))
    [<rt.Tensor: shape=(), dtype=int32, numpy=8>, <rt.Tensor: shape=(), dtype=int32, numpy=5>]
    """
    single = not isinstance(Tout, (list, tuple))
    tout = [dtypes.as_dtype(Tout)] if single else [dtypes.as_dtype(d) for d in Tout]
    ins = [convert_to_tensor(x) for x in inp]
    outs = apply_op(PY_FUNC, ins, {"func": func, "tout": tuple(tout), "single": single}, name=name)
    return outs[0] if single else list(outs)
