"""`rt.custom_gradient` and `rt.recompute_grad` (TensorFlow's `tf.custom_gradient`,
`tf.recompute_grad`).

A call of a decorated `f` runs `f` (the open tapes record it), then passes its results through
one `CustomGradient` op: its inputs are f's tensor arguments, the values of the trainable
Variables f read, and f's results; its outputs are f's results again. The op's gradient
rule calls the user's `grad_fn`, so the same op serves eager tapes, tapes opened inside a
trace, and the backward graph of a Function differentiated from outside. Under
`jit_compile` (and in numpy plans) the op is the identity on f's results.
"""
from __future__ import annotations

import functools
import inspect

from .. import nest
from ..core.apply import apply_op
from ..core.opdef import OpDef
from ..core.tensor import Tensor
from ..ops.core import convert_to_tensor, identity
from ..ops.makers import zeros_like
from ..ops.state_ops import Variable
from ..backprop import Grads
from .tape import GradientTape

__all__ = ["custom_gradient", "recompute_grad", "CUSTOM_GRADIENT"]


def _infer(inputs, n_out, **attrs):
    return [(t.shape, t.dtype) for t in inputs[len(inputs) - n_out:]]


def _kernel(*arrays, n_out, **attrs):
    return tuple(arrays[len(arrays) - n_out:])


def _grad(inputs, outputs, grads, grad_fn, n_out, variables, **attrs):
    """Calls the user's `grad_fn` on the gradients of f's results: gradients for f's
    tensor arguments, then (when f read Variables) for the Variables' values."""
    n_x = len(inputs) - n_out - len(variables)
    dys = [zeros_like(o) if g is None else g for g, o in zip(grads, outputs)]
    if variables:
        result = grad_fn(*dys, variables=list(variables))
        try:
            dxs, dvars = result
        except (TypeError, ValueError):
            raise TypeError("custom_gradient: a grad_fn given `variables` must return "
                            "(gradients of the inputs, gradients of the variables)") from None
        dvars = list(dvars)
        if len(dvars) != len(variables):
            raise ValueError(f"custom_gradient: grad_fn returned {len(dvars)} variable "
                             f"gradients for {len(variables)} variables")
    else:
        dxs, dvars = grad_fn(*dys), []
    dxs = [None if g is None else convert_to_tensor(g) for g in nest.flatten(dxs)]
    if len(dxs) != n_x:
        raise ValueError(f"custom_gradient: grad_fn returned {len(dxs)} gradients for "
                         f"{n_x} tensor inputs")
    dvars = [None if g is None else convert_to_tensor(g) for g in dvars]
    return Grads(dxs + dvars + [None] * n_out)


# Identity on f's results (the last n_out inputs); its gradient is the user's grad_fn.
# Only made by custom_gradient: it holds a Python function, so saving and the ONNX export
# refuse it (the op is not in runtime.ops.registry()).
CUSTOM_GRADIENT = OpDef("CustomGradient", _infer, _kernel, multi_output=True,
                        runs_subgraphs=True, grad=_grad)


def _as_input(x):
    if isinstance(x, Variable):
        return x.read_value()
    if isinstance(x, Tensor):
        return x
    return convert_to_tensor(x)


def _takes_variables(fn) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return True
    return "variables" in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


