"""Random tensors. Each op draws anew at every run; seeds make the sequence of draws
reproducible (`rt.random.set_seed`), as in TensorFlow: with a global seed set, an op
without its own seed gets one from a counter, so re-running a program repeats its draws.
"""
from __future__ import annotations

import itertools
from typing import Optional

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..graph import current_graph
from .core import OpDef, apply_op, convert_to_tensor
from .array_ops import _static_shape_arg
from ..shapes import TensorShape

_global_seed: Optional[int] = None
_op_counter = itertools.count()
_eager_generators: dict = {}


def set_seed(seed: Optional[int]) -> None:
    """Sets the global seed; resets the per-op seed counter and the eager generators."""
    global _global_seed, _op_counter
    _global_seed = None if seed is None else int(seed)
    _op_counter = itertools.count()
    _eager_generators.clear()


def _generator(seed: Optional[int]) -> np.random.Generator:
    if _global_seed is None and seed is None:
        return np.random.default_rng()
    op_seed = seed if seed is not None else next(_op_counter)
    return np.random.default_rng([_global_seed or 0, int(op_seed)])


def _random_infer(inputs, shape, dtype, params, rng):
    return [(TensorShape(shape), dtype)]


def _uniform_kernel(shape, dtype, params, rng):
    lo, hi = params
    if dtype.is_integer:
        return rng.integers(lo, hi, size=shape, dtype=dtype.np_dtype)
    return rng.uniform(lo, hi, size=shape).astype(dtype.np_dtype)


def _normal_kernel(shape, dtype, params, rng):
    mean, stddev = params
    return (rng.standard_normal(size=shape) * stddev + mean).astype(dtype.np_dtype)


UNIFORM = OpDef("RandomUniform", _random_infer, _uniform_kernel, pure=False)
NORMAL = OpDef("RandomStandardNormal", _random_infer, _normal_kernel, pure=False)
OPS = [UNIFORM, NORMAL]


def _draw(opdef, shape, dtype, params, seed, name):
    static = _static_shape_arg(shape)
    if static is None:
        raise InvalidArgumentError("random ops need a shape known when the graph is built")
    if current_graph() is None:
        key = (opdef.name, seed)
        if _global_seed is None and seed is None:
            rng = _generator(None)
        else:
            rng = _eager_generators.get(key) if seed is not None else None
            if rng is None:
                rng = _generator(seed)
                if seed is not None:
                    _eager_generators[key] = rng
    else:
        rng = _generator(seed)
    return apply_op(opdef, [], {"shape": static, "dtype": dtype, "params": params, "rng": rng},
                    name=name)


def _python_number(v, what):
    if hasattr(v, "numpy"):
        try:
            v = v.numpy()
        except AttributeError:
            raise InvalidArgumentError(f"{what} must be known when the graph is built") from None
    return v.item() if isinstance(v, np.generic) else v


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Uniform values in [minval, maxval); integer dtypes need `maxval`."""
    dtype = dtypes.as_dtype(dtype)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError("Must specify maxval for integer dtype " + dtype.name)
        maxval = 1
    lo, hi = _python_number(minval, "minval"), _python_number(maxval, "maxval")
    if dtype.is_integer and lo >= hi:
        raise InvalidArgumentError(f"Need minval < maxval: {lo} >= {hi}")
    return _draw(UNIFORM, shape, dtype, (lo, hi), seed, name or "random_uniform")


def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise InvalidArgumentError(f"rt.random.normal needs a floating dtype, got {dtype.name}")
    return _draw(NORMAL, shape, dtype, (_python_number(mean, "mean"),
                                        _python_number(stddev, "stddev")), seed,
                 name or "random_normal")
