"""Where higher layers plug into the core, so that the core imports none of them.

The core (tensors, graphs, `apply_op`) calls these; the modules above register:

- `recording.tapes`: the GradientTapes open on this thread (`gradients.tape` pushes and
  pops them). The core tests it before anything else, so an op costs nothing more while
  no tape is open; when it is not empty the core calls `record_eager(opdef, inputs,
  outputs, attrs)` after an op ran eagerly and `record_op(op)` after a graph op was added.
- `rule_state` / `wanted(k)`: what backprop tells the gradient rules defined beside the
  ops (whether the gradient of input k is used).
- `draw_dot(graph, outputs)`: `Graph.to_dot`, set by runtime.dot.
- `graph_building`: (enter, exit) pairs called when a graph becomes the default graph and
  when it stops being it (the autograph bridge uses them: converted functions take their
  staging path while a graph is built).
"""
from __future__ import annotations

import threading


class _Recording(threading.local):
    def __init__(self):
        self.tapes: list = []


recording = _Recording()


def _not_registered(*args):
    raise RuntimeError("a GradientTape is open but no tape recorder is registered")


record_eager = _not_registered
record_op = _not_registered

graph_building: list = []       # [(enter, exit)], in registration order

# op callbacks `cb(opdef, inputs, outputs, op) -> outputs`, called after each op ran eagerly
# (op None) or was added to a graph; what they return replaces the outputs
# (rt.debugging.enable_check_numerics registers one)
op_callbacks: list = []


def after_op(opdef, inputs, outputs, op):
    for cb in list(op_callbacks):
        outputs = cb(opdef, inputs, outputs, op)
    return outputs


def _no_drawer(graph, outputs=None):
    raise RuntimeError("no DOT drawer is registered (import runtime.dot)")


draw_dot = _no_drawer           # Graph.to_dot: runtime.dot sets it


class _RuleState(threading.local):
    needed = None       # while backprop runs a gradient rule: which input gradients it uses


rule_state = _RuleState()


def wanted(k: int) -> bool:
    """Inside a gradient rule: whether the backward pass uses the gradient of input `k`.
    A rule may skip computing the others (TensorFlow's `skip_input_indices`): eagerly
    that saves the work; in graphs the executor would drop them anyway. (Backprop sets
    `rule_state.needed`; the rules, which live beside the ops, read it here.)"""
    needed = rule_state.needed
    return needed is None or needed[k]


def set_tape_recorders(eager, graph_op) -> None:
    """Registers the tape's recorders (see the module docstring)."""
    global record_eager, record_op
    record_eager, record_op = eager, graph_op


def on_graph_building(enter, exit_) -> None:
    """Registers callbacks run when a graph is entered as the default and left."""
    if (enter, exit_) not in graph_building:
        graph_building.append((enter, exit_))
