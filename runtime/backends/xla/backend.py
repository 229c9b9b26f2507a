"""The XLA backend: a graph lowered to one pure JAX function of its inputs (and of the
Variables it reads), compiled once per plan with `jax.jit`.

    plan = JaxBackend().compile(graph, inputs, outputs)
    plan(*arrays) -> tuple of numpy arrays          # as the numpy executor's Plan

The walk (`_Lowerer`) lowers control flow, Variables (a state threaded through the
function) and the kernels' run-time errors (deferred checks, raised after the call);
each op by its rule (`rules.RULES`). How each piece lowers: docs/architecture.md,
"Backends".
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import io_callback

from ...core import dtypes, walk
from ...control_flow import WhileInputs
from ...core.opdef import quiet_numpy, restore_numpy
from ...core.leaks import no_value_error
from ...errors import InvalidGraphError, OpError
from ...ops import math_ops, reduce_ops
from .arrays import (RANGE_AWARE, RangeValue, TensorArrayValue, UnboundedArray,
                     allocate_arrays, size_arrays)
from .analysis import (calm_size, carry_change, induction_ranges, iteration_counters,
                       loop_counters, may_fail, reason, trip_bound)
from .plan import XlaPlan, op_error
from .rule_helpers import Unsupported, is_concrete
from .rules import HOST_OPS, PREDRAWN, RULES
from .rules_indexing import row_accumulation

__all__ = ["JaxBackend", "XlaPlan", "XlaLoweringError"]


SELECT_BUDGET = 16  # a cond whose branches run at most this many cheap ops is a select
_ADD = math_ops.BINARY["AddV2"]
_SHIFTS = {_ADD: 1, math_ops.BINARY["Sub"]: -1}  # (see _Lowerer._shift_fact)


class XlaLoweringError(InvalidGraphError):
    """The graph cannot run on XLA (the message names each op and where it was made)."""


def _where(op) -> str:
    if not op.location:
        return ""
    fn, line, func = op.location
    return f", made at {fn}:{line} in {func}"


def _problem(op, why) -> str:
    return f"{op.type} ('{op.name}'{_where(op)}): {why}"


def _wide(dtype) -> bool:
    d = dtype.np_dtype
    return d is not None and getattr(d, "kind", "") in "iuf" and np.dtype(d).itemsize == 8


class _Context:
    """What one plan's lowering shares: its Variables, and the record of a failure."""

    def __init__(self):
        self.variables: list = []
        self._index: dict = {}
        self.written: list = []  # indices into `variables`
        self.wide = False        # uses 64-bit dtypes
        self.effects = False     # has host callbacks
        self.may_fail = False    # has ops with deferred run-time checks (or host calls)
        self.predrawn: list = []  # random ops drawn on the host before each call
        self.drawn: dict = {}     # id(op) -> their values while tracing
        self.deferred: list = []  # (op, make_error) of each deferred check, numbered from 1
        self.facts: dict = {}     # id(value) -> (value, lo, hi): see `note`
        self.traces = 0           # how many times the graph was traced (lowered)

    def add_variable(self, variable, writes: bool):
        i = self._index.get(id(variable))
        if i is None:
            i = self._index[id(variable)] = len(self.variables)
            self.variables.append(variable)
            self.wide = self.wide or _wide(variable.dtype)
        if writes and i not in self.written:
            self.written.append(i)

    def variable_index(self, variable) -> int:
        return self._index[id(variable)]

    # -- what is known of a value's range while tracing (loop counters, their items) ----
    def note(self, value, lo: int, hi):
        """`value` (a tracer) is in [lo, hi): `hi` an int, or a value whose length
        (dimension 0) it is below."""
        self.facts[id(value)] = (value, lo, hi)

    def bounded(self, i, size=None, of=None) -> bool:
        """Whether index `i` is known to be in [0, size), or in [0, len(of))."""
        fact = self.facts.get(id(i))
        if fact is None or fact[0] is not i or fact[1] < 0:
            return False
        hi = fact[2]
        if isinstance(hi, int):
            return size is not None and hi <= size
        return of is not None and hi is of

    def known_range(self, i):
        fact = self.facts.get(id(i))
        return (fact[1], fact[2]) if fact is not None and fact[0] is i else None

    def deferred_error(self, number, payload):
        op, make_error = self.deferred[number - 1]
        return op, make_error(*[int(p) for p in payload])


