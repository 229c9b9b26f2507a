"""Elementwise math, comparisons, logic, matmul, where and cast (reductions: reduce_ops.py).

The elementwise ops are declared once, in the tables below (name, numpy kernel, which
dtypes they accept); the tables make the OpDefs and the public functions.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core import dtypes, hooks
from ..errors import DTypeMismatchError, InvalidArgumentError
from ..core.shapes import TensorShape
from ..core.graph import current_graph
from ..core.tensor import EagerTensor, Tensor
from . import math_docs, shape_utils
from .broadcast_ops import sum_to
from .core import OpDef, apply_op, constant_value, convert_to_tensor, ones_like, zeros_like

# Which dtypes an op accepts.
NUMERIC = "numeric"
FLOAT = "float"
INTEGER = "integer"
BOOL = "bool"
ANY = "any"
NOT_BOOL = "numeric or string"     # `+` joins strings; on bools numpy would give `or`


def check_kind(opname, dtype, kind):
    ok = {NUMERIC: dtype.is_numeric, FLOAT: dtype.is_floating, INTEGER: dtype.is_integer,
          BOOL: dtype.is_bool, ANY: True, NOT_BOOL: not dtype.is_bool}[kind]
    if not ok:
        raise InvalidArgumentError(
            f"{opname} does not accept {dtype.name} tensors (it needs {kind} inputs)"
            + ("; use rt.cast to convert first" if kind == FLOAT and dtype.is_integer else ""))


def _sigmoid(x):
    return (1 / (1 + np.exp(-x))).astype(x.dtype, copy=False)


def _truediv(x, y):
    if x.dtype.kind in "iu":  # TensorFlow: int32 / int32 -> float64
        return np.true_divide(x, y, dtype=np.float64)
    return np.true_divide(x, y)


def _integer_checked(fn):
    """numpy gives 0 (and a warning) for an integer divided by zero; TensorFlow raises."""
    def kernel(x, y):
        if np.asarray(y).dtype.kind in "iu" and not np.all(y):
            raise InvalidArgumentError("Integer division by zero")
        return fn(x, y)
    kernel.__name__ = fn.__name__
    return kernel


def unary_infer(opname, kind):
    """Shape inference of an elementwise op of one input: its shape and dtype, the dtype
    checked against `kind`."""
    def infer(inputs):
        x = inputs[0]
        check_kind(opname, x.dtype, kind)
        return [(x.shape, x.dtype)]
    return infer


def binary_infer(opname, kind, out):
    def infer(inputs):
        x, y = inputs
        if x.dtype is not y.dtype:
            raise DTypeMismatchError(
                f"{opname}: the operands have different dtypes, {x.dtype.name} and "
                f"{y.dtype.name}; use rt.cast to make them match")
        check_kind(opname, x.dtype, kind)
        shape = shape_utils.broadcast(x.shape, y.shape, opname)
        if out == "div":
            dtype = dtypes.float64 if x.dtype.is_integer else x.dtype
        else:
            dtype = out or x.dtype
        return [(shape, dtype)]
    return infer


# -- the elementwise ops: gradient rules (grad(inputs, outputs, output_grads)), then the
# tables that make the OpDefs. Comparisons and logic give bool outputs: no gradient flows.

_sum_to = sum_to
_wanted = hooks.wanted


def _operator_emit(symbol):
    """Python's operator `symbol`, which computes exactly what the ufunc does on numpy
    operands (arrays or numpy scalars), at a fraction of the cost on scalars. Integer `//`
    and `%` keep their kernel (which raises on a zero divisor) unless the divisor is a
    non-zero constant."""
    def emit(op, args):
        x, y = op.inputs
        if x.dtype.is_string and symbol not in ("+", "==", "!="):
            return None
        if symbol in ("//", "%") and x.dtype.is_integer:
            divisor = constant_value(y)
            if divisor is None or not np.all(divisor):
                return None
        return f"({args[0]} {symbol} {args[1]})"
    return emit


def _add_grad(inputs, outputs, grads):
    x, y = inputs
    return [_sum_to(grads[0], x), _sum_to(grads[0], y)]


def _sub_grad(inputs, outputs, grads):
    x, y = inputs
    return [_sum_to(grads[0], x), _sum_to(negative(grads[0]), y)]


def _mul_grad(inputs, outputs, grads):
    x, y = inputs
    g = grads[0]
    return [_sum_to(g * y, x) if _wanted(0) else None, _sum_to(g * x, y) if _wanted(1) else None]


def _div_grad(inputs, outputs, grads):
    x, y = inputs
    g = grads[0]
    return [_sum_to(g / y, x) if _wanted(0) else None,
            _sum_to(negative(g) * outputs[0] / y, y) if _wanted(1) else None]


def _floormod_grad(inputs, outputs, grads):
    x, y = inputs
    g = grads[0]
    return [_sum_to(g, x), _sum_to(negative(g) * floordiv(x, y), y)]


def _pow_grad(inputs, outputs, grads):
    x, y = inputs
    g, z = grads[0], outputs[0]
    gx = g * y * pow(x, y - 1)
    safe_log = where(x > 0, log(where(x > 0, x, _ones_like(x))), _zeros_like(x))
    return [_sum_to(gx, x), _sum_to(g * z * safe_log, y)]


def _select_between(mask, g):
    zero = _zeros_like(g)
    return where(mask, g, zero), where(mask, zero, g)


def _maximum_grad(inputs, outputs, grads):
    x, y = inputs
    gx, gy = _select_between(greater_equal(x, y), grads[0])
    return [_sum_to(gx, x), _sum_to(gy, y)]


def _minimum_grad(inputs, outputs, grads):
    x, y = inputs
    gx, gy = _select_between(less_equal(x, y), grads[0])
    return [_sum_to(gx, x), _sum_to(gy, y)]


def _unary(name, public, kernel, kind, grad=None, emit=None):
    return OpDef(name, unary_infer(name, kind), kernel, grad=grad, emit=emit,
                 elementwise=True, public_name=public)


def _binary(name, public, kernel, kind, out=None, operator=None, grad=None, **traits):
    """`out`: the output dtype (None: the inputs'; "div": float64 for integers);
    `operator`: the Python operator the numpy backend may inline (`_operator_emit`)."""
    return OpDef(name, binary_infer(name, kind, out), kernel, grad=grad,
                 emit=None if operator is None else _operator_emit(operator),
                 elementwise=True, public_name=public, **traits)


# name, public function name, kernel, accepted kind, gradient (None: none flows), emitter
UNARY = {d.name: d for d in [
    _unary("Neg", "negative", np.negative, NUMERIC,
           lambda inputs, outputs, grads: [negative(grads[0])],
           emit=lambda op, args: f"(-{args[0]})"),
    _unary("Abs", "abs", np.abs, NUMERIC,
           lambda inputs, outputs, grads: [grads[0] * sign(inputs[0])]),
    _unary("Sign", "sign", np.sign, NUMERIC,
           lambda inputs, outputs, grads: [_zeros_like(inputs[0])]),
    _unary("Square", "square", np.square, NUMERIC,
           lambda inputs, outputs, grads: [grads[0] * (inputs[0] * 2)]),
    _unary("Sqrt", "sqrt", np.sqrt, FLOAT,
           lambda inputs, outputs, grads: [grads[0] / (outputs[0] * 2)]),
    _unary("Exp", "exp", np.exp, FLOAT,
           lambda inputs, outputs, grads: [grads[0] * outputs[0]]),
    _unary("Log", "log", np.log, FLOAT,
           lambda inputs, outputs, grads: [grads[0] / inputs[0]]),
    _unary("Tanh", "tanh", np.tanh, FLOAT,
           lambda inputs, outputs, grads: [grads[0] * (1 - square(outputs[0]))]),
    _unary("Sigmoid", "sigmoid", _sigmoid, FLOAT,
           lambda inputs, outputs, grads: [grads[0] * (outputs[0] * (1 - outputs[0]))]),
    _unary("Sin", "sin", np.sin, FLOAT,
           lambda inputs, outputs, grads: [grads[0] * cos(inputs[0])]),
    _unary("Cos", "cos", np.cos, FLOAT,
           lambda inputs, outputs, grads: [negative(grads[0]) * sin(inputs[0])]),
    _unary("LogicalNot", "logical_not", np.logical_not, BOOL),
]}

# `unit`: x op u == u op x == x; `right_unit`: x op u == x (runtime.optimize.simplify)
BINARY = {d.name: d for d in [
    _binary("AddV2", "add", np.add, NOT_BOOL, operator="+", grad=_add_grad, unit=0),
    _binary("Sub", "subtract", np.subtract, NUMERIC, operator="-", grad=_sub_grad,
            right_unit=0),
    _binary("Mul", "multiply", np.multiply, NUMERIC, operator="*", grad=_mul_grad, unit=1),
    _binary("RealDiv", "divide", _truediv, NUMERIC, "div", grad=_div_grad, right_unit=1),
    _binary("FloorDiv", "floordiv", _integer_checked(np.floor_divide), NUMERIC, operator="//",
            grad=lambda inputs, outputs, grads: [None, None]),  # piecewise constant
    _binary("FloorMod", "mod", _integer_checked(np.mod), NUMERIC, operator="%",
            grad=_floormod_grad),
    _binary("Pow", "pow", np.power, NUMERIC, operator="**", grad=_pow_grad),
    _binary("Maximum", "maximum", np.maximum, NUMERIC, grad=_maximum_grad),
    _binary("Minimum", "minimum", np.minimum, NUMERIC, grad=_minimum_grad),
    _binary("Equal", "equal", np.equal, ANY, dtypes.bool_, operator="=="),
    _binary("NotEqual", "not_equal", np.not_equal, ANY, dtypes.bool_, operator="!="),
    _binary("Less", "less", np.less, NUMERIC, dtypes.bool_, operator="<"),
    _binary("LessEqual", "less_equal", np.less_equal, NUMERIC, dtypes.bool_, operator="<="),
    _binary("Greater", "greater", np.greater, NUMERIC, dtypes.bool_, operator=">"),
    _binary("GreaterEqual", "greater_equal", np.greater_equal, NUMERIC, dtypes.bool_,
            operator=">="),
    _binary("LogicalAnd", "logical_and", np.logical_and, BOOL, operator="&"),
    _binary("LogicalOr", "logical_or", np.logical_or, BOOL, operator="|"),
]}


def binary_operands(x, y):
    """Both operands as tensors of one dtype: a Python value adopts the other's dtype, and
    so does a numpy array or scalar of a kind TensorFlow converts (`_numpy_fits`)."""
    if type(x) is EagerTensor and type(y) in (float, int):  # `t + 1.0`: the common case
        scalar = _eager_scalar(y, x._dtype)
        if scalar is not None:
            return x, scalar
    if isinstance(y, Tensor) and not isinstance(x, Tensor):
        y = convert_to_tensor(y)
        return _operand_for(x, y.dtype), y
    x = convert_to_tensor(x)
    return x, (y if isinstance(y, Tensor) else _operand_for(y, x.dtype))


def _operand_for(value, dtype):
    """`value`, not a tensor, as the operand that meets a tensor of `dtype`."""
    numpy_fits = _numpy_fits(value, dtype)
    if numpy_fits or (numpy_fits is None and _fits(value, dtype)):
        return convert_to_tensor(value, dtype=dtype)
    if numpy_fits is None and isinstance(value, (bool, int, float)):
        raise _python_value_error(value, dtype)
    return convert_to_tensor(value)        # its own dtype: the op says that they differ


def _eager_scalar(value, dtype):
    """A Python float or int as an eager scalar of a float dtype (an int also of an int
    dtype it fits), with no graph being built; else None (the general path decides)."""
    if current_graph() is not None:
        return None
    if dtype.is_floating or (dtype.is_integer and type(value) is int
                             and dtype.min <= value <= dtype.max):
        if type(value) is float and not dtype.is_floating:
            return None
        return EagerTensor(np.array(value, dtype=dtype.np_dtype), dtype)
    return None


def _python_value_error(value, dtype) -> DTypeMismatchError:
    return DTypeMismatchError(
        f"cannot use the Python value {value!r} with a {dtype.name} tensor: a Python number "
        f"takes the dtype of the tensor it meets, and {value!r} is not a {dtype.name}; use "
        "rt.cast on the tensor or write the number in its dtype")


def _fits(value, dtype) -> bool:
    """Whether a Python value (numbers, nested lists of them) may silently take `dtype` (1
    may become 1.0; 2.5 not 2)."""
    if getattr(value, "_as_tensor", None) is not None:
        return False
    try:
        inferred = dtypes.infer_dtype(value)
    except TypeError:
        return False
    if inferred is dtype:
        return True
    if dtype.is_floating:
        return inferred.is_numeric
    if dtype.is_integer:
        return inferred.is_integer
    return False


def _numpy_fits(value, dtype) -> Optional[bool]:
    """For a numpy array or scalar, whether it takes the dtype of the tensor it meets, as
    TensorFlow converts it (`tf.constant([1.]) + np.ones(1)` is float32): an integer array
    becomes any integer or floating dtype (its values must fit an integer one: converting
    says so), a floating one any floating dtype (rounded, as by rt.cast); a bool array stays
    bool and a floating array never becomes an integer one. None for anything else."""
    if not isinstance(value, (np.ndarray, np.generic)):
        return None
    kind = value.dtype.kind
    return kind in "iu" if dtype.is_integer else kind in "iuf" if dtype.is_floating else (
        kind == dtype.np_dtype.kind)


def _named(fn, public_name: str, doc: str):
    fn.__name__ = fn.__qualname__ = public_name
    fn.__doc__ = doc
    return fn


def _make_unary(opdef):
    public_name = opdef.public_name

    def fn(x, name: Optional[str] = None):
        return apply_op(opdef, [convert_to_tensor(x)], name=name)
    return _named(fn, public_name, math_docs.unary_doc(public_name))


def _make_binary(opdef):
    public_name = opdef.public_name

    def fn(x, y, name: Optional[str] = None):
        return apply_op(opdef, list(binary_operands(x, y)), name=name)
    return _named(fn, public_name, math_docs.binary_doc(public_name))


negative = _make_unary(UNARY["Neg"])
abs = _make_unary(UNARY["Abs"])  # noqa: A001 - TensorFlow's name
sign = _make_unary(UNARY["Sign"])
square = _make_unary(UNARY["Square"])
sqrt = _make_unary(UNARY["Sqrt"])
exp = _make_unary(UNARY["Exp"])
log = _make_unary(UNARY["Log"])
tanh = _make_unary(UNARY["Tanh"])
sigmoid = _make_unary(UNARY["Sigmoid"])
sin = _make_unary(UNARY["Sin"])
cos = _make_unary(UNARY["Cos"])
logical_not = _make_unary(UNARY["LogicalNot"])

add = _make_binary(BINARY["AddV2"])
subtract = _make_binary(BINARY["Sub"])
multiply = _make_binary(BINARY["Mul"])
divide = _make_binary(BINARY["RealDiv"])
floordiv = _make_binary(BINARY["FloorDiv"])
mod = _make_binary(BINARY["FloorMod"])
pow = _make_binary(BINARY["Pow"])  # noqa: A001 - TensorFlow's name
maximum = _make_binary(BINARY["Maximum"])
minimum = _make_binary(BINARY["Minimum"])
equal = _make_binary(BINARY["Equal"])
not_equal = _make_binary(BINARY["NotEqual"])
less = _make_binary(BINARY["Less"])
less_equal = _make_binary(BINARY["LessEqual"])
greater = _make_binary(BINARY["Greater"])
greater_equal = _make_binary(BINARY["GreaterEqual"])
logical_and = _make_binary(BINARY["LogicalAnd"])
logical_or = _make_binary(BINARY["LogicalOr"])


# -- matmul -----------------------------------------------------------------------------

def _matmul_infer(inputs, transpose_a, transpose_b):
    a, b = inputs
    if a.dtype is not b.dtype:
        raise DTypeMismatchError(f"MatMul: the operands have different dtypes, {a.dtype.name} "
                                 f"and {b.dtype.name}; use rt.cast to make them match")
    check_kind("MatMul", a.dtype, NUMERIC)
    sa, sb = a.shape, b.shape
    if sa.rank is None or sb.rank is None:
        return [(TensorShape(None), a.dtype)]
    if sa.rank < 2 or sb.rank < 2:
        raise InvalidArgumentError(f"MatMul needs tensors of rank >= 2, got shapes {sa} and {sb}")
    m, ka = (sa[-1], sa[-2]) if transpose_a else (sa[-2], sa[-1])
    kb, n = (sb[-1], sb[-2]) if transpose_b else (sb[-2], sb[-1])
    if ka is not None and kb is not None and ka != kb:
        raise InvalidArgumentError(f"Matrix size-incompatible: In[0]: {sa}, In[1]: {sb}")
    batch = shape_utils.broadcast(sa[:-2], sb[:-2], "MatMul batch dimensions")
    return [(batch + TensorShape([m, n]), a.dtype)]


def _matmul_kernel(a, b, transpose_a, transpose_b):
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b)


def _matmul_grad(inputs, outputs, grads, transpose_a, transpose_b):
    a, b = inputs
    g = grads[0]
    ga = gb = None
    if _wanted(0):
        ga = (matmul(g, b, transpose_b=not transpose_b) if not transpose_a
              else matmul(b, g, transpose_a=transpose_b, transpose_b=True))
        ga = _sum_to(ga, a)
    if _wanted(1):
        gb = (matmul(a, g, transpose_a=not transpose_a) if not transpose_b
              else matmul(g, a, transpose_a=True, transpose_b=transpose_a))
        gb = _sum_to(gb, b)
    return [ga, gb]


MATMUL = OpDef("MatMul", _matmul_infer, _matmul_kernel, allocates=True, grad=_matmul_grad,
               emit=lambda op, args: (None if op.attrs["transpose_a"] or op.attrs["transpose_b"]
                                      else f"({args[0]} @ {args[1]})"))


def matmul(a, b, transpose_a: bool = False, transpose_b: bool = False, name: Optional[str] = None):
    """Matrix product `a @ b` of the innermost two dimensions (the `@` operator).

    Leading (batch) dimensions broadcast. Both operands must have one numeric dtype
    (else DTypeMismatchError) and rank >= 2; inner dimensions that differ raise
    InvalidArgumentError.

    Args:
      a: a tensor of rank >= 2, shape `[..., m, k]` (`[..., k, m]` with transpose_a).
      b: a tensor of a's dtype, shape `[..., k, n]` (`[..., n, k]` with transpose_b).
      transpose_a: whether to transpose the last two dimensions of `a` first.
      transpose_b: whether to transpose the last two dimensions of `b` first.
      name: an optional name for the op.

    Returns:
      A tensor of shape `[..., m, n]` and a's dtype.

    >>> rt.matmul(rt.constant([[1, 2], [3, 4]]), rt.constant([[1], [1]]))
    <rt.Tensor: shape=(2, 1), dtype=int32, numpy=
    array([[3],
           [7]], dtype=int32)>
    >>> rt.matmul(rt.ones([2, 3]), rt.ones([2, 3]), transpose_b=True).shape
    TensorShape([2, 2])
    """
    a, b = binary_operands(a, b)
    return apply_op(MATMUL, [a, b], {"transpose_a": bool(transpose_a),
                                     "transpose_b": bool(transpose_b)}, name=name)


# -- where, cast ------------------------------------------------------------------------

def _select_infer(inputs):
    c, x, y = inputs
    if not c.dtype.is_bool:
        raise InvalidArgumentError(f"rt.where needs a bool condition, got {c.dtype.name}")
    if x.dtype is not y.dtype:
        raise DTypeMismatchError(f"rt.where: x and y have different dtypes, {x.dtype.name} and "
                                 f"{y.dtype.name}")
    shape = shape_utils.broadcast(shape_utils.broadcast(c.shape, x.shape, "where"), y.shape, "where")
    return [(shape, x.dtype)]


def _select_grad(inputs, outputs, grads):
    c, x, y = inputs
    gx, gy = _select_between(c, grads[0])
    return [None, _sum_to(gx, x), _sum_to(gy, y)]


SELECT = OpDef("SelectV2", _select_infer, np.where, grad=_select_grad)


def _where_indices_infer(inputs):
    c = inputs[0]
    return [(TensorShape([None, c.shape.rank]), dtypes.int64)]


def _where_indices(c):
    return np.argwhere(c).astype(np.int64)


WHERE_INDICES = OpDef("Where", _where_indices_infer, _where_indices)


def where(condition, x=None, y=None, name: Optional[str] = None):
    """Elementwise choice `x if condition else y` (broadcasting); with only `condition`,
    the indices of its True elements.

    Args:
      condition: a bool tensor (else InvalidArgumentError).
      x: the values where `condition` is True (a tensor, or what converts to one).
      y: the values where it is False, of x's dtype (a Python number adopts it).
      name: an optional name for the op.

    Returns:
      With x and y: a tensor of the broadcast shape of the three and x's dtype. With
      neither: an int64 tensor of shape `[number of True elements, rank of condition]`.
      Passing only one of x and y raises ValueError.

    >>> rt.where(rt.constant([True, False]), rt.constant([1, 2]), 0)
    <rt.Tensor: shape=(2,), dtype=int32, numpy=array([1, 0], dtype=int32)>
    >>> rt.where(rt.constant([[True, False], [False, True]]))
    <rt.Tensor: shape=(2, 2), dtype=int64, numpy=
    array([[0, 0],
           [1, 1]])>
    """
    c = convert_to_tensor(condition)
    if x is None and y is None:
        return apply_op(WHERE_INDICES, [c], name=name)
    if x is None or y is None:
        raise ValueError("rt.where needs both x and y, or neither")
    x, y = binary_operands(x, y)
    return apply_op(SELECT, [c, x, y], name=name)


def _cast_infer(inputs, dtype):
    return [(inputs[0].shape, dtype)]


def _cast_kernel(x, dtype):
    if dtype.is_string:
        raise InvalidArgumentError("Cast to string is not supported; use rt.strings.as_string")
    if x.dtype == object:
        raise InvalidArgumentError("Cast from string is not supported")
    return np.asarray(x).astype(dtype.np_dtype)


def _cast_grad(inputs, outputs, grads, dtype):
    x = inputs[0]
    if x.dtype.is_floating and dtype.is_floating:
        return [cast(grads[0], x.dtype)]
    return [None]  # through an integer or bool value no gradient flows


CAST = OpDef("Cast", _cast_infer, _cast_kernel, grad=_cast_grad)


def cast(x, dtype, name: Optional[str] = None):
    """Converts `x` to `dtype`, elementwise (numpy's conversion: floats to integers
    truncate towards zero).

    A tensor that already has `dtype` is returned as is. Casting to or from string raises
    InvalidArgumentError (use rt.strings.as_string). The gradient flows between floating
    dtypes only.

    Args:
      x: a tensor (or what converts to one).
      dtype: the dtype to convert to (an rt dtype or a name such as "float32").
      name: an optional name for the op.

    Returns:
      A tensor of x's shape and dtype `dtype`.

    >>> rt.cast(rt.constant([1.7, -1.7]), rt.int32)
    <rt.Tensor: shape=(2,), dtype=int32, numpy=array([ 1, -1], dtype=int32)>
    >>> rt.cast(rt.constant([0, 2]), "bool")
    <rt.Tensor: shape=(2,), dtype=bool, numpy=array([False,  True])>
    """
    x = convert_to_tensor(x)
    dtype = dtypes.as_dtype(dtype)
    if x.dtype is dtype:
        return x
    return apply_op(CAST, [x], {"dtype": dtype}, name=name)


OPS = [*UNARY.values(), *BINARY.values(), MATMUL, SELECT, WHERE_INDICES, CAST]


_zeros_like, _ones_like = zeros_like, ones_like
