"""Both packages ship `py.typed` (PEP 561), listed as package data so wheels carry it."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_py_typed_markers_are_shipped():
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        text = f.read()
    section = text.split("[tool.setuptools.package-data]", 1)[1].split("\n[", 1)[0]
    for package in ("autograph", "runtime"):
        assert os.path.isfile(os.path.join(ROOT, package, "py.typed"))
        assert re.search(rf'^{package} = \[.*"py.typed".*\]', section, re.M), package
