"""The registry of staging backends by value type (autograph/operators/staging_backends.py)."""
import subprocess
import sys

from autograph.operators import staging_backends
from autograph.operators.staging_backends import backend_of


class Foreign:
    """A class a backend does not own (it cannot set __autograph_backend__ on it)."""


class ForeignChild(Foreign):
    pass


def test_registered_predicate_decides_once_per_type_and_loads_once():
    asked, loaded = [], []
    backend = object()

    def predicate(kind):
        asked.append(kind)
        return issubclass(kind, Foreign)

    def load():
        loaded.append(1)
        return backend

    staging_backends.register(predicate, load)
    for _ in range(3):
        assert backend_of(Foreign()) is backend
        assert backend_of(ForeignChild()) is backend
        assert backend_of(1.5) is None
    assert loaded == [1]
    assert asked.count(Foreign) == 1
    assert asked.count(ForeignChild) == 1 and asked.count(float) == 1


def test_class_attribute_comes_first():
    own = object()

    class Owned(Foreign):
        __autograph_backend__ = own

    staging_backends.register(lambda kind: issubclass(kind, Foreign), lambda: object())
    assert backend_of(Owned()) is own


def test_registry_imports_no_backend():
    """Neither importing autograph, nor its registry's answers on Python values, nor
    reaching `ag.jax` imports jax (it is loaded when a converted function first runs)."""
    code = ("import sys, autograph as ag\n"
            "from autograph.operators.staging_backends import backend_of\n"
            "assert backend_of(1) is None and backend_of([1]) is None\n"
            "ag.jax; backend_of(2.0)\n"
            "print('jax' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
