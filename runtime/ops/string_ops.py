"""String tensors (numpy object arrays of bytes): join, and concatenation via `add`."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core import dtypes
from ..errors import InvalidArgumentError
from . import shape_utils
from .core import OpDef, apply_op, convert_to_tensor
from .io_ops import format_scalar
from .math_ops import add


def _join_infer(inputs, separator):
    shape = inputs[0].shape
    for t in inputs:
        if not t.dtype.is_string:
            raise InvalidArgumentError(f"rt.strings.join needs string tensors, got {t.dtype.name}")
        shape = shape_utils.broadcast(shape, t.shape, "strings.join")
    return [(shape, dtypes.string)]


def _join_kernel(*xs, separator):
    sep = separator.encode("utf-8")
    arrays = np.broadcast_arrays(*[np.asarray(x, dtype=object) for x in xs])
    out = np.empty(arrays[0].shape, dtype=object)
    for idx in np.ndindex(out.shape):
        out[idx] = sep.join(a[idx] for a in arrays)
    return out


JOIN = OpDef("StringJoin", _join_infer, _join_kernel)


def _length_infer(inputs):
    return [(inputs[0].shape, dtypes.int32)]


def _length_kernel(x):
    return np.vectorize(len, otypes=[np.int32])(np.asarray(x, dtype=object))


LENGTH = OpDef("StringLength", _length_infer, _length_kernel)


def _as_string_infer(inputs):
    return [(inputs[0].shape, dtypes.string)]


def _as_string_kernel(x):
    a = np.asarray(x)
    out = np.empty(a.shape, dtype=object)
    if a.dtype == np.bool_:              # TensorFlow's AsString: "true" / "false"
        for idx in np.ndindex(a.shape):
            out[idx] = b"true" if a[idx] else b"false"
        return out
    for idx in np.ndindex(a.shape):
        out[idx] = format_scalar(a[idx]).encode("utf-8")
    return out


AS_STRING = OpDef("AsString", _as_string_infer, _as_string_kernel)
OPS = [JOIN, LENGTH, AS_STRING]


class strings:  # noqa: N801 - the namespace `rt.strings`
    """String ops: `rt.strings.join`, `rt.strings.length`, `rt.strings.as_string`,
    `rt.strings.add`.

    String tensors hold bytes (dtype string); Python str values are encoded as UTF-8.

    >>> s = rt.strings.join([rt.constant(["a", "bc"]), "!"])
    >>> s
    <rt.Tensor: shape=(2,), dtype=string, numpy=array([b'a!', b'bc!'], dtype=object)>
    >>> rt.strings.length(s)
    <rt.Tensor: shape=(2,), dtype=int32, numpy=array([2, 3], dtype=int32)>
    """

    @staticmethod
    def join(inputs, separator: str = "", name: Optional[str] = None):
        """Joins string tensors elementwise, with `separator` between them.

        The inputs broadcast against each other (numpy's rules).

        Args:
          inputs: a list of string tensors (or what converts to them: str values).
          separator: the text put between two inputs.
          name: an optional name for the op.

        Returns:
          A string tensor of the inputs' broadcast shape.

        >>> rt.strings.join([rt.constant(["a", "b"]), "x"], separator="-")
        <rt.Tensor: shape=(2,), dtype=string, numpy=array([b'a-x', b'b-x'], dtype=object)>
        """
        ts = [convert_to_tensor(x, dtype=dtypes.string) for x in inputs]
        return apply_op(JOIN, ts, {"separator": separator}, name=name)

    @staticmethod
    def length(input, name: Optional[str] = None):  # noqa: A002
        """The length of each string, in bytes of its UTF-8 encoding.

        Args:
          input: a string tensor (or what converts to one).
          name: an optional name for the op.

        Returns:
          An int32 tensor of input's shape.

        >>> rt.strings.length(rt.constant(["", "abc", "é"]))
        <rt.Tensor: shape=(3,), dtype=int32, numpy=array([0, 3, 2], dtype=int32)>
        """
        return apply_op(LENGTH, [convert_to_tensor(input, dtype=dtypes.string)], name=name)

    @staticmethod
    def as_string(input, name: Optional[str] = None):  # noqa: A002
        """Each element as a string: numbers formatted as rt.print shows them (floats with
        6 or 9 significant digits), bools as "true" and "false" (as TensorFlow's).

        Args:
          input: a tensor (or what converts to one).
          name: an optional name for the op.

        Returns:
          A string tensor of input's shape.

        >>> rt.strings.as_string(rt.constant([1.5, 2.0]))
        <rt.Tensor: shape=(2,), dtype=string, numpy=array([b'1.5', b'2'], dtype=object)>
        >>> rt.strings.as_string(rt.constant([10, -3]))
        <rt.Tensor: shape=(2,), dtype=string, numpy=array([b'10', b'-3'], dtype=object)>
        >>> rt.strings.as_string(rt.constant([True, False]))
        <rt.Tensor: shape=(2,), dtype=string, numpy=array([b'true', b'false'], dtype=object)>
        """
        return apply_op(AS_STRING, [convert_to_tensor(input)], name=name)

    @staticmethod
    def add(x, y, name: Optional[str] = None):
        """Concatenates two string tensors elementwise (broadcasting): `x + y`.

        Args:
          x: a string tensor (or what converts to one).
          y: a string tensor (or what converts to one).
          name: an optional name for the op.

        Returns:
          A string tensor of the broadcast shape of x and y.

        >>> rt.strings.add(rt.constant(["a", "b"]), "c")
        <rt.Tensor: shape=(2,), dtype=string, numpy=array([b'ac', b'bc'], dtype=object)>
        """
        return add(convert_to_tensor(x, dtype=dtypes.string),
                   convert_to_tensor(y, dtype=dtypes.string), name=name)
