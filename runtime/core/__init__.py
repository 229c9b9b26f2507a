"""The runtime's bottom layer: dtypes, shapes, tensors, the graph IR (operations,
graphs, the control-flow nodes), op definitions with their traits, `apply_op`, the
Backend interface, and the hooks through which the layers above plug in. Nothing here
imports a module above it (tests/test_layering.py checks that)."""
