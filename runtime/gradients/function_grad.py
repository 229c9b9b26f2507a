"""A `Function` called eagerly under an open tape: one tape entry for the whole call.

The first time a ConcreteFunction is differentiated, a backward graph is built for it;
the forward values it reads become extra outputs of the forward run, and both plans are
compiled once, on the function's backend (docs/architecture.md, "Gradients"). This
module registers itself with `concrete` (`on_taped_call`): concrete imports nothing
from the gradients layer.
"""
from __future__ import annotations

import numpy as np

from .. import concrete, nest
from ..concrete import Placeholder
from ..core import walk
from ..core.apply import apply_op
from ..control_flow import WhileInputs
from ..core.graph import Graph
from ..core.opdef import OpDef, placeholder_op, to_numpy, wrap
from ..core.tensor import EagerTensor, Tensor
from . import tape as _tape
from ..backprop import Grads, graph_backprop, graph_variables


class Backward:
    """The compiled forward (outputs + saved values) and backward plans of a function."""

    def __init__(self, cf):
        fg = cf.graph
        outs = [t for t in nest.flatten(cf.structured_outputs, expand_composites=True)
                if isinstance(t, Tensor)]
        self.float_outputs = [i for i, t in enumerate(outs) if t.dtype.is_floating]
        bg = Graph(f"{cf.name}_grad", outer=fg)
        with bg.as_default():
            seeds_ph = [placeholder_op(bg, outs[i].dtype, outs[i].shape, name="grad_ys")
                        for i in self.float_outputs]
            seeds = {id(outs[i]): ph for i, ph in zip(self.float_outputs, seeds_ph)}
            # the call's inputs, then the eager tensors made outside that the graph reads
            inputs = list(cf.inputs) + [out for _, out in _eager_sources_of(cf)]
            sources = [p for p in inputs if p.dtype.is_floating]
            grads, var_grads = graph_backprop(fg.operations, seeds, [id(p) for p in sources])
            results, self.input_slots = [], []
            for k, p in enumerate(inputs):
                g = grads.get(id(p))
                if g is not None and p.dtype.is_floating:
                    self.input_slots.append(k)
                    results.append(g)
            self.variables = [var for var, _ in var_grads.values()]
            results += [g for _, g in var_grads.values()]
        self.read_variables = _variables_of(cf)
        captured = bg.captured_inputs()
        # both on the function's backend
        self.forward = fg.compile(cf.inputs, outs + [t for t, _ in captured], backend=cf.backend)
        self.n_outputs = len(outs)
        self.backward = bg.compile(seeds_ph + [ph for _, ph in captured], results,
                                   backend=cf.backend)
        self.output_dtypes = [t.dtype for t in outs]
        self.function = cf


def _backward_of(cf) -> Backward:
    bw = cf.tape_backward
    if bw is None:
        bw = cf.tape_backward = Backward(cf)
    return bw


def _variables_of(cf) -> list:
    """The Variables `cf`'s graph reads (its sub-graphs included), found once."""
    found = cf.variables_read
    if found is None:
        found = cf.variables_read = list(graph_variables(cf.graph).values())
    return found


def _eager_sources_of(cf) -> list:
    """(eager tensor, Const) pairs: the float eager tensors made outside `cf`'s graph that
    it reads, found once."""
    found = cf.eager_sources
    if found is None:
        found = cf.eager_sources = [(t, out) for t, out in cf.graph.eager_inputs.values()
                                    if t.dtype.is_floating]
    return found


def call(cf, args, kwargs):
    """Calls ConcreteFunction `cf` eagerly; records the call on the open tapes that watch
    one of its tensor inputs, an eager tensor it reads (made outside it: its inputs too,
    as TensorFlow's captures) or a Variable it reads."""
    tensors, arrays = _inputs(cf, args, kwargs)
    tapes = _tape.eager_tapes()
    variables = _variables_of(cf) if tapes else []
    if tapes:
        tensors += [t for t, _ in _eager_sources_of(cf)]
    tapes = [t for t in tapes if t._watches_call(tensors, variables)]
    if not tapes:
        return cf.run_flat(arrays)
    bw = _backward_of(cf)
    results = bw.forward(*arrays)
    outs = [wrap(a, d) for a, d in zip(results[:bw.n_outputs], bw.output_dtypes)]
    entry = _tape.Entry(CALL, tensors, outs, {"backward": bw, "saved": results[bw.n_outputs:]},
                        name=cf.name)
    for t in tapes:
        t._record_call(entry, bw.read_variables)
    it = iter(outs)
    return nest.map_structure(lambda t: next(it) if isinstance(t, Tensor) else t,
                              cf.structured_outputs, expand_composites=True)


def _call_grad(inputs, outputs, grads, backward, saved):
    bw = backward
    if _tape.eager_tapes():  # an outer tape records this gradient: higher order
        return _grad_by_replay(bw, inputs, outputs, grads)
    seeds = []
    for i in bw.float_outputs:
        g = grads[i]
        seeds.append(np.zeros(np.shape(outputs[i]._value), outputs[i].dtype.np_dtype)
                     if g is None else g._value)
    results = bw.backward(*seeds, *saved)
    in_grads = [None] * len(inputs)
    for k, r in zip(bw.input_slots, results):
        in_grads[k] = wrap(r, inputs[k].dtype)
    rest = results[len(bw.input_slots):]
    var_grads = {id(v): (v, wrap(r, v.dtype)) for v, r in zip(bw.variables, rest)}
    return Grads(in_grads, var_grads)



