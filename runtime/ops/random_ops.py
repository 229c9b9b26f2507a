"""Random tensors. Each op draws anew at every run; seeds make the sequence of draws
reproducible (`rt.random.set_seed`), as in TensorFlow: with a global seed set, an op
without its own seed gets one from a counter, so re-running a program repeats its draws.
"""
from __future__ import annotations

import itertools
from typing import Optional

import numpy as np

from ..core import dtypes
from ..errors import InvalidArgumentError
from ..core.graph import current_graph
from . import limits
from .core import STACK, OpDef, apply_op, constant_value, convert_to_tensor, stack_values
from .array_ops import SHAPE, static_shape_arg
from .math_ops import add, multiply, subtract
from ..core.shapes import TensorShape
from ..core.tensor import Tensor

_global_seed: Optional[int] = None
_op_counter = itertools.count()
_eager_generators: dict = {}


def set_seed(seed: Optional[int]) -> None:
    """Sets the global seed; resets the per-op seed counter and the eager generators.

    As in TensorFlow, an op's draws come from the global seed and its op seed (its `seed`
    argument, else a counter that counts the random ops made since set_seed). With both
    unset the draws are not reproducible. After set_seed, the same program draws the same
    values (eagerly and in graphs); eagerly, repeated calls with one `seed` continue one
    sequence.

    Args:
      seed: an int, or None to unset the global seed.

    Returns:
      None.

    >>> rt.random.set_seed(7)
    >>> a = rt.random.uniform([3], seed=1)
    >>> rt.random.set_seed(7)
    >>> b = rt.random.uniform([3], seed=1)
    >>> bool(rt.reduce_all(a == b))
    True
    >>> rt.random.set_seed(None)
    """
    global _global_seed, _op_counter
    _global_seed = None if seed is None else int(seed)
    _op_counter = itertools.count()
    _eager_generators.clear()


def global_seed() -> Optional[int]:
    """The seed `rt.random.set_seed` set (None: none)."""
    return _global_seed


def next_op_seed() -> int:
    """The next op seed drawn from the global seed's sequence (`set_seed` restarts it)."""
    return next(_op_counter)


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


def _uniform_int_infer(inputs, shape, dtype, rng):
    for t, what in zip(inputs, ("minval", "maxval")):
        if t.dtype is not dtype:
            raise InvalidArgumentError(f"RandomUniformInt: {what} must be {dtype.name}, got "
                                       f"{t.dtype.name}")
        if t.shape.rank not in (0, None):
            raise InvalidArgumentError(f"RandomUniformInt: {what} must be a scalar (integer "
                                       f"bounds do not broadcast), got shape {t.shape}")
    return [(TensorShape(shape), dtype)]


def _uniform_int_kernel(lo, hi, shape, dtype, rng):
    if np.ndim(lo) or np.ndim(hi):
        raise InvalidArgumentError("RandomUniformInt: minval and maxval must be scalars")
    if lo >= hi:
        raise InvalidArgumentError(f"Need minval < maxval: {lo} >= {hi}")
    return rng.integers(lo, hi, size=shape, dtype=dtype.np_dtype)


# Integer draws whose bounds are tensors known only when the graph runs.
UNIFORM_INT = OpDef("RandomUniformInt", _uniform_int_infer, _uniform_int_kernel, pure=False)


# -- draws whose shape is known only when the graph runs -----------------------------------
# As TensorFlow's ops, these take the shape as a 1-D integer tensor (their first input).
# Their kernels draw with the same generator and the same numpy call as the ops above, so
# a draw gives the same numbers whether its shape was known while tracing or not.

def known_dims(shape) -> TensorShape:
    """The static shape of a draw whose shape is the 1-D tensor `shape`: what is known of
    it while tracing (its value; the shape of the tensor it is the `rt.shape` of; the
    known items of a stacked list), each other dimension None."""
    value = constant_value(shape)
    if value is not None:
        return TensorShape([int(d) for d in np.reshape(value, -1)])
    op = getattr(shape, "op", None)
    if op is not None and op.opdef is SHAPE:
        return TensorShape(op.inputs[0].shape.as_list() if op.inputs[0].shape.rank is not None
                           else None)
    if op is not None and op.opdef is STACK and op.attrs.get("axis") == 0:
        dims = [constant_value(t) for t in op.inputs]
        return TensorShape([None if d is None or np.ndim(d) else int(d) for d in dims])
    n = shape.shape[0] if shape.shape.rank == 1 else None
    return TensorShape(None if n is None else [None] * n)


def check_shape_input(shape, opname) -> None:
    """InvalidArgumentError unless `shape` (a tensor) can be a draw's shape."""
    if not shape.dtype.is_integer or shape.shape.rank not in (1, None):
        raise InvalidArgumentError(f"{opname}: the shape must be a 1-D integer tensor, got "
                                   f"{shape.dtype.name} {shape.shape}")


