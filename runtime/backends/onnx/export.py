"""`rt.onnx.export(concrete_fn, path)`: a concrete function as an ONNX model, so that a
function written with plain Python control flow runs where there is no Python.

A staged `cond` becomes an ONNX `If`, a staged `while_loop` a `Loop`; TensorArrays become
ONNX sequences; Variables are read at export time and become constants. The op rules are
`rules.RULES`. Needs the `onnx` package, imported only when `export` is called. How each
piece is written and where a model differs from ours: docs/architecture.md, "Backends".
"""
from __future__ import annotations

import itertools
from typing import Optional

import numpy as np

from ...concrete import ConcreteFunction
from ...core import walk
from ...control_flow import WhileInputs
from ...errors import InvalidGraphError
from .rules import RULES, unsupported_reason
from .rules_layout import TENSOR_ARRAY_DTYPE, lower_const
from ...ops.io_ops import ASSERT, PRINT

OPSET = 17


class ExportError(InvalidGraphError):
    """The function cannot be written as ONNX (the message names the ops)."""


def export(concrete_fn, path: Optional[str] = None, *, drop_prints: bool = False,
           drop_asserts: bool = False, opset: int = OPSET):
    """Writes `concrete_fn` as an ONNX model to `path` and returns the `onnx.ModelProto`.

    Inputs are named after the function's arguments (or their TensorSpec names), outputs
    `output_0`, `output_1`, ... in the order of `concrete_fn.outputs`.

    ONNX has no printing and no run-time assertions: `drop_prints=True` leaves out
    rt.print; `drop_asserts=True` leaves out assertions (rt.debugging.*, and autograph's
    checks that a variable assigned on some paths only was assigned), so where the
    function would raise, the model gives a value instead.

    Args:
      concrete_fn: a ConcreteFunction, or an rt.function with one trace or an
        input_signature.
      path: the file to write, or None to only return the model.
      drop_prints: leave out rt.print ops (else they make the export fail).
      drop_asserts: leave out assertions (else they make the export fail).
      opset: the ONNX opset version to target.

    Returns:
      The `onnx.ModelProto`.

    Raises:
      ImportError: when the onnx package is not installed.
      ExportError: naming each op (and the line that made it) with no ONNX equivalent.

    >>> import tempfile, os
    >>> f = rt.function(lambda x: rt.nn.relu(x) * 2.0,
    ...                 input_signature=[rt.TensorSpec([None], rt.float32, name="x")])
    >>> path = os.path.join(tempfile.mkdtemp(), "model.onnx")
    >>> model = rt.onnx.export(f, path)
    >>> [i.name for i in model.graph.input], [o.name for o in model.graph.output]
    (['x'], ['output_0'])
    >>> os.path.exists(path)
    True
    """
    try:
        import onnx
        from onnx import helper
    except ImportError:
        raise ImportError("rt.onnx.export needs the onnx package: pip install "
                          "'autograph-rt[onnx]' (or pip install onnx onnxruntime)") from None
    cf = _concrete(concrete_fn)
    dropped = {d for d, drop in ((PRINT, drop_prints), (ASSERT, drop_asserts)) if drop}
    ex = _Exporter(onnx, dropped)
    problems = ex.unsupported(cf.graph, list(cf.outputs))
    if problems:
        raise ExportError(f"cannot export {cf.name} to ONNX: these ops have no ONNX "
                          f"equivalent:\n  " + "\n  ".join(problems))
    unranked = [f"{what} {i} ('{t.op.name}')"
                for what, tensors in (("input", cf.inputs), ("output", cf.outputs))
                for i, t in enumerate(tensors) if t.shape.rank is None]
    if unranked:
        raise ExportError(f"cannot export {cf.name} to ONNX: an ONNX model's inputs and "
                          f"outputs need a known rank, and these have none: "
                          f"{', '.join(unranked)} (give the input_signature shapes such as "
                          f"[None, None])")
    inputs = []
    used = set()
    for t, rec in zip(cf.inputs, cf.inputs_specs):
        name = _unique((rec.spec.name or t.op.name).replace("/", "_"), used)
        ex.env[id(t)] = name
        inputs.append(ex.value_info(name, t.dtype, t.shape))
    ex.emit_graph(cf.graph, list(cf.outputs))
    outputs = []
    for i, t in enumerate(cf.outputs):
        name = f"output_{i}"
        ex.add("Identity", [ex.env[id(t)]], [name])
        outputs.append(ex.value_info(name, t.dtype, t.shape))
    graph = helper.make_graph(ex.nodes, cf.name, inputs, outputs)
    opsets = [helper.make_opsetid("", opset)]
    # The oldest IR version that holds the opset, not the newest this onnx writes: the
    # model then loads in every onnxruntime that runs the opset.
    model = helper.make_model(graph, opset_imports=opsets, producer_name="autograph-rt",
                              ir_version=helper.find_min_ir_version_for(opsets))
    onnx.checker.check_model(model)
    if path is not None:
        onnx.save(model, path)
    return model


