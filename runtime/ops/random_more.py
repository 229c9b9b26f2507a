"""`rt.random.truncated_normal` and `rt.random.Generator`, as TensorFlow's.

TruncatedNormal draws like RandomStandardNormal (seeded as `rt.random.set_seed` says) and
draws again each value beyond two standard deviations. A Generator keeps its state in a
Variable [seed, counter]: each draw advances the counter (a Variable write, so inside an
`rt.function` every run draws new numbers and the state after it is what the next
eager call sees) and runs StatelessRandom, a pure op whose numbers are a function of that
key (numpy's PCG64 seeded with it), on every backend alike.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core import dtypes
from ..core.shapes import TensorShape
from ..core.tensor import Tensor
from ..errors import InvalidArgumentError
from .core import OpDef, apply_op, convert_to_tensor
from .math_ops import add, cast, multiply, subtract
from .random_ops import (check_shape_input, draw_dims, generator_for, global_seed, known_dims,
                         next_op_seed, no_gradient, shape_tensor)
from .state_ops import Variable
from .array_ops import static_shape_arg


def _shape(shape):
    """A draw's shape as a tuple of ints when it is known while tracing, else None (then
    `shape_tensor(shape)` is read when the graph runs)."""
    static = static_shape_arg(shape)
    return None if static is None else tuple(int(d) for d in static)


def _truncated(rng, shape):
    z = rng.standard_normal(size=shape)
    bad = np.abs(z) > 2.0
    while bad.any():
        z[bad] = rng.standard_normal(size=int(bad.sum()))
        bad = np.abs(z) > 2.0
    return z


def _draw_infer(inputs, shape, dtype, params, rng):
    return [(TensorShape(shape), dtype)]


def _truncated_kernel(shape, dtype, params, rng):
    mean, stddev = params
    return (_truncated(rng, shape) * stddev + mean).astype(dtype.np_dtype)


TRUNCATED_NORMAL = OpDef("TruncatedNormal", _draw_infer, _truncated_kernel, pure=False)


def _mask64(v):
    return int(v) & 0xFFFFFFFFFFFFFFFF


def _stateless_infer(inputs, shape, dtype, kind, params):
    key = inputs[0]
    if not key.dtype.is_integer or key.shape.rank not in (None, 1):
        raise InvalidArgumentError(f"StatelessRandom: the key must be a 1-D integer tensor, "
                                   f"got {key.dtype.name} {key.shape}")
    return [(TensorShape(shape), dtype)]


def _stateless_kernel(key, shape, dtype, kind, params):
    rng = np.random.default_rng([_mask64(k) for k in np.asarray(key).reshape(-1)])
    if kind == "normal":
        v = rng.standard_normal(size=shape)
    elif kind == "truncated_normal":
        v = _truncated(rng, shape)
    elif kind == "uniform":
        v = rng.uniform(0.0, 1.0, size=shape)
    else:  # "integers": [lo, hi)
        lo, hi = params
        return rng.integers(lo, hi, size=shape, dtype=dtype.np_dtype)
    return np.asarray(v).astype(dtype.np_dtype)


STATELESS_RANDOM = OpDef("StatelessRandom", _stateless_infer, _stateless_kernel, allocates=True)


# The same draws with the shape a 1-D integer tensor read when the graph runs (an
# input): the same generator and numpy calls, so the same numbers as the ops above.

def _truncated_dyn_infer(inputs, dtype, params, rng):
    check_shape_input(inputs[0], "TruncatedNormal")
    return [(known_dims(inputs[0]), dtype)]


def _truncated_dyn_kernel(shape, dtype, params, rng):
    return _truncated_kernel(draw_dims(shape, "TruncatedNormal"), dtype, params, rng)


def _stateless_dyn_infer(inputs, dtype, kind, params):
    check_shape_input(inputs[1], "StatelessRandom")
    _stateless_infer(inputs[:1], None, dtype, kind, params)
    return [(known_dims(inputs[1]), dtype)]


def _stateless_dyn_kernel(key, shape, dtype, kind, params):
    return _stateless_kernel(key, draw_dims(shape, "StatelessRandom"), dtype, kind, params)


TRUNCATED_NORMAL_DYNAMIC = OpDef("TruncatedNormalDynamic", _truncated_dyn_infer,
                                 _truncated_dyn_kernel, pure=False,
                                 default_name="TruncatedNormal", grad=no_gradient)
STATELESS_RANDOM_DYNAMIC = OpDef("StatelessRandomDynamic", _stateless_dyn_infer,
                                 _stateless_dyn_kernel, allocates=True,
                                 default_name="StatelessRandom", grad=no_gradient)
OPS = [TRUNCATED_NORMAL, STATELESS_RANDOM, TRUNCATED_NORMAL_DYNAMIC, STATELESS_RANDOM_DYNAMIC]


def _affine(z, a, b, dtype):
    """z * a + b, leaving out the identity parts (the numbers stay bit for bit)."""
    if not (isinstance(a, (int, float)) and a == 1):
        z = multiply(z, convert_to_tensor(a, dtype=dtype) if not isinstance(a, Tensor) else a)
    if not (isinstance(b, (int, float)) and b == 0):
        z = add(z, convert_to_tensor(b, dtype=dtype) if not isinstance(b, Tensor) else b)
    return z


def _floating(dtype, what):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise InvalidArgumentError(f"{what} needs a floating dtype, got {dtype.name}")
    return dtype


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None,
                     name: Optional[str] = None):
    """Normal values with those beyond two standard deviations drawn again: each value is
    `z * stddev + mean` with z standard normal conditioned on |z| <= 2.

    Seeded as described at rt.random.set_seed.

    Args:
      shape: the result's shape (ints, or a 1-D integer tensor whose value may be known
        only when the graph runs).
      mean: the mean (a number or a tensor broadcast with shape).
      stddev: the standard deviation before truncation.
      dtype: a floating dtype.
      seed: an int, the op seed.
      name: an optional name for the op.

    Returns:
      A tensor of `dtype` and `shape`, every value within mean +- 2 * stddev.

    >>> x = rt.random.truncated_normal([1000], stddev=3.0, seed=1)
    >>> bool(rt.reduce_all(rt.abs(x) <= 6.0))
    True
    """
    dtype = _floating(dtype, "rt.random.truncated_normal")
    static = _shape(shape)
    attrs = {"dtype": dtype, "params": (0.0, 1.0), "rng": generator_for(TRUNCATED_NORMAL, seed)}
    if static is None:  # the shape is read when the graph runs
        z = apply_op(TRUNCATED_NORMAL_DYNAMIC, [shape_tensor(shape)], attrs,
                     name=name or "truncated_normal")
    else:
        z = apply_op(TRUNCATED_NORMAL, [], {"shape": static, **attrs},
                     name=name or "truncated_normal")
    return _affine(z, stddev, mean, dtype)


class Generator:
    """A random number generator with its state in a Variable, as `tf.random.Generator`:
    each draw uses the state and advances it, eagerly and inside `rt.function` (every
    run draws new numbers). Two generators from one seed draw the same numbers.

    >>> g = rt.random.Generator.from_seed(42)
    >>> a = g.normal([3])
    >>> b = rt.random.Generator.from_seed(42).normal([3])
    >>> bool(rt.reduce_all(a == b)), bool(rt.reduce_all(a == g.normal([3])))
    (True, False)
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            state = copy_from.state.numpy()
        if state is None:
            raise ValueError("Generator needs a state: use Generator.from_seed(seed)")
        self._state = Variable(np.asarray(state, np.int64).reshape(2), trainable=False,
                               name="generator_state")

    @classmethod
    def from_seed(cls, seed, alg=None) -> "Generator":
        """A generator whose draws are a function of `seed` alone."""
        return cls(state=[_signed(seed), 0])

    @classmethod
    def from_non_deterministic_state(cls, alg=None) -> "Generator":
        """A generator seeded from the operating system's entropy."""
        return cls(state=[_signed(np.random.SeedSequence().entropy), 0])

    @property
    def state(self):
        """The Variable [seed, counter] holding the state."""
        return self._state

    @property
    def algorithm(self):
        return "pcg64"

    def reset_from_seed(self, seed) -> None:
        """Sets the state as from_seed(seed) makes it."""
        self._state.assign(np.asarray([_signed(seed), 0], np.int64))

    def skip(self, delta):
        """Advances the state as `delta` draws would."""
        self._state.assign_add(np.asarray([0, int(delta)], np.int64))

    def _key(self):
        return self._state.assign_add(np.asarray([0, 1], np.int64))

    def _draw(self, shape, dtype, kind, params=(), name=None):
        static = _shape(shape)
        attrs = {"dtype": dtype, "kind": kind, "params": tuple(params)}
        if static is None:  # the shape is read when the graph runs
            return apply_op(STATELESS_RANDOM_DYNAMIC, [self._key(), shape_tensor(shape)], attrs,
                            name=name or "stateless_random")
        return apply_op(STATELESS_RANDOM, [self._key()], {"shape": static, **attrs},
                        name=name or "stateless_random")

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        """Normal values `z * stddev + mean`."""
        dtype = _floating(dtype, "Generator.normal")
        return _affine(self._draw(shape, dtype, "normal", name=name), stddev, mean, dtype)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        """Normal values within two standard deviations of the mean (others drawn again)."""
        dtype = _floating(dtype, "Generator.truncated_normal")
        return _affine(self._draw(shape, dtype, "truncated_normal", name=name), stddev, mean,
                       dtype)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None):
        """Uniform values in [minval, maxval): `u * (maxval - minval) + minval` for floats;
        integer dtypes need Python int bounds (maxval None: the dtype's whole range)."""
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer:
            info = np.iinfo(dtype.np_dtype)
            lo = int(minval) if maxval is not None else int(info.min)
            hi = int(maxval) if maxval is not None else int(info.max) + 1
            if lo >= hi:
                raise InvalidArgumentError(f"Need minval < maxval: {lo} >= {hi}")
            return self._draw(shape, dtype, "integers", (lo, hi), name=name)
        dtype = _floating(dtype, "Generator.uniform")
        maxval = 1 if maxval is None else maxval
        u = self._draw(shape, dtype, "uniform", name=name)
        if isinstance(minval, Tensor) or isinstance(maxval, Tensor):
            lo = convert_to_tensor(minval, dtype=dtype)
            return add(multiply(u, subtract(convert_to_tensor(maxval, dtype=dtype), lo)), lo)
        return _affine(u, float(maxval) - float(minval), float(minval), dtype)

    def make_seeds(self, count=1):
        """[2, count] int64 seeds drawn from this generator."""
        return cast(self._draw([2, count], dtypes.int64, "integers", (0, 2 ** 62)),
                    dtypes.int64)

    def split(self, count=1) -> list:
        """`count` new generators seeded from this one's draws."""
        seeds = self.make_seeds(count).numpy()
        return [Generator(state=[int(seeds[0, i]), int(seeds[1, i])]) for i in range(count)]


def _signed(seed) -> int:
    v = int(seed) & 0xFFFFFFFFFFFFFFFF
    return v - (1 << 64) if v >= (1 << 63) else v


_global_generator: list = []


def get_global_generator() -> Generator:
    """The generator `rt.random.get_global_generator()` shares (seeded from the global
    seed when one is set).

    >>> rt.random.get_global_generator().normal([2]).shape
    TensorShape([2])
    """
    if not _global_generator:
        seed = global_seed()
        _global_generator.append(Generator.from_non_deterministic_state() if seed is None
                                 else Generator.from_seed(seed * 1000003 + next_op_seed()))
    return _global_generator[0]
