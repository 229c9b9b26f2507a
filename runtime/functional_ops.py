"""Higher-order functions over the first axis, as TensorFlow's: `map_fn`, `scan`,
`foldl`, `foldr`, and `switch_case`.

In a graph each of the first four is ONE `while_loop` node (whatever the number of
elements), its results gathered in TensorArrays; eagerly they loop in Python. `fn` is
converted by autograph, so an `if` or a `while` on tensors inside it is staged too.
`switch_case` stages a chain of `cond` nodes.
"""
from __future__ import annotations

from typing import Callable, Optional

import autograph as ag

from . import nest
from .control_flow import cond, while_loop
from .core import dtypes
from .core.graph import current_graph
from .core.shapes import TensorShape, TensorSpec
from .core.tensor import Tensor
from .errors import InvalidArgumentError
from .ops.array_ops import shape as shape_of
from .ops.array_ops import stack
from .ops.core import constant, convert_to_tensor
from .ops.makers import zeros
from .ops.math_ops import equal, less
from .ops.tensor_array import TensorArray


def element_tensors(elems, caller: str = "") -> list:
    """The tensors of `elems` (a nest), each with a first dimension to iterate over;
    `caller` ("vectorized_map: ") starts the messages of the errors."""
    leaves = [convert_to_tensor(e) for e in nest.flatten(elems)]
    if not leaves:
        raise ValueError(f"{caller}elems must hold at least one tensor")
    for t in leaves:
        if t.shape.rank == 0:
            raise ValueError(f"{caller}elems must have a first dimension to iterate over; "
                             f"got the scalar {t!r}")
    return leaves


def _length(leaves):
    """The number of elements: a Python int when known while tracing, else a tensor."""
    first = leaves[0].shape[0]
    for t in leaves[1:]:
        d = t.shape[0]
        if first is not None and d is not None and d != first:
            raise ValueError(f"all elems must have the same first dimension: {first} and {d}")
    return first if first is not None else shape_of(leaves[0])[0]


def _stacked(ta, n):
    """`ta.stack()`, its first dimension `n` when that is known while tracing."""
    t = ta.stack()
    if isinstance(n, int) and t.shape.rank is not None and t.shape.rank >= 1:
        t.set_shape(TensorShape([n] + [None] * (t.shape.rank - 1)))
    return t


def _no_elements(element_shape: TensorShape, dtype):
    """The stack of no elements: shape [0] + element_shape, or [0] where that is not
    fully known (TensorFlow's eager TensorArray.stack of nothing)."""
    shape = element_shape.as_list() if element_shape.is_fully_defined() else []
    return zeros([0] + shape, dtype)


def _convert(fn: Callable) -> Callable:
    return ag.for_staging(fn) if current_graph() is not None else fn


def _dtypes_of(signature, like) -> tuple:
    """(the dtype of each output leaf, the output structure or None): from `signature` (a
    DType, TensorSpec or a nest of them), else the dtypes of `like` and None."""
    if signature is None:
        return [t.dtype for t in like], None
    flat = nest.flatten(signature)
    out = [s.dtype if isinstance(s, TensorSpec) else dtypes.as_dtype(s) for s in flat]
    return out, signature


def _check_structure(result, template, what: str):
    if template is not None and not nest.same_structure(result, template):
        raise ValueError(f"{what} returned {nest.structure_repr(result)}, which does not match "
                         f"the expected structure {nest.structure_repr(template)}: give "
                         "fn_output_signature (or dtype) with fn's output structure")


