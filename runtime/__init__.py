"""runtime: numpy-backed tensors and ops that run eagerly or are recorded into graphs,
staged control flow, and an executor that runs graphs without the Python that built them.

    import runtime as rt
    x = rt.constant([[1.0, 2.0]])
    g = rt.Graph()
    with g.as_default():
        p = rt.placeholder(rt.float32, [None, 2])
        y = rt.reduce_sum(p * 2.0)
    g.run(y, {p: [[1.0, 2.0]]})      # rt.Tensor(6.0, shape=(), dtype=float32)
"""
from __future__ import annotations

from . import config, distribute, errors, nest

from . import backends
from .version import __version__
from .core import dtypes
from .control_flow import cond, while_loop
from .core.dtypes import (DType, as_dtype, bool_ as bool, float16, float32, float64,  # noqa: A004
                          int8, int16, int32, int64, string, uint8)
from .function import Function, function
from .gradients.tape import GradientTape, UnconnectedGradients
from .concrete import ConcreteFunction
from .core.graph import Graph, eager_scope as init_scope, name_scope, placeholder
from .ops.array_ops import (concat, expand_dims, gather, rank, reshape, shape, size, squeeze,
                            stack, transpose, unstack)
from .ops.makers import eye, fill, ones, ones_like, range, zeros, zeros_like  # noqa: A004
from .ops.core import constant, convert_to_tensor, identity, stop_gradient
from .ops.io_ops import Assert, debugging, print_ as print, py_function  # noqa: A004
from .ops.math_ops import (abs, add, cast, cos, divide, equal, exp,  # noqa: A004
                           floordiv, greater, greater_equal, less, less_equal, log,
                           logical_and, logical_not, logical_or, matmul, maximum, minimum, mod,
                           multiply, negative, not_equal, pow, sigmoid, sign, sin, sqrt, square,
                           subtract, tanh, where)
from .ops.reduce_ops import (argmax, argmin, reduce_all, reduce_any, reduce_max, reduce_mean,
                             reduce_min, reduce_prod, reduce_sum)
from .ops.pad_ops import pad
# structural ops: tile/split/slice/one_hot/..., sort, einsum, rt.linalg, rt.norm
from .ops.shaping_ops import boolean_mask, broadcast_to, one_hot, slice, split, tile  # noqa: A004
from .ops.sort_ops import argsort, sort
from .ops.einsum_ops import einsum
from . import linalg  # noqa: E402
from .linalg import norm
from .ops.state_ops import Variable
from .ops.string_ops import strings
from .ops.bitwise_ops import bitwise
from .ops.tensor_array import TensorArray
from .core.shapes import TensorShape, TensorSpec
from .core.tensor import EagerTensor, SymbolicTensor, Tensor
from . import autograph_backend  # noqa: E402,F401  (autograph stages symbolic tensors through it)
from . import random  # noqa: E402
from . import saved  # noqa: E402  (rt.saved.save / rt.saved.load)
# rt.data: input pipelines, tf.data's Dataset
from . import data  # noqa: E402
from . import dot  # noqa: E402,F401  (Graph.to_dot)
from .backends.onnx import export as onnx  # noqa: E402  (rt.onnx.export; imports onnx only when called)
from . import nn  # noqa: E402  (rt.nn: activations, losses, conv2d, pooling)
# rt.Module and rt.optimizers (Module, optimizers)
from .module import Module  # noqa: E402
from . import optimizers  # noqa: E402


