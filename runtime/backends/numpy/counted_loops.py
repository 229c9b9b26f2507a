"""Counted loops for the numpy executor: a staged `for i in rt.range(...)` becomes a while
node whose test is `i < limit` and whose body steps `i + 1`, so every iteration pays a
numpy scalar comparison and addition, and every `x[i]` indexes with a numpy scalar. When
the counter is read only where a Python int means the same (the index of a slice, and
its own step), the executor writes the loop as `for i in range(start, limit):`: Python
ints count at a fraction of the cost, and the numbering is exact (the counter only takes
values in [start, limit), so `i + 1` can never wrap, and an index gives the same element
or the same IndexError for a Python int as for a numpy integer of the same value).

A loop variable that only counts (`n += 1` in some branches, fizzbuzz's tallies) runs as
a Python int too, wrapped to its dtype once after the loop: when nothing reads it but
additions or subtractions of a constant, cond branches that pass it on, and the loop's
result, every value numpy would have computed is the Python value modulo 2**bits, and
only the last one is ever seen (`python_int_accumulators`).

Two reads of the counter get cheaper still: `a[i]` in a loop from 0 to `rt.shape(a)[0]`
(a staged `for x in a`, `rt.range`'s values) iterates over `a` itself
(`iterated_element`), and a small constant vector indexed by a counter of constant
bounds is read from a list of its numpy scalars (`constant_elements`).
"""
from __future__ import annotations

from typing import NamedTuple, Optional

from ... import control_flow
from ...core import walk
from ...ops import array_ops, math_ops, slicing

_LESS, _ADD, _SUB = (math_ops.BINARY[name] for name in ("Less", "AddV2", "Sub"))
_SLICE = slicing.SLICE

# The signed integer kinds the counter may have (numpy's `dtype.kind`): a float counter
# may not step exactly (2**24 + 1 in float32), an unsigned one is left as it is.
_COUNTER_KINDS = "i"


class CountedLoop(NamedTuple):
    """Which loop variable counts, and its limit: the input position of a captured limit,
    or the value of a constant in the test."""
    counter: int
    limit_input: Optional[int]
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
    if less.opdef is not _LESS or less.graph is not cond_body.graph or len(less.inputs) != 2:
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
    """(input position, constant value) of the limit, one of them set; None for a limit
    read another way (a loop variable may change; an outer value read directly is left
    to the while loop)."""
    if limit.shape.rank != 0 or limit.op.graph is not cond_body.graph:
        return None
    if limit.op.opdef.constant and not limit.op.inputs:
        return (None, limit.op.attrs["value"])
    j = _param_index(cond_body, limit)
    if j is None or j < n:
        return None
    return (j, None)


def _test_reads_only(cond_body, less, counter) -> bool:
    """Whether the test graph is the comparison alone: no other op reads the counter, and
    nothing else runs (no side effect is skipped by not running the test)."""
    for sub in cond_body.graph.operations:
        if sub is less or sub.opdef.feedable:
            continue
        if not sub.opdef.constant or sub.opdef.side_effect:
            return False
    return True


