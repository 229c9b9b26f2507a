"""Ops that give a tensor of another shape from another's elements, as TensorFlow has
them: `tile` (an op, Tile), and compositions of existing ops: `one_hot`, `split`, `slice`,
`broadcast_to`, `boolean_mask`.

Compositions get shape inference, gradients, ONNX and XLA from the ops they are made of:
`slice`/`split` are strided slices (their gradient pads back), `broadcast_to` is the
BroadcastTo op the gradients already use (its gradient sums back), `one_hot` is a
comparison with a range and a select, `boolean_mask` a gather of the indices `where`
gives (so its first dimension is known only when the graph runs, and the XLA backend
refuses it for the reason it refuses `where` with one argument).
"""
from __future__ import annotations

import builtins
from typing import Optional

import numpy as np

from ..core import dtypes
from ..core.shapes import TensorShape
from ..core.tensor import Tensor
from ..errors import InvalidArgumentError
from . import array_ops, broadcast_ops, io_ops, limits, makers, math_ops, reduce_ops, shape_utils
from .core import OpDef, apply_op, constant, constant_value, convert_to_tensor, identity

# -- tile -----------------------------------------------------------------------------------


def _check_multiples(x_shape, multiples):
    """Checks the multiples' dtype and length (and values when known); returns the known
    values as a tuple of ints, or None."""
    if not multiples.dtype.is_integer:
        raise InvalidArgumentError(f"Tile: multiples must be integers, got {multiples.dtype.name}")
    ms = multiples.shape
    if ms.rank is not None and ms.rank != 1:
        raise InvalidArgumentError(f"Tile: multiples must be a vector, got shape {ms}")
    if ms.rank == 1 and ms[0] is not None and x_shape.rank is not None and ms[0] != x_shape.rank:
        raise InvalidArgumentError(
            f"Expected multiples argument to be a vector of length {x_shape.rank} but got "
            f"length {ms[0]}")
    known = constant_value(multiples)
    if known is None:
        return None
    known = tuple(int(m) for m in np.asarray(known).reshape(-1))
    for i, m in enumerate(known):
        if m < 0:
            raise InvalidArgumentError(f"Expected multiples[{i}] >= 0, but got {m}")
    return known


def _tile_infer(inputs):
    x, multiples = inputs
    known = _check_multiples(x.shape, multiples)
    rank = x.shape.rank
    if rank is None and multiples.shape.rank == 1:
        rank = multiples.shape[0]
    if rank is None:
        return [(TensorShape(None), x.dtype)]
    dims = x.shape.as_list() if x.shape.rank is not None else [None] * rank
    if known is None:
        return [(TensorShape([0 if d == 0 else None for d in dims]), x.dtype)]
    return [(TensorShape([None if d is None else d * m for d, m in zip(dims, known)]),
             x.dtype)]


def tile_check(x, multiples):
    """The kernel's checks of a run: the multiples as a tuple of ints."""
    multiples = np.asarray(multiples).reshape(-1)
    if multiples.shape[0] != np.ndim(x):
        raise InvalidArgumentError(
            f"Expected multiples argument to be a vector of length {np.ndim(x)} but got "
            f"length {multiples.shape[0]}")
    for i, m in enumerate(multiples.tolist()):
        if m < 0:
            raise InvalidArgumentError(f"Expected multiples[{i}] >= 0, but got {m}")
    return tuple(int(m) for m in multiples.tolist())


def _tile_kernel(x, multiples):
    reps = tile_check(x, multiples)
    limits.check_elements("Tile", [n * m for n, m in zip(np.shape(x), reps)])
    return np.tile(np.asarray(x), reps)


def _tile_grad(inputs, outputs, grads):
    """Each tile's gradient summed: `g` seen as [m0, d0, m1, d1, ...], summed over the m's."""
    x, multiples = inputs
    g = grads[0]
    rank = x.shape.rank
    if rank is None:
        raise ValueError("the gradient of rt.tile needs the input's rank to be known")
    if rank == 0:
        return [g, None]
    known = constant_value(multiples)
    if known is not None and x.shape.is_fully_defined():
        split = [v for pair in zip(np.asarray(known).reshape(-1).tolist(), x.shape.as_list())
                 for v in pair]
        parts = array_ops.reshape(g, split)
    else:
        pairs = array_ops.stack([math_ops.cast(multiples, dtypes.int32), array_ops.shape(x)], axis=1)
        parts = apply_op(array_ops.RESHAPE_DYNAMIC, [g, array_ops.reshape(pairs, [-1])])
    out = reduce_ops.reduce_sum(parts, axis=list(range(0, 2 * rank, 2)))
    out.set_shape(x.shape)
    return [out, None]


