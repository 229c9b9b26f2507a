"""The ONNX backend: `export` writes a ConcreteFunction's graph as an ONNX model (the
user's entry point is `rt.onnx.export`). `rules` is its table of op rules, merged from
`rules_elementwise`, `rules_layout`, `rules_effects`, `rules_math`, `rules_nn`,
`rules_structure` and `rules_edges` (each exports its own `RULES`, `LIMITS`,
`NO_EQUIVALENT`). Importing it does not import onnx; exporting does."""