def _call_infer(inputs, **attrs):
    raise TypeError("PartitionedCall only appears on tapes")


# A Function called eagerly under a tape, recorded as one tape entry (never a graph op).
# Like a control-flow node it runs a sub-graph that may read Variables its inputs do not
# show, so its rule runs even when no input needs a gradient.
CALL = OpDef("PartitionedCall", _call_infer, None, pure=False, runs_subgraphs=True,
             grad=_call_grad)
concrete.on_taped_call(call)


def _grad_by_replay(bw, inputs, outputs, grads):
    """The call's gradient computed op by op eagerly (the function's graph interpreted
    under a private tape), so that the open tapes record it and can differentiate again.
    The compiled backward plan is opaque to them."""
    cf = bw.function
    with _tape.GradientTape(persistent=True) as inner:
        inner.watch(list(inputs))
        params = list(cf.inputs) + [out for _, out in _eager_sources_of(cf)]
        values = {id(p): t for p, t in zip(params, inputs)}
        run_eagerly(cf.graph, values)
        outs = [values[id(t)] for t in nest.flatten(cf.structured_outputs, expand_composites=True)
                if isinstance(t, Tensor)]
    pairs = [(o, g) for o, g in zip(outs, grads) if g is not None and o.dtype.is_floating]
    sources = list(inputs) + list(bw.read_variables)
    result = inner.gradient([o for o, _ in pairs], sources,
                            output_gradients=[g for _, g in pairs])
    n = len(inputs)
    var_grads = {id(v): (v, g) for v, g in zip(bw.read_variables, result[n:]) if g is not None}
    return Grads(result[:n], var_grads)


def run_eagerly(graph, values: dict):
    """Runs `graph`'s ops one by one with eager tensors (so open tapes see each of them).
    `values` maps id(tensor) to its value: the fed placeholders, and it receives the rest.
    Staged cond and while run as Python `if` and `while` over their bodies."""
    _EagerReplay(values).walk(graph)


class _EagerReplay(walk.Visitor):
    """The walk of `run_eagerly`: placeholders are fed (the default skips them); prints
    and asserts (observers) ran in the forward pass; a Variable write was made there too,
    so it gives the Variable's value."""

    def __init__(self, values: dict):
        self.values = values

    def const(self, op):
        if id(op.outputs[0]) not in self.values:  # else an eager tensor given for it
            self.values[id(op.outputs[0])] = EagerTensor(op.attrs["value"], op.attrs["dtype"])

    def cond(self, op):
        pred, *captured = self._inputs(op)
        body = op.attrs["then_body" if bool(pred) else "else_body"]
        self._set(op, self._run_body(body, captured))

    def while_loop(self, op):
        init, captured, limit = WhileInputs.of(op, self._inputs(op))
        limit = None if limit is None else int(limit)
        state, count = list(init), 0
        while (limit is None or count < limit) and bool(
                self._run_body(op.attrs["cond_body"], state + captured)[0]):
            state = self._run_body(op.attrs["body"], state + captured)
            count += 1
        self._set(op, state)

    def op(self, op):
        d = op.opdef
        if d.observer:
            return
        if d.writes_variables:
            outs = [op.attrs["variable"].read_value()]
        else:
            out = apply_op(d, self._inputs(op), op.attrs)
            outs = list(out) if d.multi_output else [out]
        self._set(op, outs)

    def _inputs(self, op) -> list:
        return [self.values[id(t)] for t in op.inputs]

    def _set(self, op, outs):
        for t, v in zip(op.outputs, outs):
            self.values[id(t)] = v

    def _run_body(self, body, inputs) -> list:
        for p, v in zip(body.params, inputs):
            if p is not None:
                self.values[id(p)] = v
        self.walk(body.graph)
        return [self.values[id(t)] for t in body.outputs]


def _inputs(cf, args, kwargs) -> tuple:
    """The call's input tensors and arrays, one per `cf.inputs` (checked as a call is)."""
    arrays = [None] * len(cf.inputs)
    values = [None] * len(cf.inputs)
    try:
        bound = cf.python_signature.bind_partial(*args, **kwargs)
        for pname, traced in cf.traced_arguments.items():
            if pname in bound.arguments:
                cf.match_argument(pname, traced, bound.arguments[pname], arrays)
                _collect(traced, bound.arguments[pname], values)
        missing = [ph.spec.name for ph, a in zip(cf.inputs_specs, arrays) if a is None]
        if missing:
            raise TypeError(f"{cf.name}{_signature_text(cf)}: missing a required tensor "
                            f"argument: '{missing[0]}'")
    except TypeError:
        if kwargs or len(args) != len(cf.inputs):
            raise
        arrays = [cf.array_for(ph, a, ph.spec.name) for ph, a in zip(cf.inputs_specs, args)]
        values = list(args)
    tensors = [v if isinstance(v, EagerTensor) else
               EagerTensor(a if isinstance(a, np.ndarray) else to_numpy(a), ph.dtype)
               for v, a, ph in zip(values, arrays, cf.inputs)]
    return tensors, arrays


def _signature_text(cf) -> str:
    return "(" + ", ".join(cf.python_signature.parameters) + ")"


def _collect(traced, value, values):
    if isinstance(traced, Placeholder):
        values[traced.index] = value
    elif nest.is_nested(traced, expand_composites=True):   # rt.SparseTensor: its tensors
        for t, v in zip(nest.flatten(traced, expand_composites=True),
                        nest.flatten(value, expand_composites=True)):
            _collect(t, v, values)
