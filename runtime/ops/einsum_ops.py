"""`rt.einsum` (the Einsum op): Einstein summation as TensorFlow's tf.einsum and numpy's
np.einsum spell it ("ij,jk->ik", "...ij->...ji", implicit output "ij,jk").

The equation is kept explicit ("->" always present). The gradient for an operand is
itself an einsum: the output's gradient with the other operands, to that operand's
subscripts (labels only that operand has are summed in the forward pass, so their
gradient is broadcast back).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core.shapes import TensorShape
from ..errors import InvalidArgumentError
from . import array_ops, broadcast_ops, math_ops, shape_utils
from .core import OpDef, apply_op, convert_to_tensor, same_dtype, zeros_like

ELLIPSIS = "."  # "..." is kept as one character in the parsed subscripts


def _split_terms(s):
    if s.count("...") > 1 or s.count(".") != 3 * s.count("..."):
        raise InvalidArgumentError(f"einsum: invalid ellipsis in {s!r} (write '...')")
    return s.replace("...", ELLIPSIS)


def parse(equation: str, n: int):
    """(input subscripts, output subscripts) of an equation for n operands, with "..."
    as one '.' character; the output of an implicit equation is numpy's."""
    if not isinstance(equation, str):
        raise TypeError(f"einsum: the equation must be a string, got {equation!r}")
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    ins = [_split_terms(t) for t in lhs.split(",")]
    if len(ins) != n:
        raise InvalidArgumentError(f"einsum: the equation {equation!r} names {len(ins)} "
                                   f"operands but {n} were given")
    for t in ins:
        for c in t:
            if c != ELLIPSIS and not c.isalpha():
                raise InvalidArgumentError(f"einsum: invalid subscript {c!r} in {equation!r}")
    if arrow:
        out = _split_terms(rhs)
        for c in out:
            if c != ELLIPSIS and not any(c in t for t in ins):
                raise InvalidArgumentError(f"einsum: output subscript {c!r} of {equation!r} "
                                           "appears in no input")
            if out.count(c) > 1:
                raise InvalidArgumentError(f"einsum: output subscript {c!r} of {equation!r} "
                                           "appears more than once")
    else:
        joined = "".join(ins)
        out = (ELLIPSIS if ELLIPSIS in joined else "") + "".join(
            sorted(c for c in set(joined) if c != ELLIPSIS and joined.count(c) == 1))
    return ins, out


def unparse(ins, out) -> str:
    return ",".join(ins).replace(ELLIPSIS, "...") + "->" + out.replace(ELLIPSIS, "...")


def _einsum_infer(inputs, equation):
    dtype = same_dtype("Einsum", inputs)
    if not dtype.is_numeric:
        raise InvalidArgumentError(f"Einsum does not accept {dtype.name} tensors")
    ins, out = parse(equation, len(inputs))
    sizes, ellipsis = {}, TensorShape([])
    for t, x in zip(ins, inputs):
        if x.shape.rank is None:
            if ELLIPSIS in out:
                ellipsis = None
            continue
        dims = x.shape.as_list()
        letters = len(t) - (1 if ELLIPSIS in t else 0)
        if (ELLIPSIS not in t and letters != len(dims)) or letters > len(dims):
            raise InvalidArgumentError(
                f"einsum: operand of shape {x.shape} does not fit subscripts "
                f"{t.replace(ELLIPSIS, '...')!r} of {equation!r}")
        if ELLIPSIS in t:
            k = t.index(ELLIPSIS)
            extra = len(dims) - letters
            part, dims = dims[k:k + extra], dims[:k] + dims[k + extra:]
            if ellipsis is not None:
                ellipsis = shape_utils.broadcast(ellipsis, TensorShape(part), "einsum '...'")
        for c, d in zip(t.replace(ELLIPSIS, ""), dims):
            known = sizes.get(c)
            if d is not None and known is not None and d != known:
                raise InvalidArgumentError(
                    f"einsum: subscript {c!r} of {equation!r} has sizes {known} and {d}")
            if d is not None:
                sizes[c] = d
            else:
                sizes.setdefault(c, None)
    dims = []
    for c in out:
        if c == ELLIPSIS:
            if ellipsis is None or ellipsis.rank is None:
                return [(TensorShape(None), dtype)]
            dims.extend(ellipsis.as_list())
        else:
            dims.append(sizes.get(c))
    return [(TensorShape(dims), dtype)]


