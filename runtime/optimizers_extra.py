"""`rt.optimizers.RMSprop`, `Adagrad` and `AdamW`, with Keras 3's formulas
(keras/src/optimizers/rmsprop.py, adagrad.py, adamw.py), built on `optimizers.Optimizer`:
their slots are made, named and listed as the other optimizers' (`get_slot`,
`get_slot_names`, `variables`). `install()` (called by `runtime/__init__.py`) puts them and
`rt.optimizers.schedules` in the `rt.optimizers` namespace.
"""
from __future__ import annotations

import numbers

import numpy as np

from . import optimizers, schedules
from .ops.core import convert_to_tensor
from .ops.math_ops import cast, maximum, pow as _pow, sqrt

__all__ = ["RMSprop", "Adagrad", "AdamW"]


def _const(x: float, dtype):
    return convert_to_tensor(np.asarray(x, dtype.np_dtype), dtype=dtype)


def _check_float(owner: str, **values):
    for arg, value in values.items():
        if not isinstance(value, numbers.Real) or isinstance(value, bool):
            raise TypeError(f"{owner}: {arg} must be a float, got {value!r}")


class RMSprop(optimizers.Optimizer):
    """RMSprop (Keras 3's `RMSprop`; slots "rms", "momentum" and, centered, "mg", from 0).

      rms = rho * rms + (1 - rho) * g**2
      mg = rho * mg + (1 - rho) * g                     (centered only)
      denominator = rms - mg**2 + epsilon  (centered),  rms + epsilon  (otherwise)
      increment = lr * g / sqrt(denominator)
      momentum > 0:  mom = momentum * mom + increment;  var -= mom
      otherwise:     var -= increment

    Args:
      learning_rate: a float, a schedule of the step, or a callable of nothing (0.001).
      rho: the discounting factor of the gradients' squares (0.9).
      momentum: 0 for none (0.0).
      epsilon: added inside the square root (1e-7).
      centered: divide by an estimate of the gradient's variance instead of its second
        moment.
      name: the optimizer's name.

    >>> v = rt.Variable(1.0)
    >>> opt = rt.optimizers.RMSprop(learning_rate=0.1)
    >>> _ = opt.apply_gradients([(rt.constant(2.0), v)])
    >>> round(float(v.numpy()), 4), opt.get_slot_names()
    (0.6838, ['rms'])
    """

    _slot_names = ("rms", "momentum", "mg")

    def __init__(self, learning_rate=0.001, rho: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-7, centered: bool = False, name: str = "RMSprop"):
        _check_float("RMSprop", rho=rho, momentum=momentum, epsilon=epsilon)
        if not 0 <= momentum <= 1:
            raise ValueError("`momentum` must be between [0, 1].")
        super().__init__(name, learning_rate)
        self.rho, self.momentum, self.epsilon = float(rho), float(momentum), float(epsilon)
        self.centered = bool(centered)

    def _wanted_slots(self) -> tuple:
        return (("rms",) + (("momentum",) if self.momentum > 0 else ())
                + (("mg",) if self.centered else ()))

    def _update(self, var, grad, slots, lr):
        dt = var.dtype
        rho = _const(self.rho, dt)
        one = _const(1.0, dt)
        rms = rho * slots["rms"] + (one - rho) * grad * grad
        slots["rms"].assign(rms)
        if self.centered:
            mg = rho * slots["mg"] + (one - rho) * grad
            slots["mg"].assign(mg)
            denominator = rms - mg * mg + _const(self.epsilon, dt)
        else:
            denominator = rms + _const(self.epsilon, dt)
        increment = lr * grad / sqrt(denominator)
        if self.momentum > 0:
            mom = _const(self.momentum, dt) * slots["momentum"] + increment
            slots["momentum"].assign(mom)
            var.assign_sub(mom)
        else:
            var.assign_sub(increment)


class Adagrad(optimizers.Optimizer):
    """Adagrad (Keras 3's `Adagrad`; slot "accumulator", from `initial_accumulator_value`).

      accumulator += g**2
      var -= lr * g / sqrt(accumulator + epsilon)

    Args:
      learning_rate: a float, a schedule of the step, or a callable of nothing (0.001).
      initial_accumulator_value: the accumulators' starting value (0.1).
      epsilon: added inside the square root (1e-7).
      name: the optimizer's name.

    >>> v = rt.Variable(1.0)
    >>> opt = rt.optimizers.Adagrad(learning_rate=0.1)
    >>> _ = opt.apply_gradients([(rt.constant(2.0), v)])
    >>> round(float(v.numpy()), 4), round(float(opt.get_slot(v, "accumulator").numpy()), 4)
    (0.9012, 4.1)
    """

    _slot_names = ("accumulator",)

    def __init__(self, learning_rate=0.001, initial_accumulator_value: float = 0.1,
                 epsilon: float = 1e-7, name: str = "Adagrad"):
        _check_float("Adagrad", initial_accumulator_value=initial_accumulator_value,
                     epsilon=epsilon)
        if initial_accumulator_value < 0:
            raise ValueError("initial_accumulator_value must be non-negative: "
                             f"{initial_accumulator_value}")
        super().__init__(name, learning_rate)
        self.initial_accumulator_value = float(initial_accumulator_value)
        self.epsilon = float(epsilon)

    def initial_slot_value(self, slot_name, var):
        return np.full(var.shape.as_list(), self.initial_accumulator_value,
                       var.dtype.np_dtype)

    def _update(self, var, grad, slots, lr):
        acc = slots["accumulator"] + grad * grad
        slots["accumulator"].assign(acc)
        var.assign_sub(lr * grad / sqrt(acc + _const(self.epsilon, var.dtype)))


