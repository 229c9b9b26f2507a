"""The XLA rules of gathering and slicing (array_ops.GATHER, slicing.SLICE and their
gradients). An index out of range raises the kernel's error when the graph runs (a
deferred check, `lw.defer`), unless it is known to be in range (a counter of a staged
`for` below the length it indexes); a slice's shape must be known while compiling."""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ...errors import InvalidArgumentError
from ...ops import array_ops, slicing
from ..rule_tables import registrar
from .arrays import item_at, with_item_at
from .rule_helpers import Unsupported, gather_error, index_error, is_concrete, static_ints

RULES: dict = {}
rule = registrar(RULES)

def defer_gather_check(lw, op, indices, n):
    """Indices must be in [0, n): the first one that is not is named in the error."""
    if not np.prod(jnp.shape(indices)):
        return
    xp = np if is_concrete(indices) else jnp
    bad = xp.reshape((indices < 0) | (indices >= n), (-1,))
    position = xp.argmax(bad)
    lw.defer(op, xp.any(bad), gather_error(n, xp.shape(indices)), position,
             xp.reshape(indices, (-1,))[position])


@rule(array_ops.GATHER)
def _gather(lw, op, params, indices):
    axis = op.attrs["axis"]
    n = jnp.shape(params)[axis]
    defer_gather_check(lw, op, indices, n)
    if n == 0:  # no index is in range (the check raises if this runs): XLA cannot take
        shape = jnp.shape(params)
        return jnp.zeros(shape[:axis] + jnp.shape(indices) + shape[axis + 1:],
                         dtype=jnp.result_type(params))
    return jnp.take(params, indices, axis=axis, mode="clip")


@rule(array_ops.GATHER_GRAD)
def _gather_grad(lw, op, g, indices, params_shape):
    axis = op.attrs["axis"]
    shape = static_ints(op, params_shape, "shape")
    out = jnp.moveaxis(jnp.zeros(shape, dtype=jnp.result_type(g)), axis, 0)
    nd = jnp.ndim(indices)
    rows = jnp.reshape(jnp.moveaxis(g, tuple(range(axis, axis + nd)), tuple(range(nd))),
                       (int(np.prod(jnp.shape(indices))),) + out.shape[1:])
    out = out.at[jnp.reshape(indices, (-1,))].add(rows)
    return jnp.moveaxis(out, 0, axis)


def _index(lw, op, x, tensors):
    """The numpy index of a StridedSlice node; run-time int indices are checked."""
    shape = jnp.shape(x)

    def bound(v):
        if not isinstance(v, tuple):
            return v
        t = tensors[v[1] - 1]
        if not is_concrete(t):
            raise Unsupported("a slice bound known only when the graph runs gives a shape "
                              "XLA cannot know while compiling (index with a scalar, or "
                              "use rt.gather)")
        return int(t)

    index, d = [], 0
    for s in slicing.expand_ellipsis(op.attrs["spec"], len(shape)):
        if s[0] == "newaxis":
            index.append(None)
        elif s[0] == "int":
            v, n = s[1], shape[d]
            if isinstance(v, tuple) and not is_concrete(tensors[v[1] - 1]):
                i = tensors[v[1] - 1]
                if not lw.ctx.bounded(i, size=n):
                    lw.defer(op, (i < -n) | (i >= n), index_error(d, n), i)
                index.append(i)
            else:
                i = bound(v)
                if not -n <= i < n:
                    # numpy raises when (and only if) this runs: in a branch or loop that
                    # does not run, nothing happens
                    lw.defer(op, np.True_, index_error(d, n), np.int64(i))
                    i = OutOfRange(i)
                index.append(i)
            d += 1
        else:
            index.append(slice(bound(s[1]), bound(s[2]), bound(s[3])))
            d += 1
    return tuple(index)


class OutOfRange(int):
    """An int index outside its dimension, whose error `_index` deferred to run time."""


def _item_out_of_range(index, shape):
    """The shape of `x[index]` when an int index is out of range: a known one, or one
    known only at run time picking from a dimension of size 0 (`_index` deferred the
    error, raised if this runs); else None."""
    stand_in, picked, d = [], False, 0
    dims = list(shape)
    for i in index:
        if i is None:
            stand_in.append(None)
            continue
        if isinstance(i, OutOfRange) or (dims[d] == 0 and not isinstance(i, (slice, int))
                                         and not is_concrete(i)):
            dims[d], i, picked = 1, 0, True
        stand_in.append(i)
        d += 1
    return np.empty(dims, np.int8)[tuple(stand_in)].shape if picked else None


