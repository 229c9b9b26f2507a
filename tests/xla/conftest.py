"""The XLA backend's tests need JAX (an optional dependency). Without it each test module
is skipped, saying "JAX is not installed: pip install -e '.[jax]'" (`pytest.importorskip`
at the top of each module: raised here, in a conftest, it would be a collection error
rather than a skip)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
