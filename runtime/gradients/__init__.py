"""Reverse-mode automatic differentiation.

- `tape.py` — `GradientTape`: which tensors are watched, and the ops (eager, or recorded
  into the graph being traced) that derive from them.
- `backprop.py` — the one backward pass: walks recorded ops in reverse and applies each
  op's gradient rule (`OpDef.grad`, defined beside the op), for tapes and for graphs.
- `function_grad.py` — a `Function` called eagerly under a tape is one tape entry (the
  `backprop.CALL` op); its gradient runs a backward graph built once per
  ConcreteFunction, on the function's backend. It registers itself with `concrete`
  (which imports nothing from this package).

The rules of the staged `cond` and `while_loop` nodes are beside those nodes, in
`runtime/control_flow/`. Ops are told apart by their traits (`reads_variables`,
`writes_variables`, `observer`, `constant`, `body_attrs`), never by name; graphs are
replayed through `core.walk`.

A rule is `grad(inputs, outputs, output_grads, **attrs) -> input grads` written with the
public ops, so the same rule runs eagerly and records graph ops inside a trace.
"""
