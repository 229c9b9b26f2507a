"""Sequences and orderings: linspace, reverse, roll, unique and sequence_mask (TensorFlow's
names and semantics).

All but unique are compositions of existing ops (slices, concat, gather, range,
comparisons), so their gradients, XLA lowerings, ONNX rules and saved form come with them.
unique is its own op (`Unique`): its length depends on the values, so XLA cannot compile
it; its numpy kernel keeps the values in the order they first occur, as TensorFlow does
(not numpy's sorted order), and every NaN is a value of its own (NaN != NaN).
"""
from __future__ import annotations

import collections
from typing import Optional

import numpy as np

from ..core import dtypes
from ..core.shapes import TensorShape
from ..errors import InvalidArgumentError
from . import array_ops, makers, shape_utils
from .core import OpDef, apply_op, convert_to_tensor, identity, zeros_like
from .introspection_ops import get_static_value
from .math_ops import cast, less, maximum, mod
from .reduce_ops import reduce_max


# -- linspace ---------------------------------------------------------------------------

def linspace(start, stop, num, axis: int = 0, name: Optional[str] = None):
    """`num` evenly spaced values from `start` to `stop` (both included), along `axis`.

    `out[j] = start + j * (stop - start) / (num - 1)` for `0 < j < num - 1`, with the
    first exactly `start` and the last exactly `stop`; num=1 gives `[start]`, num=0 an
    empty tensor. `start` and `stop` may be tensors (they broadcast): the values then
    run along the new dimension `axis` of the result.

    Args:
      start: the first value (a float or a floating-point tensor).
      stop: the last value, of start's dtype.
      num: how many values (a non-negative int or int scalar tensor).
      axis: where the new dimension goes in the result.
      name: an optional name.

    Returns:
      A tensor of start's dtype and shape `broadcast(start, stop)` with `num` inserted at
      `axis`.

    >>> print(rt.linspace(0.0, 1.0, 5))
    rt.Tensor([0.   0.25 0.5  0.75 1.  ], shape=(5,), dtype=float32)
    >>> print(rt.linspace([0.0, 10.0], [1.0, 20.0], 3, axis=1))
    rt.Tensor(
    [[ 0.   0.5  1. ]
     [10.  15.  20. ]], shape=(2, 3), dtype=float32)
    """
    a = convert_to_tensor(start, dtype_hint=dtypes.float32)
    b = convert_to_tensor(stop, dtype=a.dtype)
    if not a.dtype.is_floating:
        raise TypeError(f"linspace needs floating-point start and stop, got {a.dtype.name}")
    a, b = a + zeros_like(b), b + zeros_like(a)     # broadcast to one shape
    rank = a.shape.rank
    if rank is None:
        raise ValueError("linspace needs start and stop of known rank")
    axis = shape_utils.normalize_axes(shape_utils.single_axis(axis, "linspace"), rank + 1)[0]
    known = get_static_value(num)
    if known is not None:
        count = shape_utils.whole_number(known, "linspace's num")
        if count < 0:
            raise InvalidArgumentError(f"linspace: num must be non-negative, got {count}")
        n = convert_to_tensor(count, dtypes.int32)
    else:
        n = convert_to_tensor(num)
        if not n.dtype.is_integer:    # (a cast would truncate 2.5 to 2)
            raise TypeError(f"linspace's num must be an integer, got {n.dtype.name}")
        n = cast(n, dtypes.int32)
        count = None
    first, last = array_ops.expand_dims(a, axis), array_ops.expand_dims(b, axis)
    steps = maximum(n - 1, 1)
    delta = (last - first) / cast(steps, a.dtype)
    inner = cast(makers.range(1, steps), a.dtype)
    inner = array_ops.reshape(inner, [-1 if d == axis else 1 for d in range(rank + 1)])
    both = array_ops.concat([first, first + delta * inner, last], axis)
    index = (slice(None),) * axis + (slice(0, count if count is not None else n),)
    out = both[index]
    if count is not None:
        dims = a.shape.as_list()
        out.set_shape(TensorShape(dims[:axis] + [count] + dims[axis:]))
    return identity(out, name=name) if name else out