def _body_steps(body, k) -> bool:
    """Whether the body's k-th result is `counter + 1` (read by nothing else), and the
    counter is read only by that step and as a slice's index."""
    param = body.params[k]
    if param is None:
        return False
    step = body.outputs[k].op
    if step.opdef is not _ADD or step.graph is not body.graph:
        return False
    a, b = step.inputs
    one = b if a is param else a if b is param else None
    if (one is None or not one.op.opdef.constant or one.op.graph is not body.graph
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
            if sub.opdef is not _SLICE or pos == 0 or pos >= len(sub.inputs):
                return False
    return True


class Accumulators(NamedTuple):
    """The loop variables that run as Python ints (their positions), and the additions
    and subtractions of a constant to write as Python int arithmetic (op ids)."""
    variables: list
    ops: set


def python_int_accumulators(op, skip: Optional[int]) -> Accumulators:
    """The loop variables of while node `op` (but `skip`, a counted loop's counter) that
    may run as Python ints: signed integer scalars the test never reads, read in the body
    only by `v + c`, `v - c`, `c - v` (c a constant) and by conds that pass them on, and
    returned only as their own next value (see the module's docstring)."""
    found = Accumulators([], set())
    n = op.attrs["num_loop_vars"]
    cond_body, body = op.opdef.bodies(op)
    for k in range(n):
        param = body.params[k]
        if k == skip or param is None or not _int_scalar(param):
            continue
        if cond_body.params[k] is not None and _is_read(cond_body, cond_body.params[k]):
            continue
        flow: set = {id(param)}
        ops: set = set()
        if not _int_flow(body.graph, flow, ops):
            continue
        mine = [i for i, t in enumerate(body.outputs) if id(t) in flow]
        if mine == [k]:
            found.variables.append(k)
            found.ops.update(ops)
    return found


def _int_scalar(t) -> bool:
    return (t.shape.rank == 0 and not t.dtype.is_string
            and t.dtype.np_dtype.kind in _COUNTER_KINDS)


def _is_read(body, t) -> bool:
    if any(o is t for o in body.outputs):
        return True
    return any(any(r is t for r in (walk.reads(sub) if sub.opdef.body_attrs else sub.inputs))
               for sub in body.graph.operations)


def _int_flow(graph, flow: set, ops: set) -> bool:
    """Follows the values in `flow` (tensor ids) through `graph`'s ops, in creation
    order (a value is made before it is read): adds what each allowed reader makes to
    `flow` and the arithmetic to `ops`; False as soon as a reader is not allowed."""
    for sub in graph.operations:
        if sub.opdef.body_attrs:
            if not control_flow.is_cond(sub):
                if any(id(t) in flow for t in walk.reads(sub)):
                    return False
                continue
            if not _cond_flow(sub, flow, ops):
                return False
            continue
        hits = [i for i, t in enumerate(sub.inputs) if id(t) in flow]
        if not hits:
            continue
        if (sub.opdef is not _ADD and sub.opdef is not _SUB) or len(hits) != 1 or len(sub.inputs) != 2:
            return False
        other = sub.inputs[1 - hits[0]]
        if (not other.op.opdef.constant or other.shape.rank != 0
                or other.dtype is not sub.inputs[hits[0]].dtype
                or sub.outputs[0].dtype is not other.dtype):
            return False
        flow.add(id(sub.outputs[0]))
        ops.add(id(sub))
    return True


def _cond_flow(cond, flow: set, ops: set) -> bool:
    """A cond reading values of `flow`: only as its captured inputs (not its predicate,
    not directly from a branch); an output joins `flow` when both branches return such a
    value there, and the cond fails the flow when only one does."""
    if id(cond.inputs[0]) in flow:
        return False
    if any(id(t) in flow for t in walk.reads(cond)[len(cond.inputs):]):
        return False
    hits = [i for i, t in enumerate(cond.inputs) if i and id(t) in flow]
    if not hits:
        return True
    branches = cond.opdef.bodies(cond)
    for branch in branches:
        for i in hits:
            p = branch.params[i - 1]
            if p is not None:
                flow.add(id(p))
        if not _int_flow(branch.graph, flow, ops):
            return False
    for j, out in enumerate(cond.outputs):
        inside = [id(b.outputs[j]) in flow for b in branches]
        if all(inside):
            flow.add(id(out))
        elif any(inside):
            return False
    return True


def int_wrapper(np_dtype):
    """The function taking a Python int to `np_dtype` (signed) as numpy's arithmetic
    wraps it: modulo 2**bits, into [-2**(bits-1), 2**(bits-1))."""
    bits = np_dtype.itemsize * 8
    low, span, make = -(1 << (bits - 1)), 1 << bits, np_dtype.type

    def wrap(v):
        return make((v - low) % span + low)
    return wrap


# The most elements of a constant read as a list in a counted loop (a list of numpy
# scalars takes ~10x the array's memory).
MAX_LIST_ELEMENTS = 4096


def constant_elements(op, counter_bounds: dict, arg_names) -> Optional[list]:
    """`op` (a slice `c[i]` of a constant vector by a counted loop's counter whose start
    and limit are constants too) as a list of the vector's elements (numpy scalars: same
    dtype, same values) when every value the counter takes is an index of it: a list
    indexed by a Python int costs a fraction of an array indexed by it. None otherwise."""
    if (op.opdef is not _SLICE or len(op.inputs) != 2
            or op.attrs.get("spec") != (("int", ("t", 1)),)):
        return None
    bounds = counter_bounds.get(arg_names[1])
    vector = op.inputs[0].op
    if bounds is None or not vector.opdef.constant:
        return None
    value = vector.attrs["value"]
    start, limit = bounds
    if (getattr(value, "ndim", None) != 1 or value.size > MAX_LIST_ELEMENTS
            or value.dtype.kind not in "biuf"):
        return None
    if start < limit and not (0 <= start and limit <= value.size):
        return None  # an index out of bounds: the array's own error
    return list(value)


def constant_int(t) -> Optional[int]:
    """The value of `t` when it is an integer scalar constant, else None."""
    if not t.op.opdef.constant or t.shape.rank != 0 or t.dtype.np_dtype.kind not in "iu":
        return None
    return int(t.op.attrs["value"])


def is_addition(op) -> bool:
    """Whether `op` is an AddV2 (else, among the steps `python_int_accumulators` marks,
    a Sub)."""
    return op.opdef is _ADD


def iterated_element(op, counted: CountedLoop) -> Optional[tuple]:
    """(input position of the array, the body's slice op) when the counted loop `op`
    runs its counter from the constant 0 up to `rt.shape(a)[0]` and its body reads
    `a[i]` (a captured): every `for x in a` of a staged loop (`rt.range`'s values, a
    tensor's rows). The loop may then iterate over `a` itself, zipped with the counter's
    range: the elements are `a[i]`'s (the same numpy scalars or row views), and the zip
    stops at the limit, which is never past `a`'s end. None otherwise."""
    if counted.limit_input is None or constant_int(op.inputs[counted.counter]) != 0:
        return None
    length = op.inputs[counted.limit_input].op
    if (length.opdef is not _SLICE or length.attrs.get("spec") != (("int", 0),)
            or len(length.inputs) != 1 or length.inputs[0].op.opdef is not array_ops.SHAPE):
        return None
    array = length.inputs[0].op.inputs[0]
    n = op.attrs["num_loop_vars"]
    body = op.opdef.bodies(op)[1]
    counter = body.params[counted.counter]
    for sub in body.graph.operations:
        if (sub.opdef is _SLICE and len(sub.inputs) == 2 and sub.inputs[1] is counter
                and sub.attrs.get("spec") == (("int", ("t", 1)),)):
            m = _param_index(body, sub.inputs[0])
            if m is not None and m >= n and op.inputs[m] is array:
                return m, sub
    return None
