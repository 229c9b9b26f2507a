"""The part of PaddlePaddle's API that its dygraph-to-static test programs use, mapped onto
`runtime` (the programs in this folder are ported from those tests with their bodies as
written and only the API names going through here).

Everything here is library code to autograph (`ag.do_not_convert`), as `rt`'s own
functions are. Where Paddle's dygraph-to-static gives a call a meaning of its own under
tracing, the shim gives it that meaning: `tensor.numpy()` is `numpy(tensor)`, which in a
graph is the tensor itself (Paddle's converter drops `.numpy()` there), and eagerly the
numpy array.
"""
import functools
import types

import numpy as np

import autograph as ag
import runtime as rt


def _dtype(dtype):
    return None if dtype is None else rt.as_dtype(dtype)


def _dims(shape):
    if isinstance(shape, rt.TensorShape):
        return shape.as_list()
    if rt.is_tensor(shape):
        return shape
    return list(shape)


@ag.do_not_convert
def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    if rt.is_tensor(data):
        return data if dtype is None else rt.cast(data, _dtype(dtype))
    return rt.constant(data, dtype=_dtype(dtype))


@ag.do_not_convert
def to_variable(value, name=None, zero_copy=None, dtype=None):
    return to_tensor(value, dtype)


@ag.do_not_convert
def fill_constant(shape, dtype, value, force_cpu=False, out=None, name=None):
    return rt.fill(_dims(shape), rt.cast(value, _dtype(dtype)))


@ag.do_not_convert
def full(shape, fill_value, dtype=None, name=None):
    value = rt.constant(fill_value) if dtype is None else rt.cast(fill_value, _dtype(dtype))
    return rt.fill(_dims(shape), value)


@ag.do_not_convert
def zeros(shape, dtype=None, name=None):
    return rt.zeros(_dims(shape), _dtype(dtype) or rt.float32)


@ag.do_not_convert
def ones(shape, dtype=None, name=None):
    return rt.ones(_dims(shape), _dtype(dtype) or rt.float32)


@ag.do_not_convert
def mean(x, axis=None, keepdim=False, name=None):
    return rt.reduce_mean(x, axis=axis, keepdims=keepdim)


@ag.do_not_convert
def sum(x, axis=None, dtype=None, keepdim=False, name=None):  # noqa: A001 - Paddle's name
    return rt.reduce_sum(x, axis=axis, keepdims=keepdim)


@ag.do_not_convert
def shape(x):
    return rt.shape(x)


@ag.do_not_convert
def reshape(x, shape, name=None):
    return rt.reshape(x, _dims(shape))


@ag.do_not_convert
def concat(x, axis=0, name=None):
    return rt.concat(x, axis)


@ag.do_not_convert
def stack(x, axis=0, name=None):
    return rt.stack(x, axis)


@ag.do_not_convert
def add_n(inputs, name=None):
    return functools.reduce(lambda a, b: a + b, inputs)


@ag.do_not_convert
def arange(start=0, end=None, step=1, dtype=None, name=None):
    return rt.range(start, end, step)


@ag.do_not_convert
def assign(x, output=None):
    return rt.identity(to_tensor(x))


@ag.do_not_convert
def pow(x, y, name=None):  # noqa: A001 - Paddle's name
    return rt.pow(x, y)


@ag.do_not_convert
def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    return rt.matmul(x, y, transpose_a=transpose_x, transpose_b=transpose_y)


@ag.do_not_convert
def while_loop(cond, body, loop_vars, is_test=False, name=None):
    return rt.while_loop(cond, body, loop_vars)


# Tensor methods the programs call, as functions: `x.numpy()` is written `numpy(x)`.

@ag.do_not_convert
def numpy(x):
    """Paddle's dygraph-to-static turns `x.numpy()` into `x` in a graph."""
    if isinstance(x, rt.SymbolicTensor):
        return x
    return x.numpy() if rt.is_tensor(x) else np.asarray(x)


@ag.do_not_convert
def item(x):
    """`x.item()` of an array, or of a one-element tensor (a scalar tensor in a graph)."""
    if isinstance(x, rt.SymbolicTensor):
        return rt.reshape(x, [])
    return numpy(x).item()


@ag.do_not_convert
def clone(x):
    return rt.identity(x)


relu = ag.do_not_convert(lambda x, name=None: rt.nn.relu(x))
softmax = ag.do_not_convert(lambda x, axis=-1, dtype=None, name=None: rt.nn.softmax(x, axis))

nn = types.SimpleNamespace(functional=types.SimpleNamespace(relu=relu, softmax=softmax))
F = nn.functional
tensor = types.SimpleNamespace(fill_constant=fill_constant)
base = types.SimpleNamespace(dygraph=types.SimpleNamespace(to_variable=to_variable))
static = types.SimpleNamespace(nn=types.SimpleNamespace(while_loop=while_loop))
abs = ag.do_not_convert(lambda x, name=None: rt.abs(x))  # noqa: A001 - Paddle's name
tanh = ag.do_not_convert(lambda x, name=None: rt.tanh(x))