def draw_dims(shape, opname) -> tuple:
    """The run-time value of a draw's shape tensor as a tuple of ints (checked: 1-D,
    no negative dimension, within the size limit)."""
    shape = np.asarray(shape)
    if shape.ndim != 1:
        raise InvalidArgumentError(f"{opname}: the shape must be 1-D, got {shape.tolist()}")
    dims = tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(f"{opname}: the shape must have no negative dimension, got "
                                   f"{list(dims)}")
    limits.check_elements(opname, dims)
    return dims


def shape_tensor(shape):
    """A draw's `shape` argument not known while tracing as a 1-D integer tensor (a tensor
    as it is; a list holding tensors stacked as int32)."""
    t = shape if isinstance(shape, Tensor) else stack_values(list(shape), dtypes.int32)
    check_shape_input(t, "random draw")
    return t


def _dyn_infer(inputs, dtype, params, rng):
    check_shape_input(inputs[0], "random draw")
    return [(known_dims(inputs[0]), dtype)]


def _uniform_dyn_kernel(shape, dtype, params, rng):
    return _uniform_kernel(draw_dims(shape, "RandomUniform"), dtype, params, rng)


def _normal_dyn_kernel(shape, dtype, params, rng):
    return _normal_kernel(draw_dims(shape, "RandomStandardNormal"), dtype, params, rng)


def _uniform_int_dyn_infer(inputs, dtype, rng):
    check_shape_input(inputs[0], "RandomUniformInt")
    _uniform_int_infer(inputs[1:], None, dtype, rng)
    return [(known_dims(inputs[0]), dtype)]


def _uniform_int_dyn_kernel(shape, lo, hi, dtype, rng):
    return _uniform_int_kernel(lo, hi, draw_dims(shape, "RandomUniformInt"), dtype, rng)


def no_gradient(inputs, outputs, grads, **attrs):
    """A draw's inputs (its shape, integer bounds, a generator's key) are integers: none
    has a gradient."""
    return [None] * len(inputs)


UNIFORM_DYNAMIC = OpDef("RandomUniformDynamic", _dyn_infer, _uniform_dyn_kernel,
                        pure=False, default_name="RandomUniform", grad=no_gradient)
NORMAL_DYNAMIC = OpDef("RandomStandardNormalDynamic", _dyn_infer, _normal_dyn_kernel,
                       pure=False, default_name="RandomStandardNormal", grad=no_gradient)
UNIFORM_INT_DYNAMIC = OpDef("RandomUniformIntDynamic", _uniform_int_dyn_infer,
                            _uniform_int_dyn_kernel, pure=False,
                            default_name="RandomUniformInt", grad=no_gradient)
DYNAMIC = {UNIFORM: UNIFORM_DYNAMIC, NORMAL: NORMAL_DYNAMIC, UNIFORM_INT: UNIFORM_INT_DYNAMIC}
OPS = [UNIFORM, NORMAL, UNIFORM_INT, UNIFORM_DYNAMIC, NORMAL_DYNAMIC, UNIFORM_INT_DYNAMIC]


def generator_for(opdef, seed):
    """The numpy generator a draw of `opdef` with op seed `seed` takes (eagerly, a seeded
    op keeps drawing from one generator; in a graph, each op gets its own)."""
    if current_graph() is None:
        key = (opdef.name, seed)
        if _global_seed is None and seed is None:
            return _generator(None)
        rng = _eager_generators.get(key) if seed is not None else None
        if rng is None:
            rng = _generator(seed)
            if seed is not None:
                _eager_generators[key] = rng
        return rng
    return _generator(seed)


def _draw(opdef, shape, dtype, params, seed, name):
    static = static_shape_arg(shape)
    if static is None:  # the shape is read when the graph runs
        return apply_op(DYNAMIC[opdef], [shape_tensor(shape)],
                        {"dtype": dtype, "params": params, "rng": generator_for(opdef, seed)},
                        name=name)
    return apply_op(opdef, [], {"shape": static, "dtype": dtype, "params": params,
                                "rng": generator_for(opdef, seed)}, name=name)


def _known_number(v, dtype):
    """`v` as a Python number when its value is known now (a Python or numpy number, an
    eager tensor, a constant) and it is a scalar, else None: such bounds stay attributes of
    the op (the draws and the saved graph are as they always were)."""
    if isinstance(v, Tensor):
        if v.dtype is not dtype:
            return None  # the tensor conversion says what is wrong
        v = constant_value(v)
        if v is None:
            return None
    if isinstance(v, (bool, np.bool_)):
        return None  # let the tensor conversion say what is wrong
    if isinstance(v, (int, float, np.integer, np.floating)) or (
            isinstance(v, np.ndarray) and v.ndim == 0 and v.dtype.kind in "iuf"):
        return v.item() if isinstance(v, (np.generic, np.ndarray)) else v
    return None


