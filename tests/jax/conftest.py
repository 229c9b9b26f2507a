"""The XLA backend's tests need JAX (an optional dependency): without it they are
skipped, saying how to get it."""
import os
import sys

import pytest

pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
