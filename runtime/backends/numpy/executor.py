"""Compiles a graph once into straight-line Python that calls the kernels: for the outputs
asked for, the ops they need plus every side effect, in creation order, as one Python
function (a staged cond an `if`, a staged while_loop a `while True`), constants and
kernels its globals. A line of the generated code maps back to its node, so a kernel's
error names the node and where the user created it. No value of a graph becomes source
text. How and why: docs/architecture.md, "Backends".
"""
from __future__ import annotations

import functools
import itertools
import linecache
import time

import numpy as np

from ... import control_flow
from ...core import walk
from ...core.leaks import no_value_error
from .coalesce import coalesce_copies
from .counted_loops import (constant_elements, constant_int, counted_loop, int_wrapper,
                            is_addition, iterated_element, python_int_accumulators)
from .plan import GuardedPlan, Plan, past_deadline, too_many_iterations

_counter = itertools.count()


class _Args(list):
    """The variable names of an op's inputs, as `emit(op, args)` gets them; `const(value)`
    names a global bound to `value` (an attribute in the expression, never its text)."""

    __slots__ = ("_em",)
    _em: "_Emitter"

    def const(self, value) -> str:
        return self._em.global_value(value)


class _Emitter(walk.Visitor):
    """Writes the Python lines of a graph, one op at a time (a Visitor: placeholders are
    named by whoever feeds them, constants become globals, conds and while loops become
    `if` and `while` blocks, every other op a kernel call)."""

    def __init__(self):
        self.lines: list[str] = []
        self.line_nodes: dict[int, object] = {}
        self.line_args: dict[int, list] = {}  # line -> the variables a kernel call reads
        self.globals: dict = {"np": np}
        self.names: dict[int, str] = {}
        self._ids = itertools.count()
        self._kernels: dict = {}
        self.fresh_buffers: set = set()
        self.inplace: dict = {}  # line index -> (argument names, output name, ufunc name)
        self.indent = 1
        self.params: list[str] = []  # the function's parameters: the fed inputs
        # id(while op) -> index of the line before its `while True:` (its loop variables
        # are set by then: what only initialises them may be freed there)
        self.loop_heads: dict = {}
        self.guards = None  # the graph's run_guards, if any
        self.loop_depth = 0  # how many staged while loops enclose the ops emitted now
        self.int_ops: set = set()  # ids of the additions written as Python int arithmetic
        self.counter_bounds: dict = {}  # a counted loop's counter -> (start, limit), constants
        self.iterated: dict = {}  # id(slice op) -> the name a counted loop's `for` binds

    def args(self, names) -> "_Args":
        a = _Args(names)
        a._em = self
        return a

    def fresh(self, prefix="t") -> str:
        return f"{prefix}{next(self._ids)}"

    def emit(self, indent: int, text: str, node=None):
        self.lines.append("    " * indent + text)
        if node is not None:
            self.line_nodes[len(self.lines) + 1] = node  # +1: the `def` line comes first

    def scalar_fn(self) -> str:
        name = self._kernels.get(id(_scalar))
        if name is None:
            name = self._kernels[id(_scalar)] = self.global_value(_scalar, "sc")
        return name

    def global_value(self, value, prefix="c") -> str:
        name = self.fresh(prefix)
        self.globals[name] = value
        return name

    def kernel(self, op) -> str:
        kernel = op.opdef.kernel
        if op.attrs:
            kernel = functools.partial(kernel, **op.attrs)
            return self.global_value(kernel, "k")
        name = self._kernels.get(id(kernel))
        if name is None:
            name = self._kernels[id(kernel)] = self.global_value(kernel, "k")
        return name

    def name_of(self, t) -> str:
        try:
            return self.names[id(t)]
        except KeyError:
            raise no_value_error(t) from None

    # -- graphs ---------------------------------------------------------------------------
    def emit_graph(self, graph, outputs, indent: int):
        outer, self.indent = self.indent, indent
        try:
            self.walk(graph, outputs)
        finally:
            self.indent = outer

    def placeholder(self, op):
        return None  # named by whoever feeds it

    def const(self, op):
        value = op.attrs["value"]
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value[()]  # numpy scalars compute ~20x faster than 0-d arrays
        elif isinstance(value, np.ndarray):
            # Every run returns this very array where the graph returns the constant:
            # a caller writing into `.numpy()` must not change later results.
            value.flags.writeable = False
        self.names[id(op.outputs[0])] = self.global_value(value)

    def op(self, op):
        indent = self.indent
        if id(op) in self.iterated:  # set by the `for` of its counted loop
            self.names[id(op.outputs[0])] = self.iterated[id(op)]
            return
        arg_names = [self.name_of(t) for t in op.inputs]
        expr = op.opdef.emit(op, self.args(arg_names)) if op.opdef.emit is not None else None
        if id(op) in self.int_ops:
            expr = self._python_int_step(op, arg_names)
        elif self.counter_bounds:
            elements = constant_elements(op, self.counter_bounds, arg_names)
            if elements is not None:
                expr = f"{self.global_value(elements)}[{arg_names[1]}]"
        if expr is not None and expr.isidentifier():  # an alias (Identity): no code
            self.names[id(op.outputs[0])] = expr
            return
        self.line_args[len(self.lines) + 2] = arg_names  # the line emitted below
        args = ", ".join(arg_names)
        call = expr if expr is not None else f"{self.kernel(op)}({args})"
        if expr is None and self.loop_depth and _scalar_valued(op):
            # A kernel may give a 0-d array: in a loop, later scalar steps on it would
            # cost ~20x what they cost on a numpy scalar (same dtype, same value).
            call = f"{self.scalar_fn()}({call})"
        outs = [self.fresh() for _ in op.outputs]
        for t, n in zip(op.outputs, outs):
            self.names[id(t)] = n
        if not (op.opdef.pure and op.opdef.allocates):
            # Its result may be a view of its inputs (reshape, slice, ...) or it may keep
            # them (a TensorArray, a variable): their buffers are shared from now on.
            self.fresh_buffers.difference_update(arg_names)
        if not op.opdef.multi_output:
            self.emit(indent, f"{outs[0]} = {call}", op)
            if indent == 1:
                self._note_buffers(op, arg_names, outs[0])
        elif outs:
            self.emit(indent, f"{', '.join(outs)}{',' if len(outs) == 1 else ''} = {call}", op)
            self.fresh_buffers.difference_update(arg_names)
        else:
            self.emit(indent, call, op)
            self.fresh_buffers.difference_update(arg_names)

    def _note_buffers(self, op, arg_names, out):
        """Records which values own a fresh buffer (made by an op that `allocates`: a
        ufunc, a matmul, a reduction; never a view of an input or constant), and which
        ufunc lines could write into a dead input."""
        kernel = op.opdef.kernel
        if op.opdef.pure and op.opdef.allocates:
            self.fresh_buffers.add(out)
        if not op.inputs:
            return
        x, y = op.outputs[0], op.inputs[0]
        if (isinstance(kernel, np.ufunc) and kernel.nout == 1 and x.shape.is_fully_defined()
                and x.shape.rank and x.shape == y.shape and x.dtype is y.dtype
                and not x.dtype.is_string):
            self.inplace[len(self.lines) - 1] = (arg_names, out, self.global_value(kernel, "u"))

    def assign(self, indent, targets, values):
        """`targets = values`, as one statement per pair (cheaper than packing a tuple) when
        no value reads a target assigned before it; else as one tuple assignment."""
        pairs = [(t, v) for t, v in zip(targets, values) if t != v]
        assigned = set()
        for t, v in pairs:
            if v in assigned:
                self.emit(indent, f"{', '.join(targets)}, = {', '.join(values)},")
                return
            assigned.add(t)
        for t, v in pairs:
            self.emit(indent, f"{t} = {v}")
        if not pairs:
            self.emit(indent, "pass")

    def bind_params(self, body, input_names):
        for ph, name in zip(body.params, input_names):
            if ph is not None:
                self.names[id(ph)] = name

    def emit_body(self, body, input_names, indent, outputs=None) -> list:
        self.bind_params(body, input_names)
        outputs = body.outputs if outputs is None else outputs
        self.emit_graph(body.graph, outputs, indent)
        results = [self.name_of(t) for t in outputs]
        # The node's results share these buffers from now on.
        self.fresh_buffers.difference_update(results)
        return results

    def cond(self, op):
        indent = self.indent
        pred, *ext = [self.name_of(t) for t in op.inputs]
        self.fresh_buffers.difference_update(ext)
        outs = [self.fresh() for _ in op.outputs]
        for t, n in zip(op.outputs, outs):
            self.names[id(t)] = n
        self.emit(indent, f"if {pred}:", op)
        then_body, else_body = op.opdef.bodies(op)
        for body in (then_body, else_body):
            results = self.emit_body(body, ext, indent + 1)
            if outs:
                self.assign(indent + 1, outs, results)
            else:
                self.emit(indent + 1, "pass")
            if body is then_body:
                self.emit(indent, "else:")

    def while_loop(self, op):
        indent = self.indent
        names = [self.name_of(t) for t in op.inputs]
        self.fresh_buffers.difference_update(names)
        names = self._scalar_entries(indent, op, names)
        init, ext, max_iter = control_flow.WhileInputs.of(op, names)
        cond_body, body = op.opdef.bodies(op)
        loop_vars = [self.fresh("w") for _ in init]
        if loop_vars:
            self.assign(indent, loop_vars, init)
        counted = counted_loop(op)
        ints = self._python_ints_in(indent, op, loop_vars, counted)
        if counted is not None:
            self._counted_loop(indent, op, counted, loop_vars, names, ext, body)
            self._python_ints_out(indent, op, loop_vars, ints)
            return
        counter = None
        if max_iter is not None:
            counter = self.fresh("n")
            self.emit(indent, f"{counter} = 0")
        self.loop_heads[id(op)] = len(self.lines) - 1
        self.loop_depth += 1
        try:
            head = len(self.lines)
            self.emit(indent, "while True:", op)
            [test] = self.emit_body(cond_body, loop_vars + ext, indent + 1)
            if not self._test_in_head(head, indent, test):
                self.emit(indent + 1, f"if not {test}: break", op)
            if self.guards is not None:
                self.emit_guards(indent + 1, op)
            if counter is not None:
                self.emit(indent + 1, f"if {counter} >= {max_iter}: break")
                self.emit(indent + 1, f"{counter} += 1")
            results = self.emit_body(body, loop_vars + ext, indent + 1)
            if loop_vars:
                self.assign(indent + 1, loop_vars, results)
            elif len(self.lines) == head + 1:
                self.emit(indent + 1, "pass")
        finally:
            self.loop_depth -= 1
        if not self.loop_depth:
            coalesce_copies(self.lines, head)
        self._python_ints_out(indent, op, loop_vars, ints)
        for t, v in zip(op.outputs, loop_vars):
            self.names[id(t)] = v

    def _python_ints_in(self, indent, op, loop_vars, counted) -> list:
        """The loop variables that run as Python ints (see counted_loops), made ints
        before the loop; their arithmetic is marked for `_python_int_step`."""
        found = python_int_accumulators(op, None if counted is None else counted.counter)
        self.int_ops.update(found.ops)
        for k in found.variables:
            self.emit(indent, f"{loop_vars[k]} = int({loop_vars[k]})")
        return found.variables

    def _python_ints_out(self, indent, op, loop_vars, ints):
        """After the loop: each Python int variable back to its dtype, wrapped as numpy
        would have wrapped it at every step."""
        for k in ints:
            np_dtype = op.outputs[k].dtype.np_dtype
            wrap = self._kernels.get(("wrap", np_dtype))
            if wrap is None:
                wrap = self._kernels[("wrap", np_dtype)] = self.global_value(
                    int_wrapper(np_dtype), "wrap")
            self.emit(indent, f"{loop_vars[k]} = {wrap}({loop_vars[k]})")

    def _python_int_step(self, op, arg_names) -> str:
        """`v + c`, `v - c` or `c - v` on a Python int: the constant as a Python int."""
        names = list(arg_names)
        for i, t in enumerate(op.inputs):
            if t.op.opdef.constant:
                names[i] = self.global_value(int(t.op.attrs["value"]))
        return f"({names[0]} {'+' if is_addition(op) else '-'} {names[1]})"

    def _counted_loop(self, indent, op, counted, loop_vars, names, ext, body):
        """The loop as `for i in range(start, limit):` (see counted_loops): the body
        reads the counter as a Python int; after the loop it holds what the while loop
        leaves in it, the limit if the loop ran, else its start."""
        k = counted.counter
        if counted.limit_input is not None:
            limit = names[counted.limit_input]
        else:
            limit = self.global_value(_scalar(counted.limit_value))
        count, start = self.fresh("f"), loop_vars[k]
        low = constant_int(op.inputs[k])
        high = (constant_int(op.inputs[counted.limit_input]) if counted.limit_input is not None
                else int(counted.limit_value))
        if low is not None and high is not None:
            self.counter_bounds[count] = (low, high)
        self.loop_heads[id(op)] = len(self.lines) - 1
        self.loop_depth += 1
        try:
            head = len(self.lines)
            element = iterated_element(op, counted)
            if element is None:
                self.emit(indent, f"for {count} in range({start}, {limit}):", op)
            else:
                value = self.fresh()
                self.iterated[id(element[1])] = value
                self.emit(indent, f"for {count}, {value} in zip(range({start}, {limit}), "
                                  f"{names[element[0]]}):", op)
            if self.guards is not None:
                self.emit_guards(indent + 1, op)
            others = [i for i in range(len(loop_vars)) if i != k]
            params = loop_vars[:k] + [count] + loop_vars[k + 1:] + ext
            results = self.emit_body(body, params, indent + 1,
                                     [body.outputs[i] for i in others])
            if others:
                self.assign(indent + 1, [loop_vars[i] for i in others], results)
            elif len(self.lines) == head + 1:
                self.emit(indent + 1, "pass")
        finally:
            self.loop_depth -= 1
        if not self.loop_depth:
            coalesce_copies(self.lines, head)
        self.emit(indent, f"{start} = {limit} if {start} < {limit} else {start}")
        for t, v in zip(op.outputs, loop_vars):
            self.names[id(t)] = v

    def _scalar_entries(self, indent, op, names) -> list:
        """The loop's rank-0 numeric inputs (initial values and captured tensors) as numpy
        scalars, converted once before the loop: a 0-d array (a fed input, a kernel's
        result) in every iteration's scalar arithmetic costs ~20x a numpy scalar."""
        out = list(names)
        done = {}
        for i, (t, name) in enumerate(zip(op.inputs, names)):
            if not _scalar_tensor(t) or name in self.globals:
                continue  # constants are numpy scalars already
            if self.loop_depth and name[0] in "ws" and name[1:].isdigit():
                continue  # an enclosing loop's variable or entry: a scalar already
            if name not in done:
                done[name] = self.fresh("s")
                self.emit(indent, f"{done[name]} = {self.scalar_fn()}({name})")
            out[i] = done[name]
        return out

    def _test_in_head(self, head, indent, test) -> bool:
        """Writes `while EXPR:` in place of `while True:` + `TEST = EXPR` +
        `if not TEST: break` when the loop's test is one expression (or a value): one
        statement less per iteration. The line keeps the test's node for errors."""
        lines = self.lines
        if len(lines) == head + 1:
            lines[head] = "    " * indent + f"while {test}:"
            return True
        prefix = "    " * (indent + 1) + f"{test} = "
        if len(lines) != head + 2 or not lines[head + 1].startswith(prefix):
            return False
        expr = lines.pop()[len(prefix):]
        lines[head] = "    " * indent + f"while {expr}:"
        node = self.line_nodes.pop(head + 3, None)
        if node is not None:
            self.line_nodes[head + 2] = node
        args = self.line_args.pop(head + 3, None)
        if args is not None:
            self.line_args[head + 2] = args
        return True

    def emit_guards(self, indent, op):
        """An iteration's checks of the run guards: the count of loop iterations of this
        call (all loops together) and the deadline."""
        g = self.guards
        if g.max_loop_iterations is not None:
            self.emit(indent, "_g_n += 1", op)
            self.emit(indent, f"if _g_n > {self.global_value(g.max_loop_iterations)}: "
                              f"{self.global_value(too_many_iterations)}(_g_n - 1)", op)
        if g.deadline_seconds is not None:
            self.emit(indent, f"if {self.global_value(time.monotonic)}() > _g_t: "
                              f"{self.global_value(past_deadline)}("
                              f"{self.global_value(g.deadline_seconds)})", op)

    def guard_prologue(self) -> list:
        g = self.guards
        lines = []
        if g.max_loop_iterations is not None:
            lines.append("    _g_n = 0")
        if g.deadline_seconds is not None:
            lines.append(f"    _g_t = {self.global_value(time.monotonic)}() + "
                         f"{self.global_value(g.deadline_seconds)}")
        return lines


