"""A graph compiled for XLA (`backend.compile_graph` makes it): the jitted function
called on the inputs and the Variables' values, the results waited for, the Variables
given the values it wrote, a failed deferred check raised as the numpy backend raises
it."""
from __future__ import annotations

import sys
import threading

import jax
import numpy as np

from ...errors import InvalidArgumentError, OpError


def op_error(op, e):
    """`e` raised by node `op`, as the numpy backend reports it."""
    message = e.message if isinstance(e, OpError) else f"{type(e).__name__}: {e}"
    where = ""
    if op.location:
        fn, line, func = op.location
        where = f", defined at {fn}:{line} in {func}"
    cls = type(e) if isinstance(e, OpError) else InvalidArgumentError
    return cls(f"{message}\n  [[node {op.name} ({op.type}){where}]]", op.name)


def _compiler_options():
    """On a GPU, a loop body of even one kernel is replayed as a CUDA graph: XLA's default
    wants five, and a staged loop of a few fused kernels (fizzbuzz's elif chain: four)
    then launches each one from the host, about twice as slow per iteration as JAX by
    hand whose loop happened to have five (measured on an H100, jax 0.11)."""
    if jax.default_backend() == "gpu":
        return {"xla_gpu_graph_min_graph_size": 1}
    return None


class _Slot:
    __slots__ = ("array",)
    array: object


def _references_when_alone() -> int:
    """What `sys.getrefcount` says, in `XlaPlan.variable_values`'s loop, of a Variable's
    device array that nothing else references: the attribute, the local name and the
    call's argument (measured, not assumed: the count of a call differs between Pythons)."""
    slot = _Slot()
    slot.array = object()
    for holder in (slot,):
        array = holder.array
        return sys.getrefcount(array)
    raise AssertionError


_ALONE = _references_when_alone()


