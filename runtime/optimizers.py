"""`rt.optimizers`: SGD (with momentum, Nesterov) and Adam, updating Variables from their
gradients with Keras's formulas (the Keras 2 `OptimizerV2` kernels
`ResourceApplyGradientDescent`, `ResourceApplyKerasMomentum`, `ResourceApplyAdam`).

    opt = rt.optimizers.Adam(learning_rate=0.01)
    opt.apply_gradients(zip(grads, model.trainable_variables))

Slot Variables are made once per Variable, the first time it is updated, so a training
step traces once (docs/architecture.md, "Optimizer slots").
"""
from __future__ import annotations

import inspect
import logging
import numbers
from typing import Callable, Optional

import numpy as np

from .core import dtypes
from .core.graph import eager_scope
from .core.tensor import Tensor
from .errors import DTypeMismatchError, InvalidArgumentError
from .gradients.tape import GradientTape
from .ops.core import convert_to_tensor
from .ops.math_ops import cast, maximum, pow as _pow, sqrt
from .ops import state_ops
from .ops.state_ops import Variable

logger = logging.getLogger("runtime")
# Called as callback(optimizer, variable, {slot name: Variable}) when slots are made.
slot_callbacks: list = []

__all__ = ["Optimizer", "SGD", "Adam"]


