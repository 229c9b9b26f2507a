"""`rt.case` (the first true predicate's function, staged as a chain of conds) and
`rt.control_dependencies` (TensorFlow's context manager).

In a graph every side effect (print, assert, variable write) and every variable read runs
in program order, on every backend: an op created inside `control_dependencies(xs)` is
created after `xs`, so it runs after them. The context records `xs` on those ops
(`Operation.control_inputs`, shown with the graph); eagerly it is a no-op that calls the
callables among `xs`, as TensorFlow's.
"""
from __future__ import annotations

import contextlib
from typing import Callable, Optional

import autograph as ag

from ..core import dtypes
from ..core.graph import Operation, current_graph
from ..core.tensor import SymbolicTensor, Tensor
from ..errors import InvalidArgumentError
from ..ops.array_ops import stack
from ..ops.core import convert_to_tensor
from ..ops.io_ops import assert_that
from ..ops.math_ops import cast, less_equal
from ..ops.reduce_ops import reduce_sum
from .conditionals import cond

NONE_TRUE = "Input error: None of conditions evaluated as True"
MANY_TRUE = "Input error: exclusive=True and more than one condition evaluated as True"


def _pairs(pred_fn_pairs) -> list:
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else \
        list(pred_fn_pairs)
    for p in pairs:
        if not isinstance(p, (tuple, list)) or len(p) != 2:
            raise TypeError(f"each entry of pred_fn_pairs must be a (pred, fn) pair, got {p!r}")
        if not callable(p[1]):
            raise TypeError(f"fn for pred {p[0]!r} must be callable, got {p[1]!r}")
        if isinstance(p[0], Tensor) and (p[0].dtype != dtypes.bool_
                                         or p[0].shape.rank not in (None, 0)):
            raise TypeError(f"pred must be a scalar bool tensor, got {p[0]!r}")
    return pairs


def case(pred_fn_pairs, default: Optional[Callable] = None, exclusive: bool = False,
         strict: bool = False, name: str = "case"):
    """The result of the function of the first predicate that is true.

    `case([(p0, f0), (p1, f1)], default)` is `f0() if p0 else f1() if p1 else default()`.
    With no `default`, the last function is the default, and raises InvalidArgumentError
    when its predicate is false too (no predicate true). With `exclusive=True` more than
    one true predicate raises InvalidArgumentError. With a symbolic predicate in a graph
    every function is traced and the choice is made each time the graph runs (a chain of
    conds); otherwise only the chosen function is called.

    Args:
      pred_fn_pairs: a list of (scalar bool tensor or Python bool, callable) pairs.
      default: the callable to use when no predicate is true.
      exclusive: check that at most one predicate is true.
      strict: accepted for TensorFlow's signature.
      name: a name for the conds.

    Returns:
      What the chosen function returns.

    >>> x = rt.constant(5)
    >>> print(rt.case([(x < 0, lambda: rt.constant(-1)), (x < 10, lambda: rt.constant(1))],
    ...               default=lambda: rt.constant(99)))
    rt.Tensor(1, shape=(), dtype=int32)
    """
    pairs = _pairs(pred_fn_pairs)
    if default is not None and not callable(default):
        raise TypeError(f"default must be callable, got {default!r}")
    if not pairs:
        if default is None:
            raise ValueError("case needs at least one (pred, fn) pair or a default")
        return default()
    graph = current_graph()
    if graph is None or not any(isinstance(p, SymbolicTensor) for p, _ in pairs):
        return _case_now(pairs, default, exclusive)
    convert = ag.for_staging
    preds = [convert_to_tensor(p, dtypes.bool_) for p, _ in pairs]
    fns = [convert(f) for _, f in pairs]
    if exclusive and len(preds) > 1:
        count = reduce_sum(cast(stack(preds), dtypes.int32))
        assert_that(less_equal(count, 1), MANY_TRUE, [stack(preds)])
    if default is None:
        last_pred, last_fn = preds.pop(), fns.pop()

        def default():
            assert_that(last_pred, NONE_TRUE)
            return last_fn()
    else:
        default = convert(default)

    def chain(k):
        if k == len(preds):
            return default()
        return cond(preds[k], fns[k], lambda: chain(k + 1), name=name)
    return chain(0)


def _case_now(pairs, default, exclusive):
    values = [bool(p.numpy()) if isinstance(p, Tensor) else bool(p) for p, _ in pairs]
    if exclusive and sum(values) > 1:
        raise InvalidArgumentError(f"{MANY_TRUE}: {values}")
    for value, (_, fn) in zip(values, pairs):
        if value:
            return fn()
    if default is None:
        raise InvalidArgumentError(f"{NONE_TRUE}: {values}")
    return default()


@contextlib.contextmanager
def control_dependencies(control_inputs):
    """A context in which the ops created run after `control_inputs` (TensorFlow's
    tf.control_dependencies).

    In a graph, side effects and variable reads run in program order, so what is created
    inside runs after the control inputs created before; the context records them on the
    new ops (`op.control_inputs`). Eagerly, as in TensorFlow, it only calls the callables
    among `control_inputs`. None entries (what an assertion returns) are skipped.

    Args:
      control_inputs: tensors, operations or None; or None (no dependencies).

    Yields:
      None.

    >>> v = rt.Variable(1.0)
    >>> @rt.function
    ... def f():
    ...     step = v.assign_add(1.0)
    ...     with rt.control_dependencies([step]):
    ...         return v.read_value() * 10
    >>> print(f())
    rt.Tensor(20.0, shape=(), dtype=float32)
    """
    graph = current_graph()
    if graph is None:
        for c in control_inputs or ():
            if callable(c):
                c()
        yield None
        return
    ops = []
    for c in control_inputs or ():
        if c is None:
            continue
        if isinstance(c, SymbolicTensor):
            c = c.op
        elif hasattr(c, "op") and isinstance(getattr(c, "op"), Operation):
            c = c.op
        if not isinstance(c, Operation):
            raise TypeError(f"Control input must be an Operation or a Tensor: {c!r}")
        ops.append(c)
    start = len(graph.get_operations())
    try:
        yield None
    finally:
        for op in graph.get_operations()[start:]:
            op.control_inputs = tuple(ops) + tuple(o for o in op.control_inputs if o not in ops)