class math:  # noqa: N801 - the namespace `rt.math`, as in TensorFlow
    """The namespace `rt.math`, as TensorFlow's `tf.math`: the elementwise and reduction ops.

    The same functions as at the top level (rt.math.add is rt.add, ...), plus floormod
    (= mod), truediv (= divide) and those TensorFlow keeps in tf.math only: ceil, rsqrt,
    log1p, softplus, reduce_std, reduce_variance and cumprod (floor, round and cumsum are
    in both). It is a namespace, not something to instantiate.

    >>> rt.math.add is rt.add
    True
    >>> print(rt.math.reduce_sum(rt.constant([[1, 2], [3, 4]]), axis=0))
    rt.Tensor([4 6], shape=(2,), dtype=int32)
    >>> print(rt.math.rsqrt(rt.constant([4.0, 16.0])))
    rt.Tensor([0.5  0.25], shape=(2,), dtype=float32)
    """
    add, subtract, multiply, divide, floordiv, mod, pow = add, subtract, multiply, divide, floordiv, mod, pow
    negative, abs, sign, square, sqrt, exp, log = negative, abs, sign, square, sqrt, exp, log
    tanh, sigmoid, sin, cos, maximum, minimum = tanh, sigmoid, sin, cos, maximum, minimum
    equal, not_equal, less, less_equal, greater, greater_equal = (
        equal, not_equal, less, less_equal, greater, greater_equal)
    logical_and, logical_or, logical_not = logical_and, logical_or, logical_not
    reduce_sum, reduce_mean, reduce_max, reduce_min = reduce_sum, reduce_mean, reduce_max, reduce_min
    reduce_prod, reduce_any, reduce_all, argmax, argmin = (
        reduce_prod, reduce_any, reduce_all, argmax, argmin)
    floormod, truediv = mod, divide


# math ops and small utilities (TensorFlow's top level vs tf.math placement)
from .ops import cumulative_ops as _cumulative_ops  # noqa: E402
from .ops import elementwise_ops as _elementwise_ops  # noqa: E402
from .ops import reduce_ops as _reduce_ops  # noqa: E402
from .ops.cumulative_ops import cumsum  # noqa: E402
from .ops.elementwise_ops import clip_by_value, floor, round  # noqa: E402,A004
from .ops.introspection_ops import (ensure_shape, executing_eagerly, get_static_value,  # noqa: E402
                              is_tensor)
for _module, _names in ((_elementwise_ops, ("floor", "ceil", "round", "rsqrt", "log1p", "softplus")),
                        (_reduce_ops, ("reduce_std", "reduce_variance")),
                        (_cumulative_ops, ("cumsum", "cumprod"))):
    for _name in _names:
        setattr(math, _name, getattr(_module, _name))
del _module, _names, _name

# map_fn, scan, foldl, foldr (each one while loop in a graph) and switch_case
from .functional_ops import foldl, foldr, map_fn, scan, switch_case  # noqa: E402
from . import display  # noqa: E402,F401  (notebooks: _repr_html_ / _repr_svg_)
# rt.SparseTensor: a composite value; rt.sparse.to_dense/from_dense/reduce_sum/...
from . import sparse  # noqa: E402
from .sparse import SparseTensor, SparseTensorSpec  # noqa: E402


def __getattr__(name):
    """`rt.autograph`: the `autograph` package (TensorFlow's `tf.autograph`:
    `rt.autograph.experimental.set_loop_options`, `rt.autograph.to_graph`), imported when
    first asked for."""
    if name == "autograph":
        import autograph
        return autograph
    raise AttributeError(f"module 'runtime' has no attribute {name!r}")


newaxis = None  # `x[:, rt.newaxis]`, as numpy and TensorFlow spell it


# dir(rt): the API, not the modules it is built from (rt.executor, rt.while_staging...)
_PUBLIC_MODULES = frozenset({"autograph", "config", "data", "debugging", "distribute",
                             "dtypes", "errors", "linalg", "nest", "nn", "onnx",
                             "optimizers", "random", "saved", "sparse", "strings"})


def __dir__():
    module = type(nest)
    return sorted({name for name, value in globals().items()
                   if not name.startswith("_") and name != "annotations"
                   and (not isinstance(value, module) or name in _PUBLIC_MODULES)}
                  | {"autograph"})


# Errors of the public API outside rt.function show the user's frames, not the runtime's
# (runtime/traceback_filter.py), as errors from rt.function do.
from . import traceback_filter as _traceback_filter  # noqa: E402
from .data.iterator import Iterator as _DataIterator  # noqa: E402

_traceback_filter.show_user_frames_in(
    globals(), math, nn, linalg, random, sparse, strings, debugging, bitwise, data,
    data.experimental, data.Dataset, _DataIterator, Tensor, EagerTensor, SymbolicTensor,
    Variable, TensorArray, GradientTape)