def _scalar(x, ndarray=np.ndarray):
    """`x` as a numpy scalar when it is a 0-d numeric or bool array (same dtype, same
    value: numpy's arithmetic on either gives the same result), else `x` itself."""
    if x.__class__ is ndarray and not x.shape and x.dtype.kind in "biufc":
        return x[()]
    return x


def _scalar_tensor(t) -> bool:
    """Whether `t` is known to be a rank-0 number or bool (a candidate for `_scalar`)."""
    return t.shape.rank == 0 and not t.dtype.is_string and t.dtype.np_dtype.kind in "biufc"


def _scalar_valued(op) -> bool:
    return (not op.opdef.multi_output and len(op.outputs) == 1
            and _scalar_tensor(op.outputs[0]))


def _emit_top(em: _Emitter, ops) -> list:
    """Emits the top-level ops; per op, the index of the last line it emitted."""
    ends = []
    for op in ops:
        em.visit(op)
        ends.append(len(em.lines) - 1)
    return ends


def _free_dead_values(em: _Emitter, ops, ends, outputs) -> None:
    """Inserts `del` after the top-level op that last reads each intermediate (by the
    graph's liveness, `walk.last_reads`), so a large workload does not hold dead buffers
    until the function returns (numpy code written by hand frees its temporaries as it
    goes). A value read inside an `if` or `while` block lives until that whole block
    ends; the outputs are never freed. A Python name may stand for several tensors (an
    Identity is an alias): it dies with the last of them."""
    death: dict = {}  # name -> index of the op after which it is dead
    for i, dead in walk.last_reads(ops, outputs).items():
        for t in dead:
            name = em.names.get(id(t))
            if name is not None and death.get(name, -1) < i:
                death[name] = i
    forever = len(ops)
    for t in outputs:
        name = em.names.get(id(t))
        if name is not None:
            death[name] = forever
    # Only what the top level assigned is freed: not inputs, constants, kernels.
    top = {em.names[id(t)] for op in ops for t in op.outputs if id(t) in em.names}
    top.difference_update(em.globals, em.params)
    line_op: dict = {}
    for i, end in enumerate(ends):
        line_op.setdefault(end, i)
    lines = em.lines
    # A ufunc whose first input dies here and owns its buffer writes into it (out=):
    # large workloads then allocate no new array for the step.
    for at, (args, out, ufunc) in em.inplace.items():
        first = args[0]
        i = line_op.get(at)
        if i is not None and first in em.fresh_buffers and death.get(first) == i:
            lines[at] = f"    {out} = {ufunc}({', '.join(args)}, out={first})"
    frees: dict[int, list] = {}
    for name, i in death.items():
        if i < forever and name in top:
            frees.setdefault(_free_line(em, ops[i], name, ends[i]), []).append(name)
    if not frees:
        return
    new_lines, moved = [], {}
    frees_before = frees.pop(-1, None)  # ops that emitted no line before the first line
    if frees_before:
        new_lines.append("    del " + ", ".join(sorted(frees_before)))
    for i, line in enumerate(lines):
        moved[i + 2] = len(new_lines) + 2  # line numbers count the `def` line first
        new_lines.append(line)
        if i in frees:
            new_lines.append("    del " + ", ".join(sorted(frees[i])))
    em.lines = new_lines
    em.line_nodes = {moved[k]: v for k, v in em.line_nodes.items() if k in moved}
    em.line_args = {moved[k]: v for k, v in em.line_args.items() if k in moved}


