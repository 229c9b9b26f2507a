"""`rt.random.shuffle` and `rt.random.categorical`, seeded as the other random ops
(runtime/ops/random_ops.py: the op's own numpy generator, from the global seed and the
op's seed).

shuffle gathers with a random permutation (the `RandomPermutation` op: drawn without any
tensor input when the length is known while tracing, so XLA draws it on the host before
the call; `RandomPermutationOf` takes the tensor when the length is known only when the
graph runs). categorical is the Gumbel-max trick on `rt.random.uniform` draws:
`argmax(logits - log(-log(u)))` samples `softmax(logits)`.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core import dtypes
from ..core.shapes import TensorShape
from ..errors import InvalidArgumentError
from . import random_ops
from .array_ops import expand_dims, gather
from .core import OpDef, apply_op, constant_value, convert_to_tensor, identity
from .math_ops import cast, log, negative, subtract
from .random_ops import uniform
from .reduce_ops import argmax


def _permutation_infer(inputs, shape, dtype, rng):
    return [(TensorShape(shape), dtype)]


def _permutation_kernel(shape, dtype, rng):
    return rng.permutation(shape[0]).astype(dtype.np_dtype)


def _permutation_of_infer(inputs, dtype, rng):
    return [(TensorShape([inputs[0].shape[0] if inputs[0].shape.rank else None]), dtype)]


def _permutation_of_kernel(x, dtype, rng):
    return rng.permutation(np.shape(x)[0]).astype(dtype.np_dtype)


# A permutation of range(shape[0]); of range(len(x)) for x known only when the graph runs.
PERMUTATION = OpDef("RandomPermutation", _permutation_infer, _permutation_kernel, pure=False)
PERMUTATION_OF = OpDef("RandomPermutationOf", _permutation_of_infer, _permutation_of_kernel,
                       pure=False,
                       grad=lambda inputs, outputs, grads, dtype, rng: [None])  # integer output


def shuffle(value, seed: Optional[int] = None, name: Optional[str] = None):
    """`value` with its rows (dimension 0) in a random order, a new order at each run;
    reproducible with `rt.random.set_seed` and `seed` as the other random ops. Gradients
    flow back to the rows where they came from. A scalar comes back as it is.

    Args:
      value: a tensor (or what converts to one).
      seed: an int, the op seed.
      name: an optional name for the op.

    Returns:
      A tensor of value's shape and dtype.

    >>> rt.random.set_seed(1)
    >>> rt.random.shuffle(rt.constant([[1, 2], [3, 4], [5, 6]]), seed=1)
    <rt.Tensor: shape=(3, 2), dtype=int32, numpy=
    array([[5, 6],
           [1, 2],
           [3, 4]], dtype=int32)>
    >>> rt.random.set_seed(None)
    """
    x = convert_to_tensor(value)
    if x.shape.rank == 0:
        return identity(x, name=name)  # as TensorFlow: a scalar is its own shuffle
    name = name or "random_shuffle"
    n = x.shape[0] if x.shape.rank is not None else None
    if n is not None:
        rng = random_ops.generator_for(PERMUTATION, seed)
        perm = apply_op(PERMUTATION, [], {"shape": (n,), "dtype": dtypes.int32, "rng": rng},
                        name=name)
    else:
        rng = random_ops.generator_for(PERMUTATION_OF, seed)
        perm = apply_op(PERMUTATION_OF, [x], {"dtype": dtypes.int32, "rng": rng}, name=name)
    return gather(x, perm)


def _static_count(num_samples):
    n = constant_value(num_samples) if hasattr(num_samples, "dtype") else num_samples
    if n is None:
        raise InvalidArgumentError("rt.random.categorical: num_samples must be known when the "
                                   f"graph is built; got the symbolic tensor {num_samples!r}")
    n = np.asarray(n)
    if n.ndim != 0 or n.dtype.kind not in "iu":
        raise InvalidArgumentError(f"rt.random.categorical: num_samples should be an integer "
                                   f"scalar, got {num_samples!r}")
    if int(n) < 0:
        raise InvalidArgumentError(f"rt.random.categorical: num_samples should be >= 0, got "
                                   f"{int(n)}")
    return int(n)


def categorical(logits, num_samples, dtype=None, seed: Optional[int] = None,
                name: Optional[str] = None):
    """Class indices drawn from the categorical distributions whose unnormalized log
    probabilities are the rows of `logits`.

    A class whose logit is -inf is never drawn. Seeded as the other random ops. Draws one
    uniform per (row, sample, class) (the Gumbel-max trick): batch_size and num_classes
    must be known when the graph is built (else InvalidArgumentError).

    Args:
      logits: a floating tensor of shape [batch_size, num_classes].
      num_samples: an int (or a scalar integer tensor known when the graph is built), the
        number of draws per row.
      dtype: int64 (default) or int32; another raises ValueError.
      seed: an int, the op seed.
      name: an optional name for the op.

    Returns:
      A tensor of shape [batch_size, num_samples] and dtype `dtype`.

    >>> rt.random.set_seed(1)
    >>> rt.random.categorical(rt.math.log([[0.5, 0.5, 0.0]]), 6, seed=5)
    <rt.Tensor: shape=(1, 6), dtype=int64, numpy=array([[1, 1, 1, 0, 1, 1]])>
    >>> rt.random.set_seed(None)
    """
    out_type = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    if out_type not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"rt.random.categorical: dtype must be int32 or int64, got "
                         f"{out_type.name}")
    logits = convert_to_tensor(logits)
    if not logits.dtype.is_floating:
        raise InvalidArgumentError(f"rt.random.categorical: logits must be a floating tensor, "
                                   f"got {logits.dtype.name}")
    shape = logits.shape
    if shape.rank is not None and shape.rank != 2:
        raise InvalidArgumentError(f"rt.random.categorical: logits should be a matrix "
                                   f"[batch_size, num_classes], got shape {shape}")
    if shape.rank is None or not shape.is_fully_defined():
        raise InvalidArgumentError(
            f"rt.random.categorical: the shape of logits must be known when the graph is built "
            f"(it draws [batch_size, num_samples, num_classes] uniforms); got {shape}")
    batch, classes = shape.as_list()
    n = _static_count(num_samples)
    if classes == 0 and batch and n:
        raise InvalidArgumentError("rt.random.categorical: num_classes should be positive")
    work = dtypes.float64 if logits.dtype is dtypes.float64 else dtypes.float32
    x = cast(logits, work)
    info = np.finfo(work.np_dtype)
    # u in [tiny, the largest value below 1]: -log(-log(u)) is always finite
    u = uniform([batch, n, classes], minval=float(info.tiny),
                maxval=float(np.nextafter(work.np_dtype.type(1), work.np_dtype.type(0))),
                dtype=work, seed=seed, name=name or "categorical")
    noisy = subtract(expand_dims(x, 1), log(negative(log(u))))
    return argmax(noisy, axis=2, output_type=out_type)


OPS = [PERMUTATION, PERMUTATION_OF]