class AdamW(optimizers.Optimizer):
    """Adam with decoupled weight decay (Keras 3's `AdamW`; slots "m", "v", "vhat").

    Each step first decays the Variable, then takes Adam's step (t = iterations + 1):
      var -= var * weight_decay * lr
      m = m + (g - m) * (1 - beta_1);  v = v + (g*g - v) * (1 - beta_2)
      alpha = lr * sqrt(1 - beta_2**t) / (1 - beta_1**t)
      var -= alpha * m / (sqrt(v) + epsilon)          (amsgrad: vhat = max(vhat, v) for v)
    Variables whose name contains one of the strings given to
    `exclude_from_weight_decay(var_names=...)`, or given in `var_list`, are not decayed.

    Args:
      learning_rate: a float, a schedule of the step, or a callable of nothing (0.001).
      weight_decay: the decay rate (0.004).
      beta_1, beta_2: the moments' decay rates (0.9, 0.999).
      epsilon: added to sqrt(v) (1e-7).
      amsgrad: use the maximum of past `v`.
      name: the optimizer's name.

    >>> v = rt.Variable(1.0)
    >>> opt = rt.optimizers.AdamW(learning_rate=0.1, weight_decay=0.5)
    >>> _ = opt.apply_gradients([(rt.constant(2.0), v)])
    >>> round(float(v.numpy()), 4), opt.get_slot_names()
    (0.85, ['m', 'v'])
    """

    _slot_names = ("m", "v", "vhat")

    def __init__(self, learning_rate=0.001, weight_decay: float = 0.004, beta_1: float = 0.9,
                 beta_2: float = 0.999, epsilon: float = 1e-7, amsgrad: bool = False,
                 name: str = "AdamW"):
        _check_float("AdamW", weight_decay=weight_decay, beta_1=beta_1, beta_2=beta_2,
                     epsilon=epsilon)
        super().__init__(name, learning_rate)
        self.weight_decay = float(weight_decay)
        self.beta_1, self.beta_2 = float(beta_1), float(beta_2)
        self.epsilon, self.amsgrad = float(epsilon), bool(amsgrad)
        self._excluded_ids: set = set()
        self._excluded_names: tuple = ()

    def exclude_from_weight_decay(self, var_list=None, var_names=None) -> None:
        """Leaves these Variables (or those whose name contains one of `var_names`)
        undecayed, as Keras's method of that name."""
        self._excluded_ids |= {id(v) for v in (var_list or ())}
        self._excluded_names += tuple(var_names or ())

    def _decays(self, var) -> bool:
        return (self.weight_decay != 0 and id(var) not in self._excluded_ids
                and not any(n in var.name for n in self._excluded_names))

    def _wanted_slots(self) -> tuple:
        return ("m", "v", "vhat") if self.amsgrad else ("m", "v")

    def _update(self, var, grad, slots, lr):
        dt = var.dtype
        if self._decays(var):
            var.assign_sub(var * _const(self.weight_decay, dt) * lr)
        t = cast(self.iterations + 1, dt)
        b1, b2, one = _const(self.beta_1, dt), _const(self.beta_2, dt), _const(1.0, dt)
        alpha = lr * sqrt(one - _pow(b2, t)) / (one - _pow(b1, t))
        m = slots["m"] + (grad - slots["m"]) * (one - b1)
        v = slots["v"] + (grad * grad - slots["v"]) * (one - b2)
        slots["m"].assign(m)
        slots["v"].assign(v)
        if self.amsgrad:
            v = maximum(slots["vhat"], v)
            slots["vhat"].assign(v)
        var.assign_sub(alpha * m / (sqrt(v) + _const(self.epsilon, dt)))


def install() -> None:
    """Puts RMSprop, Adagrad, AdamW and `schedules` in `rt.optimizers`."""
    for name in __all__:
        setattr(optimizers, name, globals()[name])
    optimizers.schedules = schedules
    optimizers.__all__ = [*optimizers.__all__,
                          *(n for n in (*__all__, "schedules") if n not in optimizers.__all__)]
