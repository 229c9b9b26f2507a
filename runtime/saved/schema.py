"""The ops a saved file may hold, and the type of each of their attributes.

Loading looks an op up here, never in the registry alone: an op is loadable only when it
is listed (`py_function`'s EagerPyFunc, which calls Python, never is), and each attribute
the file gives must have the type listed for it, checked before the op's inference rule
or kernel sees it (a `Sum.axis` is null, an integer or a tuple of integers; text only
where the op takes text). Keyed by OpDef; the attribute names are the op's inference
rule's keyword parameters, which tests/runtime/test_rt_saved_attacks.py checks.
"""
from __future__ import annotations

import re

import numpy as np

from .. import control_flow
from ..control_flow import Body
from ..core import dtypes, opdef
from ..core.shapes import TensorShape
from ..ops import registry as ops_registry
from ..ops import linalg_decompositions, numerics_ops, random_more
from ..ops import scatter_ops, sequence_ops
from ..ops import buffer_ops
from ..ops import special_math_ops
from ..ops import (array_ops, bitwise_ops, broadcast_ops, core, cumulative_ops, einsum_ops,
                   elementwise_ops, introspection_ops, io_ops, linalg_ops, list_ops, makers,
                   math_ops, nn_ops, pad_ops, random_ops, reduce_ops, sampling_ops, shaping_ops,
                   sort_ops, state_ops, string_ops, summary_ops, tensor_array)


class Type:
    """An attribute type: `ok(value)` and the words for a message."""

    __slots__ = ("text", "ok")

    def __init__(self, text: str, ok):
        self.text = text
        self.ok = ok


def _int(v) -> bool:
    return type(v) is int  # not a bool


def _ints(v) -> bool:
    return type(v) is tuple and all(type(x) is int for x in v)


def _one_of(*values) -> Type:
    return Type("one of " + ", ".join(repr(v) for v in values),
                lambda v: type(v) is str and v in values)


INT = Type("an integer", _int)
COUNT = Type("a non-negative integer", lambda v: _int(v) and v >= 0)
BOOL = Type("true/false", lambda v: type(v) is bool)
DTYPE = Type("a dtype", lambda v: isinstance(v, dtypes.DType))
SHAPE = Type("a shape", lambda v: isinstance(v, TensorShape))
INTS = Type("a tuple of integers", _ints)
# a transpose of a tensor whose rank is unknown while tracing reverses whatever rank it has
PERM = Type("null or a tuple of integers", lambda v: v is None or _ints(v))
AXES = Type("null, an integer or a tuple of integers", lambda v: v is None or _int(v) or _ints(v))
AXIS = Type("null or an integer", lambda v: v is None or _int(v))
TEXT = Type("a string", lambda v: type(v) is str)
ARRAY = Type("an array", lambda v: isinstance(v, np.ndarray))  # strings: bytes (format.py)
SCALAR = Type("a number, true/false, bytes or a 0-d array",
              lambda v: type(v) in (bool, int, float, bytes) or (
                  isinstance(v, np.ndarray) and v.ndim == 0))
VARIABLE = Type("a variable", lambda v: isinstance(v, state_ops.Variable))
RNG = Type("a random generator", lambda v: isinstance(v, np.random.Generator))
BODY = Type("a sub-graph", lambda v: isinstance(v, Body))
OUT_SPECS = Type("a tuple of (shape, dtype) pairs", lambda v: type(v) is tuple and all(
    type(s) is tuple and len(s) == 2 and (s[0] is None or isinstance(s[0], TensorShape))
    and isinstance(s[1], dtypes.DType) for s in v))
PADDING = Type("'SAME', 'VALID' or ((top, bottom), (left, right))", lambda v: (
    type(v) is str and v in ("SAME", "VALID")) or (type(v) is tuple and len(v) == 2 and all(
        _ints(p) and len(p) == 2 and min(p) >= 0 for p in v)))
_EQUATION = re.compile(r"^[A-Za-z.,\->\s]*$")
EQUATION = Type("an einsum equation (letters, ',', '->', '...')",
                lambda v: type(v) is str and len(v) <= 1024 and bool(_EQUATION.match(v)))
NUMBERS = Type("a tuple of numbers", lambda v: type(v) is tuple and all(
    type(x) in (int, float) for x in v))
STREAM = Type("null, 'sys.stdout' or 'sys.stderr'", lambda v: v is None or (
    type(v) is str and v in ("sys.stdout", "sys.stderr")))
TUPLE = Type("a tuple", lambda v: type(v) is tuple)  # its contents: checks.py

_REDUCTION = {"axis": AXES, "keepdims": BOOL}
_SCAN = {"axis": INT, "exclusive": BOOL, "reverse": BOOL}
_POOL = {"ksize": INTS, "strides": INTS, "padding": PADDING}
_CONV = {"strides": INTS, "padding": PADDING, "dilations": INTS}
_ELEMENT = {"dtype": DTYPE, "element_shape": SHAPE}
_IF = {"then_body": BODY, "else_body": BODY, "out_specs": OUT_SPECS}
_WHILE = {"cond_body": BODY, "body": BODY, "out_specs": OUT_SPECS, "num_loop_vars": COUNT,
          "has_max": BOOL}
