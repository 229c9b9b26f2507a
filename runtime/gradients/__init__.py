"""Reverse-mode automatic differentiation.

- `tape.py` — `GradientTape`: the watched tensors and the ops derived from them.
- `backprop.py` — the one backward pass, applying each op's rule (`OpDef.grad`).
- `function_grad.py` — a `Function` called eagerly under a tape is one tape entry.

The rules of the staged `cond` and `while_loop` nodes are beside those nodes, in
`runtime/control_flow/`. A rule is `grad(inputs, outputs, output_grads, **attrs) ->
input grads` written with the public ops (docs/architecture.md, "Gradients").
"""