class _Lowerer(walk.Visitor):
    """Lowers one graph level while tracing: `env` maps tensor ids to values (jax
    tracers, or numpy values known while tracing), `state` the Variables' values."""

    def __init__(self, ctx: _Context, env: dict, state: list):
        self.ctx = ctx
        self.env = env
        self.state = state

    def run(self, graph, outputs) -> list:
        self.walk(graph, outputs)
        return [self.value(t) for t in outputs]

    def value(self, t):
        try:
            return self.env[id(t)]
        except KeyError:
            raise no_value_error(t) from None

    def bind(self, op, results):
        if op.opdef.multi_output:
            for t, v in zip(op.outputs, results):
                self.env[id(t)] = v
        elif op.outputs:
            self.env[id(op.outputs[0])] = results

    # -- the Visitor ---------------------------------------------------------------------
    def placeholder(self, op):
        return None  # bound by whoever feeds it

    def const(self, op):
        t = op.outputs[0]
        self.env[id(t)] = np.asarray(op.attrs["value"], dtype=t.dtype.np_dtype)

    def op(self, op):
        d = op.opdef
        args = [self.value(t) for t in op.inputs]
        try:
            if d.pure and d.kernel is not None and all(is_concrete(a) for a in args):
                results = self._fold(op, args)
            elif d not in RANGE_AWARE and any(isinstance(a, RangeValue) for a in args):
                raise Unsupported("it reads an rt.range whose length is known only when the "
                                  "graph runs (XLA needs every shape while compiling; "
                                  "indexing the range in a loop is fine)")
            else:
                results = row_accumulation(self, op, args) if d is _ADD else None
                if results is None:
                    results = RULES[d](self, op, *args)
        except Unsupported as e:
            where = e.op if isinstance(e, UnboundedArray) else op
            raise XlaLoweringError(f"cannot compile with XLA: {_problem(where, e)}") from None
        except (OpError, ValueError, TypeError, IndexError) as e:
            if isinstance(e, XlaLoweringError):
                raise
            raise op_error(op, e) from None
        if d in _SHIFTS and self.ctx.facts:
            self._shift_fact(args, results, _SHIFTS[d])
        self.bind(op, results)

    def _shift_fact(self, args, result, sign):
        """`x + c` or `x - c` of an `x` of known range and an int `c`: the range moved."""
        known = self.ctx.known_range(args[0])
        c = args[1]
        if known is not None and isinstance(known[1], int) and \
                isinstance(c, (np.ndarray, np.generic)) and np.ndim(c) == 0 and \
                c.dtype.kind in "iu":
            self.ctx.note(result, known[0] + sign * int(c), known[1] + sign * int(c))

    def _fold(self, op, args):
        """A pure op of values known while tracing: its own numpy kernel computes it."""
        token = quiet_numpy()
        try:
            out = op.opdef.kernel(*args, **op.attrs)
        finally:
            restore_numpy(token)
        if op.opdef.multi_output:
            return tuple(np.asarray(v, dtype=t.dtype.np_dtype) for v, t in zip(out, op.outputs))
        return np.asarray(out, dtype=op.outputs[0].dtype.np_dtype)

    # -- run-time checks ------------------------------------------------------------------
    # The state ends with the number of the deferred check that failed first (0: none)
    # and three integers it noted (an index, a value, a size) for its message.
    @property
    def error(self):
        return self.state[-4]

    def ok(self):
        return self.state[-4] == 0

    def defer(self, op, bad, make_error, *payload):
        """A check of a kernel's run-time error (`make_error(*payload)` when `bad`): its
        number is recorded in the state, and from then on nothing happens: no print, no
        draw, no Variable write, no further iteration. The plan raises it after the call.
        Costs a few selects (no conditional, no host call)."""
        if is_concrete(bad) and not np.any(bad):
            return
        ctx = self.ctx
        ctx.deferred.append((op, make_error))
        fire = jnp.logical_and(self.ok(), jnp.any(bad))
        self.state[-4] = jnp.where(fire, np.int32(len(ctx.deferred)), self.state[-4])
        for j, p in enumerate(payload):
            slot = self.state[-3 + j]
            self.state[-3 + j] = jnp.where(fire, jnp.asarray(p).astype(slot.dtype), slot)

    def check(self, op, bad, make_error, *values):
        """`make_error(*values)` (on host values) when `bad` holds at run time: the host
        is called then (an assertion: its data may be any tensors), and from then on
        nothing happens, as after a failed deferred check."""
        self.ctx.effects = True
        if is_concrete(bad) and not np.any(bad):
            return
        number, record = self._host_failure(op)

        def failed(*arrays):
            record[0] = make_error(*[np.asarray(a) for a in arrays])

        def on_bad(operands):
            jax.debug.callback(failed, *operands, ordered=True)

        fire = jnp.logical_and(jnp.any(bad), self.ok())
        lax.cond(fire, on_bad, lambda operands: None, list(values))
        self.state[-4] = jnp.where(fire, number, self.state[-4])

    # -- host calls -----------------------------------------------------------------------
    # A host callback never raises: an exception there would leave JAX's ordered-effects
    # token failed, and on a GPU every later call with host callbacks in the process would
    # fail with it. A call that fails records its error and hands back a failure number
    # the state keeps, as a deferred check's: nothing happens after it, and the plan
    # raises the error after the run.
    def _host_failure(self, op):
        """(number, record): the failure number of host call `op`, and the one-item
        list its callback records the error in."""
        record = [None]
        self.ctx.deferred.append((op, lambda *_: record[0]))
        return np.int32(len(self.ctx.deferred)), record

    def host_call(self, op, kernel, attrs, values):
        """Runs `kernel(*values, **attrs)` on the host, in program order (not after a
        failure)."""
        number, record = self._host_failure(op)

        def call(error, *arrays):
            if not error:
                try:
                    kernel(*[np.asarray(a) for a in arrays], **attrs)
                except Exception as e:  # noqa: BLE001 - reported as the node's error
                    record[0] = e
                    return number
            return np.asarray(error, np.int32)
        self.state[-4] = io_callback(call, jax.ShapeDtypeStruct((), np.int32), self.error,
                                     *values, ordered=True)

    def host_draw(self, op, spec, args):
        """The op's numpy kernel's result, computed on the host in program order."""
        kernel, attrs = op.opdef.kernel, op.attrs
        number, record = self._host_failure(op)
        empty = np.zeros(spec.shape, spec.dtype)

        def draw(error, *arrays):
            if not error:
                try:
                    value = kernel(*[np.asarray(a) for a in arrays], **attrs)
                    return np.asarray(value, dtype=spec.dtype), np.asarray(error, np.int32)
                except Exception as e:  # noqa: BLE001 - reported as the node's error
                    record[0] = e
                    return empty, number
            return empty, np.asarray(error, np.int32)
        value, self.state[-4] = io_callback(
            draw, (spec, jax.ShapeDtypeStruct((), np.int32)), self.error, *args, ordered=True)
        return value

    # -- sub-graphs ------------------------------------------------------------------------
    def lower_body(self, body, inputs, state):
        env = dict(self.env)  # a body may read the enclosing graph's values directly
        for ph, v in zip(body.params, inputs):
            if ph is not None:
                env[id(ph)] = v
        inner = _Lowerer(self.ctx, env, list(state))
        return inner.run(body.graph, body.outputs), inner.state

    def cond(self, op):
        pred, *ext = [self.value(t) for t in op.inputs]
        then_body, else_body = op.opdef.bodies(op)
        if is_concrete(pred):
            outs, self.state = self.lower_body(then_body if bool(pred) else else_body, ext,
                                               self.state)
            self.bind_all(op, outs)
            return

        if all(calm_size(b, SELECT_BUDGET) is not None for b in (then_body, else_body)):
            # Both branches are cheap and change nothing: compute both and select (XLA's
            # conditional costs more than a few elementwise ops in a loop).
            then_outs, _ = self.lower_body(then_body, ext, self.state)
            else_outs, _ = self.lower_body(else_body, ext, self.state)
            for t, a, b in zip(op.outputs, then_outs, else_outs):
                if jnp.shape(a) != jnp.shape(b):     # (where would broadcast one of them)
                    raise XlaLoweringError("cannot compile with XLA: " + _problem(
                        op, f"its branches give '{t.name}' the shapes {jnp.shape(a)} and "
                        f"{jnp.shape(b)}; XLA needs one shape while compiling"))
            pred = jnp.asarray(pred, bool).reshape(())
            self.bind_all(op, [jnp.where(pred, a, b) for a, b in
                               zip(_typed(then_outs, op.outputs), _typed(else_outs, op.outputs))])
            return

        buffers = {}     # output index -> a TensorArray's buffer shape and dtype (see below)

        def branch(body):
            def fn(operands):
                state, ext = operands
                outs, state = self.lower_body(body, ext, state)
                outs = _typed(outs, op.outputs)
                for i, (shape, dtype) in buffers.items():
                    if outs[i].buffer is None:
                        outs[i] = outs[i].replace(jnp.zeros(shape, dtype))
                return list(state), outs
            return fn

        operands = (list(self.state), ext)
        try:
            state, outs = lax.cond(jnp.asarray(pred, bool).reshape(()), branch(then_body),
                                   branch(else_body), operands)
        except TypeError as e:
            # A TensorArray written on one path only has a buffer there and none yet on
            # the other (its element shape comes from the first write): the other path
            # gets zeros of that shape, its elements as never written. Else: not lowerable.
            for body in (then_body, else_body):
                for i, v in enumerate(jax.eval_shape(branch(body), operands)[1]):
                    if isinstance(v, TensorArrayValue) and v.buffer is not None:
                        buffers.setdefault(i, (v.buffer.shape, v.buffer.dtype))
            if not buffers:
                raise XlaLoweringError(f"cannot compile with XLA: {_problem(op, e)}") from None
            try:
                state, outs = lax.cond(jnp.asarray(pred, bool).reshape(()), branch(then_body),
                                       branch(else_body), operands)
            except TypeError as e:
                raise XlaLoweringError(f"cannot compile with XLA: {_problem(op, e)}") from None
        self.state = list(state)
        self.bind_all(op, outs)

    def bind_all(self, op, outs):
        for t, v in zip(op.outputs, outs):
            self.env[id(t)] = v

    def while_loop(self, op):
        values = [self.value(t) for t in op.inputs]
        init, ext, limit = WhileInputs.of(op, values)
        cond_body, body = op.opdef.bodies(op)
        # A test that changes nothing is XLA's cond_fun, as written by hand; else it runs
        # before the loop and at the end of each iteration (its effects keep their order)
        # and the carry holds its result.
        calm = calm_size(cond_body, 1 << 30) is not None
        # A loop whose iterations have deferred checks stops when one fails (its test
        # reads the failure number: found by tracing an iteration abstractly first, as
        # the trace knows which indices are in range); a loop after a failure is skipped.
        ctx = self.ctx
        guard = [False]
        tail = [None]  # the failure record, left out of the carry of a loop that cannot fail
        counters = loop_counters(op, values)
        trips = trip_bound(op, values, ctx.known_range)
        inductions = induction_ranges(op, values, trips)

        def whole(state):
            return list(state) + tail[0] if tail[0] is not None else list(state)

        def carried(state):
            return list(state)[:-4] if tail[0] is not None else list(state)

        def test(loop_vars, state):
            [t], state = self.lower_body(cond_body, list(loop_vars) + ext, state)
            return jnp.asarray(t, bool).reshape(()), state

        # The carry: (test result or None when calm, iteration count or None when
        # unbounded, loop variables, state): None costs nothing in XLA's loop.
        def step(carry):
            t, n, loop_vars, state = carry
            for k, lo, hi in inductions:
                ctx.note(loop_vars[k], lo, hi)
            for k, start, bound, m in counters:   # (k's range, at least as narrow)
                ctx.note(loop_vars[k], start, bound if m is None else ext[m - len(init)])
            outs, state = self.lower_body(body, list(loop_vars) + ext, whole(state))
            outs = _typed(outs, op.outputs)
            if not calm:
                t, state = test(outs, state)
            return t, None if n is None else n + 1, outs, carried(state)

        def keep_going(carry):
            t, n, loop_vars, state = carry
            if calm:
                t, _ = test(loop_vars, whole(state))
            if guard[0]:
                t = jnp.logical_and(t, state[-4] == 0)
            return t if limit is None else jnp.logical_and(t, n < limit)

        def loop(carry):
            return lax.while_loop(keep_going, step, carry)

        may_have_failed = bool(ctx.deferred)
        first = None
        if not calm:
            first, self.state = test(init, list(self.state))
        count = None if limit is None else jnp.int32(0)
        carry = (first, count, _typed(init, op.outputs), list(self.state))
        if any(isinstance(v, TensorArrayValue) and v.size is None for v in carry[2]):
            try:  # dynamic-size TensorArrays get room for the loop's bound on iterations
                carry = size_arrays(carry, trips)
            except UnboundedArray as e:
                raise XlaLoweringError(f"cannot compile with XLA: {_problem(e.op, e)}") from None
        try:
            carry = allocate_arrays(step, carry)
            if ctx.may_fail and any(may_fail(o) for b in (cond_body, body)
                                    for o in b.graph.operations):
                before = len(ctx.deferred)
                jax.eval_shape(lambda c: (step(c), keep_going(c)), carry)
                guard[0] = len(ctx.deferred) > before
            if not guard[0]:
                tail[0] = self.state[-4:]
                carry = carry[:3] + (carried(self.state),)
            if may_have_failed and not guard[0]:
                _, _, outs, state = lax.cond(self.ok(), loop, lambda c: c, carry)
            else:
                _, _, outs, state = loop(carry)
            state = whole(state)
        except TypeError as e:
            changed = _shape_change(op, step, carry)
            raise XlaLoweringError(f"cannot compile with XLA: {changed}" if changed else
                f"cannot compile with XLA: {_problem(op, e)}\n(a loop variable must keep "
                "its dtype and shape from one iteration to the next)") from None
        self.state = list(state)
        if trips is not None:   # an iteration count it gives is in [start, start + trips]
            for k, start in iteration_counters(op, values):
                ctx.note(outs[k], start, start + trips + 1)
        self.bind_all(op, outs)