class Optimizer:
    """Base class of the optimizers: `apply_gradients`, `minimize`, `build`, `iterations`, slots.

    Subclasses define `_slot_names` and `_update(var, grad, slots, lr)`, where `lr` is the
    learning rate (a tensor of the Variable's dtype) for this step.

    Args:
      name: the optimizer's name (prefixes its Variables' names).
      learning_rate: a float (kept in a non-trainable Variable), a Variable or tensor, or a
        callable of the step (a schedule) or of nothing.

    Raises:
      TypeError: for another kind of learning_rate.

    >>> v = rt.Variable(1.0)
    >>> opt = rt.optimizers.SGD(0.1)
    >>> isinstance(opt, rt.optimizers.Optimizer), opt.name
    (True, 'SGD')
    >>> _ = opt.minimize(lambda: v * v, [v])
    >>> round(float(v.numpy()), 4), int(opt.iterations.numpy())
    (0.8, 1)
    """

    _slot_names: tuple = ()

    def __init__(self, name: str, learning_rate):
        if isinstance(learning_rate, (Variable, Tensor)) or callable(learning_rate):
            self._lr_fn = learning_rate
            self._lr = None
        elif isinstance(learning_rate, numbers.Real) and not isinstance(learning_rate, bool):
            self._lr_fn = None
            with eager_scope():
                self._lr = Variable(np.float32(learning_rate), trainable=False,
                                    name=f"{name}/learning_rate")
        else:
            raise TypeError(f"{type(self).__name__}: learning_rate must be a float or a callable "
                            f"of the step (a schedule), got {learning_rate!r}")
        self._name = name
        with eager_scope():
            self._iterations = Variable(np.int64(0), trainable=False, name=f"{name}/iter")
        self._slots: dict = {}     # Variable._unique_id -> (Variable, {slot name: Variable})

    # -- public attributes ------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def iterations(self) -> Variable:
        """The int64 Variable counting `apply_gradients` calls (the step)."""
        return self._iterations

    @property
    def learning_rate(self):
        """The learning rate: a float32 Variable (assign a float to change it, even for
        functions already traced), or the callable given."""
        return self._lr if self._lr is not None else self._lr_fn

    @learning_rate.setter
    def learning_rate(self, value):
        if self._lr is None or not isinstance(value, numbers.Real) or isinstance(value, bool):
            raise TypeError(f"{type(self).__name__}.learning_rate can be set to a float when it "
                            "was made from a float; for a schedule, make a new optimizer")
        self._lr.assign(np.float32(value))

    @property
    def variables(self) -> list:
        """The optimizer's Variables: `iterations`, then the slots in creation order."""
        out = [self._iterations]
        for _, slots in self._slots.values():
            out.extend(slots[n] for n in self._slot_names if n in slots)
        return out

    def get_slot_names(self) -> list:
        return [n for n in self._slot_names if self._has_slot(n)]

    def get_slot(self, var: Variable, slot_name: str) -> Variable:
        """The slot Variable `slot_name` ("momentum", "m", "v", "vhat") made for `var`."""
        entry = self._slots.get(getattr(var, "_unique_id", None))
        if entry is None or slot_name not in entry[1]:
            raise KeyError(f"{type(self).__name__} has no slot {slot_name!r} for the variable "
                           f"{getattr(var, 'name', var)!r}")
        return entry[1][slot_name]

    def build(self, var_list) -> None:
        """Makes the slots of every Variable in `var_list` now (else: on its first update)."""
        for v in var_list:
            self._slots_for(_as_variable(v))

    # -- updating -----------------------------------------------------------------------------
    def apply_gradients(self, grads_and_vars, name: Optional[str] = None):
        """Updates each Variable with its gradient and adds 1 to `iterations`.

        Args:
          grads_and_vars: (gradient, Variable) pairs, e.g. `zip(grads, vars)`. A None
            gradient leaves its Variable alone (with a warning naming it, as Keras);
            all None is a ValueError.
          name: unused (TensorFlow's argument).
        Returns:
          the new value of `iterations` (a tensor).
        Example:
          opt.apply_gradients(zip(tape.gradient(loss, m.trainable_variables),
                                  m.trainable_variables))
        """
        pairs = []
        for item in grads_and_vars:
            try:
                g, v = item
            except (TypeError, ValueError):
                raise TypeError(f"apply_gradients takes (gradient, variable) pairs, got {item!r}") \
                    from None
            pairs.append((g, _as_variable(v)))
        kept = [(g, v) for g, v in pairs if g is not None]
        if not kept:
            raise ValueError(f"No gradients provided for any variable: "
                             f"{[v.name for _, v in pairs]}.")
        if len(kept) < len(pairs):
            logger.warning("Gradients do not exist for variables %s when minimizing the loss.",
                           [v.name for g, v in pairs if g is None])
        # every pair is checked before any Variable changes: a bad pair updates nothing
        kept = [(_gradient_for(g, v), v) for g, v in kept]
        lrs = {}
        for g, v in kept:
            slots = self._slots_for(v)
            if v.dtype not in lrs:
                lrs[v.dtype] = self._learning_rate_for(v.dtype)
            self._update(v, g, slots, lrs[v.dtype])
        return self._iterations.assign_add(1)

    def minimize(self, loss, var_list, tape: Optional[GradientTape] = None):
        """`apply_gradients` of the gradients of `loss` with respect to `var_list`.

        `loss`: a callable taking no arguments (run under a new GradientTape), or a tensor
        computed under `tape`. `var_list`: Variables, or a callable returning them.
        Example: `opt.minimize(lambda: rt.reduce_sum(w * w), [w])`.
        """
        if not callable(loss) and tape is None:
            raise ValueError("`tape` is required when a `Tensor` loss is passed.")
        if callable(loss):
            with GradientTape() as tape:
                if not callable(var_list):
                    for v in var_list:
                        tape.watch(v)
                loss = loss()
        if callable(var_list):
            var_list = var_list()
        var_list = list(var_list)
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list))

    # -- helpers ----------------------------------------------------------------------------
    def _has_slot(self, name):
        return any(name in slots for _, slots in self._slots.values())

    def _wanted_slots(self) -> tuple:
        return self._slot_names

    def initial_slot_value(self, slot_name: str, var: Variable) -> np.ndarray:
        """The value the slot `slot_name` of `var` starts with: zeros (an optimizer whose
        slots start elsewhere, Adagrad's accumulator, says so here; a checkpoint's value
        waiting for the slot replaces it as it is made)."""
        return np.zeros(var.shape.as_list(), var.dtype.np_dtype)

    def _slots_for(self, var: Variable) -> dict:
        entry = self._slots.get(var._unique_id)
        if entry is None:
            slots = {}
            # Made once per Variable, outside any graph (TF's init_scope). rt.function's
            # creation hook is not told: it would trace a second time to check that the
            # function does not make new Variables on every call, which slots cannot do
            # (they are keyed by the Variable), so a training step traces once.
            previous = state_ops.set_creation_hook(None)
            try:
                with eager_scope():
                    for n in self._wanted_slots():
                        slots[n] = Variable(self.initial_slot_value(n, var),
                                            trainable=False, name=f"{var._name}/{n}")
            finally:
                state_ops.set_creation_hook(previous)
            entry = self._slots[var._unique_id] = (var, slots)
            for callback in slot_callbacks:  # (rt.train.Checkpoint: values waiting for them)
                callback(self, var, slots)
        return entry[1]

    def _learning_rate_for(self, dtype):
        if self._lr is not None:
            return cast(self._lr, dtype)
        fn = self._lr_fn
        if isinstance(fn, (Variable, Tensor)):
            return cast(fn, dtype)
        if _takes_no_arguments(fn):  # Keras: a callable hyperparameter takes no arguments
            value = fn()
        else:  # a schedule of the step (Keras: LearningRateSchedule(iterations))
            value = fn(cast(self._iterations, dtypes.float32))
        return cast(convert_to_tensor(value), dtype)

    def _update(self, var, grad, slots, lr):
        raise NotImplementedError