def map_fn(fn: Callable, elems, dtype=None, parallel_iterations: Optional[int] = None,
           back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True,
           name: Optional[str] = None, fn_output_signature=None):
    """`fn` applied to each element of `elems` along its first axis; the results stacked.

    `elems` is a tensor or a nest of tensors with the same first dimension (`fn` gets the
    element in the same nest). `fn_output_signature` (or the older `dtype`) is needed when
    `fn`'s output differs in structure or dtype from `elems`. Eagerly `fn` runs once per
    element; in a graph this is one while loop.

    Args:
      fn: a callable taking one element (a nest like `elems`).
      elems: a tensor or a nest of tensors, unstacked along their first axis.
      dtype: the older name of fn_output_signature.
      parallel_iterations: accepted for TensorFlow's signature; unused.
      back_prop: accepted for TensorFlow's signature; unused.
      swap_memory: accepted for TensorFlow's signature; unused.
      infer_shape: whether the stacked results must all have one shape.
      name: an optional name for the loop.
      fn_output_signature: a DType, TensorSpec or nest of them: fn's output per element.

    Returns:
      A tensor (or nest of them, shaped like fn's output) with the results stacked along a
      new first axis.

    >>> print(rt.map_fn(lambda x: x * x, rt.constant([1, 2, 3])))
    rt.Tensor([1 4 9], shape=(3,), dtype=int32)
    >>> print(rt.map_fn(lambda x: rt.cast(x, rt.float32) / 2, rt.constant([1, 2, 3]),
    ...                 fn_output_signature=rt.float32))
    rt.Tensor([0.5 1.  1.5], shape=(3,), dtype=float32)
    """
    signature = fn_output_signature if fn_output_signature is not None else dtype
    leaves = element_tensors(elems)
    fn = _convert(fn)

    def element(i):
        return nest.pack_sequence_as(elems, [t[i] for t in leaves])

    out_dtypes, template = _dtypes_of(signature, leaves)
    n = _length(leaves)
    if current_graph() is None:
        results = [fn(element(i)) for i in range(int(n))]
        if not results:
            # as TensorFlow's: [0] + the element shape of fn_output_signature (that of
            # elems' elements by default), or [0] where that is not fully known
            shapes = ([t.shape[1:] for t in leaves] if template is None else
                      [s.shape if isinstance(s, TensorSpec) else TensorShape(None)
                       for s in nest.flatten(template)])
            return nest.pack_sequence_as(template if template is not None else elems, [
                _no_elements(s, d) for s, d in zip(shapes, out_dtypes)])
        template = template if template is not None else elems
        for r in results:
            _check_structure(r, template, "map_fn's fn")
        columns = zip(*[nest.flatten(r) for r in results])
        return nest.pack_sequence_as(
            template, [stack([convert_to_tensor(v, dtype=d) for v in col])
                       for col, d in zip(columns, out_dtypes)])
    shapes = ([s.shape if isinstance(s, TensorSpec) else None for s in nest.flatten(template)]
              if template is not None else [None] * len(out_dtypes))
    template = template if template is not None else elems
    arrays = [TensorArray(d, size=n, infer_shape=infer_shape, element_shape=s)
              for d, s in zip(out_dtypes, shapes)]

    def body(i, *tas):
        result = fn(element(i))
        _check_structure(result, template, "map_fn's fn")
        values = [convert_to_tensor(v, dtype=d) for v, d in zip(nest.flatten(result), out_dtypes)]
        return (i + 1, *[ta.write(i, v) for ta, v in zip(tas, values)])

    outs = while_loop(lambda i, *tas: less(i, n), body, (constant(0), *arrays), name=name)
    return nest.pack_sequence_as(template, [_stacked(ta, n) for ta in outs[1:]])


