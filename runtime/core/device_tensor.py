"""DeviceTensor: an eager tensor whose value is still the device array (a jax array) a
compiled call returned. A result of `rt.function(jit_compile=True)` stays on the device
until something asks for its value, and a call that takes it back hands the device array
to XLA without a copy to the host and back.

This layer does not import jax: the device array is held as an opaque object that
`np.asarray` turns into the value (on a CPU, a read-only view of the device buffer).
"""
from __future__ import annotations

import sys

import numpy as np

from . import dtypes
from .shapes import TensorShape
from .tensor import EagerTensor


class DeviceTensor(EagerTensor):
    """An EagerTensor holding a device array: `_value` (what every numpy-backed op, `.numpy()`,
    printing and `np.asarray` read) is the numpy array made from it on first use, then kept.
    `device_array` is the array the compiled call gave, which compiled calls take as it is.

    Its shape and dtype are the device array's, known without a copy.

    Args:
      device_array: the array (anything with `shape` and `dtype` that `np.asarray` takes).
      dtype: its DType.
    """

    __slots__ = ("device_array", "_host")

    def __init__(self, device_array, dtype: dtypes.DType):
        self.device_array = device_array
        self._host = None
        self._dtype = dtype

    @property     # (overrides EagerTensor's slot of the same name)
    def _value(self):
        host = self._host
        if host is None:
            host = self._host = np.asarray(self.device_array)
        return host

    def numpy(self):
        """The value as numpy (made from the device array on the first read, then kept):
        an array, or a numpy scalar for a rank-0 tensor."""
        host = self._host
        if host is None:
            host = self._host = np.asarray(self.device_array)
        return host[()] if host.ndim == 0 else host

    @property
    def shape(self) -> TensorShape:
        return TensorShape.from_numpy(self.device_array.shape)

    def __reduce__(self):
        # pickled as the plain tensor of its value: a device array belongs to this process
        return EagerTensor, (self._value, self._dtype)

    def __deepcopy__(self, memo):
        return EagerTensor(np.array(self._value), self._dtype)


def is_device_array(value) -> bool:
    """Whether `value` is a jax array (without importing jax: where no one has imported
    it, nothing can be one)."""
    jax = sys.modules.get("jax")
    array_type = getattr(jax, "Array", None)
    return array_type is not None and isinstance(value, array_type)
