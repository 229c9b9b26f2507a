"""The docstrings of the elementwise ops that math_ops.py makes from its tables (kept here
so that math_ops.py stays short): a summary, notes and an example per public name; the
Args and Returns sections follow from the op's arity and the dtypes it accepts."""
from __future__ import annotations

import textwrap

_BINARY_NOTES = """\
Broadcasts `x` and `y` against each other (numpy's rules). Both must have one dtype: a
Python number takes the dtype of the tensor it meets (`1` may become `1.0`, but `2.5`
never becomes an integer), and operands of different dtypes raise DTypeMismatchError
(use rt.cast first); a dtype the op does not accept raises InvalidArgumentError. Eagerly
the result is computed at once; inside rt.function it is a node of the graph."""

_UNARY_NOTES = """\
Eagerly the result is computed at once; inside rt.function it is a node of the graph.
A tensor of a dtype the op does not accept raises InvalidArgumentError."""

# public name: (summary, accepted dtypes, result, extra notes, example)
UNARY = {
    "negative": ("Numerical negative, elementwise: `-x`.", "numeric", None, "", """
        >>> rt.negative(rt.constant([1, -2]))
        <rt.Tensor: shape=(2,), dtype=int32, numpy=array([-1,  2], dtype=int32)>
        """),
    "abs": ("Absolute value, elementwise: `|x|`.", "numeric", None, "", """
        >>> rt.abs(rt.constant([-1.5, 2.0]))
        <rt.Tensor: shape=(2,), dtype=float32, numpy=array([1.5, 2. ], dtype=float32)>
        """),
    "sign": ("Sign, elementwise: -1, 0 or 1 (in `x`'s dtype).", "numeric", None, "", """
        >>> rt.sign(rt.constant([-3, 0, 5]))
        <rt.Tensor: shape=(3,), dtype=int32, numpy=array([-1,  0,  1], dtype=int32)>
        """),
    "square": ("Square, elementwise: `x * x`.", "numeric", None, "", """
        >>> rt.square(rt.constant([2, -3]))
        <rt.Tensor: shape=(2,), dtype=int32, numpy=array([4, 9], dtype=int32)>
        """),
    "sqrt": ("Square root, elementwise.", "floating-point", None,
             "A negative element gives nan. ", """
        >>> rt.sqrt(rt.constant([4.0, 9.0]))
        <rt.Tensor: shape=(2,), dtype=float32, numpy=array([2., 3.], dtype=float32)>
        """),
    "exp": ("Exponential, elementwise: `e ** x`.", "floating-point", None, "", """
        >>> rt.exp(rt.constant([0.0, 1.0]))
        <rt.Tensor: shape=(2,), dtype=float32, numpy=array([1.      , 2.718282],
          dtype=float32)>
        """),
    "log": ("Natural logarithm, elementwise.", "floating-point", None,
            "0 gives -inf and a negative element nan. ", """
        >>> rt.log(rt.constant([1.0, 100.0]))
        <rt.Tensor: shape=(2,), dtype=float32, numpy=array([0.       , 4.6051702],
          dtype=float32)>
        """),
    "tanh": ("Hyperbolic tangent, elementwise.", "floating-point", None, "", """
        >>> rt.tanh(rt.constant([0.0, 1.0]))
        <rt.Tensor: shape=(2,), dtype=float32, numpy=array([0.       , 0.7615942],
          dtype=float32)>
        """),
    "sigmoid": ("Logistic sigmoid, elementwise: `1 / (1 + exp(-x))`.", "floating-point",
                None, "", """
        >>> rt.sigmoid(rt.constant([0.0, 2.0]))
        <rt.Tensor: shape=(2,), dtype=float32, numpy=array([0.5     , 0.880797],
          dtype=float32)>
        """),
    "sin": ("Sine, elementwise (radians).", "floating-point", None, "", """
        >>> rt.sin(rt.constant([0.0, 1.5707964]))
        <rt.Tensor: shape=(2,), dtype=float32, numpy=array([0., 1.], dtype=float32)>
        """),
    "cos": ("Cosine, elementwise (radians).", "floating-point", None, "", """
        >>> rt.cos(rt.constant([0.0, 3.1415927]))
        <rt.Tensor: shape=(2,), dtype=float32, numpy=array([ 1., -1.], dtype=float32)>
        """),
    "logical_not": ("Logical NOT, elementwise.", "bool", None, "", """
        >>> rt.logical_not(rt.constant([True, False]))
        <rt.Tensor: shape=(2,), dtype=bool, numpy=array([False,  True])>
        """),
}

