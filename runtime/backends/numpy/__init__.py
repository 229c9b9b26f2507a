"""The numpy backend, the default: `executor` compiles a graph once into straight-line
Python calling each op's numpy kernel (or the expression its `emit` gives)."""
