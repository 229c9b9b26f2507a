"""The XLA backend's values that are not plain arrays while tracing: a TensorArray of
known size as a fixed-size buffer, and an `rt.range` whose length is known only when the
graph runs, kept as its bounds (a staged `for i in rt.range(n)` indexes it). `RULES` are
the rules of the ops that make and use them; `range_aware` wraps the rules of the ops that
may take such a range.
"""
from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
from jax import lax
import numpy as np

from ...errors import InvalidArgumentError
from ...ops import array_ops, core, makers, slicing, tensor_array
from ...control_flow import GRADIENT_STACK
from ..rule_tables import registrar
from .rule_helpers import (Unsupported, gather_error, index_error, is_concrete, np_dtype,
                           static_ints)

RULES: dict = {}
rule = registrar(RULES)

# jax's dynamic slices wrap a negative index (one select per index in each iteration of a
# loop that indexes with its counter) unless told that none is negative (jax >= 0.5);
# lax.scan, written by hand, is told so.
_NON_NEGATIVE = ({"allow_negative_indices": False} if "allow_negative_indices" in
                 inspect.signature(lax.dynamic_index_in_dim).parameters else {})


def item_at(x, i):
    """`x[i]` for an index `i` in [0, len(x)): known to be, or checked (a deferred check
    that fails on any other index, after which the value is not used)."""
    return lax.dynamic_index_in_dim(x, i, 0, keepdims=False, **_NON_NEGATIVE)


def with_item_at(x, value, i):
    """`x` with `x[i] = value`, for an index `i` in [0, len(x)) (as `item_at`)."""
    return lax.dynamic_update_index_in_dim(x, value, i, 0, **_NON_NEGATIVE)