def custom_gradient(f=None):
    """Decorates `f` so that its gradient is the one `f` gives (TensorFlow's
    `tf.custom_gradient`).

    `f(*x)` returns `(y, grad_fn)`: `y` a tensor or a nested structure of tensors, and
    `grad_fn(*dy)` the gradients of f's tensor arguments given the gradients `dy` of the
    tensors of `y` (one per tensor, flattened). When f reads trainable Variables, `grad_fn`
    must take a keyword argument `variables` and return `(input gradients, [gradient per
    variable])`. Works eagerly under `GradientTape`, inside `rt.function` (both backends),
    and for higher-order gradients where `grad_fn` is written with rt ops.

    Args:
      f: the function; non-tensor arguments are converted to tensors (keyword arguments
        are passed through, not differentiated).

    Returns:
      The decorated function, returning `y`.

    >>> @rt.custom_gradient
    ... def log1pexp(x):
    ...     e = rt.exp(x)
    ...     def grad(dy):
    ...         return dy * (1.0 - 1.0 / (1.0 + e))
    ...     return rt.math.log1p(e), grad
    >>> x = rt.constant(100.0)
    >>> with rt.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = log1pexp(x)
    >>> print(tape.gradient(y, x))
    rt.Tensor(1.0, shape=(), dtype=float32)
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        return _call(f, args, kwargs)
    return decorated


def _call(f, args, kwargs):
    args = nest.map_structure(_as_input, args)
    xs = [t for t in nest.flatten(args) if isinstance(t, Tensor)]
    # The open tapes record f's ops, as TensorFlow's: the gradient of `y` stops at the
    # CustomGradient op, but a tape recording the gradient itself (higher order) follows
    # grad_fn's use of f's intermediate values back to x.
    with GradientTape() as watcher:      # finds the trainable Variables f reads
        result, grad_fn = f(*args, **kwargs)
    variables = [v for v in watcher.watched_variables() if v.dtype.is_floating]
    if not callable(grad_fn):
        raise TypeError(f"custom_gradient: {getattr(f, '__name__', f)} must return "
                        f"(result, grad_fn), got a {type(grad_fn).__name__} for grad_fn")
    if variables and not _takes_variables(grad_fn):
        raise TypeError("If using @custom_gradient with a function that uses variables, "
                        "then grad_fn must accept a keyword argument 'variables'.")
    flat = nest.flatten(result)
    ys = [i for i, t in enumerate(flat) if isinstance(t, Tensor)]
    if not ys:
        return result
    reads = [v.read_value() for v in variables]   # recorded on the tapes that watch them
    outs = apply_op(CUSTOM_GRADIENT, xs + reads + [flat[i] for i in ys],
                    {"grad_fn": grad_fn, "n_out": len(ys), "variables": tuple(variables)})
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    for i, o in zip(ys, outs):
        flat[i] = o
    return nest.pack_sequence_as(result, flat)


def recompute_grad(f):
    """Decorates `f` so that its intermediate values are not kept for the gradient but
    computed again when the gradient is taken (TensorFlow's `tf.recompute_grad`): the
    gradient equals f's own; memory is traded for computation.

    Args:
      f: a function of tensors returning a tensor or a structure of tensors; it may read
        trainable Variables.

    Returns:
      The decorated function.

    >>> g = rt.recompute_grad(lambda x: rt.tanh(x) * x)
    >>> x = rt.constant(0.5)
    >>> with rt.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = g(x)
    >>> round(float(tape.gradient(y, x)), 5)
    0.85534
    """
    @functools.wraps(f)
    def recomputing(*args, **kwargs):
        def forward(*xs):
            result = f(*xs, **kwargs)

            def grad_fn(*dys, variables=()):
                flat = [identity(t) if isinstance(t, Tensor) else t for t in nest.flatten(xs)]
                again = [t for t in flat if isinstance(t, Tensor)]
                with GradientTape(watch_accessed_variables=False) as tape:
                    tape.watch(again)
                    tape.watch(list(variables))
                    out = f(*nest.pack_sequence_as(xs, flat), **kwargs)
                targets = [t for t in nest.flatten(out) if isinstance(t, Tensor)]
                grads = tape.gradient(targets, again + list(variables),
                                      output_gradients=list(dys))
                dxs = [zeros_like(x) if g is None and x.dtype.is_floating else g
                       for g, x in zip(grads[:len(again)], again)]
                if variables:
                    return dxs, grads[len(again):]
                return dxs
            return result, grad_fn
        return custom_gradient(forward)(*args)
    return recomputing
