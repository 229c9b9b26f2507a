"""TensorArray: a list of tensors that staged loops can fill (`ta = ta.write(i, x)`).

Its value is a `_Storage` (a Python list) carried by a `variant` handle tensor, so it
flows through `cond` and `while_loop` like any loop variable. The creation op makes a new
storage at every run; `write` stores into it and passes the handle on.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core import dtypes
from ..errors import InvalidArgumentError
from ..core.shapes import TensorShape, as_shape
from ..core.tensor import Tensor
from . import limits
from .array_ops import concat, gather, reshape
from .array_ops import shape as shape_of
from .core import OpDef, apply_op, convert_to_tensor


class _Storage:
    __slots__ = ("items", "dynamic_size", "dtype", "element_shape")

    def __init__(self, size, dynamic_size, dtype, element_shape):
        self.items = [None] * size
        self.dynamic_size = dynamic_size
        self.dtype = dtype
        self.element_shape = element_shape

    def __repr__(self):
        return f"<TensorArray storage of {len(self.items)} items>"


_HANDLE = [(TensorShape(()), dtypes.variant)]


def _create_infer(inputs, dtype, dynamic_size, element_shape):
    return _HANDLE


def _create_kernel(size, dtype, dynamic_size, element_shape):
    limits.check_count("TensorArray", int(size))
    return _Storage(int(size), dynamic_size, dtype, element_shape)


def _write_infer(inputs):
    return _HANDLE


def _write_kernel(storage, index, value):
    i = int(index)
    items = storage.items
    if i < 0:
        raise InvalidArgumentError(f"TensorArray index {i} is negative")
    if i >= len(items):
        if not storage.dynamic_size:
            raise InvalidArgumentError(f"Tried to write to index {i} but array is not "
                                       f"resizeable and size is: {len(items)}")
        items.extend([None] * (i + 1 - len(items)))
    items[i] = value
    return storage


def _read_infer(inputs, dtype, element_shape):
    return [(element_shape, dtype)]


def _read_kernel(storage, index, dtype, element_shape):
    i = int(index)
    if not 0 <= i < len(storage.items):
        raise InvalidArgumentError(f"Tried to read from index {i} but array size is: "
                                   f"{len(storage.items)}")
    v = storage.items[i]
    if v is None:
        if element_shape.is_fully_defined():
            return np.zeros(element_shape.as_list(), dtype=dtype.np_dtype)
        raise InvalidArgumentError(f"Could not read from TensorArray index {i} because it has "
                                   "not yet been written to.")
    return v


def _stack_infer(inputs, dtype, element_shape):
    if element_shape.rank is None:
        return [(TensorShape(None), dtype)]
    return [(TensorShape([None]) + element_shape, dtype)]


def empty_stack_shape(size, element_shape) -> list:
    """The shape of stacking `size` elements never written: `[size] + element_shape`; with
    no rank known, `[size]` (as TensorFlow's eager stack of no elements, a tensor of shape
    (0,)). An element shape of known rank but unknown dimensions is an error, as in
    TensorFlow's graphs: no element says what the dimensions are, and a guess would give
    later ops (a reduction over the first axis) results of another shape."""
    if element_shape.rank is None:
        return [size]
    if not element_shape.is_fully_defined():
        raise InvalidArgumentError(
            f"Tried to stack a TensorArray with no elements written, whose element shape "
            f"{element_shape} is not fully known: give the TensorArray element_shape= (for "
            f"map_fn, fn_output_signature=rt.TensorSpec(shape, dtype))")
    return [size] + element_shape.as_list()


def _stack_kernel(storage, dtype, element_shape):
    items = storage.items
    if not items:
        return np.zeros(empty_stack_shape(0, element_shape), dtype=dtype.np_dtype)
    if any(v is None for v in items):
        known = next((v for v in items if v is not None), None)
        if known is None and not element_shape.is_fully_defined():
            raise InvalidArgumentError("TensorArray has elements that were never written")
        shape = np.shape(known) if known is not None else element_shape.as_list()
        items = [np.zeros(shape, dtype.np_dtype) if v is None else v for v in items]
    try:
        # np.array of the list: np.stack's result (same dtype, shape, errors on ragged
        # elements) at half the cost for many small elements, as in a staged RNN
        return np.array(items)
    except ValueError as e:
        raise InvalidArgumentError(f"TensorArray elements have different shapes: {e}") from None


def _size_infer(inputs):
    return [(TensorShape(()), dtypes.int32)]


def _size_kernel(storage):
    return np.int32(len(storage.items))


def _unstack_infer(inputs, dtype_holder, dynamic_size):
    return _HANDLE


def _unstack_kernel(value, dtype_holder, dynamic_size):
    s = _Storage(0, dynamic_size, None, None)
    s.items = list(np.asarray(value))
    return s


CREATE = OpDef("TensorArrayV3", _create_infer, _create_kernel, pure=False, default_name="TensorArray")


def _write_grad(inputs, outputs, grads):
    handle, index, value = inputs
    g = grads[0]
    return [g, None, apply_op(GRAD_READ, [g, index, value])]


WRITE = OpDef("TensorArrayWriteV3", _write_infer, _write_kernel, pure=False,
              default_name="TensorArrayWrite", grad=_write_grad)


def _read_grad(inputs, outputs, grads, dtype, element_shape):
    handle, index = inputs
    g = apply_op(WRITE, [empty_gradient(), index, grads[0]])
    return [g, None]


READ = OpDef("TensorArrayReadV3", _read_infer, _read_kernel, pure=False, default_name="TensorArrayRead",
             grad=_read_grad)


def _stack_grad(inputs, outputs, grads, dtype, element_shape):
    return [apply_op(UNSTACK, [grads[0]], {"dtype_holder": dtype, "dynamic_size": True})]


STACK = OpDef("TensorArrayStack", _stack_infer, _stack_kernel, pure=False, grad=_stack_grad)
SIZE = OpDef("TensorArraySizeV3", _size_infer, _size_kernel, pure=False, default_name="TensorArraySize")


def _unstack_grad(inputs, outputs, grads, dtype_holder, dynamic_size):
    return [apply_op(GRAD_STACK, [grads[0], inputs[0]])]


UNSTACK = OpDef("TensorArrayUnstack", _unstack_infer, _unstack_kernel, pure=False,
                grad=_unstack_grad)


# -- gradients ---------------------------------------------------------------------------
# The gradient of a TensorArray handle is another handle: a storage holding the gradient
# of each element (a missing element's gradient is zero). Gradient storages are never
# written in place once made, so sharing them between consumers is safe.

def _grad_read_infer(inputs):
    return [(inputs[2].shape, inputs[2].dtype)]


def _grad_read_kernel(storage, index, like):
    i = int(index)
    items = storage.items
    v = items[i] if 0 <= i < len(items) else None
    return np.zeros(np.shape(like), dtype=np.asarray(like).dtype) if v is None else v


def _grad_stack_infer(inputs):
    return [(inputs[1].shape, inputs[1].dtype)]


def _grad_stack_kernel(storage, like):
    out = np.zeros(np.shape(like), dtype=np.asarray(like).dtype)
    for i, v in enumerate(storage.items[:len(out)]):
        if v is not None:
            out[i] = v
    return out


def _add_infer(inputs):
    return _HANDLE


def _add_kernel(a, b):
    n = max(len(a.items), len(b.items))
    out = _Storage(n, True, a.dtype, a.element_shape)
    for i in range(n):
        x = a.items[i] if i < len(a.items) else None
        y = b.items[i] if i < len(b.items) else None
        out.items[i] = y if x is None else x if y is None else x + y
    return out


GRAD_READ = OpDef("TensorArrayGradRead", _grad_read_infer, _grad_read_kernel, pure=False,
                  grad=lambda inputs, outputs, grads: [
                      apply_op(WRITE, [empty_gradient(), inputs[1], grads[0]]), None, None])
GRAD_STACK = OpDef("TensorArrayGradStack", _grad_stack_infer, _grad_stack_kernel, pure=False,
                   grad=lambda inputs, outputs, grads: [
                       apply_op(UNSTACK, [grads[0]], {"dtype_holder": grads[0].dtype, "dynamic_size": True}), None])
ADD = OpDef("TensorArrayAdd", _add_infer, _add_kernel, pure=False,
            grad=lambda inputs, outputs, grads: [grads[0], grads[0]])


def empty_gradient():
    """A gradient handle with no elements: every element's gradient is zero."""
    return apply_op(CREATE, [convert_to_tensor(0, dtype=dtypes.int32)],
                    {"dtype": dtypes.float32, "dynamic_size": True,
                     "element_shape": TensorShape(None)})