class SGD(Optimizer):
    """Gradient descent, with momentum and Nesterov momentum (Keras's `SGD`).

    Updates (Keras's ResourceApplyKerasMomentum; `accum` is the "momentum" slot, from 0):
      momentum == 0:  var -= lr * g
      otherwise:      accum = momentum * accum - lr * g
                      var += accum                            (nesterov=False)
                      var += momentum * accum - lr * g        (nesterov=True)

    Args:
      learning_rate: a float, or a callable of the step (`iterations` as float32) or of
        nothing, giving the learning rate. Default 0.01.
      momentum: float in [0, 1]; 0 is plain gradient descent.
      nesterov: use Nesterov momentum.
      name: the optimizer's name.

    >>> v = rt.Variable(1.0)
    >>> opt = rt.optimizers.SGD(0.1, momentum=0.9)
    >>> _ = opt.apply_gradients([(rt.constant(1.0), v)])
    >>> _ = opt.apply_gradients([(rt.constant(1.0), v)])
    >>> round(float(v.numpy()), 4), opt.get_slot_names()
    (0.71, ['momentum'])
    """

    def __init__(self, learning_rate=0.01, momentum: float = 0.0, nesterov: bool = False,
                 name: str = "SGD"):
        if isinstance(momentum, numbers.Real) and not 0 <= momentum <= 1:
            raise ValueError("`momentum` must be between [0, 1].")
        super().__init__(name, learning_rate)
        self._momentum = float(momentum)
        self._nesterov = bool(nesterov)

    momentum = property(lambda self: self._momentum)
    nesterov = property(lambda self: self._nesterov)
    _slot_names = ("momentum",)

    def _wanted_slots(self) -> tuple:
        return ("momentum",) if self._momentum > 0 else ()

    def _update(self, var, grad, slots, lr):
        if not slots:
            var.assign_sub(lr * grad)
            return
        accum = slots["momentum"]
        mom = _const(self._momentum, var.dtype)
        new_accum = accum * mom - lr * grad
        accum.assign(new_accum)
        if self._nesterov:
            var.assign_add(new_accum * mom - lr * grad)
        else:
            var.assign_add(new_accum)