# -- reverse and roll -------------------------------------------------------------------

def _axes(x, axis, what) -> list:
    rank = x.shape.rank
    if rank is None:
        raise ValueError(f"{what} needs a tensor of known rank")
    known = get_static_value(axis)
    if known is None:
        raise ValueError(f"{what} needs its axis known while tracing")
    return [shape_utils.whole_number(a, f"{what}'s axis") for a in np.asarray(known).reshape(-1)]


def reverse(tensor, axis, name: Optional[str] = None):
    """`tensor` with the order of its entries along each of `axis` reversed.

    `out[..., i, ...] = tensor[..., n - 1 - i, ...]` in each dimension of `axis`
    (negative axes count from the end; an axis listed twice is an error).

    >>> print(rt.reverse(rt.constant([[1, 2, 3], [4, 5, 6]]), axis=[1]))
    rt.Tensor(
    [[3 2 1]
     [6 5 4]], shape=(2, 3), dtype=int32)
    """
    x = convert_to_tensor(tensor)
    axes = _axes(x, axis, "reverse")
    rank = x.shape.rank
    normal = [a + rank if a < 0 else a for a in axes]
    if any(not 0 <= a < rank for a in normal):
        raise InvalidArgumentError(f"reverse: axis {axes} is out of range for rank {rank}")
    if len(set(normal)) != len(normal):
        raise InvalidArgumentError(f"reverse: axis {axes} lists a dimension twice")
    if not normal:
        return identity(x, name=name) if name else x
    index = tuple(slice(None, None, -1) if d in normal else slice(None) for d in range(rank))
    out = x[index]
    return identity(out, name=name) if name else out


def roll(input, shift, axis, name: Optional[str] = None):  # noqa: A002
    """The entries of `input` shifted by `shift` along `axis`, those leaving one end coming
    back at the other.

    `out[..., (i + shift) mod n, ...] = input[..., i, ...]`; `shift` and `axis` may be
    lists of one length (shifts of one axis add).

    >>> print(rt.roll(rt.constant([0, 1, 2, 3, 4]), shift=2, axis=0))
    rt.Tensor([3 4 0 1 2], shape=(5,), dtype=int32)
    """
    x = convert_to_tensor(input)
    axes = _axes(x, axis, "roll")
    rank = x.shape.rank
    known = get_static_value(shift)
    shifts = (None if known is None else [shape_utils.whole_number(s, "roll's shift")
                                          for s in np.asarray(known).reshape(-1)])
    if shifts is not None and len(shifts) != len(axes):
        raise InvalidArgumentError(f"roll: shift {shifts} and axis {axes} differ in length")
    for a in axes:
        if not -rank <= a < rank:
            raise InvalidArgumentError(f"roll: axis {a} is out of range for rank {rank}")
    if shifts is None:
        dynamic = convert_to_tensor(shift)
        parts = [dynamic] if dynamic.shape.rank == 0 else array_ops.unstack(dynamic, len(axes))
    out = x
    for j, a in enumerate(axes):
        a %= rank
        n = x.shape[a]
        if shifts is not None and n is not None:
            if n == 0 or shifts[j] % n == 0:
                continue
            s = shifts[j] % n
            head = (slice(None),) * a
            out = array_ops.concat([out[head + (slice(n - s, None),)],
                                    out[head + (slice(0, n - s),)]], a)
        else:
            s = convert_to_tensor(shifts[j]) if shifts is not None else parts[j]
            size = array_ops.shape(x, out_type=s.dtype)[a]
            positions = mod(makers.range(0, size, dtype=s.dtype) - s, maximum(size, 1))
            out = array_ops.gather(out, positions, axis=a)
            out.set_shape(x.shape)
    return identity(out, name=name) if name else out


# -- unique -----------------------------------------------------------------------------

