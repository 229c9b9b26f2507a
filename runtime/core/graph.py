"""The graph IR: a Graph holds Operations in creation order; each Operation produces
SymbolicTensors. Creation order is a valid execution order (an op's inputs always exist
before it), and it is the program order of side effects.

Sub-graphs (the branches of a `cond`, the test and body of a `while_loop`) are Graphs
with an `outer` graph. A tensor of an outer graph used inside a sub-graph is captured:
the sub-graph gets a placeholder for it, and the control-flow op takes the outer tensor
as an input.
"""
from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
from typing import Iterator, Optional

from .. import nest
from ..errors import InvalidArgumentError, InvalidGraphError
from . import backend_registry, dtypes, hooks, walk
from .graph_def import graph_def, graph_text, node_def
from .graph_lines import graph_lines
from .leaks import foreign_tensor_error
from .opdef import CONST, PLACEHOLDER, const_specs, placeholder_op, to_array_for, wrap
from .shapes import TensorShape
from .tensor import EagerTensor, SymbolicTensor

class _State(threading.local):
    """Each thread's graph stack (None until it enters a graph): a class default, as
    getattr with a default on a missing thread-local attribute costs 0.6 us, which every
    rt.function call paid in a thread that never traced."""
    stack = None


_state = _State()
_recording = hooks.recording
# This thread's graph stack, for rt.function's call path: `thread_graphs.stack` is
# non-empty while a graph is built (current_graph() is not None), read without a call.
thread_graphs = _state


def _stack() -> list:
    s = _state.stack
    if s is None:
        s = _state.stack = []
    return s


def current_graph() -> Optional["Graph"]:
    """The graph ops are recorded into now, or None when running eagerly."""
    s = _state.stack
    return s[-1] if s else None


def current_name_scope() -> str:
    """The open rt.name_scope's full name ("outer/inner/" or ""), in a graph or eagerly."""
    g = current_graph()
    if g is None:
        return getattr(_state, "eager_names", "")
    return g._name_stack


@contextlib.contextmanager
def eager_scope() -> Iterator[None]:
    """Runs ops eagerly inside, whatever graph is being built (rt.init_scope).

    As TensorFlow's tf.init_scope: inside an `rt.function` being traced, the ops made in
    the `with` block run at once on values (to create a Variable's initial value once,
    for example) instead of being recorded into the graph.

    Returns:
      A context manager (its value is None).

    >>> @rt.function
    ... def f(x):
    ...     with rt.init_scope():
    ...         print("eager inside:", rt.executing_eagerly())
    ...     return x
    >>> _ = f(rt.constant(1))
    eager inside: True
    """
    s = _stack()
    saved = s[:]
    s.clear()
    try:
        yield
    finally:
        s[:] = saved


_RUNTIME_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_AUTOGRAPH_DIR = os.path.join(os.path.dirname(_RUNTIME_DIR), "autograph")


# Taken once: the user's program may delete or replace `sys._getframe`, and some
# interpreters have none (the nodes then record no location).
_frame_getter = getattr(sys, "_getframe", None)


def user_location() -> Optional[tuple]:
    """(filename, lineno, function) of the innermost frame outside runtime and autograph."""
    f = _frame_getter(2) if _frame_getter is not None else None
    while f is not None:
        fn = f.f_code.co_filename
        if not (fn.startswith(_RUNTIME_DIR) or fn.startswith(_AUTOGRAPH_DIR)
                or fn.startswith("<frozen") or "contextlib" in fn):
            return (fn, f.f_lineno, f.f_code.co_name)
        f = f.f_back
    return None


class Operation:
    """A node: an op applied to input tensors with attributes, giving output tensors."""

    __slots__ = ("graph", "name", "opdef", "inputs", "attrs", "outputs", "location",
                 "control_inputs", "__weakref__")

    def __init__(self, graph, name, opdef, inputs, attrs, out_specs, location=None):
        self.graph = graph
        self.name = name
        self.opdef = opdef
        self.inputs = tuple(inputs)
        self.attrs = attrs
        self.location = location
        self.control_inputs = ()
        self.outputs = tuple(SymbolicTensor(self, i, shape, dtype)
                             for i, (shape, dtype) in enumerate(out_specs))

    @property
    def type(self) -> str:
        return self.opdef.name

    @property
    def node_def(self):
        return node_def(self)

    def get_attr(self, name):
        return self.attrs[name]

    def __repr__(self):
        return f"<rt.Operation '{self.name}' type={self.type}>"