class Adam(Optimizer):
    """Adam (Keras's `Adam`, the Keras 2 / ResourceApplyAdam form).

    The bias correction is folded into the step size and epsilon is added to sqrt(v)
    ("epsilon hat"). Updates, with t = iterations + 1 and m, v (slots "m", "v") starting
    at 0:
      lr_t = lr * sqrt(1 - beta_2**t) / (1 - beta_1**t)
      m = m + (g - m) * (1 - beta_1)
      v = v + (g*g - v) * (1 - beta_2)
      var -= (m * lr_t) / (sqrt(v) + epsilon)     (amsgrad: sqrt(vhat), vhat = max(vhat, v))

    Args:
      learning_rate: a float, or a callable of the step (`iterations` as float32) or of
        nothing. Default 0.001.
      beta_1: the decay rate of the first moment estimate (default 0.9).
      beta_2: the decay rate of the second moment estimate (default 0.999).
      epsilon: added to sqrt(v). Default 1e-7, as Keras.
      amsgrad: use the maximum of past `v` ("vhat" slot) in the denominator.
      name: the optimizer's name.

    >>> v = rt.Variable(1.0)
    >>> opt = rt.optimizers.Adam(learning_rate=0.1)
    >>> with rt.GradientTape() as tape:
    ...     loss = v * v
    >>> _ = opt.apply_gradients(zip(tape.gradient(loss, [v]), [v]))
    >>> round(float(v.numpy()), 4), opt.get_slot_names()
    (0.9, ['m', 'v'])
    """

    def __init__(self, learning_rate=0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, amsgrad: bool = False, name: str = "Adam"):
        for arg, value in (("beta_1", beta_1), ("beta_2", beta_2), ("epsilon", epsilon)):
            if not isinstance(value, numbers.Real) or isinstance(value, bool):
                raise TypeError(f"Adam: {arg} must be a float, got {value!r}")
        super().__init__(name, learning_rate)
        self._beta_1, self._beta_2 = float(beta_1), float(beta_2)
        self._epsilon = float(epsilon)
        self._amsgrad = bool(amsgrad)

    beta_1 = property(lambda self: self._beta_1)
    beta_2 = property(lambda self: self._beta_2)
    epsilon = property(lambda self: self._epsilon)
    amsgrad = property(lambda self: self._amsgrad)
    _slot_names = ("m", "v", "vhat")

    def _wanted_slots(self) -> tuple:
        return ("m", "v", "vhat") if self._amsgrad else ("m", "v")

    def _update(self, var, grad, slots, lr):
        dt = var.dtype
        t = cast(self._iterations + 1, dt)
        b1, b2 = _const(self._beta_1, dt), _const(self._beta_2, dt)
        one = _const(1.0, dt)
        lr_t = lr * sqrt(one - _pow(b2, t)) / (one - _pow(b1, t))
        m, v = slots["m"], slots["v"]
        new_m = m + (grad - m) * (one - b1)
        new_v = v + (grad * grad - v) * (one - b2)
        m.assign(new_m)
        v.assign(new_v)
        if self._amsgrad:
            vhat = maximum(slots["vhat"], new_v)
            slots["vhat"].assign(vhat)
            new_v = vhat
        var.assign_sub((new_m * lr_t) / (sqrt(new_v) + _const(self._epsilon, dt)))


def _const(x: float, dtype):
    return convert_to_tensor(np.asarray(x, dtype.np_dtype), dtype=dtype)


def _as_variable(v) -> Variable:
    if not isinstance(v, Variable):
        raise TypeError(f"an optimizer updates rt.Variables; got {type(v).__name__} {v!r}")
    return v


def _gradient_for(g, var: Variable):
    if not var.dtype.is_floating:
        # the learning rate cast to an integer dtype would be 0 (or truncated): refuse,
        # as Keras's optimizers do, rather than update by a different step
        raise TypeError(f"an optimizer updates floating Variables; '{var.name}' is "
                        f"{var.dtype.name}")
    g = convert_to_tensor(g, dtype_hint=var.dtype)
    if g.dtype is not var.dtype:
        raise DTypeMismatchError(f"the gradient for '{var.name}' is {g.dtype.name}, the variable "
                                 f"is {var.dtype.name}")
    if not var.shape.is_compatible_with(g.shape):
        raise InvalidArgumentError(f"the gradient for '{var.name}' has shape {g.shape}, the "
                                   f"variable has shape {var.shape}")
    return g


def _takes_no_arguments(fn: Callable) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return not any(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                   for p in params) and not any(p.kind == p.VAR_POSITIONAL for p in params)


def __dir__():
    return sorted(__all__)    # the API, not the names it is built from