OPS = [CREATE, WRITE, READ, STACK, SIZE, UNSTACK, GRAD_READ, GRAD_STACK, ADD]


class TensorArray:
    """A list of same-dtype tensors that staged loops can write (`ta = ta.write(i, x)`).

    As in TensorFlow, a TensorArray is a value: `write` and `unstack` return a new
    TensorArray, which the program must use from then on (in a loop, pass it as a loop
    variable). It works eagerly and in graphs (rt.function, rt.while_loop, autograph's
    loops). Reading or writing outside its size raises InvalidArgumentError, unless
    `dynamic_size` lets a write grow it.

    Args:
      dtype: the dtype of the elements; a written value of another dtype raises
        InvalidArgumentError.
      size: the initial number of elements (an int or a scalar int32 tensor).
      dynamic_size: whether writes past the end grow the array.
      clear_after_read: accepted for TensorFlow's signature; unused (reads never clear).
      element_shape: the shape every element has (None: learnt from the writes when
        infer_shape is True); a value of another shape raises InvalidArgumentError.
      infer_shape: whether the element shape is taken from the values written.
      name: an optional name for the op that creates it.

    Methods: `write(index, value)`, `read(index)`, `stack()`, `gather(indices)`,
    `concat()`, `unstack(value)`, `size()`.

    >>> ta = rt.TensorArray(rt.float32, size=2)
    >>> ta = ta.write(0, 1.0).write(1, 2.0)
    >>> ta.stack()
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>
    >>> ta.read(1)
    <rt.Tensor: shape=(), dtype=float32, numpy=2.0>
    >>> ta.read(5)
    Traceback (most recent call last):
    ...
    runtime.errors.InvalidArgumentError: Tried to read from index 5 but array size is: 2
    >>> @rt.function
    ... def squares(n):
    ...     ta = rt.TensorArray(rt.int32, size=0, dynamic_size=True)
    ...     body = lambda i, ta: (i + 1, ta.write(i, i * i))
    ...     _, ta = rt.while_loop(lambda i, ta: i < n, body, [rt.constant(0), ta])
    ...     return ta.stack()
    >>> squares(rt.constant(4))
    <rt.Tensor: shape=(4,), dtype=int32, numpy=array([0, 1, 4, 9], dtype=int32)>
    """

    def __init__(self, dtype, size=0, dynamic_size: bool = False, clear_after_read=True,
                 element_shape=None, infer_shape: bool = True, name: Optional[str] = None,
                 _handle=None):
        self.dtype = dtypes.as_dtype(dtype)
        self.dynamic_size = bool(dynamic_size)
        self.element_shape = as_shape(element_shape)
        self._infer_shape = infer_shape
        if _handle is not None:
            self.handle = _handle
            return
        size_t = convert_to_tensor(size, dtype=dtypes.int32)
        self.handle = apply_op(CREATE, [size_t], {"dtype": self.dtype,
                                                  "dynamic_size": self.dynamic_size,
                                                  "element_shape": self.element_shape},
                               name=name)

    def _with_handle(self, handle) -> "TensorArray":
        return TensorArray(self.dtype, dynamic_size=self.dynamic_size,
                           element_shape=self.element_shape, infer_shape=self._infer_shape,
                           _handle=handle)

    def _empty_like(self) -> "TensorArray":
        return TensorArray(self.dtype, 0, dynamic_size=True, element_shape=self.element_shape)

    def write(self, index, value, name=None) -> "TensorArray":
        """A TensorArray with `value` at `index` (use the result from then on).

        Args:
          index: a scalar int32 tensor (or int).
          value: a tensor (or what converts to one) of the array's dtype and element shape.
          name: an optional name for the op.

        Returns:
          The new TensorArray.
        """
        v = convert_to_tensor(value, dtype_hint=self.dtype)
        if v.dtype is not self.dtype:
            raise InvalidArgumentError(f"TensorArray dtype is {self.dtype.name} but the written "
                                       f"value is {v.dtype.name}")
        if not self.element_shape.is_compatible_with(v.shape):
            raise InvalidArgumentError(f"Could not write to TensorArray: element shape "
                                       f"{self.element_shape} does not fit a value of shape {v.shape}")
        h = apply_op(WRITE, [self.handle, convert_to_tensor(index, dtype=dtypes.int32), v], name=name)
        out = self._with_handle(h)
        if self._infer_shape:
            out.element_shape = self.element_shape.merge_with(v.shape)
        return out

    def read(self, index, name=None) -> Tensor:
        """The element at `index`, a tensor of the array's dtype and element shape.

        Args:
          index: a scalar int32 tensor (or int), within the size (else InvalidArgumentError).
          name: an optional name for the op.
        """
        return apply_op(READ, [self.handle, convert_to_tensor(index, dtype=dtypes.int32)],
                        {"dtype": self.dtype, "element_shape": self.element_shape}, name=name)

    def stack(self, name=None) -> Tensor:
        """All the elements stacked into one tensor of shape `[size] + element_shape`.

        Args:
          name: an optional name for the op.
        """
        return apply_op(STACK, [self.handle], {"dtype": self.dtype,
                                               "element_shape": self.element_shape}, name=name)

    def gather(self, indices, name=None) -> Tensor:
        """The elements at `indices`, stacked (shape `[len(indices)] + element_shape`).

        Args:
          indices: a 1-D integer tensor (or list).
          name: accepted for TensorFlow's signature; unused.
        """
        return gather(self.stack(), indices)

    def concat(self, name=None) -> Tensor:
        """All the elements joined along their first dimension (scalars: a 1-D tensor).

        Args:
          name: accepted for TensorFlow's signature; unused.
        """
        s = self.stack()
        if self.element_shape.rank is None or self.element_shape.rank == 0:
            return reshape(s, [-1])
        if s.shape[:2].is_fully_defined():
            return reshape(s, [s.shape[0] * s.shape[1]] + s.shape[2:].as_list())
        dims = shape_of(s)
        return reshape(s, concat([dims[:1] * dims[1:2], dims[2:]], 0))

    def unstack(self, value, name=None) -> "TensorArray":
        """A TensorArray whose elements are the rows of `value` (dimension 0).

        Args:
          value: a tensor (or what converts to one) of the array's dtype.
          name: an optional name for the op.

        Returns:
          The new TensorArray.
        """
        v = convert_to_tensor(value, dtype=self.dtype)
        h = apply_op(UNSTACK, [v], {"dtype_holder": self.dtype, "dynamic_size": self.dynamic_size},
                     name=name)
        out = self._with_handle(h)
        if v.shape.rank:
            out.element_shape = self.element_shape.merge_with(v.shape[1:])
        return out

    scatter = None  # not supported: write each index

    def size(self, name=None) -> Tensor:
        """The number of elements, a scalar int32 tensor.

        Args:
          name: an optional name for the op.
        """
        return apply_op(SIZE, [self.handle], name=name)

    def __repr__(self):
        return f"<rt.TensorArray dtype={self.dtype.name} element_shape={self.element_shape}>"
