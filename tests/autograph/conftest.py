import os
import sys

import pytest

from autograph.operators import Staging

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "python_path: runs outside a staging scope, so that converted functions "
                   "run their original body (the other autograph tests run their converted "
                   "body, as while a graph is built)")


@pytest.fixture(autouse=True)
def _converted_path(request):
    """The converter's tests compare converted code with the original on Python values
    and stage it on the fake backend's values: both need the converted body, which runs
    while something is staging."""
    if request.node.get_closest_marker("python_path"):
        yield
        return
    with Staging():
        yield