TILE = OpDef("Tile", _tile_infer, _tile_kernel, allocates=True, grad=_tile_grad)


def tile(input, multiples, name: Optional[str] = None):  # noqa: A002
    """`input` repeated `multiples[i]` times along dimension i (TensorFlow's tf.tile).

    Args:
      input: a tensor (or what converts to one).
      multiples: integers, one per dimension of `input` (a list or a 1-D int32/int64
        tensor).
      name: an optional name for the op.

    Returns:
      A tensor of the input's dtype whose dimension i is `input.shape[i] * multiples[i]`.

    >>> rt.tile(rt.constant([[1, 2]]), [2, 3])
    <rt.Tensor: shape=(2, 6), dtype=int32, numpy=
    array([[1, 2, 1, 2, 1, 2],
           [1, 2, 1, 2, 1, 2]], dtype=int32)>
    """
    x = convert_to_tensor(input)
    m = convert_to_tensor(multiples, dtype_hint=dtypes.int32)
    return apply_op(TILE, [x, m], name=name)


OPS = [TILE]


# -- broadcast_to ------------------------------------------------------------------------------

def _check_broadcast(x_shape: TensorShape, target: tuple):
    if x_shape.rank is None:
        return
    dims = x_shape.as_list()
    ok = len(dims) <= len(target) and all(
        d is None or d == 1 or d == t for d, t in zip(dims[::-1], target[::-1]))
    if not ok or any(t < 0 for t in target):
        raise InvalidArgumentError(f"Unable to broadcast tensor of shape {x_shape} to tensor "
                                   f"of shape {TensorShape(list(target))}")


def broadcast_to(input, shape, name: Optional[str] = None):  # noqa: A002
    """`input` broadcast to `shape` (numpy's rules: dimensions of 1 repeat, missing
    leading dimensions are added), as TensorFlow's tf.broadcast_to.

    Its gradient sums back to `input`. Shapes that do not broadcast raise
    InvalidArgumentError.

    Args:
      input: a tensor (or what converts to one).
      shape: integers (a list or a 1-D integer tensor).
      name: an optional name for the op.

    Returns:
      A tensor of the input's dtype and shape `shape`.

    >>> rt.broadcast_to(rt.constant([1, 2, 3]), [2, 3])
    <rt.Tensor: shape=(2, 3), dtype=int32, numpy=
    array([[1, 2, 3],
           [1, 2, 3]], dtype=int32)>
    """
    x = convert_to_tensor(input)
    static = array_ops.static_shape_arg(shape)
    if static is not None:
        _check_broadcast(x.shape, static)
        if x.shape.is_fully_defined() and tuple(x.shape.as_list()) == static:
            return identity(x, name=name) if name else x
        return apply_op(broadcast_ops.BROADCAST_TO, [x], {"shape": static}, name=name)
    dims = convert_to_tensor(shape, dtype_hint=dtypes.int32)
    if not dims.dtype.is_integer:
        raise InvalidArgumentError(f"broadcast_to: shape must be integers, got {dims.dtype.name}")
    like = makers.fill(dims, constant(False))
    return apply_op(broadcast_ops.BROADCAST_LIKE, [x, like], name=name)


# -- slice, split ----------------------------------------------------------------------------

def _ints_or_tensors(value, n, what):
    """A begin/size argument as a list of `n` Python ints or scalar tensors."""
    static = array_ops.static_shape_arg(value, what)
    if static is not None:
        out = list(static)
    else:
        t = convert_to_tensor(value, dtype_hint=dtypes.int32)
        if not t.dtype.is_integer:
            raise InvalidArgumentError(f"Slice: {what} must be integers, got {t.dtype.name}")
        out = array_ops.unstack(t, num=n) if t.shape.rank == 1 else None
        if out is None:
            raise InvalidArgumentError(f"Slice: {what} must be a vector, got shape {t.shape}")
    if len(out) != n:
        raise InvalidArgumentError(
            f"Expected {what} argument to be of size {n} (the input's rank), but got {len(out)}")
    return out