_RANDOM = {"shape": INTS, "dtype": DTYPE, "params": NUMBERS, "rng": RNG}

_NO_ATTRS = [
    *(math_ops.UNARY[n] for n in ("Abs", "Cos", "Exp", "Log", "LogicalNot", "Neg", "Sigmoid",
                                  "Sign", "Sin", "Sqrt", "Square", "Tanh")),
    *(math_ops.BINARY[n] for n in ("AddV2", "Equal", "FloorDiv", "FloorMod", "Greater",
                                   "GreaterEqual", "Less", "LessEqual", "LogicalAnd",
                                   "LogicalOr", "Maximum", "Minimum", "Mul", "NotEqual", "Pow",
                                   "RealDiv", "Sub")),
    elementwise_ops.CEIL, elementwise_ops.FLOOR, elementwise_ops.ROUND, elementwise_ops.LOG1P, elementwise_ops.SOFTPLUS,
    *bitwise_ops.OPS, *special_math_ops.OPS,
    math_ops.SELECT, math_ops.WHERE_INDICES, nn_ops.ERF, nn_ops.MAX_POOL_GRAD,
    core.IDENTITY, core.STOP_GRADIENT, array_ops.RESHAPE_DYNAMIC, array_ops.RANK,
    makers.FILL_DYNAMIC, broadcast_ops.BROADCAST_LIKE, broadcast_ops.SUM_LIKE,
    pad_ops.PAD, shaping_ops.TILE, string_ops.AS_STRING, string_ops.LENGTH,
    linalg_ops.MATRIX_INVERSE, linalg_ops.MATRIX_DETERMINANT, linalg_ops.MATRIX_SOLVE,
    linalg_ops.CHOLESKY, list_ops.NEW, list_ops.APPEND, list_ops.SET, list_ops.LENGTH,
    tensor_array.WRITE, tensor_array.SIZE, tensor_array.GRAD_READ, tensor_array.GRAD_STACK,
    tensor_array.ADD,
]

