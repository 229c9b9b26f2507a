"""`rt.debugging.check_numerics` (TensorFlow's CheckNumerics op) and
`rt.debugging.enable_check_numerics` / `disable_check_numerics`.

CheckNumerics passes its input through and raises InvalidArgumentError naming its message
when the input holds NaN or Inf, eagerly at once and, in a graph, each time the graph
runs (on the XLA backend too: a run-time check). enable_check_numerics registers an op
callback (`runtime.core.hooks.op_callbacks`): every op made after it that gives floating
outputs has them checked — eagerly as the op runs; in a graph by a CheckNumerics op after
it, whose message names the op and the user's line that made it.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core import hooks
from ..core.graph import user_location
from ..core.tensor import EagerTensor
from ..errors import InvalidArgumentError
from .core import OpDef, apply_op, convert_to_tensor

_GRADIENT = "Not a number (NaN) or infinity (Inf) values detected in gradient. "


def _what(x) -> Optional[str]:
    nan, inf = bool(np.isnan(x).any()), bool(np.isinf(x).any())
    if nan and inf:
        return "Inf and NaN"
    return "NaN" if nan else "Inf" if inf else None


def _infer(inputs, message):
    x = inputs[0]
    if not x.dtype.is_floating:
        raise InvalidArgumentError(f"CheckNumerics takes floating tensors, got {x.dtype.name}")
    return [(x.shape, x.dtype)]


def error_for(x, message):
    """The InvalidArgumentError CheckNumerics raises for the value x (None if x is finite)."""
    what = _what(x)
    if what is None:
        return None
    return InvalidArgumentError(f"{message} : Tensor had {what} values")


def _kernel(x, message):
    error = error_for(x, message)
    if error is not None:
        raise error
    return x


CHECK_NUMERICS = OpDef(
    "CheckNumerics", _infer, _kernel, side_effect=True, observer=True, repeatable=True,
    allocates=False, effect="raises when its input holds NaN or Inf",
    grad=lambda inputs, outputs, grads, message: [
        check_numerics(grads[0], _GRADIENT + message)])
OPS = [CHECK_NUMERICS]


def check_numerics(tensor, message: str, name: Optional[str] = None):
    """`tensor` itself, after checking it holds no NaN or Inf: InvalidArgumentError
    "<message> : Tensor had NaN values" (or Inf) when it does, eagerly at once and inside
    an `rt.function` each time it runs. Its gradient checks the gradient the same way.

    Args:
      tensor: a floating tensor.
      message: the text the error starts with.
      name: an optional name for the op.

    Returns:
      `tensor`'s value.

    >>> rt.debugging.check_numerics(rt.constant([1.0, 2.0]), "weights")
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>
    >>> rt.debugging.check_numerics(rt.constant([1.0, float("nan")]), "weights")
    Traceback (most recent call last):
    ...
    runtime.errors.InvalidArgumentError: weights : Tensor had NaN values
    """
    return apply_op(CHECK_NUMERICS, [convert_to_tensor(tensor)], {"message": str(message)},
                    name=name or "CheckNumerics")


def _where(location) -> str:
    if location is None:
        return "an unknown line"
    file, line, fn = location
    return f"{file}:{line} in {fn}"


def _message(opdef, index, count, kind, name, location) -> str:
    named = f" (node {name})" if name else ""
    return (f"Detected Infinity or NaN in output {index} of {kind} op \"{opdef.name}\"{named} "
            f"(# of outputs: {count}), made at {_where(location)}")


def _check_outputs(opdef, inputs, outputs, op):
    if opdef is CHECK_NUMERICS or opdef.feedable or opdef.constant:
        return outputs
    many = isinstance(outputs, (list, tuple))
    outs = list(outputs) if many else [outputs]
    if op is None:  # eager: the values are here
        location = None
        for i, t in enumerate(outs):
            if isinstance(t, EagerTensor) and t.dtype.is_floating:
                what = _what(t.numpy())
                if what is not None:
                    location = location or user_location()
                    raise InvalidArgumentError(
                        _message(opdef, i, len(outs), "eager", None, location) + f": {what}")
        return outputs
    checked = [apply_op(CHECK_NUMERICS, [t], {"message": _message(
        opdef, i, len(outs), "graph", op.name, op.location)}) if t.dtype.is_floating else t
               for i, t in enumerate(outs)]
    if not many:
        return checked[0]
    return type(outputs)(checked) if isinstance(outputs, tuple) else checked


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """Checks every floating output of every op made from now on (eagerly as it runs, in
    graphs built from now on each time they run) for NaN and Inf; the InvalidArgumentError
    names the op and the user's line that made it. The arguments are TensorFlow's and
    change nothing here.

    >>> rt.debugging.enable_check_numerics()
    >>> rt.constant([1.0]) / 0.0
    Traceback (most recent call last):
    ...
    runtime.errors.InvalidArgumentError: Detected Infinity or NaN in output 0 of eager op "RealDiv" (# of outputs: 1), made at ...: Inf
    >>> rt.debugging.disable_check_numerics()
    """
    if _check_outputs not in hooks.op_callbacks:
        hooks.op_callbacks.append(_check_outputs)


def disable_check_numerics() -> None:
    """Stops what enable_check_numerics started (graphs traced meanwhile keep their checks).

    >>> rt.debugging.enable_check_numerics()
    >>> rt.debugging.disable_check_numerics()
    >>> rt.constant([1.0]) / 0.0
    <rt.Tensor: shape=(1,), dtype=float32, numpy=array([inf], dtype=float32)>
    """
    if _check_outputs in hooks.op_callbacks:
        hooks.op_callbacks.remove(_check_outputs)