def slice(input_, begin, size, name: Optional[str] = None):  # noqa: A001
    """The part of `input_` that starts at `begin` and has shape `size` (TensorFlow's
    tf.slice); a size of -1 takes everything to the end of that dimension.

    Out-of-range bounds raise InvalidArgumentError (known ones while building, the others
    when the graph runs).

    Args:
      input_: a tensor of known rank (else ValueError).
      begin: one integer per dimension (a list or a 1-D integer tensor).
      size: one integer per dimension (a list or a 1-D integer tensor); -1: to the end.
      name: an optional name for the op.

    Returns:
      A tensor of the input's dtype, of shape `size` (with -1 resolved).

    >>> rt.slice(rt.constant([[1, 2, 3], [4, 5, 6]]), [0, 1], [2, -1])
    <rt.Tensor: shape=(2, 2), dtype=int32, numpy=
    array([[2, 3],
           [5, 6]], dtype=int32)>
    """
    x = convert_to_tensor(input_)
    rank = x.shape.rank
    if rank is None:
        raise ValueError("rt.slice needs an input of known rank")
    begins = _ints_or_tensors(begin, rank, "begin")
    sizes = _ints_or_tensors(size, rank, "size")
    index, checks = [], []
    for i, (b, s) in enumerate(zip(begins, sizes)):
        n = x.shape[i]
        if isinstance(b, int) and isinstance(s, int):
            if b < 0 or (n is not None and b > n):
                raise InvalidArgumentError(f"Expected begin[{i}] in [0, {n}], but got {b}")
            if s < -1 or (n is not None and s >= 0 and b + s > n):
                raise InvalidArgumentError(f"Expected size[{i}] in [0, {'' if n is None else n - b}]"
                                           f", but got {s}")
            if n is None:
                checks.append((i, b, s))
            index.append(builtins.slice(b, None if s == -1 else b + s))
            continue
        dim = array_ops.shape(x)[i] if n is None else n
        bt = math_ops.cast(convert_to_tensor(b, dtype_hint=dtypes.int32), dtypes.int32)
        st = math_ops.cast(convert_to_tensor(s, dtype_hint=dtypes.int32), dtypes.int32)
        stop = math_ops.where(st < 0, dim, bt + st)
        checks.append((i, bt, st))
        index.append(builtins.slice(bt, stop))
    for i, b, s in checks:
        dim = array_ops.shape(x)[i]
        b, s = convert_to_tensor(b, dtype=dtypes.int32), convert_to_tensor(s, dtype=dtypes.int32)
        end = math_ops.where(s < 0, dim, b + s)
        ok = math_ops.logical_and(math_ops.logical_and(b >= 0, s >= -1),
                                  math_ops.logical_and(end <= dim, b <= end))
        io_ops.assert_that(ok, f"Slice: begin[{i}] and size[{i}] are out of range for "
                               f"dimension {i} of the input", [b, s, dim])
    out = array_ops.getitem(x, tuple(index))
    return identity(out, name=name) if name else out