def _unique_infer(inputs, out_idx):
    x = inputs[0]
    if x.shape.rank not in (None, 1):
        raise InvalidArgumentError(f"unique needs a vector, got shape {x.shape}")
    if out_idx not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(f"unique: out_idx must be int32 or int64, got {out_idx}")
    return [(TensorShape([None]), x.dtype), (TensorShape([x.shape[0] if x.shape.rank else None]),
                                             out_idx)]


def _unique_kernel(x, out_idx):
    x = np.asarray(x)
    if x.ndim != 1:
        raise InvalidArgumentError(f"unique needs a vector, got shape {list(x.shape)}")
    if x.dtype.kind == "f":
        values, first, inverse = np.unique(x, return_index=True, return_inverse=True,
                                           equal_nan=False)
    else:
        values, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return x[first[order]], rank[np.reshape(inverse, -1)].astype(out_idx.np_dtype)


UNIQUE = OpDef("Unique", _unique_infer, _unique_kernel, multi_output=True, allocates=True,
               grad=lambda inputs, outputs, grads, out_idx: [None])

OPS = [UNIQUE]


def unique(x, out_idx=dtypes.int32, name: Optional[str] = None):
    """The distinct values of the vector `x` in the order they first occur, and for each
    entry of `x` the position of its value among them: `x == y[idx]`.

    Every NaN is a value of its own (NaN != NaN), as in TensorFlow. The result's length
    depends on the values: `jit_compile` refuses it.

    Args:
      x: a vector.
      out_idx: the dtype of `idx` (int32 or int64).
      name: an optional name.

    Returns:
      `(y, idx)`, a namedtuple as TensorFlow's (`.y`, `.idx`).

    >>> y, idx = rt.unique(rt.constant([4, 1, 4, 2, 1]))
    >>> print(y, idx)
    rt.Tensor([4 1 2], shape=(3,), dtype=int32) rt.Tensor([0 1 0 2 1], shape=(5,), dtype=int32)
    """
    t = convert_to_tensor(x)
    y, idx = apply_op(UNIQUE, [t], {"out_idx": dtypes.as_dtype(out_idx)}, name=name)
    return UniqueResult(y, idx)


UniqueResult = collections.namedtuple("Unique", ["y", "idx"])  # unique's result, as TF's


# -- sequence_mask ----------------------------------------------------------------------

def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool_, name: Optional[str] = None):
    """A mask of the first `lengths[i]` positions of each row:
    `mask[i..., j] = j < lengths[i...]`, for `j` in `[0, maxlen)`.

    Args:
      lengths: an integer tensor of any shape.
      maxlen: the mask's last dimension (default: `max(0, max(lengths))`).
      dtype: the mask's dtype (bool; others are the cast of it).
      name: an optional name.

    Returns:
      A tensor of shape `lengths.shape + [maxlen]`.

    >>> print(rt.sequence_mask([1, 3, 0], 4))
    rt.Tensor(
    [[ True False False False]
     [ True  True  True False]
     [False False False False]], shape=(3, 4), dtype=bool)
    """
    lengths = convert_to_tensor(lengths, dtype_hint=dtypes.int32)
    if not lengths.dtype.is_integer:
        raise TypeError(f"sequence_mask needs integer lengths, got {lengths.dtype.name}")
    if maxlen is None:
        maxlen = maximum(reduce_max(lengths), convert_to_tensor(0, lengths.dtype))
    else:
        maxlen = convert_to_tensor(maxlen, dtype_hint=lengths.dtype)
        if maxlen.shape.rank not in (None, 0):
            raise ValueError("maxlen must be scalar for sequence_mask")
    row = makers.range(0, maxlen, dtype=maxlen.dtype)
    mask = less(row, cast(array_ops.expand_dims(lengths, -1), maxlen.dtype))
    dtype = dtypes.as_dtype(dtype)
    out = mask if dtype == dtypes.bool_ else cast(mask, dtype)
    return identity(out, name=name) if name else out