class XlaPlan:
    """A graph compiled for XLA: call it with input arrays, get numpy arrays back
    (`run_device`: the device arrays, waited for). The Variables it writes keep the
    device arrays (`Variable._set_device_value`). Nothing it returns or keeps shares
    memory with an input array (`copies_inputs`: callers need not copy the user's
    arrays first), and it takes device arrays (jax arrays) as inputs as they are
    (`takes_device_arrays`).

    The old values of the Variables it writes are donated to XLA (their buffers reused
    for the new values, as `jax.jit(donate_argnums=...)` does), where nothing else holds
    them: a device array that something else references (a numpy view of it made by
    reading the Variable, another Variable, an argument) is given as a host array,
    which XLA copies and does not donate. Nor is one donated while another Python thread
    runs: that thread may read the Variable's device array between the count taken here
    and the new value set after the call, and find it donated ("Array has been deleted"). JAX on CPU donates too (jax 0.10: no
    warning, the buffer reused), so it is done on every platform.

    The jitted function takes every array as an argument of its own (the inputs, then
    the Variables' values, then the values drawn on the host) and gives a flat tuple
    (the outputs, the values written, then the failure record where the trace has
    checks): jax dispatches flat arguments several us faster than nested ones, which
    is most of a small loop's or a train step's overhead."""

    copies_inputs = False
    takes_device_arrays = True

    def __init__(self, fn, ctx, inputs, outputs, needed_placeholders):
        self.ctx = ctx
        self.variables = ctx.variables
        self.written = [ctx.variables[i] for i in ctx.written]
        self.needed_placeholders = needed_placeholders
        self.num_outputs = len(outputs)
        self._x64 = ctx.wide
        # No Variable, no host call, no 64-bit value: the arrays in, the results out.
        self._plain = not (ctx.variables or ctx.effects or ctx.wide)
        self.predrawn = [(op.opdef.kernel, op.attrs, op.outputs[0].dtype.np_dtype)
                         for op in ctx.predrawn]
        # what fn gives: the outputs (one to wait on when there are only effects), then
        # the values written
        outs = len(outputs) if outputs or not ctx.effects else 1
        self._ends = (outs, outs + len(self.written))
        n_in, n_vars = len(inputs), len(ctx.variables)
        # The Variables written whose shape is fully known: the value written has the
        # old one's shape and dtype, so XLA can write it into the old buffer (one of a
        # relaxed shape may grow, and JAX warns of a donated buffer it could not use).
        written_at = {i for i in ctx.written if ctx.variables[i].shape.is_fully_defined()}
        # (Variable, whether its old value is donated) per Variable
        self.variable_slots = [(v, i in written_at) for i, v in enumerate(ctx.variables)]

        def flat(*args):
            outs, written, error = fn(args[:n_in], args[n_in:n_in + n_vars], args[n_in + n_vars:])
            results = (*outs, *written, *(error or ()))
            return results[0] if len(results) == 1 else results     # (a tuple costs too)
        self.jitted = jax.jit(flat, compiler_options=_compiler_options(),
                              donate_argnums=tuple(n_in + i for i in sorted(written_at)))

    @property
    def jitted(self):
        return self._hot[0]

    @jitted.setter
    def jitted(self, jitted):
        # What each call reads, in one tuple (a call's attribute reads showed several
        # times over in a train step's time, its XLA threads sharing the cores).
        self._hot = (jitted, self._plain, self._x64 or bool(self.predrawn),
                     self.variable_slots, self.written, *self._ends, self.num_outputs)

    def one_output(self):
        """For a plan of one output that reads and writes no Variable, calls no host
        function and has no 64-bit value, the fastest way to call it: (the jitted
        function, `finish`). The jitted function of the input arrays gives the output
        (a device array: wait for it with its `block_until_ready`), or, where the trace
        has a check, a tuple that `finish` makes that device array, waited for (raising
        a failed check). Else None."""
        if not self._plain or self.num_outputs != 1 or self._ends[0] != 1:
            return None
        finish, checks_at = self._finish, self._ends[1]

        def finish_one(results):
            return finish(results[:1], results[checks_at:])[0]
        return self._hot[0], finish_one

    def _draw(self):
        return [np.asarray(kernel(**attrs), dtype) for kernel, attrs, dtype in self.predrawn]

    def _values(self):  # the device array a call left in a Variable, else its numpy value
        return [v._host if v._device is None else v._device for v in self.variables]

    def variable_values(self):
        """The Variables' values as the jitted function takes them: the device array a
        call left in one, else its numpy value; for one the call writes (its argument
        donated), the device array only where nothing else holds it (see the class)."""
        values = []
        for v, donated in self.variable_slots:
            array = v._device
            if array is None:
                values.append(v._host)
            elif not donated:
                values.append(array)
            elif v._host is not None:               # a view of it was read: keep it whole
                values.append(v._host)
            elif sys.getrefcount(array) > _ALONE or threading.active_count() > 1:
                values.append(np.asarray(array))    # held elsewhere: XLA copies a host view
            else:
                values.append(array)
        return values

    def __call__(self, *arrays):
        """The results as numpy arrays (see `run_device`)."""
        return tuple(map(np.asarray, self.run_device(*arrays)))

    def run_device(self, *arrays):
        """The results of a call on the input arrays (numpy or device arrays): device
        arrays, the run waited for (so a failure of it, or a failed check of the trace,
        is raised here), or numpy arrays where the plan has 64-bit values."""
        jitted, plain, special, slots, written, outs_end, written_end, n = self._hot
        if plain:
            results = jitted(*arrays)
            if type(results) is not tuple:        # one output, no check in the trace
                return (results.block_until_ready(),)
            if len(results) == outs_end:          # no check in the trace
                if results:
                    results[0].block_until_ready()    # (the outputs of a run end together)
                return results
            return self._finish(results[:outs_end], results[written_end:])
        # (Written out, not in helpers: the Python of this path shows several times over in
        # a train step's call, whose XLA threads share the cores with it.)
        if special:     # 64-bit values, or values drawn on the host before the call
            draws = self._draw() if self.predrawn else ()
            if self._x64:
                with jax.enable_x64(True):
                    results = jitted(*arrays, *self.variable_values(), *draws)
                    if type(results) is not tuple:
                        results = (results,)
                    # 64-bit values are read in the mode they were made in
                    results = (*map(np.asarray, results[:outs_end]), *results[outs_end:])
            else:
                results = jitted(*arrays, *self.variable_values(), *draws)
        else:
            values = []
            alone = threading.active_count() == 1
            for v, donated in slots:        # (variable_values, inline)
                array = v._device
                if array is None:
                    values.append(v._host)
                elif not donated:
                    values.append(array)
                elif v._host is not None:
                    values.append(v._host)
                elif not alone or sys.getrefcount(array) > _ALONE:
                    values.append(np.asarray(array))
                else:
                    values.append(array)
            results = jitted(*arrays, *values)
        if type(results) is not tuple:
            results = (results,)
        # The Variables take the new arrays before the results are waited for, and the
        # old ones are let go while XLA still runs (a train step's call is a sixth faster
        # than when they are released after the wait). A host call or check that fails
        # does not stop the run (it records its failure, after which nothing happens):
        # the Variables keep what was written before it, as on the numpy backend.
        for v, w in zip(written, results[outs_end:written_end]):
            v._host, v._device = None, w           # (Variable._set_device_value)
        if len(results) == written_end:           # no check in the trace
            if results and type(results[-1]) is not np.ndarray:
                results[-1].block_until_ready()   # waits for the run to end
            return results[:n] if outs_end else ()
        return self._finish(results[:outs_end], results[written_end:])

    def _finish(self, outs, error):
        """The results (device arrays), the run waited for; a failed deferred check
        raised. `error`: the failure record (empty where the trace has no check)."""
        # (int() of a jax array costs tens of us; of a numpy one, nothing)
        failed = int(np.asarray(error[0])) if error else 0   # waits for the run to end
        if failed:
            op, e = self.ctx.deferred_error(failed, [np.asarray(p) for p in error[1:]])
            raise op_error(op, e)
        return tuple(outs[:self.num_outputs])