class Graph:
    """A dataflow graph. Use `with g.as_default():` to record ops into it.

    `rt.function` builds one per trace; a Graph made by hand is TF1-style: record ops with
    placeholders as inputs, then `g.run(fetches, feed_dict)`.

    Args:
      name: the graph's name (shown in its repr).
      outer: the enclosing graph, for a body graph that captures tensors from it.

    >>> g = rt.Graph()
    >>> with g.as_default():
    ...     x = rt.placeholder(rt.float32, [None], name="x")
    ...     y = rt.multiply(x, 2.0, name="double")
    >>> g
    <rt.Graph 'graph' with 3 ops>
    >>> y
    Tensor("double:0", shape=(None,), dtype=float32)
    >>> print(g.run(y, feed_dict={x: [1.0, 2.0]}))
    rt.Tensor([2. 4.], shape=(2,), dtype=float32)
    """

    def __init__(self, name: str = "graph", outer: Optional["Graph"] = None):
        self.name = name
        self.outer = outer
        self._ops: list[Operation] = []
        self._name_counts: dict[str, int] = {}
        self.inputs: list = []      # placeholders fed by the caller, in order
        self.outputs: list = []     # tensors returned, when the graph is a function body
        self.captures: dict = {}    # id(outer tensor) -> (outer tensor, inner placeholder)
        self.variables: list = []   # Variables read or written, in first-use order
        # id(eager tensor) -> (eager tensor, its Const node's output) for the eager tensors
        # made outside that this graph reads (a sub-graph captures its root graph's): a
        # GradientTape reaches them through the Const, as TensorFlow's through a capture
        self.eager_inputs: dict = {}
        self.has_side_effects = False
        # A function's body being traced (rt.function), or a sub-graph of one: its
        # tensors are not hashable, as in TensorFlow 2 (see SymbolicTensor.__hash__).
        self.building_function = outer.building_function if outer is not None else False
        # Exceptions that left a staged construct of autograph's while this graph (or a
        # sub-graph of it) was traced: rt.function refuses a trace that ends after one
        # was caught (see autograph_backend.left_staged). Sub-graphs share the list.
        self.left_staged: list = outer.left_staged if outer is not None else []
        self._version = 0           # bumped on every new op (compiled plans check it)
        self._compiled = {}
        self._name_stack = ""       # the open rt.name_scope, "block/inner/" or ""

    # -- building -------------------------------------------------------------------
    @contextlib.contextmanager
    def as_default(self) -> Iterator["Graph"]:
        s = _stack()
        s.append(self)
        entered = []
        try:
            for enter, exit_ in hooks.graph_building:   # (autograph: staging starts)
                enter()
                entered.append(exit_)
            yield self
        finally:
            s.pop()
            for exit_ in reversed(entered):
                exit_()

    def unique_name(self, base: str) -> str:
        n = self._name_counts.get(base)
        if n is None:
            self._name_counts[base] = 1
            return base
        while True:
            name = f"{base}_{n}"
            n += 1
            if name not in self._name_counts:
                self._name_counts[base] = n
                self._name_counts[name] = 1
                return name

    def reserve_names_of(self, other: "Graph") -> None:
        """Makes the names `other` gave out taken here too (a graph rebuilt from `other`
        keeps its nodes' names, and new nodes get names of their own)."""
        self._name_counts.update(other._name_counts)

    def add_op(self, opdef, inputs, attrs, out_specs, name=None) -> Operation:
        # A node reads only tensors of its own graph: an outer graph's tensor (the initial
        # value of a loop nested in a branch, say) comes in as a capture.
        # An eager tensor made outside (a loop's initial value, say) comes in as a constant.
        inputs = [self.eager_constant(t) if isinstance(t, EagerTensor)
                  else t if t.op.graph is self else self.capture(t) for t in inputs]
        name = self.unique_name(self._name_stack + (name or opdef.default_name))
        op = Operation(self, name, opdef, inputs, attrs, out_specs,
                       location=user_location())
        self._ops.append(op)
        self._version += 1
        if opdef.side_effect:
            self.has_side_effects = True
        if opdef.reads_variables or opdef.writes_variables:
            self.use_variable(attrs["variable"])
        if _recording.tapes:  # a GradientTape opened in this graph may record the op
            hooks.record_op(op)
        return op

    def use_variable(self, variable) -> None:
        """Lists `variable` among the Variables this graph reads or writes (once, in
        first-use order); every op that reads or writes one does, as it is added."""
        if all(v is not variable for v in self.variables):
            self.variables.append(variable)

    def eager_constant(self, t: EagerTensor) -> SymbolicTensor:
        """This graph's tensor for the eager tensor `t`, made outside it: one Const node of
        the root graph per eager tensor (a sub-graph captures it), so that a GradientTape
        watching `t` reaches every use."""
        if self.outer is not None:
            return self.capture(self.outer.eager_constant(t))
        entry = self.eager_inputs.get(id(t))
        if entry is not None:
            return entry[1]
        shape = (TensorShape(()) if t.dtype is dtypes.variant
                 else const_specs((), t._value, t.dtype)[0][0])
        out = self.add_op(CONST, (), {"value": t._value, "dtype": t.dtype},
                          [(shape, t.dtype)], "Const").outputs[0]
        self.eager_inputs[id(t)] = (t, out)  # keeps t alive: its id stays its own
        return out

    def append_operation(self, op: Operation) -> None:
        """Puts an Operation built for this graph (by a pass rebuilding it) last."""
        if op.graph is not self:
            raise InvalidGraphError(f"{op!r} belongs to another graph")
        self._ops.append(op)
        self._version += 1
        if op.opdef.side_effect:
            self.has_side_effects = True

    def is_ancestor_of(self, other: "Graph") -> bool:
        g = other
        while g is not None:
            if g is self:
                return True
            g = g.outer
        return False

    def capture(self, tensor):
        """The tensor to use in this graph for `tensor`, which belongs to an outer graph."""
        if tensor.graph is self:
            return tensor
        entry = self.captures.get(id(tensor))
        if entry is not None:
            return entry[1]
        if self.outer is None or not tensor.graph.is_ancestor_of(self):
            raise foreign_tensor_error(tensor, self)
        outer_t = self.outer.capture(tensor)
        # `tensor` and the outer graph's tensor for it are one input of this graph: a
        # graph that captured that outer tensor already (returned from an enclosing branch,
        # say) reuses its placeholder, which stays fed.
        entry = self.captures.get(id(outer_t))
        if entry is None:
            inner = placeholder_op(self, outer_t.dtype, outer_t.shape,
                                   name=outer_t.op.name.replace("/", "_") + "_capture")
            entry = self.captures[id(outer_t)] = (outer_t, inner)
        self.captures[id(tensor)] = entry
        return entry[1]

    def captured_inputs(self) -> list:
        """(outer tensor, inner placeholder) pairs, one per captured tensor."""
        seen, out = set(), []
        for outer_t, inner in self.captures.values():
            if id(inner) not in seen:
                seen.add(id(inner))
                out.append((outer_t, inner))
        return out

    # -- reading --------------------------------------------------------------------
    @property
    def operations(self) -> list:
        """The graph's operations in creation order (read it; add ops with `add_op`, or
        put rebuilt ones with `append_operation`)."""
        return self._ops

    def get_operations(self) -> list:
        return list(self._ops)

    def get_operation_by_name(self, name: str) -> Operation:
        for op in self._ops:
            if op.name == name:
                return op
        raise KeyError(f"the graph has no operation named {name!r}")

    def get_tensor_by_name(self, name: str):
        op_name, _, index = name.partition(":")
        return self.get_operation_by_name(op_name).outputs[int(index or 0)]

    def as_graph_def(self):
        return graph_def(self)

    def to_text(self, graph_def: bool = False) -> str:
        """The graph to read: one line per node, cond/while bodies indented under their
        node (see graph_lines). With `graph_def=True`, the GraphDef text (the exchange
        form, as `str(graph.as_graph_def())`: see graph_def.graph_text)."""
        return graph_text(self) if graph_def else graph_lines(self)

    def prune(self, outputs) -> None:
        """Drops the ops that neither `outputs` nor a side effect needs (placeholders
        stay), here and in the bodies of the control-flow ops that stay: what tracing
        made and nothing reads, such as a loop's test evaluated once to find that the
        loop is staged."""
        self._keep_only(walk.needed_nested(self, outputs))

    def _keep_only(self, keep: set) -> None:
        """`prune` with the ids of the ops to keep, here and in sub-graphs (`needed_nested`
        follows the bodies of the control-flow ops it keeps: one walk serves all)."""
        kept = [op for op in self._ops if id(op) in keep or op.opdef.feedable]
        if len(kept) != len(self._ops):
            self._ops = kept
            self._version += 1
        for op in kept:
            for body in op.opdef.bodies(op):
                body.graph._keep_only(keep)

    def to_dot(self, outputs=None) -> str:
        """The graph as Graphviz DOT: op types and shapes on the nodes, cond/while bodies
        as nested clusters (runtime/dot.py, a layer above, registers the drawer)."""
        return hooks.draw_dot(self, outputs)

    def __len__(self):
        return len(self._ops)

    def __repr__(self):
        return f"<rt.Graph '{self.name}' with {len(self._ops)} ops>"

    # -- running --------------------------------------------------------------------
    def compile(self, inputs, outputs, backend: Optional[str] = None):
        """A plan running this graph on `backend` (by name; the default backend when
        None): arrays for `inputs` in, arrays for `outputs` out (see core.backend_registry)."""
        chosen = backend_registry.get(backend)
        key = (tuple(id(t) for t in inputs), tuple(id(t) for t in outputs), self._version,
               chosen.name)
        plan = self._compiled.get(key)
        if plan is None:
            plan = self._compiled[key] = chosen.compile(self, list(inputs), list(outputs))
        return plan

    def run(self, fetches, feed_dict: Optional[dict] = None):
        """Runs the graph: computes `fetches` (a tensor or nested structure of tensors) from
        `feed_dict` {placeholder: value}, plus every side effect, in program order."""
        flat = nest.flatten(fetches)
        for t in flat:
            if not isinstance(t, SymbolicTensor) or t.graph is not self:
                raise InvalidGraphError(f"cannot fetch {t!r}: it is not a tensor of this graph")
        feed_dict = feed_dict or {}
        feeds, values = [], []
        for ph, v in feed_dict.items():
            if not isinstance(ph, SymbolicTensor) or ph.graph is not self:
                raise InvalidGraphError(f"cannot feed {ph!r}: it is not a tensor of this graph")
            if ph.op.opdef is not PLACEHOLDER:  # it would be recomputed, the fed value ignored
                raise InvalidGraphError(f"cannot feed '{ph.name}': only placeholders can be fed")
            feeds.append(ph)
            values.append(to_array_for(v, ph))
        missing = [p for p in self.inputs if all(p is not f for f in feeds)]
        plan = self.compile(feeds, flat)
        if missing:
            needed = plan.needed_placeholders
            for p in missing:
                if id(p) in needed:
                    raise InvalidArgumentError(
                        f"You must feed a value for placeholder tensor '{p.op.name}' "
                        f"with dtype {p.dtype.name} and shape {p.shape}")
        results = [wrap(a, t.dtype) for a, t in zip(plan(*values), flat)]
        return nest.pack_sequence_as(fetches, results)


