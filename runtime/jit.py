"""`jit_compile=True`: the XLA backend (runtime/jax_backend.py), registered under the
name "xla" and imported, with JAX, the first time a function asks for it."""
from __future__ import annotations

from .core import backends

INSTALL = "pip install -e '.[jax]'"


def load_xla():
    """The XLA backend; a one-line ImportError naming the install command without JAX."""
    try:
        import jax  # noqa: F401  (an optional dependency)
    except ImportError:
        raise ImportError(f"rt.function(jit_compile=True) compiles with XLA through JAX, which "
                          f"is not installed: {INSTALL} (or pip install jax)") from None
    from .jax_backend import JaxBackend
    return JaxBackend()


backends.register_lazy("xla", load_xla)
