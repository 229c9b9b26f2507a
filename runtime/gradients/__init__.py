"""Reverse-mode automatic differentiation.

- `tape.py` — `GradientTape`: the watched tensors and the ops derived from them.
- `function_grad.py` — a `Function` called eagerly under a tape is one tape entry.
- `jacobians.py` — `GradientTape.jacobian` and `batch_jacobian`.
- `custom_gradient.py` — `rt.custom_gradient` and `rt.recompute_grad` (one op whose rule
  is the user's gradient function).

The one backward pass that applies each op's rule (`OpDef.grad`) is `runtime/backprop.py`,
below this package and below the control flow, whose gradients use it too.

The rules of the staged `cond` and `while_loop` nodes are beside those nodes, in
`runtime/control_flow/`. A rule is `grad(inputs, outputs, output_grads, **attrs) ->
input grads` written with the public ops (docs/architecture.md, "Gradients").
"""
