"""The XLA backend (`rt.function(jit_compile=True)`): a graph lowered to one JAX function
and compiled with `jax.jit`. Importing this package does not import JAX; `backend` does.

- `backend`: the walk that lowers a graph, its control flow and its Variables;
- `rules`: the table of op rules, merged from `rules_shapes`, `rules_elementwise`,
  `rules_reductions`, `rules_indexing`, `rules_effects`, `rules_math`, `rules_nn`,
  `rules_structure` and `arrays` (each exports its own `RULES`); `rule_helpers` is
  what they share;
- `arrays`: TensorArrays and ranges of run-time length; `analysis`: static analyses;
- `plan`: the compiled plan's calls and its deferred errors.
"""
