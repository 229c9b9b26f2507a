"""Conversion failures raise in the tests (AUTOGRAPH_STRICT): a function that silently ran
unconverted would make a comparison with the original pass without testing anything.
Tests of the fallback itself turn it off with monkeypatch."""
import os

os.environ.setdefault("AUTOGRAPH_STRICT", "1")
