"""`rt.optimizers.schedules`: learning rates as functions of the step, with Keras's names,
arguments and formulas (keras/src/optimizers/schedules/learning_rate_schedule.py).

A schedule is called on the step (a Python number, a tensor or a Variable, eagerly or
inside `rt.function`) and gives a float32 tensor; an optimizer given one as its
`learning_rate` calls it on its `iterations` count at every step.

    lr = rt.optimizers.schedules.ExponentialDecay(0.1, decay_steps=100, decay_rate=0.96)
    opt = rt.optimizers.SGD(learning_rate=lr)
"""
from __future__ import annotations

import math

from .core import dtypes
from .ops.core import convert_to_tensor
from .ops.elementwise_ops import ceil, floor
from .ops.math_ops import cast, cos, equal, less, less_equal, minimum, pow as _pow, where

__all__ = ["LearningRateSchedule", "ExponentialDecay", "PiecewiseConstantDecay", "CosineDecay",
           "PolynomialDecay", "InverseTimeDecay", "serialize", "deserialize"]


def _float(x, dtype=dtypes.float32):
    """`x` (a number, tensor or Variable) as a float tensor of `dtype`."""
    if hasattr(x, "read_value"):
        x = x.read_value()
    x = convert_to_tensor(x)
    return x if x.dtype is dtype else cast(x, dtype)


