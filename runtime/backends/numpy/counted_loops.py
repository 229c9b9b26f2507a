"""Counted loops for the numpy executor: a staged `for i in rt.range(...)` becomes a while
node whose test is `i < limit` and whose body steps `i + 1`, so every iteration pays a
numpy scalar comparison and addition, and every `x[i]` indexes with a numpy scalar. When
the counter is read only where a Python int means the same (the index of a slice, and
its own step), the executor writes the loop as `for i in range(start, limit):`: Python
ints count at a fraction of the cost, and the numbering is exact (the counter only takes
values in [start, limit), so `i + 1` can never wrap, and an index gives the same element
or the same IndexError for a Python int as for a numpy integer of the same value).
"""
from __future__ import annotations

from typing import NamedTuple, Optional

from ...core import walk

# The signed integer kinds the counter may have (numpy's `dtype.kind`): a float counter
# may not step exactly (2**24 + 1 in float32), an unsigned one is left as it is.
_COUNTER_KINDS = "i"


class CountedLoop(NamedTuple):
    """Which loop variable counts, and its limit: the input position of a captured limit,
    an outer tensor the test reads directly, or the value of a constant in the test."""
    counter: int
    limit_input: Optional[int]
    limit_tensor: Optional[object]
    limit_value: Optional[object]


def counted_loop(op) -> Optional[CountedLoop]:
    """The counter of while node `op` when the loop can run as a Python `for` over a
    `range` (see the module's docstring), else None."""
    if op.attrs.get("has_max"):
        return None  # a maximum_iterations stop leaves the counter mid-way
    n = op.attrs["num_loop_vars"]
    cond_body, body = op.opdef.bodies(op)
    if len(cond_body.outputs) != 1:
        return None
    less = cond_body.outputs[0].op
    if less.type != "Less" or less.graph is not cond_body.graph or len(less.inputs) != 2:
        return None
    counter, limit = less.inputs
    if (counter.shape.rank != 0 or counter.dtype.is_string
            or counter.dtype.np_dtype.kind not in _COUNTER_KINDS):
        return None
    k = _param_index(cond_body, counter)
    if k is None or k >= n:
        return None
    found = _limit(cond_body, limit, n)
    if found is None or not _test_reads_only(cond_body, less, counter):
        return None
    if not _body_steps(body, k):
        return None
    return CountedLoop(k, *found)


def _param_index(body, t) -> Optional[int]:
    for i, p in enumerate(body.params):
        if p is t:
            return i
    return None


def _limit(cond_body, limit, n) -> Optional[tuple]:
    """(input position, outer tensor, constant value) of the limit, one of them set."""
    if limit.shape.rank != 0:
        return None
    if limit.op.graph is not cond_body.graph:
        return (None, limit, None)  # an enclosing graph's value: fixed while the loop runs
    if limit.op.type == "Const" and not limit.op.inputs:
        return (None, None, limit.op.attrs["value"])
    j = _param_index(cond_body, limit)
    if j is None or j < n:
        return None  # a loop variable: it may change
    return (j, None, None)


def _test_reads_only(cond_body, less, counter) -> bool:
    """Whether the test graph is the comparison alone: no other op reads the counter, and
    nothing else runs (no side effect is skipped by not running the test)."""
    for sub in cond_body.graph.operations:
        if sub is less or sub.opdef.feedable:
            continue
        if sub.type != "Const" or sub.opdef.side_effect:
            return False
    return True


def _body_steps(body, k) -> bool:
    """Whether the body's k-th result is `counter + 1` (read by nothing else), and the
    counter is read only by that step and as a slice's index."""
    param = body.params[k]
    if param is None:
        return False
    step = body.outputs[k].op
    if step.type != "AddV2" or step.graph is not body.graph:
        return False
    a, b = step.inputs
    one = b if a is param else a if b is param else None
    if (one is None or one.op.type != "Const" or one.op.graph is not body.graph
            or one.dtype is not param.dtype or one.shape.rank != 0
            or one.op.attrs["value"] != 1):
        return False
    if any(t is param for t in body.outputs):
        return False  # returned as a loop variable (a Python int would leave the loop)
    if sum(1 for t in body.outputs if t is body.outputs[k]) != 1:
        return False
    for sub in body.graph.operations:
        read = walk.reads(sub) if sub.opdef.body_attrs else sub.inputs
        for pos, t in enumerate(read):
            if t is body.outputs[k] and sub is not step:
                return False  # the stepped value read in the body: a numpy value there
            if t is not param or sub is step:
                continue
            if sub.type != "StridedSlice" or pos == 0 or pos >= len(sub.inputs):
                return False
    return True