def split(value, num_or_size_splits, axis=0, num=None, name: Optional[str] = None):
    """`value` cut along `axis` into a list of tensors (TensorFlow's tf.split).

    Their gradient is the pieces' gradients put back side by side.

    Args:
      value: a tensor of known rank >= 1.
      num_or_size_splits: an int (that many equal parts: it must divide the dimension, else
        InvalidArgumentError) or a list / 1-D tensor of sizes, one of which may be -1 (what
        is left).
      axis: the dimension to cut (negative counts from the end).
      num: the number of sizes, when given (a different count raises ValueError).
      name: an optional name for the op.

    Returns:
      A list of tensors of value's dtype.

    >>> a, b = rt.split(rt.range(6), [4, -1])
    >>> a, b
    (<rt.Tensor: shape=(4,), dtype=int32, numpy=array([0, 1, 2, 3], dtype=int32)>,
      <rt.Tensor: shape=(2,), dtype=int32, numpy=array([4, 5], dtype=int32)>)
    >>> [t.shape for t in rt.split(rt.zeros([2, 6]), 3, axis=1)]
    [TensorShape([2, 2]), TensorShape([2, 2]), TensorShape([2, 2])]
    """
    x = convert_to_tensor(value)
    rank = x.shape.rank
    if rank is None:
        raise ValueError("rt.split needs an input of known rank")
    axis = shape_utils.normalize_axes(shape_utils.single_axis(axis, "Split"), rank)[0] \
        if rank else shape_utils.single_axis(axis, "Split")
    if rank == 0:
        raise InvalidArgumentError("Split: the input must have rank >= 1, got a scalar")
    n = x.shape[axis]
    pre = (builtins.slice(None),) * axis
    if isinstance(num_or_size_splits, Tensor) and constant_value(num_or_size_splits) is not None:
        num_or_size_splits = constant_value(num_or_size_splits)
        if np.ndim(num_or_size_splits) == 0:
            num_or_size_splits = int(num_or_size_splits)
    if isinstance(num_or_size_splits, (int, np.integer)):
        k = int(num_or_size_splits)
        if k <= 0:
            raise ValueError(f"num_or_size_splits must be a positive integer, got {k}")
        if n is not None:
            if n % k:
                raise InvalidArgumentError(
                    "Number of ways to split should evenly divide the split dimension, but got "
                    f"split_dim {axis} (size = {n}) and num_split {k}")
            step = n // k
            return [x[pre + (builtins.slice(i * step, (i + 1) * step),)] for i in range(k)]
        dim = array_ops.shape(x)[axis]
        io_ops.assert_that(math_ops.equal(dim % k, 0),
                           "Number of ways to split should evenly divide the split dimension",
                           [dim])
        step = dim // k
        return [x[pre + (builtins.slice(step * i, step * (i + 1)),)] for i in range(k)]
    if isinstance(num_or_size_splits, Tensor):
        raise ValueError("rt.split: num_or_size_splits must be an int or sizes known while "
                         "the graph is built")
    sizes = [int(s) for s in np.asarray(num_or_size_splits).reshape(-1)]
    if num is not None and num != len(sizes):
        raise ValueError(f"rt.split: num={num} but {len(sizes)} sizes were given")
    if sizes.count(-1) > 1 or any(s < -1 for s in sizes):
        raise InvalidArgumentError(f"Split: there can only be one -1 in the sizes and no "
                                   f"other negative size, got {sizes}")
    known = sum(s for s in sizes if s != -1)
    if n is not None and (known > n or (-1 not in sizes and known != n)):
        raise InvalidArgumentError(
            "Determined shape must either match input shape along split_dim exactly if fully "
            f"specified, or be less than the size of the input along split_dim if not fully "
            f"specified.  Got: sizes {sizes} for a dimension of size {n}")
    if -1 in sizes:
        rest = n - known if n is not None else array_ops.shape(x)[axis] - known
        if n is None:
            io_ops.assert_that(rest >= 0, "Split: the sizes add up to more than the dimension",
                               [rest])
    elif n is None:
        dim = array_ops.shape(x)[axis]
        io_ops.assert_that(math_ops.equal(dim, known),
                           "Split: the sizes must add up to the dimension", [dim])
    out, start = [], 0
    for s in sizes:
        stop = start + (rest if s == -1 else s)
        out.append(x[pre + (builtins.slice(start, stop),)])
        start = stop
    return out


# -- one_hot, boolean_mask ---------------------------------------------------------------------

def _one_hot_infer(inputs, depth, axis):
    indices, on, off = inputs
    if on.dtype is not off.dtype:
        raise TypeError(f"one_hot: on_value ({on.dtype.name}) and off_value ({off.dtype.name}) "
                        "must have the same dtype")
    if indices.shape.rank is None:
        return [(TensorShape(None), on.dtype)]
    dims = indices.shape.as_list()
    dims.insert(axis, depth)
    return [(TensorShape(dims), on.dtype)]