class LearningRateSchedule:
    """The base class of the schedules: `schedule(step)` gives the learning rate at `step`;
    `get_config()` gives the arguments it was made with and `from_config` remakes it.

    >>> class Halving(rt.optimizers.schedules.LearningRateSchedule):
    ...     def __call__(self, step):
    ...         return 0.5 ** rt.cast(step, rt.float32)
    ...     def get_config(self):
    ...         return {}
    >>> float(Halving()(3))
    0.125
    """

    def __call__(self, step):
        raise NotImplementedError(f"{type(self).__name__} must define __call__(step)")

    def get_config(self) -> dict:
        raise NotImplementedError(f"{type(self).__name__} must define get_config()")

    @classmethod
    def from_config(cls, config: dict):
        """The schedule `cls(**config)`."""
        return cls(**config)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class ExponentialDecay(LearningRateSchedule):
    """`initial_learning_rate * decay_rate ** (step / decay_steps)` (Keras's formula);
    with `staircase=True` the exponent is `floor(step / decay_steps)`.

    >>> s = rt.optimizers.schedules.ExponentialDecay(1.0, decay_steps=10, decay_rate=0.5)
    >>> round(float(s(10)), 4), round(float(s(15)), 4)
    (0.5, 0.3536)
    >>> s.get_config()["staircase"]
    False
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase: bool = False,
                 name: str = "ExponentialDecay"):
        if decay_steps <= 0:
            raise ValueError(f"Argument `decay_steps` must be > 0. Received: "
                             f"decay_steps={decay_steps}")
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = bool(staircase)
        self.name = name

    def __call__(self, step):
        lr = _float(self.initial_learning_rate)
        p = _float(step) / _float(self.decay_steps)
        if self.staircase:
            p = floor(p)
        return lr * _pow(_float(self.decay_rate), p)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class PiecewiseConstantDecay(LearningRateSchedule):
    """`values[0]` while `step <= boundaries[0]`, `values[i]` while
    `boundaries[i-1] < step <= boundaries[i]`, and `values[-1]` after `boundaries[-1]`
    (Keras's rule; `len(values) == len(boundaries) + 1`).

    >>> s = rt.optimizers.schedules.PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1])
    >>> [round(float(s(t)), 2) for t in (0, 10, 11, 20, 21)]
    [1.0, 1.0, 0.5, 0.5, 0.1]
    """

    def __init__(self, boundaries, values, name: str = "PiecewiseConstant"):
        if len(boundaries) != len(values) - 1:
            raise ValueError("The length of boundaries should be 1 less than the length of "
                             f"values. Received: boundaries={boundaries} of length "
                             f"{len(boundaries)}, and values={values} of length {len(values)}.")
        self.boundaries = list(boundaries)
        self.values = list(values)
        self.name = name

    def __call__(self, step):
        step = _float(step, dtypes.float64)  # exact for any int32 boundary
        out = _float(self.values[-1])
        # from the last interval to the first: the first boundary not below `step` wins
        for b, v in zip(reversed(self.boundaries), reversed(self.values[:-1])):
            out = where(less_equal(step, _float(b, dtypes.float64)), _float(v), out)
        return out

    def get_config(self) -> dict:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class CosineDecay(LearningRateSchedule):
    """Cosine decay with an optional linear warm-up (Keras 3's `CosineDecay`).

    Without `warmup_target`: with s = min(step, decay_steps),
      lr = initial_learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * s / decay_steps)) + alpha)
    With `warmup_target`: s = min(step, warmup_steps + decay_steps); while s < warmup_steps
      lr = initial_learning_rate + (warmup_target - initial_learning_rate) * s / warmup_steps,
    then the decay above from `warmup_target`, on s - warmup_steps.

    >>> s = rt.optimizers.schedules.CosineDecay(1.0, decay_steps=10, alpha=0.1)
    >>> [round(float(s(t)), 3) for t in (0, 5, 10, 20)]
    [1.0, 0.55, 0.1, 0.1]
    >>> w = rt.optimizers.schedules.CosineDecay(0.0, 10, warmup_target=1.0, warmup_steps=4)
    >>> [round(float(w(t)), 3) for t in (0, 2, 4, 9)]
    [0.0, 0.5, 1.0, 0.5]
    """

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name: str = "CosineDecay",
                 warmup_target=None, warmup_steps=0):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_target = warmup_target
        self.warmup_steps = warmup_steps

    def _decay(self, step, decay_steps, decay_from):
        cosine = 0.5 * (1.0 + cos(_float(math.pi) * (step / decay_steps)))
        alpha = _float(self.alpha)
        return decay_from * ((1.0 - alpha) * cosine + alpha)

    def __call__(self, step):
        lr = _float(self.initial_learning_rate)
        decay_steps = _float(self.decay_steps)
        step = _float(step)
        if self.warmup_target is None:
            return self._decay(minimum(step, decay_steps), decay_steps, lr)
        target = _float(self.warmup_target)
        warmup = _float(self.warmup_steps)
        step = minimum(step, decay_steps + warmup)
        # the warm-up's division only where it is selected (warmup_steps may be 0)
        safe = where(less(step, warmup), warmup, _float(1.0))
        warm = (target - lr) * (step / safe) + lr
        return where(less(step, warmup), warm, self._decay(step - warmup, decay_steps, target))

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


class PolynomialDecay(LearningRateSchedule):
    """From `initial_learning_rate` to `end_learning_rate` in `decay_steps` (Keras):
      s = min(step, decay_steps)   (cycle: decay_steps *= max(1, ceil(step / decay_steps)))
      lr = (initial - end) * (1 - s / decay_steps) ** power + end

    >>> s = rt.optimizers.schedules.PolynomialDecay(1.0, 10, end_learning_rate=0.0, power=2.0)
    >>> [round(float(s(t)), 3) for t in (0, 5, 10, 12)]
    [1.0, 0.25, 0.0, 0.0]
    """

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001,
                 power=1.0, cycle: bool = False, name: str = "PolynomialDecay"):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = bool(cycle)
        self.name = name

    def __call__(self, step):
        lr, end = _float(self.initial_learning_rate), _float(self.end_learning_rate)
        step, decay_steps = _float(step), _float(self.decay_steps)
        if self.cycle:
            multiplier = where(equal(step, _float(0.0)), _float(1.0), ceil(step / decay_steps))
            decay_steps = decay_steps * multiplier
        else:
            step = minimum(step, decay_steps)
        p = step / decay_steps
        return (lr - end) * _pow(1.0 - p, _float(self.power)) + end

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "end_learning_rate": self.end_learning_rate,
                "power": self.power, "cycle": self.cycle, "name": self.name}


class InverseTimeDecay(LearningRateSchedule):
    """`initial_learning_rate / (1 + decay_rate * step / decay_steps)` (Keras); with
    `staircase=True`, `floor(step / decay_steps)` in place of `step / decay_steps`.

    >>> s = rt.optimizers.schedules.InverseTimeDecay(1.0, decay_steps=1, decay_rate=0.5)
    >>> [round(float(s(t)), 3) for t in (0, 1, 2)]
    [1.0, 0.667, 0.5]
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase: bool = False,
                 name: str = "InverseTimeDecay"):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = bool(staircase)
        self.name = name

    def __call__(self, step):
        p = _float(step) / _float(self.decay_steps)
        if self.staircase:
            p = floor(p)
        return _float(self.initial_learning_rate) / (1.0 + _float(self.decay_rate) * p)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


_CLASSES = {c.__name__: c for c in (ExponentialDecay, PiecewiseConstantDecay, CosineDecay,
                                    PolynomialDecay, InverseTimeDecay)}


def serialize(schedule: LearningRateSchedule) -> dict:
    """`{"class_name": ..., "config": ...}`, as Keras's `serialize`.

    >>> s = rt.optimizers.schedules.InverseTimeDecay(1.0, 1, 0.5)
    >>> rt.optimizers.schedules.serialize(s)["class_name"]
    'InverseTimeDecay'
    """
    return {"class_name": type(schedule).__name__, "config": schedule.get_config()}


def deserialize(config: dict) -> LearningRateSchedule:
    """The schedule `serialize` described (one of this module's classes).

    >>> s = rt.optimizers.schedules.CosineDecay(1.0, 10)
    >>> t = rt.optimizers.schedules.deserialize(rt.optimizers.schedules.serialize(s))
    >>> t.get_config() == s.get_config()
    True
    """
    cls = _CLASSES.get(config.get("class_name"))
    if cls is None:
        raise ValueError(f"Unknown learning rate schedule: {config.get('class_name')!r} "
                         f"(known: {sorted(_CLASSES)})")
    return cls.from_config(config["config"])


def __dir__():
    return sorted(__all__)