def _free_line(em: _Emitter, op, name, end) -> int:
    """The line after which `name`, last read by `op`, is dead: the end of the op's
    statements, or the head of a while loop when the loop only starts from it (an initial
    value of a loop variable, neither captured by the loop nor read in its bodies)."""
    head = em.loop_heads.get(id(op))
    if head is None:
        return end
    init, captured, limit = control_flow.WhileInputs.of(op)
    late = captured + ([limit] if limit is not None else []) + walk.reads(op)[len(op.inputs):]
    if any(em.names.get(id(t)) == name for t in init) and not any(
            em.names.get(id(t)) == name for t in late):
        return head
    return end


def compile_graph(graph, inputs, outputs) -> Plan:
    em = _Emitter()
    em.guards = getattr(graph, "run_guards", None)
    params = em.params
    for t in inputs:
        name = em.fresh("i")
        em.names[id(t)] = name
        params.append(name)
    ops = walk.schedule(graph, outputs)
    ends = _emit_top(em, ops)
    results = [em.name_of(t) for t in outputs]
    _free_dead_values(em, ops, ends, outputs)
    em.emit(1, f"return ({', '.join(results)}{',' if len(results) == 1 else ''})")
    filename = f"<rt-graph-{next(_counter)}>"
    # Constants and kernels become default arguments: locals are the fastest lookups.
    bound = [f"{name}={name}" for name in em.globals]
    lines = em.lines
    if em.guards is not None:
        prologue = em.guard_prologue()
        bound = [f"{name}={name}" for name in em.globals]
        lines = prologue + lines
        em.line_nodes = {k + len(prologue): v for k, v in em.line_nodes.items()}
        em.line_args = {k + len(prologue): v for k, v in em.line_args.items()}
    source = f"def run({', '.join(params + bound)}):\n" + "\n".join(lines) + "\n"
    code = compile(source, filename, "exec")
    namespace = dict(em.globals)
    exec(code, namespace)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    needed_placeholders = {id(op.outputs[0]) for op in ops if op.opdef.feedable}
    if em.guards is not None and em.guards.max_elements is not None:
        plan = GuardedPlan(namespace["run"], source, filename, em.line_nodes,
                            needed_placeholders, em.line_args)
        plan.max_elements = em.guards.max_elements
        return plan
    return Plan(namespace["run"], source, filename, em.line_nodes, needed_placeholders,
                em.line_args)


class NumpyBackend:
    """The numpy executor as a Backend (see core.backend_registry): the default."""

    name = "numpy"

    def compile(self, graph, inputs, outputs) -> Plan:
        return compile_graph(graph, inputs, outputs)
