"""The staging backend for JAX (imports jax): see backend.py, and autograph/jax.py for
the API (`ag.jax.convert`, `ag.jax.jit`)."""
from autograph.jax_backend.backend import BACKEND, JaxBackend, StagedRange

__all__ = ["BACKEND", "JaxBackend", "StagedRange"]
