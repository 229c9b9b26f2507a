"""The backends: what runs a graph without the Python that built it. One package each:

- `numpy`: the numpy executor, the default ("numpy");
- `xla`: XLA through JAX, for `rt.function(jit_compile=True)` ("xla", loaded with JAX
  the first time a function asks for it);
- `onnx`: export to ONNX (`rt.onnx.export`), a model run elsewhere.

The two that run graphs are registered here, in this one place
(`core.backend_registry` keeps them by name).
"""
from __future__ import annotations

from ..core import backend_registry
from .numpy.executor import NumpyBackend

INSTALL_JAX = "pip install -e '.[jax]'"


def load_xla():
    """The XLA backend; a one-line ImportError naming the install command without JAX."""
    try:
        import jax  # noqa: F401  (an optional dependency)
    except ImportError:
        raise ImportError(f"rt.function(jit_compile=True) compiles with XLA through JAX, which "
                          f"is not installed: {INSTALL_JAX} (or pip install jax)") from None
    from .xla.backend import JaxBackend
    return JaxBackend()


backend_registry.register(NumpyBackend())
backend_registry.register_lazy("xla", load_xla)