def _concrete(f):
    if isinstance(f, ConcreteFunction):
        return f
    if hasattr(f, "get_concrete_function"):      # an rt.function
        if f.input_signature is not None:
            return f.get_concrete_function()
        traces = f.concrete_functions
        if len(traces) == 1:
            return traces[0]
        raise ExportError(f"{f.__name__} has {len(traces)} traces; pass one "
                          "ConcreteFunction (f.get_concrete_function(...))")
    raise ExportError(f"rt.onnx.export needs a ConcreteFunction, got {f!r}")


def _unique(name, used):
    base, n = name, 1
    while name in used:
        name = f"{base}_{n}"
        n += 1
    used.add(name)
    return name


def _bodies(op):
    """The op's sub-graphs, in the order of its attributes (as a loaded graph orders them)."""
    return [v for k, v in op.attrs.items() if k in op.opdef.body_attrs]


class _GraphWriter(walk.Visitor):
    """Writes the ops of one graph (or sub-graph) as ONNX nodes, met by what they are."""

    def __init__(self, ex):
        self.ex = ex

    def walk(self, graph, outputs=None):
        for op in self.ex.schedule(graph, outputs):
            self.visit(op)

    def const(self, op):
        self.ex.bind_outputs(op, lower_const(self.ex, op, []))

    def cond(self, op):
        if op.outputs:
            self.ex.emit_if(op)

    def while_loop(self, op):
        self.ex.emit_loop(op)

    def op(self, op):
        ex = self.ex
        outs = RULES[op.opdef](ex, op, [ex.env[id(t)] for t in op.inputs])
        element = TENSOR_ARRAY_DTYPE.get(op.opdef)
        if element is not None:
            ex.seq[id(op.outputs[0])] = element(op)
        ex.bind_outputs(op, outs)