def _shape_change(op, step, carry):
    """carry_change of a while node, its variables after one iteration traced abstractly."""
    try:
        after = jax.eval_shape(step, carry)[2]
    except Exception:  # the iteration itself does not trace: the caller's error says why
        return None
    return carry_change(op, carry[2], after)


def _typed(values, tensors):
    """Values as the dtypes of `tensors` (a constant of the right dtype stays itself)."""
    out = []
    for v, t in zip(values, tensors):
        if not isinstance(v, TensorArrayValue) and t.dtype is not dtypes.variant:
            np_dtype = t.dtype.np_dtype
            if jnp.result_type(v) != np_dtype:
                v = jnp.asarray(v).astype(np_dtype)
        out.append(v)
    return out


def _scan(ctx: _Context, graph, outputs, problems: list) -> None:
    """Records in `ctx` the Variables and dtypes of the ops the outputs and the side
    effects need (sub-graphs included), and in `problems` each op that cannot lower."""
    for op in walk.schedule(graph, outputs):
        d = op.opdef
        why = reason(op)
        if why:
            problems.append(_problem(op, why))
        if d.reads_variables or d.writes_variables:
            ctx.add_variable(op.attrs["variable"], d.writes_variables)
        if d in HOST_OPS:
            ctx.effects = True
        if may_fail(op):
            ctx.may_fail = True
        for t in list(op.inputs) + list(op.outputs):
            if _wide(t.dtype):
                ctx.wide = True
        if op.inputs and op.inputs[0].dtype is not dtypes.variant and \
                op.inputs[0].dtype.is_integer and op.outputs and \
                (op.outputs[0].dtype.is_floating or d in _WIDE_ON_INTEGERS):
            ctx.wide = True  # int / int gives float64; the integer mean sums in int64
        for body in d.bodies(op):
            _scan(ctx, body.graph, body.outputs, problems)