def _one_hot_kernel(indices, on, off, depth, axis):
    idx = np.asarray(indices).astype(np.int64)
    limits.check_elements("OneHot", idx.shape + (depth,))
    out = np.full(idx.shape + (depth,), off, dtype=np.asarray(on).dtype)
    flat = idx.reshape(-1)
    rows = np.nonzero((flat >= 0) & (flat < depth))[0]
    out.reshape(-1, depth)[rows, flat[rows]] = on
    return out if axis == idx.ndim else np.moveaxis(out, -1, axis)


def _one_hot_grad(inputs, outputs, grads, depth, axis):
    """on_value's gradient: the sum of g where an index is hot; off_value's: the rest."""
    g = grads[0]
    hot = apply_op(ONE_HOT, [inputs[0], constant(1, g.dtype), constant(0, g.dtype)],
                   {"depth": depth, "axis": axis})
    on = reduce_ops.reduce_sum(g * hot)
    return [None, on, reduce_ops.reduce_sum(g) - on]


ONE_HOT = OpDef("OneHot", _one_hot_infer, _one_hot_kernel, grad=_one_hot_grad)


OPS.append(ONE_HOT)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None,
            name: Optional[str] = None):
    """A one-hot encoding (TensorFlow's tf.one_hot): `on_value` where an index's position
    along the new dimension equals the index, `off_value` elsewhere (an index out of
    [0, depth) gives a row of `off_value`).

    Args:
      indices: a uint8/int32/int64 tensor (or what converts to one); other dtypes raise
        TypeError.
      depth: an int (or a scalar integer tensor), the length of the new dimension.
      on_value: a scalar (default 1).
      off_value: a scalar (default 0).
      axis: where the new dimension goes (default -1, the last).
      dtype: the result's dtype (default: the on/off values' dtype, else float32).
      name: an optional name for the op.

    Returns:
      A tensor of dtype `dtype`, of indices' shape with `depth` inserted at `axis`.

    >>> rt.one_hot(rt.constant([0, 2, 5]), 3)
    <rt.Tensor: shape=(3, 3), dtype=float32, numpy=
    array([[1., 0., 0.],
           [0., 0., 1.],
           [0., 0., 0.]], dtype=float32)>
    >>> rt.one_hot(rt.constant([1]), 3, on_value=7, off_value=-1)
    <rt.Tensor: shape=(1, 3), dtype=int32, numpy=array([[-1,  7, -1]], dtype=int32)>
    """
    idx = convert_to_tensor(indices, dtype_hint=dtypes.int32)
    if idx.dtype not in (dtypes.uint8, dtypes.int32, dtypes.int64):
        raise TypeError(f"one_hot: indices must be uint8, int32 or int64, got {idx.dtype.name}")
    given = [v for v in (on_value, off_value) if isinstance(v, Tensor)]
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    for v in given:
        if dtype is not None and v.dtype is not dtype:
            raise TypeError(f"one_hot: dtype {dtype.name} does not match the on/off value's "
                            f"dtype {v.dtype.name}")
    if len(given) == 2 and given[0].dtype is not given[1].dtype:
        raise TypeError(f"one_hot: on_value ({given[0].dtype.name}) and off_value "
                        f"({given[1].dtype.name}) must have the same dtype")
    if dtype is None:
        dtype = given[0].dtype if given else None
    if dtype is None:
        plain = [v for v in (on_value, off_value) if v is not None]
        dtype = convert_to_tensor(plain[0]).dtype if plain else dtypes.float32
    on = convert_to_tensor(1 if on_value is None else on_value, dtype=dtype)
    off = convert_to_tensor(0 if off_value is None else off_value, dtype=dtype)
    if on.shape.rank not in (0, None) or off.shape.rank not in (0, None):
        raise InvalidArgumentError("one_hot: on_value and off_value must be scalars")
    rank = idx.shape.rank
    axis = -1 if axis is None else shape_utils.single_axis(axis, "OneHot")
    if rank is None:
        rank_axis = None
    else:
        if not -1 <= axis <= rank:
            raise InvalidArgumentError(f"Expected axis to be -1 or between [0, {rank}].  But "
                                       f"received: {axis}")
        rank_axis = rank if axis == -1 else axis
    d = constant_value(depth) if isinstance(depth, Tensor) else depth
    if d is not None:
        d = shape_utils.whole_number(d, "one_hot's depth")
    if d is not None and int(d) < 0:
        raise InvalidArgumentError(f"depth must be non-negative, got: {int(d)}")
    if d is None or rank_axis is None:
        # a depth known only when the graph runs, or indices of unknown rank: a comparison
        # with a range, along the last axis
        if rank_axis is not None and rank_axis != rank or rank_axis is None and axis != -1:
            raise ValueError("one_hot: a depth known only when the graph runs, or indices of "
                             "unknown rank, need axis=-1")
        positions = makers.range(0, depth, 1, dtype=idx.dtype) if d is None else \
            constant(np.arange(int(d)).astype(idx.dtype.np_dtype))
        hot = math_ops.equal(array_ops.expand_dims(idx, -1), positions)
        return math_ops.where(hot, on, off, name=name)
    d = int(d)
    return apply_op(ONE_HOT, [idx, on, off], {"depth": d, "axis": rank_axis}, name=name)