def _bound(v, dtype, opname, what):
    try:
        return convert_to_tensor(v, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{opname}: {what} must be a {dtype.name} value or tensor (the dtype "
                        f"argument); got {v!r}: {e}") from None


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Uniform values in [minval, maxval); integer dtypes need `maxval`. The bounds may be
    tensors, computed when the graph runs: floating bounds broadcast with `shape` (the
    draw is `u * (maxval - minval) + minval` as in TensorFlow), integer bounds are scalars.

    Seeded as described at rt.random.set_seed. An integer draw with minval >= maxval raises
    InvalidArgumentError; a dtype neither integer nor floating raises InvalidArgumentError.

    Args:
      shape: the shape of the result: a list of ints (or of scalar tensors), or a 1-D
        integer tensor, whose value may be known only when the graph runs.
      minval: the lower bound, included (default 0).
      maxval: the upper bound, excluded (default 1 for floating dtypes; needed for integer
        ones, else ValueError).
      dtype: an integer or floating dtype (float32 by default).
      seed: an int, the op seed.
      name: an optional name for the op.

    Returns:
      A tensor of dtype `dtype` and shape `shape`.

    >>> rt.random.set_seed(1)
    >>> rt.random.uniform([2, 3], seed=2)
    <rt.Tensor: shape=(2, 3), dtype=float32, numpy=
    array([[0.44841513, 0.43088198, 0.41999912],
           [0.27702338, 0.8219126 , 0.04974988]], dtype=float32)>
    >>> rt.random.uniform([5], 0, 10, dtype=rt.int32, seed=3)
    <rt.Tensor: shape=(5,), dtype=int32, numpy=array([4, 0, 8, 1, 7], dtype=int32)>
    >>> rt.random.set_seed(None)
    """
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise InvalidArgumentError(f"rt.random.uniform needs an integer or floating dtype, "
                                   f"got {dtype.name}")
    if maxval is None:
        if dtype.is_integer:
            raise ValueError("Must specify maxval for integer dtype " + dtype.name)
        maxval = 1
    name = name or "random_uniform"
    lo, hi = _known_number(minval, dtype), _known_number(maxval, dtype)
    if lo is not None and hi is not None:
        if dtype.is_integer and lo >= hi:
            raise InvalidArgumentError(f"Need minval < maxval: {lo} >= {hi}")
        return _draw(UNIFORM, shape, dtype, (lo, hi), seed, name)
    lo_t = _bound(minval, dtype, "rt.random.uniform", "minval")
    hi_t = _bound(maxval, dtype, "rt.random.uniform", "maxval")
    if dtype.is_integer:
        static = static_shape_arg(shape)
        if static is None:
            return apply_op(UNIFORM_INT_DYNAMIC, [shape_tensor(shape), lo_t, hi_t],
                            {"dtype": dtype, "rng": generator_for(UNIFORM_INT, seed)},
                            name=name)
        return apply_op(UNIFORM_INT, [lo_t, hi_t],
                        {"shape": static, "dtype": dtype,
                         "rng": generator_for(UNIFORM_INT, seed)}, name=name)
    unit = _draw(UNIFORM, shape, dtype, (0, 1), seed, name)
    return add(multiply(unit, subtract(hi_t, lo_t)), lo_t)


def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal values; `mean` and `stddev` may be tensors (computed when the graph runs,
    broadcast with `shape`: the draw is `z * stddev + mean` as in TensorFlow).

    Seeded as described at rt.random.set_seed. A dtype that is not floating raises
    InvalidArgumentError.

    Args:
      shape: the shape of the result: a list of ints (or of scalar tensors), or a 1-D
        integer tensor, whose value may be known only when the graph runs.
      mean: the mean of the distribution (default 0).
      stddev: its standard deviation (default 1).
      dtype: a floating dtype (float32 by default).
      seed: an int, the op seed.
      name: an optional name for the op.

    Returns:
      A tensor of dtype `dtype` and shape `shape`.

    >>> rt.random.set_seed(1)
    >>> rt.random.normal([3], mean=10.0, stddev=2.0, seed=2)
    <rt.Tensor: shape=(3,), dtype=float32, numpy=array([ 7.5983877, 11.650582 , 11.273606 ],
      dtype=float32)>
    >>> rt.random.normal([2, 2], dtype=rt.float64).dtype
    rt.float64
    >>> rt.random.set_seed(None)
    """
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise InvalidArgumentError(f"rt.random.normal needs a floating dtype, got {dtype.name}")
    name = name or "random_normal"
    m, sd = _known_number(mean, dtype), _known_number(stddev, dtype)
    if m is not None and sd is not None:
        return _draw(NORMAL, shape, dtype, (m, sd), seed, name)
    mean_t = _bound(mean, dtype, "rt.random.normal", "mean")
    stddev_t = _bound(stddev, dtype, "rt.random.normal", "stddev")
    z = _draw(NORMAL, shape, dtype, (0.0, 1.0), seed, name)
    return add(multiply(z, stddev_t), mean_t)