_WIDE_ON_INTEGERS = {reduce_ops.REDUCE["Mean"]}


def compile_graph(graph, inputs, outputs) -> XlaPlan:
    ctx = _Context()
    problems: list = []
    _scan(ctx, graph, outputs, problems)
    if problems:
        raise XlaLoweringError("cannot compile with XLA: these ops have no XLA lowering:\n  "
                               + "\n  ".join(problems))
    inputs, outputs = list(inputs), list(outputs)
    for t in outputs:
        if t.dtype is dtypes.variant:
            raise XlaLoweringError(f"cannot compile with XLA: the output '{t.name}' is a "
                                   "TensorArray or list handle, not a tensor")

    # Random ops of the top level with no tensor input draw on the host before the call
    # (their values enter as inputs): the same draws as in a host callback, without one.
    ctx.predrawn = [op for op in walk.schedule(graph, outputs) if op.opdef in PREDRAWN]

    def fn(arrays, variables, draws=()):
        env = {id(t): v for t, v in zip(inputs, arrays)}
        ctx.drawn = {id(op): v for op, v in zip(ctx.predrawn, draws)}
        ctx.facts = {}  # (the tracers of one trace: not kept after it)
        ctx.traces += 1
        payload = np.int64 if ctx.wide else np.int32
        checks = len(ctx.deferred)
        lw = _Lowerer(ctx, env, list(variables) + [np.int32(0), payload(0), payload(0), payload(0)])
        outs = lw.run(graph, outputs)
        for t, v in zip(outputs, outs):
            if isinstance(v, RangeValue):
                raise XlaLoweringError(f"cannot compile with XLA: {_problem(t.op, 'its length is known only when the graph runs (XLA needs every shape while compiling)')}")
        if ctx.effects and not outs:
            outs = [jnp.zeros((), jnp.int32)]  # something to wait on: the run's end
        ctx.facts, ctx.drawn = {}, {}
        # the failure record, when this trace has checks that may fail
        error = tuple(lw.state[-4:]) if len(ctx.deferred) > checks else None
        written = [lw.state[i] for i in ctx.written]
        # An input given back as it came (an output, or a Variable's new value) is
        # copied: jax would hand back the caller's array itself, and a numpy one it
        # took without a copy would change with it (so the caller need not copy).
        outs = [jnp.copy(v) if any(v is a for a in arrays) else v for v in outs]
        written = [jnp.copy(v) if any(v is a for a in arrays) else v for v in written]
        return tuple(outs), tuple(written), error

    needed = {id(op.outputs[0]) for op in walk.schedule(graph, outputs) if op.opdef.feedable}
    return XlaPlan(fn, ctx, inputs, outputs, needed)


class JaxBackend:
    """XLA through JAX, as a Backend (see core.backend_registry)."""

    name = "xla"

    def compile(self, graph, inputs, outputs) -> XlaPlan:
        return compile_graph(graph, inputs, outputs)