@jax.tree_util.register_pytree_node_class
class RangeValue:
    """`rt.range(start, limit, delta)` whose length is known only when the graph runs:
    kept as its three bounds. Its shape, size and items (an index, a gather) are computed
    from them; any other use cannot lower (XLA needs the length while compiling)."""

    __slots__ = ("start", "limit", "delta", "dtype", "n")

    def __init__(self, start, limit, delta, dtype, n=None):
        self.start, self.limit, self.delta, self.dtype = start, limit, delta, dtype
        self.n = self._length() if n is None else n  # computed once, where it is made

    def tree_flatten(self):
        return (self.start, self.limit, self.delta, self.n), self.dtype

    @classmethod
    def tree_unflatten(cls, dtype, children):
        start, limit, delta, n = children
        return cls(start, limit, delta, dtype, n)

    def _length(self):
        if self.dtype.kind == "f":
            n = jnp.ceil((jnp.asarray(self.limit) - self.start) / self.delta)
        else:
            n = -(-(jnp.asarray(self.limit) - self.start) // self.delta)
        return jnp.maximum(n, 0).astype(jnp.int32)

    def length(self):
        return self.n

    def item(self, i):
        return (self.start + jnp.asarray(i).astype(self.dtype) * self.delta).astype(self.dtype)


def _range_error(*_):
    return InvalidArgumentError("Requires delta != 0")


@rule(makers.RANGE)
def _range(lw, op, start, limit, delta):
    dtype = np_dtype(op.attrs["dtype"])
    lw.defer(op, delta == 0, _range_error)
    return RangeValue(start, limit, delta, dtype)


def range_index(lw, op, r, i, what):
    n = r.length()
    if what == "index":
        if lw.ctx.bounded(i, of=r):
            return r.item(i)
        lw.defer(op, (i < -n) | (i >= n), index_error(0, None), i, n)
        return r.item(jnp.where(i < 0, i + n, i))
    bad = jnp.reshape(jnp.asarray((i < 0) | (i >= n)), (-1,))
    position = jnp.argmax(bad)
    lw.defer(op, jnp.any(bad), _range_gather_error(jnp.shape(i)), position,
             jnp.reshape(jnp.asarray(i), (-1,))[position], n)
    return r.item(i)


def _range_gather_error(shape):
    def make(position, value, n):
        return gather_error(n, shape)(position, value)
    return make


def _on_range(base, on_range):
    """`base`, a rule, with `on_range(lw, op, r, *args)` when its first input is a range."""
    def lower(lw, op, x, *args):
        if isinstance(x, RangeValue):
            return on_range(lw, op, x, *args)
        return base(lw, op, x, *args)
    return lower


def _range_slice(lw, op, x, *tensors):
    spec = op.attrs["spec"]
    if len(spec) != 1 or spec[0][0] != "int":
        raise Unsupported("it slices an rt.range whose length is known only when the "
                          "graph runs (XLA needs every shape while compiling)")
    i = spec[0][1]
    return range_index(lw, op, x, tensors[i[1] - 1] if isinstance(i, tuple) else i, "index")


def _gather_by(gather_from):
    """A gather whose indices may be a range: its values where its length is known while
    compiling; XLA cannot give the gather a shape otherwise."""
    def lower(lw, op, params, indices):
        if isinstance(indices, RangeValue):
            n = indices.length()
            if not is_concrete(n):
                raise Unsupported(
                    "its indices are an rt.range whose length is known only when the graph "
                    "runs, so its result has no shape while compiling (XLA needs every shape "
                    "then; Dataset.batch's last, smaller batch is one: batch with "
                    "drop_remainder=True, or pad the data to a multiple of the batch size)")
            indices = indices.item(np.arange(int(n)))
        return gather_from(lw, op, params, indices)
    return lower


# What an op whose first input is a range gives (the op's own rule otherwise).
_ON_RANGE = {
    slicing.SLICE: _range_slice,
    array_ops.GATHER: lambda lw, op, r, indices: range_index(lw, op, r, indices, "gather"),
    array_ops.SHAPE: lambda lw, op, r: jnp.reshape(r.length(), (1,)).astype(
        np_dtype(op.attrs["out_type"])),
    array_ops.SIZE: lambda lw, op, r: r.length().astype(np_dtype(op.attrs["out_type"])),
    array_ops.RANK: lambda lw, op, r: np.int32(1),
}
RANGE_AWARE = frozenset({*_ON_RANGE, makers.RANGE, core.IDENTITY})  # rules that take a range


def range_aware(rules: dict) -> dict:
    """The rules of the ops of `_ON_RANGE`, each the op's rule in `rules` made to take a
    range as its first input (and a gather, as its indices)."""
    wrapped = {d: _on_range(rules[d], on_range) for d, on_range in _ON_RANGE.items()}
    wrapped[array_ops.GATHER] = _gather_by(wrapped[array_ops.GATHER])
    return wrapped


# -- TensorArrays: fixed-size buffers --------------------------------------------------------

@jax.tree_util.register_pytree_node_class
class TensorArrayValue:
    """A TensorArray while tracing: a buffer [size, *element_shape], or no buffer yet
    while the element shape is unknown (it comes from the first write). One made with
    dynamic_size=True (`origin`, its create op) has `length`, the elements it holds (a
    traced int), and `size` its capacity: None until the first while loop it enters
    gives it that loop's bound on iterations (see `size_arrays`). Until then, its writes
    are `pending`: groups of (index, value) writes, the array their sum (each group a
    TensorArray's writes in order; `TensorArrayAdd` of two such arrays joins their
    groups), made a buffer where a size is known (a gradient's stack, or the sized
    array it is added to)."""

    __slots__ = ("size", "dtype", "buffer", "length", "origin", "pending")

    def __init__(self, size, dtype, buffer=None, length=None, origin=None, pending=()):
        self.size, self.dtype, self.buffer = size, dtype, buffer
        self.length, self.origin, self.pending = length, origin, pending

    def tree_flatten(self):
        return (self.buffer, self.length, self.pending), (self.size, self.dtype, self.origin)

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(aux[0], aux[1], children[0], children[1], aux[2], children[2])

    def replace(self, buffer, length=None):
        return TensorArrayValue(self.size, self.dtype, buffer,
                                self.length if length is None else length, self.origin)


class UnboundedArray(Unsupported):
    """A dynamic-size TensorArray used where no bound on its size is known while
    compiling (`op` its create op)."""

    def __init__(self, op):
        super().__init__(_GRADIENT if GRADIENT_STACK in op.name else _DYNAMIC)
        self.op = op


_DYNAMIC = ("a TensorArray with dynamic_size=True grows while the graph runs, here in a "
            "loop with no bound known while compiling (XLA needs a fixed size): give "
            "size= and dynamic_size=False, or the loop maximum_iterations or a count "
            "known while compiling")


_GRADIENT = ("the gradient of this while loop keeps each iteration's values, and the loop "
             "has no bound known while compiling (XLA needs a fixed size): give the loop "
             "maximum_iterations (in converted code, call rt.autograph.experimental."
             "set_loop_options(maximum_iterations=N) in its body), or a trip count known "
             "while compiling")


def _ta_index_error(what, size):
    def make(i, n=None, *_):
        n = size if n is None else n
        if what == "write":
            return InvalidArgumentError(f"Tried to write to index {int(i)} but array is not "
                                        f"resizeable and size is: {n}")
        if what == "capacity":
            return InvalidArgumentError(
                f"Tried to write to index {int(i)} of a dynamic_size TensorArray past the "
                f"{n} elements that the XLA backend gave it (its loop's bound on iterations)")
        return InvalidArgumentError(f"Tried to read from index {int(i)} but array size is: "
                                    f"{n}")
    return make


@rule(tensor_array.CREATE)
def _ta_create(lw, op, size):
    n = static_ints(op, size, "size")[0]
    shape, dtype = op.attrs["element_shape"], op.attrs["dtype"]
    if op.attrs["dynamic_size"]:
        return TensorArrayValue(None, np_dtype(dtype), None, np.int32(n), op)
    buffer = (jnp.zeros([n] + shape.as_list(), dtype=np_dtype(dtype))
              if shape.is_fully_defined() else None)
    return TensorArrayValue(n, np_dtype(dtype), buffer)


def _sized(ta):
    if ta.size is None:
        raise UnboundedArray(ta.origin)
    return ta


@rule(tensor_array.WRITE)
def _ta_write(lw, op, ta, index, value):
    if ta.size is None and ta.origin is not None and jnp.ndim(index) == 0:
        return _pending_write(lw, op, ta, index, value)
    _sized(ta)
    if not lw.ctx.bounded(index, size=ta.size):
        what = "write" if ta.origin is None else "capacity"
        lw.defer(op, (index < 0) | (index >= ta.size), _ta_index_error(what, ta.size),
                 index, ta.size)
    buffer = ta.buffer
    if buffer is None:
        buffer = jnp.zeros((ta.size,) + jnp.shape(value), dtype=ta.dtype)
    length = None if ta.origin is None else jnp.maximum(ta.length, index + 1).astype(np.int32)
    if ta.size == 0:
        # no index is in range (the check above fails if this runs): XLA cannot write
        # into an empty buffer, as in a loop over no rows
        return ta.replace(buffer, length)
    # (a negative index fails the check above: no wrapping)
    return ta.replace(with_item_at(buffer, jnp.asarray(value, ta.dtype), index), length)


@rule(tensor_array.READ)
def _ta_read(lw, op, ta, index):
    _sized(ta)
    if ta.origin is not None:
        lw.defer(op, (index < 0) | (index >= ta.length), _ta_index_error("read", None),
                 index, ta.length)
    elif not lw.ctx.bounded(index, size=ta.size):
        lw.defer(op, (index < 0) | (index >= ta.size), _ta_index_error("read", ta.size), index)
    if ta.buffer is None:
        shape = op.attrs["element_shape"]
        if not shape.is_fully_defined():
            raise Unsupported("it reads a TensorArray before anything was written to it, "
                              "with no element_shape")
        return jnp.zeros(shape.as_list(), dtype=ta.dtype)
    if ta.size == 0:  # no index is in range (checked above); XLA cannot slice it
        return jnp.zeros(jnp.shape(ta.buffer)[1:], dtype=ta.dtype)
    return item_at(ta.buffer, index)  # (a negative index fails the check above)


@rule(tensor_array.STACK)
def _ta_stack(lw, op, ta):
    if ta.origin is not None and is_concrete(ta.length) and ta.length == 0 and \
            ta.buffer is None and not ta.pending:  # nothing was ever written
        return jnp.zeros(tensor_array.empty_stack_shape(0, op.attrs["element_shape"]),
                         dtype=ta.dtype)
    if ta.origin is not None:
        raise Unsupported("it stacks a TensorArray with dynamic_size=True, whose size is "
                          "known only when the graph runs (XLA needs every shape while "
                          "compiling)")
    if ta.buffer is None:
        shape = op.attrs["element_shape"]
        if ta.size and not shape.is_fully_defined():
            raise InvalidArgumentError("TensorArray has elements that were never written")
        return jnp.zeros(tensor_array.empty_stack_shape(ta.size, shape), dtype=ta.dtype)
    return ta.buffer


@rule(tensor_array.SIZE)
def _ta_size(lw, op, ta):
    return np.int32(ta.size) if ta.origin is None else ta.length


@rule(tensor_array.UNSTACK)
def _ta_unstack(lw, op, value):
    value = jnp.asarray(value)
    return TensorArrayValue(value.shape[0], value.dtype, value)


# -- writes to a dynamic-size TensorArray with no capacity yet ------------------------------

_SUMMED = ("it writes to a sum of dynamic-size TensorArrays whose size is known only "
           "when the graph runs (XLA needs a fixed size): give size= and dynamic_size=False")


def _pending_write(lw, op, ta, index, value):
    """A write to a dynamic-size array with no capacity yet (a gradient's, made in an
    iteration or outside loops): kept pending until a size is known."""
    if len(ta.pending) > 1:
        raise Unsupported(_SUMMED)
    lw.defer(op, index < 0, lambda i, *_: InvalidArgumentError(
        f"TensorArray index {int(i)} is negative"), index)
    group = (ta.pending[0] if ta.pending else ()) + ((index, jnp.asarray(value)),)
    length = jnp.maximum(ta.length, index + 1).astype(np.int32)
    return TensorArrayValue(None, ta.dtype, None, length, ta.origin, (group,))


def _materialized(ta, n):
    """The pending writes of `ta` as an [n, ...] buffer (a write at n or past it is left
    out: the callers check or cut there), or None when it has none."""
    total = None
    for group in ta.pending:
        first = group[0][1]
        buffer = jnp.zeros((n,) + jnp.shape(first), first.dtype)
        for index, value in group:                       # in order: the last write stays
            buffer = buffer.at[index].set(value, mode="drop")
        total = buffer if total is None else total + buffer.astype(total.dtype)
    return total


# -- the gradients' TensorArrays (runtime/ops/tensor_array.py: an element never written
# reads as zeros; sizes may differ, the shorter counts as zeros past its end) ------------

@rule(tensor_array.GRAD_READ)
def _ta_grad_read(lw, op, ta, index, like):
    """Element `index` of gradient array `ta`, zeros (like `like`) where none was
    written or `index` is past its end."""
    like = jnp.asarray(like)
    zeros = jnp.zeros_like(like)
    if ta.size is None:
        out = zeros
        for group in ta.pending:
            value = zeros
            for i, v in group:
                value = jnp.where(i == index, v.astype(like.dtype), value)
            out = out + value
        return out
    if ta.buffer is None or ta.size == 0:
        return zeros
    inside = (index >= 0) & (index < ta.size)
    value = item_at(ta.buffer, jnp.clip(index, 0, ta.size - 1))
    return jnp.where(inside, value.astype(like.dtype), zeros)


def _padded(buffer, n):
    """`buffer` as n elements: cut, or zeros after its end."""
    if buffer.shape[0] >= n:
        return buffer[:n]
    return jnp.concatenate([buffer, jnp.zeros((n - buffer.shape[0],) + buffer.shape[1:],
                                              buffer.dtype)])


@rule(tensor_array.GRAD_STACK)
def _ta_grad_stack(lw, op, ta, like):
    """The gradient array as a tensor shaped `like` (zeros where nothing was written)."""
    like = jnp.asarray(like)
    buffer = _materialized(ta, like.shape[0]) if ta.size is None else ta.buffer
    if buffer is None:
        return jnp.zeros_like(like)
    return _padded(buffer, like.shape[0]).astype(like.dtype)


@rule(tensor_array.ADD)
def _ta_add(lw, op, a, b):
    """Two gradient arrays summed element by element (the longer one's size)."""
    lengths = [t.length for t in (a, b) if t.length is not None]
    length = (None if not lengths else lengths[0] if len(lengths) == 1
              else jnp.maximum(*lengths).astype(np.int32))
    if a.size is None and b.size is None:   # both pending: their groups, summed later
        return TensorArrayValue(None, a.dtype, None, length, a.origin or b.origin,
                                a.pending + b.pending)
    if a.size is None or b.size is None:    # pending writes into a sized array
        sized, pending = (b, a) if a.size is None else (a, b)
        n = sized.size
        for group in pending.pending:
            for i, _ in group:
                lw.defer(op, i >= n, _ta_index_error("capacity", n), i, n)
        extra = _materialized(pending, n)
        if sized.buffer is None:
            buffer = extra
        else:
            buffer = sized.buffer if extra is None else sized.buffer + extra.astype(
                sized.buffer.dtype)
        return TensorArrayValue(n, sized.dtype if buffer is None else buffer.dtype, buffer,
                                sized.length if length is None else length,
                                sized.origin or pending.origin)
    n = max(a.size, b.size)
    if a.buffer is None or b.buffer is None:
        one = b if a.buffer is None else a
        buffer = None if one.buffer is None else _padded(one.buffer, n)
    else:
        buffer = _padded(a.buffer, n) + _padded(b.buffer, n).astype(a.buffer.dtype)
    return TensorArrayValue(n, a.dtype if buffer is None else buffer.dtype, buffer, length,
                            a.origin or b.origin)


def size_arrays(carry, bound):
    """The dynamic-size TensorArrays entering a while loop with no capacity yet get room
    for `bound` more elements (the loop's bound on iterations: each iteration may write
    one), or raise UnboundedArray when `bound` is None."""
    loop_vars = carry[2]
    if not any(isinstance(v, TensorArrayValue) and v.size is None for v in loop_vars):
        return carry
    sized = []
    for v in loop_vars:
        if isinstance(v, TensorArrayValue) and v.size is None:
            if bound is None:
                raise UnboundedArray(v.origin)
            if not is_concrete(v.length):
                raise UnboundedArray(v.origin)
            n = int(v.length) + bound
            shape = v.origin.attrs["element_shape"]
            buffer = (jnp.zeros([n] + shape.as_list(), dtype=v.dtype)
                      if shape.is_fully_defined() else None)
            v = TensorArrayValue(n, v.dtype, buffer, jnp.asarray(v.length, np.int32), v.origin)
        sized.append(v)
    return carry[0], carry[1], sized, carry[3]


def allocate_arrays(step, carry):
    """A TensorArray whose element shape is unknown until the loop writes it enters the
    loop as zeros of the shape that one iteration gives it (found by tracing the
    iteration abstractly)."""
    loop_vars = carry[2]
    if not any(isinstance(v, TensorArrayValue) and v.buffer is None for v in loop_vars):
        return carry
    shapes = jax.eval_shape(step, carry)[2]
    filled = []
    for v, s in zip(loop_vars, shapes):
        if isinstance(v, TensorArrayValue) and v.buffer is None and s.buffer is not None:
            # (the dtype too: a gradient's array takes that of the values added to it)
            v = TensorArrayValue(v.size, s.buffer.dtype, jnp.zeros(s.buffer.shape,
                                                                   s.buffer.dtype),
                                 v.length, v.origin)
        filled.append(v)
    return carry[0], carry[1], filled, carry[3]