_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\-/>]*$")


class name_scope:  # noqa: N801 - TensorFlow's name
    """`with rt.name_scope("block"):` prefixes the names of the ops made inside with "block/".

    Nested scopes join: "outer/inner/". `__enter__` gives the scope's full name with its
    trailing "/". A scope name used twice in one graph becomes "block_1/", as TensorFlow
    does; a name ending in "/" is taken as a full scope name, as it stands. Run eagerly, ops
    have no names and the scope only tracks the name it gives.

    Args:
      name: the scope's name: letters, digits and '_', '.', '-', '/' (not first).

    Raises:
      TypeError: for a name that is not a str.
      ValueError: for an invalid scope name.

    >>> g = rt.Graph()
    >>> with g.as_default():
    ...     with rt.name_scope("block") as scope:
    ...         y = rt.multiply(rt.constant(1.0), 2.0, name="double")
    >>> scope, y.name
    ('block/', 'block/double:0')
    """

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise TypeError(f"rt.name_scope needs a str name, got {name!r}")
        if not _SCOPE_NAME.match(name) or name.startswith(("/", "-")):
            raise ValueError(f"{name!r} is not a valid scope name: use letters, digits and "
                             "'_', '.', '-', '/' (not first)")
        self._name = name
        self._saved = None

    @property
    def name(self) -> str:
        return self._name

    def __enter__(self) -> str:
        g = current_graph()
        if g is None:
            stack = getattr(_state, "eager_names", "")
            full = self._full(stack)
            self._saved = (None, stack)
            _state.eager_names = full
            return full
        full = self._full(g._name_stack)
        if self._name and not self._name.endswith("/"):
            full = g.unique_name(full[:-1]) + "/"
        self._saved = (g, g._name_stack)
        g._name_stack = full
        return full

    def _full(self, stack: str) -> str:
        if not self._name:
            return ""
        if self._name.endswith("/"):
            return self._name
        return stack + self._name + "/"

    def __exit__(self, *exc) -> None:
        g, saved = self._saved
        if g is None:
            _state.eager_names = saved
        else:
            g._name_stack = saved
        self._saved = None


def placeholder(dtype, shape=None, name: Optional[str] = None):
    """A graph input to be fed when the graph runs (TF1's `tf.compat.v1.placeholder`).

    Args:
      dtype: the input's dtype (a DType or what `rt.as_dtype` takes).
      shape: its (possibly partial) shape; None for an unknown rank.
      name: an optional name (default "Placeholder").

    Returns:
      A symbolic tensor of the current graph, also appended to its `inputs`.

    Raises:
      RuntimeError: when no graph is being built.

    >>> g = rt.Graph()
    >>> with g.as_default():
    ...     x = rt.placeholder(rt.int32, [2], name="x")
    ...     y = x + 1
    >>> print(g.run(y, feed_dict={x: [1, 2]}))
    rt.Tensor([2 3], shape=(2,), dtype=int32)
    """
    g = current_graph()
    if g is None:
        raise RuntimeError("rt.placeholder() needs a graph: use it inside `with graph.as_default():`")
    t = placeholder_op(g, dtypes.as_dtype(dtype), TensorShape(shape), name=name or "Placeholder")
    g.inputs.append(t)
    return t
