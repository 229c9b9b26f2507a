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
from .gradients.custom_gradient import custom_gradient, recompute_grad
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
from . import linalg
from .linalg import norm
from .ops.state_ops import Variable
from .ops.string_ops import strings
from .ops.bitwise_ops import bitwise
from .ops.tensor_array import TensorArray
from .core.shapes import TensorShape, TensorSpec
from .core.tensor import EagerTensor, SymbolicTensor, Tensor
from . import autograph_backend, display, dot, random, traceback_filter
from . import saved  # rt.saved.save / rt.saved.load
from . import saved_model  # rt.saved_model.save / load: TensorFlow's names for rt.saved
from . import train  # rt.train: Checkpoint, CheckpointManager, latest_checkpoint
from .logs import get_logger
from . import data  # rt.data: input pipelines, tf.data's Dataset
from .data.iterator import Iterator as _DataIterator
from .backends.onnx import export as onnx  # rt.onnx.export; imports onnx only when called
from . import nn  # rt.nn: activations, losses, conv2d, pooling
from .module import Module
from . import optimizers
from . import optimizers_extra as _optimizers_extra  # rt.optimizers.RMSprop/.../schedules
from .clipping import clip_by_global_norm, clip_by_norm
# math ops and small utilities (TensorFlow's top level vs tf.math placement)
from .ops import cumulative_ops as _cumulative_ops, elementwise_ops as _elementwise_ops
from .ops import reduce_ops as _reduce_ops
from .ops.cumulative_ops import cumsum
from .ops.elementwise_ops import clip_by_value, floor, round  # noqa: A004
from .ops.introspection_ops import ensure_shape, executing_eagerly, get_static_value, is_tensor
# map_fn, scan, foldl, foldr (each one while loop in a graph) and switch_case
from .functional_ops import foldl, foldr, map_fn, scan, switch_case
from .vectorized import vectorized_map
# N-dimensional gathers/scatters, sequences, case and control_dependencies
from .ops.scatter_ops import gather_nd, scatter_nd, tensor_scatter_nd_add, tensor_scatter_nd_update
from .ops.sequence_ops import linspace, reverse, roll, sequence_mask, unique
from .ops import numeric_ops as _numeric_ops
from .ops.numeric_ops import reduce_logsumexp
from .control_flow.case import case, control_dependencies
# TensorFlow's further math names (tf.math, and those it also has at the top level)
from .ops import math_compositions as _compositions, segment_ops as _segment_ops
from .ops import special_math_ops as _special
from .ops.math_compositions import add_n, repeat, truncatediv
from .ops.special_math_ops import acos, asin, atan, atan2, cosh, sinh
# rt.SparseTensor: a composite value; rt.sparse.to_dense/from_dense/reduce_sum/...
from . import sparse
from . import summary  # rt.summary: TensorBoard summaries (tensorboardX writes the files)
from .sparse import SparseTensor, SparseTensorSpec

# What the layers above the core add to its objects, installed here in one place:
dot.install()                 # Graph.to_dot
display.install()             # notebooks: _repr_html_ / _repr_svg_ of graphs, functions, tensors
autograph_backend.install()   # autograph stages symbolic tensors (and staged lists) through it
_optimizers_extra.install()   # RMSprop, Adagrad, AdamW, schedules in rt.optimizers


class math:  # noqa: N801 - the namespace `rt.math`, as in TensorFlow
    """The namespace `rt.math`, as TensorFlow's `tf.math`: the elementwise and reduction ops.

    The same functions as at the top level (rt.math.add is rt.add, ...), plus floormod
    (= mod), truediv (= divide) and those TensorFlow keeps in tf.math only: ceil, rsqrt,
    log1p, softplus, reduce_std, reduce_variance and cumprod (floor, round and cumsum are
    in both), count_nonzero, divide_no_nan, squared_difference, expm1, erf, l2_normalize,
    in_top_k and the segment reductions (segment_sum, unsorted_segment_sum, ..._mean,
    ..._max). It is a namespace, not something to instantiate.

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
    floor, round, cumsum = floor, round, cumsum
    ceil, rsqrt, log1p = _elementwise_ops.ceil, _elementwise_ops.rsqrt, _elementwise_ops.log1p
    softplus, cumprod = _elementwise_ops.softplus, _cumulative_ops.cumprod
    reduce_std, reduce_variance = _reduce_ops.reduce_std, _reduce_ops.reduce_variance
    reduce_logsumexp, top_k = _numeric_ops.reduce_logsumexp, _numeric_ops.top_k
    is_nan, is_inf, is_finite = _numeric_ops.is_nan, _numeric_ops.is_inf, _numeric_ops.is_finite
    add_n, count_nonzero = _compositions.add_n, _compositions.count_nonzero
    divide_no_nan, squared_difference = _compositions.divide_no_nan, _compositions.squared_difference
    truncatediv, in_top_k = _compositions.truncatediv, _compositions.in_top_k
    atan, asin, acos, sinh, cosh = atan, asin, acos, sinh, cosh
    atan2, expm1, erf = atan2, _special.expm1, _special.erf
    l2_normalize = nn.l2_normalize
    segment_sum, segment_mean, segment_max = (
        _segment_ops.segment_sum, _segment_ops.segment_mean, _segment_ops.segment_max)
    unsorted_segment_sum = _segment_ops.unsorted_segment_sum
    unsorted_segment_mean = _segment_ops.unsorted_segment_mean
    unsorted_segment_max = _segment_ops.unsorted_segment_max




def __getattr__(name):
    """`rt.autograph`: the `autograph` package (TensorFlow's `tf.autograph`:
    `rt.autograph.experimental.set_loop_options`, `rt.autograph.to_graph`), imported when
    first asked for."""
    if name == "autograph":
        import autograph
        return autograph
    raise AttributeError(f"module 'runtime' has no attribute {name!r}")


newaxis = None  # `x[:, rt.newaxis]`, as numpy and TensorFlow spell it


# dir(rt): the API, not the modules it is built from (rt.backends, rt.control_flow, ...)
_PUBLIC_MODULES = frozenset({"autograph", "config", "data", "debugging", "distribute",
                             "dtypes", "errors", "linalg", "nest", "nn", "onnx",
                             "optimizers", "random", "saved", "sparse", "strings",
                             "saved_model", "train"})


def __dir__():
    module = type(nest)
    return sorted({name for name, value in globals().items()
                   if not name.startswith("_") and name != "annotations"
                   and (not isinstance(value, module) or name in _PUBLIC_MODULES)}
                  | {"autograph"})


# Errors of the public API outside rt.function show the user's frames, not the runtime's
# (runtime/traceback_filter.py), as errors from rt.function do.
traceback_filter.show_user_frames_in(
    globals(), math, nn, linalg, random, sparse, strings, debugging, bitwise, data,
    data.experimental, data.Dataset, _DataIterator, Tensor, EagerTensor, SymbolicTensor,
    Variable, TensorArray, GradientTape)