def _scan(fn, elems, initializer, reverse: bool, keep_all: bool, name, what: str):
    leaves = element_tensors(elems)
    fn = _convert(fn)
    n = _length(leaves)

    def element(i):
        return nest.pack_sequence_as(elems, [t[i] for t in leaves])

    first_index = n - 1 if reverse else 0
    step = -1 if reverse else 1
    if initializer is None:
        if isinstance(n, int) and n == 0:
            raise InvalidArgumentError(
                f"{what} of no elements needs an initializer: elems has 0 elements along "
                "its first axis, and without initializer the first element starts the "
                "accumulator")
        acc = element(first_index)
        start = first_index + step
        count = n - 1
    else:
        acc = nest.map_structure(convert_to_tensor, initializer)
        start = first_index
        count = n
    template = acc
    acc_leaves = [convert_to_tensor(a) for a in nest.flatten(acc)]
    acc_dtypes = [a.dtype for a in acc_leaves]
    if current_graph() is None:
        outputs = [acc] if initializer is None else []
        i, remaining = int(start), int(count)
        for _ in range(remaining):
            acc = fn(acc, element(i))
            _check_structure(acc, template, "the function")
            outputs.append(acc)
            i += step
        if not keep_all:
            return acc
        if not outputs:  # no elements: [0] + the accumulator's shape, as TensorFlow's
            return nest.pack_sequence_as(template, [_no_elements(a.shape, a.dtype)
                                                    for a in acc_leaves])
        if reverse:
            outputs.reverse()
        return nest.pack_sequence_as(template, [
            stack([convert_to_tensor(v, dtype=d) for v in col])
            for col, d in zip(zip(*[nest.flatten(o) for o in outputs]), acc_dtypes)])
    arrays = ([TensorArray(a.dtype, size=n, infer_shape=True, element_shape=a.shape)
               for a in acc_leaves] if keep_all else [])
    if keep_all and initializer is None:
        arrays = [ta.write(first_index, a) for ta, a in zip(arrays, acc_leaves)]
    k = len(acc_leaves)

    def body(j, i, *state):
        acc_now = nest.pack_sequence_as(template, list(state[:k]))
        new = fn(acc_now, element(i))
        _check_structure(new, template, "the function")
        new_leaves = [convert_to_tensor(v, dtype=d) for v, d in zip(nest.flatten(new), acc_dtypes)]
        tas = [ta.write(i, v) for ta, v in zip(state[k:], new_leaves)]
        return (j + 1, i + step, *new_leaves, *tas)

    outs = while_loop(lambda j, i, *state: less(j, count), body,
                      (constant(0), convert_to_tensor(start, dtype=dtypes.int32),
                       *acc_leaves, *arrays), name=name)
    if not keep_all:
        return nest.pack_sequence_as(template, list(outs[2:2 + k]))
    return nest.pack_sequence_as(template, [_stacked(ta, n) for ta in outs[2 + k:]])


def scan(fn: Callable, elems, initializer=None, parallel_iterations: int = 10,
         back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True,
         reverse: bool = False, name: Optional[str] = None):
    """The running accumulation `a = fn(a, x)` over the elements `x` of `elems`, every `a` stacked.

    Elements are taken along the first axis. Without `initializer` the first element starts
    `a` (and is the first result). `reverse=True` goes from the last element (results keep
    the elements' order). One while loop in a graph.

    Args:
      fn: a callable (a, x) -> new a, keeping a's structure and dtypes.
      elems: a tensor or a nest of tensors, unstacked along their first axis.
      initializer: the first `a` (a tensor or nest); default the first element.
      parallel_iterations: accepted for TensorFlow's signature; unused.
      back_prop: accepted for TensorFlow's signature; unused.
      swap_memory: accepted for TensorFlow's signature; unused.
      infer_shape: accepted for TensorFlow's signature; unused.
      reverse: scan from the last element to the first.
      name: an optional name for the loop.

    Returns:
      The stacked values of `a` (a nest like `a`), one per element.

    >>> print(rt.scan(lambda a, x: a + x, rt.constant([1, 2, 3, 4])))
    rt.Tensor([ 1  3  6 10], shape=(4,), dtype=int32)
    >>> print(rt.scan(lambda a, x: a + x, rt.constant([1, 2, 3, 4]), initializer=10,
    ...               reverse=True))
    rt.Tensor([20 19 17 14], shape=(4,), dtype=int32)
    """
    return _scan(fn, elems, initializer, reverse, True, name, "scan")