def boolean_mask(tensor, mask, axis=None, name: Optional[str] = None):
    """The slices of `tensor` where `mask` is True (TensorFlow's tf.boolean_mask): the
    mask's k dimensions, matching `tensor`'s dimensions axis..axis+k-1, become one whose
    size (the number of True values) is known only when the graph runs.

    Under `jit_compile=True` it is refused (XLA needs every shape while compiling).

    Args:
      tensor: a tensor (or what converts to one) of known rank.
      mask: a bool tensor of known rank >= 1 (else TypeError or ValueError), whose shape
        matches the masked dimensions.
      axis: where the masked dimensions start (default 0).
      name: an optional name for the op.

    Returns:
      A tensor of the input's dtype.

    >>> rt.boolean_mask(rt.constant([1, 2, 3, 4]), rt.constant([True, False, True, False]))
    <rt.Tensor: shape=(2,), dtype=int32, numpy=array([1, 3], dtype=int32)>
    >>> rt.boolean_mask(rt.constant([[1, 2], [3, 4]]), rt.constant([False, True]), axis=1)
    <rt.Tensor: shape=(2, 1), dtype=int32, numpy=
    array([[2],
           [4]], dtype=int32)>
    """
    x = convert_to_tensor(tensor)
    m = convert_to_tensor(mask, dtype_hint=dtypes.bool_)
    if not m.dtype.is_bool:
        raise TypeError(f"boolean_mask: mask must be a bool tensor, got {m.dtype.name}")
    k = m.shape.rank
    if k is None:
        raise ValueError("Number of mask dimensions must be specified, even if some "
                         "dimensions are None.  E.g. shape=[None] is ok, but shape=None is not.")
    if k == 0:
        raise ValueError("mask cannot be scalar.")
    axis = 0 if axis is None else shape_utils.single_axis(axis, "boolean_mask")
    rank = x.shape.rank
    if rank is None:
        raise ValueError("rt.boolean_mask needs a tensor of known rank")
    if axis < 0:
        axis += rank
    if not 0 <= axis <= rank - k:
        raise ValueError(f"boolean_mask: axis {axis} and a mask of rank {k} do not fit a tensor "
                         f"of rank {rank} (shape {x.shape})")
    part = TensorShape(x.shape.as_list()[axis:axis + k])
    if not part.is_compatible_with(m.shape):
        raise ValueError(f"Shapes {part} and {m.shape} are incompatible")
    dims = x.shape.as_list()
    if k != 1:
        merged = m.shape.num_elements()
        xs = array_ops.shape(x) if not x.shape.is_fully_defined() else None
        new = [d if d is not None else xs[i] for i, d in enumerate(dims[:axis])] + \
            [-1 if merged is None else merged] + \
            [d if d is not None else xs[axis + k + i] for i, d in enumerate(dims[axis + k:])]
        x = array_ops.reshape(x, new)
        m = array_ops.reshape(m, [-1])
    where = math_ops.where(m, name="boolean_mask")
    picked = array_ops.reshape(where, [-1])
    return array_ops.gather(x, picked, axis=axis, name=name)