def _progression_item(x, i):
    """Item `i` (known to be in range) of the known integer vector `x` when `x` is an
    arithmetic progression (a `for i in rt.range(50)` indexes its folded range): computed
    from `i` as a hand-written loop uses its counter (`i` itself for 0, 1, 2, ...), not
    read from a constant the loop would carry. Else None."""
    x = np.asarray(x)
    start = x[0]
    delta = x[1] - x[0] if x.size > 1 else x.dtype.type(1)
    if not np.array_equal(x, start + delta * np.arange(x.size, dtype=x.dtype)):
        return None
    if start == 0 and delta == 1 and jnp.result_type(i) == x.dtype:
        return i
    return (start + jnp.asarray(i).astype(x.dtype) * delta).astype(x.dtype)


@rule(slicing.SLICE)
def _strided_slice(lw, op, x, *tensors):
    index = _index(lw, op, x, tensors)
    missing = _item_out_of_range(index, jnp.shape(x))
    if missing is not None:
        # XLA cannot slice an item that is not there (in a loop or branch that does not
        # run, as map_fn's body over no rows): zeros of the item's shape stand in
        return jnp.zeros(missing, dtype=jnp.result_type(x))
    known = lw.ctx.known_range(index[0]) if len(index) == 1 else None
    if known is not None and is_concrete(x) and np.ndim(x) == 1 and np.size(x) and \
            np.asarray(x).dtype.kind in "iu" and lw.ctx.bounded(index[0], size=np.size(x)):
        item = _progression_item(x, index[0])
        if item is None:
            item = jnp.asarray(x)[index]  # an item of a known vector: within its values
        if item is not index[0]:
            lw.ctx.note(item, int(np.min(x)), int(np.max(x)) + 1)
        return item
    spec = op.attrs["spec"]
    if len(spec) == 1 and spec[0][0] == "int" and isinstance(spec[0][1], tuple) and \
            not is_concrete(index[0]) and jnp.ndim(x):
        # x[i] with i checked (or known) to be in range: a dynamic slice, not a gather
        i, n = index[0], jnp.shape(x)[0]
        if not lw.ctx.bounded(i, size=n):
            i = jnp.where(i < 0, i + n, i)
        return item_at(jnp.asarray(x), i)
    try:
        return jnp.asarray(x)[index]
    except IndexError as e:
        raise InvalidArgumentError(f"slice index out of bounds: {e}") from None


@rule(slicing.SLICE_GRAD)
def _strided_slice_grad(lw, op, g, x, *tensors):
    index = _index(lw, op, x, tensors)
    if _item_out_of_range(index, jnp.shape(x)) is not None:  # raises if it runs
        return jnp.zeros(jnp.shape(x), dtype=jnp.result_type(g))
    return jnp.zeros(jnp.shape(x), dtype=jnp.result_type(g)).at[index].set(g)


def row_accumulation(lw, op, args):
    """`acc + StridedSliceGrad(g, x, i)`, the gradient of `x[i]` (one run-time index)
    added to an accumulator of x's shape, as a loop's gradient does in each iteration:
    `acc` with row i increased by g, as JAX's transpose of a scan writes it, instead of
    a zeros tensor of acc's shape with one row set, added whole (a loop of T iterations
    over T rows would cost T * T rows). The sum differs only where acc holds -0.0
    (acc + 0.0 is +0.0). None when `op` (an AddV2 of `args`) is not that."""
    for k in (0, 1):
        grad = op.inputs[k].op
        if grad.opdef is not slicing.SLICE_GRAD or len(grad.attrs["spec"]) != 1:
            continue
        item = grad.attrs["spec"][0]    # (a slice's entry has four parts)
        if item[0] != "int" or not isinstance(item[1], tuple):
            continue
        where = item[1]
        acc, g = args[1 - k], args[k]
        i = lw.value(grad.inputs[1 + where[1]])
        shape = jnp.shape(acc)
        row = lw.value(grad.inputs[0])
        dtype = jnp.result_type(acc)
        if is_concrete(i) or jnp.ndim(i) or not shape or shape[0] == 0 or \
                shape != jnp.shape(g) or jnp.shape(row) != shape[1:] or \
                dtype != jnp.result_type(g) or dtype != jnp.result_type(row) or \
                dtype != op.outputs[0].dtype.np_dtype:
            continue
        n = shape[0]
        if not lw.ctx.bounded(i, size=n):   # (checked by the StridedSliceGrad's rule)
            i = jnp.where(i < 0, i + n, i)
        return with_item_at(acc, item_at(acc, i) + row, i)
    return None
