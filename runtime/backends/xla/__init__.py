"""The XLA backend (`rt.function(jit_compile=True)`): a graph lowered to one JAX function
and compiled with `jax.jit`. Importing this package does not import JAX; `backend` does.

- `backend`: the walk that lowers a graph, its control flow and its Variables;
- `lowering` with `rules_math`, `rules_nn`, `rules_structure`: the op rules, one table;
- `arrays`: TensorArrays and ranges of run-time length; `analysis`: static analyses;
- `plan`: the compiled plan's calls and its deferred errors.
"""