def foldl(fn: Callable, elems, initializer=None, parallel_iterations: int = 10,
          back_prop: bool = True, swap_memory: bool = False, name: Optional[str] = None):
    """The accumulation `a = fn(a, x)` over the elements of `elems` from the first; the last `a`.

    Without `initializer` the first element starts `a`.

    Args:
      fn: a callable (a, x) -> new a, keeping a's structure and dtypes.
      elems: a tensor or a nest of tensors, unstacked along their first axis.
      initializer: the first `a`; default the first element.
      parallel_iterations: accepted for TensorFlow's signature; unused.
      back_prop: accepted for TensorFlow's signature; unused.
      swap_memory: accepted for TensorFlow's signature; unused.
      name: an optional name for the loop.

    Returns:
      The final `a` (a tensor or nest like it).

    >>> print(rt.foldl(lambda a, x: a * x, rt.constant([1, 2, 3, 4])))
    rt.Tensor(24, shape=(), dtype=int32)
    """
    return _scan(fn, elems, initializer, False, False, name, "foldl")


def foldr(fn: Callable, elems, initializer=None, parallel_iterations: int = 10,
          back_prop: bool = True, swap_memory: bool = False, name: Optional[str] = None):
    """As `foldl`, from the last element to the first.

    Args:
      fn: a callable (a, x) -> new a, keeping a's structure and dtypes.
      elems: a tensor or a nest of tensors, unstacked along their first axis.
      initializer: the first `a`; default the last element.
      parallel_iterations: accepted for TensorFlow's signature; unused.
      back_prop: accepted for TensorFlow's signature; unused.
      swap_memory: accepted for TensorFlow's signature; unused.
      name: an optional name for the loop.

    Returns:
      The final `a` (a tensor or nest like it).

    >>> print(rt.foldr(lambda a, x: a - x, rt.constant([1, 2, 3]), initializer=10))
    rt.Tensor(4, shape=(), dtype=int32)
    """
    return _scan(fn, elems, initializer, True, False, name, "foldr")


def switch_case(branch_index, branch_fns, default: Optional[Callable] = None,
                name: Optional[str] = None):
    """`branch_fns[branch_index]()`: the branch the integer scalar `branch_index` picks.

    An index no branch has runs `default`, or the last branch when there is no default. A
    Python int (or an eager tensor) calls the one branch and returns its result as it is; a
    tensor index in a graph stages a chain of conds (each branch traced once).

    Args:
      branch_index: an int or an integer scalar tensor.
      branch_fns: a list of callables, or a dict or (int, callable) pairs.
      default: the callable for indices no branch has (default: the last branch).
      name: an optional name for the conds.

    Returns:
      What the chosen branch returns.

    Raises:
      ValueError: with no branches.
      TypeError: for a branch that is not callable or a non-integer index.

    >>> rt.switch_case(rt.constant(1), [lambda: 10, lambda: 20, lambda: 30])
    20
    >>> f = rt.function(lambda i: rt.switch_case(
    ...     i, {0: lambda: rt.constant(10), 5: lambda: rt.constant(50)},
    ...     default=lambda: rt.constant(-1)))
    >>> print(f(rt.constant(5)), f(rt.constant(7)))
    rt.Tensor(50, shape=(), dtype=int32) rt.Tensor(-1, shape=(), dtype=int32)
    """
    if isinstance(branch_fns, dict):
        pairs = sorted(branch_fns.items())
    elif branch_fns and all(isinstance(b, (tuple, list)) for b in branch_fns):
        pairs = sorted((int(k), f) for k, f in branch_fns)
    else:
        pairs = list(enumerate(branch_fns))
    if not pairs:
        raise ValueError("switch_case needs at least one branch")
    for k, f in pairs:
        if not callable(f):
            raise TypeError(f"branch {k} of switch_case is not callable: {f!r}")
    if default is None:
        default = pairs[-1][1]
        pairs = pairs[:-1]
    index = branch_index
    if not isinstance(index, Tensor) or current_graph() is None:
        value = int(index.numpy()) if isinstance(index, Tensor) else int(index)
        return dict(pairs).get(value, default)()
    index = convert_to_tensor(index)
    if not index.dtype.is_integer or index.shape.rank not in (0, None):
        raise TypeError(f"switch_case's branch_index must be an integer scalar, got {index!r}")

    def chain(rest):
        if not rest:
            return _convert(default)()
        (k, f), tail = rest[0], rest[1:]
        return cond(equal(index, constant(k, index.dtype)), _convert(f), lambda: chain(tail),
                    name=name)
    return chain(pairs)