def _einsum_kernel(*xs, equation):
    try:
        # numpy's own loop unless the contraction is large (then BLAS: 25x faster on
        # 128x512 operands; the search for a path costs ~60 us, too much for small ones)
        large = len(xs) > 2 or sum(np.size(x) for x in xs) > 16384
        return np.asarray(np.einsum(equation, *xs, optimize=large))
    except ValueError as e:
        raise InvalidArgumentError(f"einsum {equation!r}: {e}") from None


def _einsum_grad(inputs, outputs, grads, equation):
    ins, out = parse(equation, len(inputs))
    g = grads[0]
    result = []
    for i, (t, x) in enumerate(zip(ins, inputs)):
        if not x.dtype.is_floating:
            result.append(None)
            continue
        if len(set(t)) != len(t):
            raise ValueError(f"the gradient of einsum {equation!r} is not available: operand "
                             f"{i} repeats a subscript (a diagonal)")
        others = ins[:i] + ins[i + 1:]
        elsewhere = out + "".join(others)
        if ELLIPSIS in t and ELLIPSIS not in out:
            raise ValueError(f"the gradient of einsum {equation!r} is not available: the "
                             "output leaves out the operands' '...' dimensions")
        kept = "".join(c for c in t if c in elsewhere)
        gi = apply_op(EINSUM, [g, *inputs[:i], *inputs[i + 1:]],
                      {"equation": unparse([out, *others], kept)})
        if kept != t:  # labels only this operand has: summed forward, broadcast back
            gi = _expand_missing(gi, t, elsewhere)
            gi = math_ops.add(gi, zeros_like(x))
        result.append(broadcast_ops.sum_to(gi, x) if ELLIPSIS in t else gi)
    return result


EINSUM = OpDef("Einsum", _einsum_infer, _einsum_kernel, allocates=True, grad=_einsum_grad)


def _expand_missing(gi, t, elsewhere):
    """`gi` (subscripts: those of `t` found `elsewhere`) with a dimension of 1 for each
    subscript of `t` that is not: left to right before the '...', right to left after."""
    k = t.index(ELLIPSIS) if ELLIPSIS in t else len(t)
    for pos in range(k):
        if t[pos] not in elsewhere:
            gi = array_ops.expand_dims(gi, pos)
    for pos in range(len(t) - 1, k, -1):
        if t[pos] not in elsewhere:
            gi = array_ops.expand_dims(gi, pos - len(t))
    return gi


OPS = [EINSUM]


def einsum(equation, *inputs, name: Optional[str] = None, **kwargs):
    """Einstein summation (TensorFlow's tf.einsum): the product of the operands summed
    over the subscripts the output leaves out.

    A subscript that has different sizes in two places raises InvalidArgumentError.

    Args:
      equation: a string such as "ij,jk->ik" ("..." stands for leading dimensions,
        broadcast; without "->" the output is the subscripts used once, sorted).
      *inputs: tensors (or what converts to them) of one numeric dtype, one per operand of
        the equation (a single list of them also works).
      name: an optional name for the op.

    Returns:
      A tensor of the operands' dtype, with one dimension per output subscript.

    >>> rt.einsum("ij,j->i", rt.constant([[1.0, 2.0], [3.0, 4.0]]), rt.constant([1.0, 1.0]))
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([3., 7.], dtype=float32)>
    >>> rt.einsum("ii", rt.constant([[1, 2], [3, 4]]))
    <rt.Tensor: shape=(), dtype=int32, numpy=5>
    >>> rt.einsum("bij,bjk->bik", rt.ones([5, 2, 3]), rt.ones([5, 3, 4])).shape
    TensorShape([5, 2, 4])
    """
    if kwargs:
        raise TypeError(f"einsum: unexpected arguments {sorted(kwargs)}")
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)) and inputs[0] and \
            not isinstance(inputs[0][0], (int, float, list, tuple)):
        inputs = tuple(inputs[0])
    if not inputs:
        raise ValueError("einsum needs at least one operand")
    xs = [convert_to_tensor(x) for x in inputs]
    ins, out = parse(equation, len(xs))
    return apply_op(EINSUM, xs, {"equation": unparse(ins, out)}, name=name)
