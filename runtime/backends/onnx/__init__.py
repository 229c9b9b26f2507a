"""The ONNX backend: `export` writes a ConcreteFunction's graph as an ONNX model (the
user's entry point is `rt.onnx.export`); `rules` with `rules_math`, `rules_nn`,
`rules_structure` and `rules_edges` is its table of op rules, assembled in `rules`.
Importing it does not import onnx; exporting does."""