BINARY = {
    "add": ("Sum, elementwise: `x + y` (the `+` operator).", "numeric or string",
            "of x's dtype", "On string tensors it joins the strings. ", """
        >>> rt.add(rt.constant([1, 2]), 3)
        <rt.Tensor: shape=(2,), dtype=int32, numpy=array([4, 5], dtype=int32)>
        >>> rt.add(rt.constant(["a"]), rt.constant(["b"]))
        <rt.Tensor: shape=(1,), dtype=string, numpy=array([b'ab'], dtype=object)>
        """),
    "subtract": ("Difference, elementwise: `x - y` (the `-` operator).", "numeric",
                 "of x's dtype", "", """
        >>> rt.subtract(rt.constant([5.0, 1.0]), rt.constant([2.0, 3.0]))
        <rt.Tensor: shape=(2,), dtype=float32, numpy=array([ 3., -2.], dtype=float32)>
        """),
    "multiply": ("Product, elementwise: `x * y` (the `*` operator).", "numeric",
                 "of x's dtype", "", """
        >>> rt.multiply(rt.constant([[1, 2], [3, 4]]), rt.constant([10, 100]))
        <rt.Tensor: shape=(2, 2), dtype=int32, numpy=
        array([[ 10, 200],
               [ 30, 400]], dtype=int32)>
        """),
    "divide": ("True division, elementwise: `x / y` (the `/` operator).", "numeric",
               "of dtype float64 for integer\n  inputs (as in TensorFlow), else of x's dtype",
               "Integers are divided as float64; a float divided by zero gives inf or nan. ",
               """
        >>> rt.divide(rt.constant([1, 3]), 2)
        <rt.Tensor: shape=(2,), dtype=float64, numpy=array([0.5, 1.5])>
        >>> rt.divide(rt.constant([1.0, 3.0]), 2.0)
        <rt.Tensor: shape=(2,), dtype=float32, numpy=array([0.5, 1.5], dtype=float32)>
        """),
    "floordiv": ("Floor division, elementwise: `x // y` (rounded towards -inf).", "numeric",
                 "of x's dtype", "An integer division by zero raises InvalidArgumentError. ", """
        >>> rt.floordiv(rt.constant([7, -7]), 2)
        <rt.Tensor: shape=(2,), dtype=int32, numpy=array([ 3, -4], dtype=int32)>
        """),
    "mod": ("Floor modulo, elementwise: `x % y` (the result has the sign of `y`).",
            "numeric", "of x's dtype", "An integer division by zero raises InvalidArgumentError. ",
            """
        >>> rt.mod(rt.constant([7, -7]), 3)
        <rt.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>
        """),
    "pow": ("Power, elementwise: `x ** y`.", "numeric", "of x's dtype", "", """
        >>> rt.pow(rt.constant([2.0, 3.0]), 2.0)
        <rt.Tensor: shape=(2,), dtype=float32, numpy=array([4., 9.], dtype=float32)>
        """),
    "maximum": ("The larger of `x` and `y`, elementwise.", "numeric", "of x's dtype", "", """
        >>> rt.maximum(rt.constant([1, 5]), rt.constant([3, 2]))
        <rt.Tensor: shape=(2,), dtype=int32, numpy=array([3, 5], dtype=int32)>
        """),
    "minimum": ("The smaller of `x` and `y`, elementwise.", "numeric", "of x's dtype", "", """
        >>> rt.minimum(rt.constant([1, 5]), rt.constant([3, 2]))
        <rt.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>
        """),
    "equal": ("Whether `x == y`, elementwise.", "any", "of dtype bool", "", """
        >>> rt.equal(rt.constant([1, 2]), 2)
        <rt.Tensor: shape=(2,), dtype=bool, numpy=array([False,  True])>
        """),
    "not_equal": ("Whether `x != y`, elementwise.", "any", "of dtype bool", "", """
        >>> rt.not_equal(rt.constant([1, 2]), 2)
        <rt.Tensor: shape=(2,), dtype=bool, numpy=array([ True, False])>
        """),
    "less": ("Whether `x < y`, elementwise.", "numeric", "of dtype bool", "", """
        >>> rt.less(rt.constant([1, 2, 3]), 2)
        <rt.Tensor: shape=(3,), dtype=bool, numpy=array([ True, False, False])>
        """),
    "less_equal": ("Whether `x <= y`, elementwise.", "numeric", "of dtype bool", "", """
        >>> rt.less_equal(rt.constant([1, 2, 3]), 2)
        <rt.Tensor: shape=(3,), dtype=bool, numpy=array([ True,  True, False])>
        """),
    "greater": ("Whether `x > y`, elementwise.", "numeric", "of dtype bool", "", """
        >>> rt.greater(rt.constant([1, 2, 3]), 2)
        <rt.Tensor: shape=(3,), dtype=bool, numpy=array([False, False,  True])>
        """),
    "greater_equal": ("Whether `x >= y`, elementwise.", "numeric", "of dtype bool", "", """
        >>> rt.greater_equal(rt.constant([1, 2, 3]), 2)
        <rt.Tensor: shape=(3,), dtype=bool, numpy=array([False,  True,  True])>
        """),
    "logical_and": ("Logical AND, elementwise.", "bool", "of x's dtype", "", """
        >>> rt.logical_and(rt.constant([True, True]), rt.constant([True, False]))
        <rt.Tensor: shape=(2,), dtype=bool, numpy=array([ True, False])>
        """),
    "logical_or": ("Logical OR, elementwise.", "bool", "of x's dtype", "", """
        >>> rt.logical_or(rt.constant([False, False]), rt.constant([True, False]))
        <rt.Tensor: shape=(2,), dtype=bool, numpy=array([ True, False])>
        """),
}


def _paragraph(text: str) -> str:
    return textwrap.fill(" ".join(text.split()), 88)


def _a(kind: str) -> str:
    return "any" if kind == "any" else f"a {kind}"


def unary_doc(name: str) -> str:
    summary, kind, _, notes, example = UNARY[name]
    return (f"{summary}\n\n{_paragraph(notes + _UNARY_NOTES)}\n\nArgs:\n"
            f"  x: a tensor (or what converts to one) of {_a(kind)} dtype.\n"
            "  name: an optional name for the op.\n\n"
            "Returns:\n  A tensor of x's shape and dtype.\n\n"
            f"{textwrap.dedent(example).strip()}\n")


def binary_doc(name: str) -> str:
    summary, kind, result, notes, example = BINARY[name]
    return (f"{summary}\n\n{_paragraph(notes + _BINARY_NOTES)}\n\nArgs:\n"
            f"  x: a tensor (or what converts to one) of {_a(kind)} dtype.\n"
            "  y: a tensor (or what converts to one) of x's dtype.\n"
            "  name: an optional name for the op.\n\n"
            f"Returns:\n  A tensor of the broadcast shape of x and y, {result}.\n\n"
            f"{textwrap.dedent(example).strip()}\n")