class _Exporter:
    def __init__(self, onnx, dropped: set):
        self.onnx = onnx
        self.helper = onnx.helper
        self.dropped = dropped             # OpDefs left out (prints, assertions)
        self.nodes: list = []
        self.env: dict = {}                # id(tensor) -> ONNX value name
        self.seq: dict = {}                # id(TensorArray handle) -> its element dtype
        self._ids = itertools.count()

    # -- building ---------------------------------------------------------------------------
    def fresh(self, hint="t") -> str:
        return f"{hint.replace('/', '_')}__{next(self._ids)}"

    def add(self, op_type, inputs, outputs=None, n_out=1, **attrs) -> list:
        outputs = outputs or [self.fresh(op_type) for _ in range(n_out)]
        self.nodes.append(self.helper.make_node(op_type, list(inputs), list(outputs),
                                                name=self.fresh(op_type), **attrs))
        return outputs

    def one(self, op_type, inputs, **attrs) -> str:
        return self.add(op_type, inputs, **attrs)[0]

    def const(self, value, dtype=None) -> str:
        from onnx import numpy_helper
        a = np.asarray(value, dtype=dtype)
        return self.one("Constant", [], value=numpy_helper.from_array(a, self.fresh("c")))

    def ints(self, values) -> str:
        return self.const(np.asarray(list(values), dtype=np.int64))

    def as_int64(self, name) -> str:
        """The tensor `name` cast to int64 (ONNX's index and shape type)."""
        return self.one("Cast", [name], to=self.onnx.TensorProto.INT64)

    def elem_type(self, dtype) -> int:
        if dtype.is_string:
            return self.onnx.TensorProto.STRING
        return self.helper.np_dtype_to_tensor_dtype(dtype.np_dtype)

    def value_info(self, name, dtype, shape=None, tensor=None):
        if dtype.name == "variant":  # a TensorArray: an ONNX sequence of tensors
            return self.helper.make_tensor_sequence_value_info(
                name, self.elem_type(self.seq[id(tensor)]), None)
        dims = None if shape is None or shape.rank is None else list(shape.as_tuple())
        return self.helper.make_tensor_value_info(name, self.elem_type(dtype), dims)

    def bind(self, params, outer):
        """Sub-graph parameters read these (outer tensor, name) pairs."""
        for p, (t, n) in zip(params, outer):
            if p is not None:
                self.env[id(p)] = n
                if id(t) in self.seq:
                    self.seq[id(p)] = self.seq[id(t)]

    def bind_outputs(self, op, names):
        for t, name in zip(op.outputs, names):
            self.env[id(t)] = name

    # -- checking ---------------------------------------------------------------------------
    def schedule(self, graph, outputs) -> list:
        """The ops the outputs and the side effects that are kept need (walk.schedule,
        less the dropped ops and what only they read), in creation order."""
        ops = walk.schedule(graph, outputs)
        if not self.dropped:
            return ops
        live = {id(t) for t in outputs}
        kept = []
        for op in reversed(ops):
            d = op.opdef
            if (d.side_effect and d not in self.dropped) or any(id(t) in live for t in op.outputs):
                kept.append(op)
                live.update(id(t) for t in op.inputs)
        return kept[::-1]

    def unsupported(self, graph, outputs) -> list:
        out = []
        for op in self.schedule(graph, outputs):
            reason = unsupported_reason(op)
            if reason:
                where = ""
                if op.location:
                    fn, line, func = op.location
                    where = f", made at {fn}:{line} in {func}"
                out.append(f"{op.type} ('{op.name}'{where}): {reason}")
            for body in _bodies(op):
                out += self.unsupported(body.graph, body.outputs)
        return out

    # -- graphs -----------------------------------------------------------------------------
    def emit_graph(self, graph, outputs):
        _GraphWriter(self).walk(graph, outputs)

    def subgraph(self, name, body, outer, inputs=(), tail=None):
        """`body` as an ONNX graph: its parameters read the (tensor, name) pairs `outer`
        of the enclosing scope; `tail(results)` may add nodes and gives the outputs."""
        saved, self.nodes = self.nodes, []
        self.bind(body.params, outer)
        self.emit_graph(body.graph, body.outputs)
        results = [(t, self.env[id(t)]) for t in body.outputs]
        if tail is not None:
            results = tail(results)
        outs = []
        for t, n in results:
            out = self.fresh("out")
            self.add("Identity", [n], [out])
            outs.append(self.value_info(out, t.dtype, tensor=t))
        graph = self.helper.make_graph(self.nodes, self.fresh(name), list(inputs), outs)
        self.nodes = saved
        return graph

    def inline(self, body, outer):
        """Emits `body` into the current graph; returns its result names."""
        self.bind(body.params, outer)
        self.emit_graph(body.graph, body.outputs)
        return [self.env[id(t)] for t in body.outputs]

    def emit_if(self, op):
        pred = self.env[id(op.inputs[0])]
        ext = [(t, self.env[id(t)]) for t in op.inputs[1:]]
        then_body, else_body = op.opdef.bodies(op)
        then_g = self.subgraph("then", then_body, ext)
        else_g = self.subgraph("else", else_body, ext)
        outs = self.add("If", [pred], n_out=len(op.outputs), then_branch=then_g,
                        else_branch=else_g)
        for t, inner, n in zip(op.outputs, then_body.outputs, outs):
            self.env[id(t)] = n
            if id(inner) in self.seq:
                self.seq[id(t)] = self.seq[id(inner)]

    def emit_loop(self, op):
        layout = WhileInputs.of(op, [(t, self.env[id(t)]) for t in op.inputs])
        init, ext = layout.init, layout.captured
        trip = ""
        if layout.maximum_iterations is not None:
            trip = self.as_int64(layout.maximum_iterations[1])
        cond_body, body = op.opdef.bodies(op)
        [first_test] = self.inline(cond_body, init + ext)
        iter_name, cond_name = self.fresh("iter"), self.fresh("cond")
        carried = [(t, self.fresh("loop_var")) for t, _ in init]
        inputs = [self.helper.make_tensor_value_info(iter_name, self.onnx.TensorProto.INT64, []),
                  self.helper.make_tensor_value_info(cond_name, self.onnx.TensorProto.BOOL, [])]
        inputs += [self.value_info(c, t.dtype, tensor=t) for t, c in carried]

        def tail(results):  # the test again, on the new values
            [test] = self.inline(cond_body, results + ext)
            return [(cond_body.outputs[0], test)] + results

        graph = self.subgraph("loop_body", body, carried + ext, inputs, tail)
        outs = self.add("Loop", [trip, first_test, *[name for _, name in init]], n_out=len(init),
                        body=graph)
        for t, (t0, _), name in zip(op.outputs, init, outs):
            self.env[id(t)] = name
            if id(t0) in self.seq:
                self.seq[id(t)] = self.seq[id(t0)]


__all__ = ['ExportError', 'OPSET', 'export', 'unsupported_reason']


def __dir__():
    return sorted(__all__)    # the API, not the names it is built from
