"""A graph compiled for XLA (`backend.compile_graph` makes it): the jitted function
called on the inputs and the Variables' values, the results waited for, the Variables
given the values it wrote, a failed deferred check raised as the numpy backend raises
it."""
from __future__ import annotations

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


class XlaPlan:
    """A graph compiled for XLA: call it with input arrays, get numpy arrays back. The
    Variables it writes keep the device arrays (`Variable._set_device_value`). Nothing
    it returns or keeps shares memory with an input array (`copies_inputs`: callers
    need not copy the user's arrays first).

    The jitted function takes every array as an argument of its own (the inputs, then
    the Variables' values, then the values drawn on the host) and gives a flat tuple
    (the outputs, the values written, then the failure record where the trace has
    checks): jax dispatches flat arguments several us faster than nested ones, which
    is most of a small loop's or a train step's overhead."""

    copies_inputs = False

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

        def flat(*args):
            outs, written, error = fn(args[:n_in], args[n_in:n_in + n_vars], args[n_in + n_vars:])
            results = (*outs, *written, *(error or ()))
            return results[0] if len(results) == 1 else results     # (a tuple costs too)
        self.jitted = jax.jit(flat, compiler_options=_compiler_options())

    @property
    def jitted(self):
        return self._hot[0]

    @jitted.setter
    def jitted(self, jitted):
        # What each call reads, in one tuple (a call's attribute reads showed several
        # times over in a train step's time, its XLA threads sharing the cores).
        self._hot = (jitted, self._plain, self._x64 or bool(self.predrawn), self.variables,
                     self.written, *self._ends, self.num_outputs)

    def one_output(self):
        """For a plan of one output that reads and writes no Variable, calls no host
        function and has no 64-bit value, the fastest way to call it: (the jitted
        function, `finish`). The jitted function of the input arrays gives the output
        (turn it into a numpy array with np.asarray), or, where the trace has a check, a
        tuple that `finish` makes that numpy array (raising a failed check). Else None."""
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

    def __call__(self, *arrays):
        jitted, plain, special, variables, written, outs_end, written_end, n = self._hot
        if plain:
            results = jitted(*arrays)
            if type(results) is not tuple:        # one output, no check in the trace
                return (np.asarray(results),)
            if len(results) == outs_end:          # no check in the trace
                return tuple(map(np.asarray, results))
            return self._finish(results[:outs_end], results[written_end:])
        # (Written out, not in helpers: the Python of this path shows several times over in
        # a train step's call, whose XLA threads share the cores with it.)
        if special:     # 64-bit values, or values drawn on the host before the call
            draws = self._draw() if self.predrawn else ()
            if self._x64:
                with jax.enable_x64(True):
                    results = jitted(*arrays, *self._values(), *draws)
            else:
                results = jitted(*arrays, *self._values(), *draws)
        else:
            results = jitted(*arrays, *[v._host if v._device is None else v._device
                                        for v in variables])
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
            if outs_end == 1 and n == 1:
                return (np.asarray(results[0]),)  # waits for the run to end
            if outs_end:
                outs = tuple(map(np.asarray, results[:outs_end]))
                return outs if outs_end == n else outs[:n]
            jax.block_until_ready(results)
            return ()
        return self._finish(results[:outs_end], results[written_end:])

    def _finish(self, outs, error):
        """The results as numpy arrays; a failed deferred check raised. `error`: the
        failure record (empty where the trace has no check)."""
        results = tuple(map(np.asarray, outs))  # waits for the run to end
        # (int() of a jax array costs tens of us; of a numpy one, nothing)
        failed = int(np.asarray(error[0])) if error else 0
        if failed:
            op, e = self.ctx.deferred_error(failed, [np.asarray(p) for p in error[1:]])
            raise op_error(op, e)
        return results[:self.num_outputs]

