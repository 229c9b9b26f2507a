"""`rt.nn.dropout`: each value dropped with a probability, the others scaled; the random
mask drawn by rt.random's uniform op (of a shape read when the graph runs where x's is not
known while tracing)."""
from __future__ import annotations

import numbers
from typing import Optional

import numpy as np

from ..core.tensor import Tensor
from ..ops.array_ops import shape
from ..ops.core import constant_value, convert_to_tensor, zeros_like
from ..ops.math_ops import greater_equal, where
from ..ops.random_ops import uniform
from .operands import constant_like

def _noise_shape(x, noise_shape):
    """The random mask's shape: a list of ints when it is known while tracing, else a 1-D
    int32 tensor read when the graph runs (x's dimensions where noise_shape gives None)."""
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if noise_shape is None:
        return [int(d) for d in dims] if dims is not None and None not in dims else shape(x)
    if isinstance(noise_shape, Tensor):
        known = constant_value(noise_shape)
        if known is None:
            return noise_shape  # read when the graph runs
        noise_shape = np.asarray(known).tolist()
    noise_shape = list(noise_shape)
    if dims is not None and len(noise_shape) != len(dims):
        raise ValueError(f"rt.nn.dropout: noise_shape {noise_shape} must have the rank of "
                         f"x, whose shape is {x.shape}")
    wanted = [d if d is not None else (dims[i] if dims is not None else None)
              for i, d in enumerate(noise_shape)]
    if any(d is None for d in wanted):
        x_dims = shape(x)
        return [x_dims[i] if d is None else d for i, d in enumerate(wanted)]
    return [int(d) for d in wanted]


def dropout(x, rate, noise_shape=None, seed: Optional[int] = None, name: Optional[str] = None):
    """Sets each value to 0 with probability `rate` and scales the others by 1 / (1 - rate).

    The expected sum is unchanged. `noise_shape` (broadcastable to x's shape) draws one
    decision for a whole slice; `seed` makes the draws reproducible (with
    rt.random.set_seed, as TensorFlow's op seeds). rate=0 returns x. Where x's shape is
    known only when the graph runs, so is the mask's (drawn then, with the same numbers).

    Args:
      x: a floating tensor.
      rate: the probability of dropping each value: a float in [0, 1) or a scalar tensor.
      noise_shape: an optional shape for the random mask, broadcast against x.
      seed: an optional Python int op seed.
      name: an optional name for the op.

    Returns:
      A tensor of x's shape and dtype.

    Raises:
      ValueError: for a non-floating x, a rate outside [0, 1), or a noise_shape whose
        rank is not x's.

    >>> y = rt.nn.dropout(rt.ones([100]), rate=0.5, seed=1)
    >>> sorted(set(y.numpy().tolist()))
    [0.0, 2.0]
    """
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError("x has to be a floating point tensor since it's going to be scaled. "
                         f"Got a {x.dtype.name} tensor instead.")
    if isinstance(rate, numbers.Real) and not isinstance(rate, bool):
        if not 0 <= rate < 1:
            raise ValueError(f"rate must be a scalar tensor or a float in the range [0, 1), "
                             f"got {rate:g}")
        if rate == 0:
            return x
        scale = constant_like(1.0 / (1.0 - float(rate)), x)
        rate_t = constant_like(rate, x)
    else:
        rate_t = convert_to_tensor(rate, dtype=x.dtype)
        if rate_t.shape.rank not in (0, None):
            raise ValueError(f"rate must be a scalar tensor, got shape {rate_t.shape}")
        scale = constant_like(1, x) / (constant_like(1, x) - rate_t)
    draws = uniform(_noise_shape(x, noise_shape), dtype=x.dtype, seed=seed)
    keep = greater_equal(draws, rate_t)
    return where(keep, x * scale, zeros_like(x), name=name)