ATTRS: dict = {op: {} for op in _NO_ATTRS}  # OpDef -> {attribute: Type}
ATTRS.update({
    opdef.CONST: {"value": ARRAY, "dtype": DTYPE},
    opdef.PLACEHOLDER: {"dtype": DTYPE, "shape": SHAPE},
    **{reduce_ops.REDUCE[n]: _REDUCTION for n in ("All", "Any", "Max", "Mean", "Min", "Prod",
                                                  "Sum")},
    reduce_ops.PROD_OTHERS: {"axis": AXES},
    reduce_ops.ARGMAX: {"axis": AXIS, "output_type": DTYPE},
    reduce_ops.ARGMIN: {"axis": AXIS, "output_type": DTYPE},
    cumulative_ops.CUMSUM: _SCAN, cumulative_ops.CUMPROD: _SCAN,
    math_ops.MATMUL: {"transpose_a": BOOL, "transpose_b": BOOL},
    math_ops.CAST: {"dtype": DTYPE},
    nn_ops.CONV2D: _CONV, nn_ops.CONV2D_BACKPROP_INPUT: _CONV,
    nn_ops.CONV2D_BACKPROP_FILTER: _CONV,
    nn_ops.MAX_POOL: _POOL, nn_ops.MAX_POOL_GRAD_GRAD: _POOL, nn_ops.AVG_POOL: _POOL,
    nn_ops.AVG_POOL_GRAD: _POOL,
    core.FULL_LIKE: {"fill_value": SCALAR, "dtype": DTYPE},
    array_ops.STACK: {"axis": INT},
    array_ops.UNSTACK: {"axis": INT, "num": COUNT},
    array_ops.RESHAPE: {"shape": INTS},
    array_ops.TRANSPOSE: {"perm": PERM},
    array_ops.EXPAND_DIMS: {"axis": INT},
    array_ops.SQUEEZE: {"axis": AXES},
    array_ops.CONCAT: {"axis": INT},
    array_ops.GATHER: {"axis": INT},
    array_ops.GATHER_GRAD: {"axis": INT},
    array_ops.SHAPE: {"out_type": DTYPE},
    array_ops.SIZE: {"out_type": DTYPE},
    array_ops.SLICE: {"spec": TUPLE},
    array_ops.SLICE_GRAD: {"spec": TUPLE},
    broadcast_ops.BROADCAST_TO: {"shape": INTS},
    broadcast_ops.SUM_TO: {"shape": INTS},
    makers.FILL: {"shape": INTS},
    makers.EYE: {"num_rows": COUNT, "num_columns": COUNT, "dtype": DTYPE},
    makers.RANGE: {"dtype": DTYPE},
    pad_ops.MIRROR_PAD: {"mode": _one_of("REFLECT", "SYMMETRIC")},
    pad_ops.PAD_GRAD: {"mode": _one_of("CONSTANT", "REFLECT", "SYMMETRIC")},
    shaping_ops.ONE_HOT: {"depth": COUNT, "axis": INT},
    sort_ops.SORT: {"axis": INT, "descending": BOOL},
    sort_ops.ARGSORT: {"axis": INT, "descending": BOOL},
    einsum_ops.EINSUM: {"equation": EQUATION},
    string_ops.JOIN: {"separator": TEXT},
    io_ops.PRINT: {"template": TUPLE, "sep": TEXT, "end": TEXT, "stream": STREAM,
                   "summarize": INT},
    io_ops.ASSERT: {"message": TEXT},
    # (a summary holds a live writer, which save refuses and no file holds)
    summary_ops.WRITE: {"writer": Type("a live summary writer", lambda v: False),
                        "tag": TEXT, "kind": _one_of(*summary_ops.KINDS), "buckets": COUNT,
                        "description": TEXT, "text": Type("null or an array", lambda v:
                                                          v is None or isinstance(v, np.ndarray))},
    introspection_ops.ENSURE_SHAPE: {"shape": SHAPE},
    state_ops.READ: {"variable": VARIABLE},
    state_ops.ASSIGN: {"variable": VARIABLE, "mode": _one_of("set", "add", "sub")},
    random_ops.UNIFORM: _RANDOM, random_ops.NORMAL: _RANDOM,
    random_ops.UNIFORM_INT: {"shape": INTS, "dtype": DTYPE, "rng": RNG},
    sampling_ops.PERMUTATION: {"shape": INTS, "dtype": DTYPE, "rng": RNG},
    sampling_ops.PERMUTATION_OF: {"dtype": DTYPE, "rng": RNG},
    list_ops.POP: _ELEMENT, list_ops.GET: _ELEMENT, list_ops.STACK: _ELEMENT,
    tensor_array.CREATE: {"dtype": DTYPE, "dynamic_size": BOOL, "element_shape": SHAPE},
    tensor_array.READ: _ELEMENT, tensor_array.STACK: _ELEMENT,
    tensor_array.UNSTACK: {"dtype_holder": DTYPE, "dynamic_size": BOOL},
    control_flow.IF: _IF, control_flow.IF_STATEFUL: _IF,
    control_flow.WHILE: _WHILE, control_flow.WHILE_STATEFUL: _WHILE,
})
ATTRS.update({  # the matrix decompositions
    linalg_decompositions.SVD: {"full_matrices": BOOL, "compute_uv": BOOL},
    linalg_decompositions.SVD_UV: {"full_matrices": BOOL, "compute_uv": BOOL},
    linalg_decompositions.QR: {"full_matrices": BOOL},
    linalg_decompositions.EIGH: {},
    random_more.TRUNCATED_NORMAL: _RANDOM,
    random_more.STATELESS_RANDOM: {"shape": INTS, "dtype": DTYPE, "params": NUMBERS,
                                   "kind": _one_of("normal", "truncated_normal", "uniform",
                                                   "integers")},
    # the draws whose shape is an input, read when the graph runs
    random_ops.UNIFORM_DYNAMIC: {"dtype": DTYPE, "params": NUMBERS, "rng": RNG},
    random_ops.NORMAL_DYNAMIC: {"dtype": DTYPE, "params": NUMBERS, "rng": RNG},
    random_ops.UNIFORM_INT_DYNAMIC: {"dtype": DTYPE, "rng": RNG},
    random_more.TRUNCATED_NORMAL_DYNAMIC: {"dtype": DTYPE, "params": NUMBERS, "rng": RNG},
    random_more.STATELESS_RANDOM_DYNAMIC: {"dtype": DTYPE, "params": NUMBERS,
                                           "kind": _one_of("normal", "truncated_normal",
                                                           "uniform", "integers")},
    numerics_ops.CHECK_NUMERICS: {"message": TEXT},
})
ATTRS.update({  # N-dimensional gathers and scatters, unique
    scatter_ops.GATHER_ND: {}, scatter_ops.SCATTER_ND: {},
    scatter_ops.TENSOR_SCATTER: {"add": BOOL},
    sequence_ops.UNIQUE: {"out_idx": DTYPE},
    buffer_ops.BUFFER_DRAIN: {},
})

_BY_NAME: dict = {}


def registry() -> dict:
    """Every op by name, as saved graphs name them: `runtime.ops.registry()` and the
    control-flow ops (`runtime.control_flow.OPS`)."""
    if not _BY_NAME:
        table = dict(ops_registry())
        for op in control_flow.OPS:
            if op.name in table and table[op.name] is not op:
                raise RuntimeError(f"two ops are named {op.name}")
            table[op.name] = op
        _BY_NAME.update(table)
    return _BY_NAME


def describe(v) -> str:
    """A value's type in a message (never its text)."""
    if v is None:
        return "null"
    if isinstance(v, np.ndarray):
        return f"an array of {v.dtype}, shape {v.shape}"
    if type(v) is tuple:
        return f"a tuple of {len(v)}"
    return {bool: "true/false", int: "an integer", float: "a number", str: "a string",
            bytes: "bytes"}.get(type(v), type(v).__name__)
