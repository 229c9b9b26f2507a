"""Self round trip: convert real code (the standard library, autograph itself) and check
it compiles; run some standard-library functions converted against plain."""
import colorsys
import heapq
import importlib
import logging
import posixpath
import statistics
import textwrap
import types

import pytest

import autograph as ag
from autograph import api
from autograph.errors import ConversionError

MODULES = ["textwrap", "heapq", "colorsys", "fractions", "statistics", "shlex", "posixpath",
           "string", "difflib", "json.encoder", "json.decoder", "calendar", "base64",
           "autograph.api", "autograph.parsing", "autograph.templates",
           "autograph.analysis.cfg", "autograph.analysis.activity",
           "autograph.converters.continuation", "autograph.converters.state",
           "autograph.operators.control_flow", "autograph.operators.logical"]


def _functions(module_name):
    module = importlib.import_module(module_name)
    found = []
    for obj in vars(module).values():
        if isinstance(obj, types.FunctionType) and obj.__module__ == module.__name__:
            found.append(obj)
        elif isinstance(obj, type) and obj.__module__ == module.__name__:
            found += [v for v in vars(obj).values() if isinstance(v, types.FunctionType)]
    return found


@pytest.mark.parametrize("module_name", MODULES)
def test_converts_and_compiles(module_name):
    converted = 0
    for fn in _functions(module_name):
        try:
            source = ag.to_code(fn)
        except ConversionError:
            continue                       # generators, no source: documented fallbacks
        compile(source, "<to_code>", "exec")
        api._compile(fn, True)
        converted += 1
    assert converted > 0


CALLS = [
    (textwrap.wrap, ("The quick brown fox jumps over the lazy dog " * 5, 17)),
    (textwrap.fill, ("a b c d e f g h " * 10,), {"width": 9}),
    (textwrap.dedent, ("    a\n      b\n\n    c\n",)),
    (textwrap.shorten, ("Hello  world!  How are you today?", 20)),
    (heapq.nlargest, (3, [5, 1, 8, 3, 9, 2])),
    (heapq.nsmallest, (2, [5, 1, 8, 3, 9, 2], lambda v: -v)),
    (colorsys.rgb_to_hsv, (0.2, 0.4, 0.4)),
    (colorsys.hls_to_rgb, (0.5, 0.5, 0.5)),
    (colorsys.rgb_to_hls, (0.9, 0.1, 0.3)),
    (statistics.median, ([3, 1, 4, 1, 5],)),
    (statistics.mode, ([1, 2, 2, 3],)),
    (statistics.stdev, ([2.0, 4.0, 4.0, 5.0],)),
    (posixpath.join, ("/a", "b", "/c", "d")),
    (posixpath.splitext, ("archive.tar.gz",)),
    (posixpath.relpath, ("/a/b/c", "/a/d")),
    (posixpath.commonpath, (["/a/b/c", "/a/b/d", "/a/bc"],)),
]
if isinstance(posixpath.normpath, types.FunctionType):
    # (Python 3.13's is the C function os._path_normpath: no Python code to convert)
    CALLS.append((posixpath.normpath, ("/a/./b/../c//d/",)))


@pytest.mark.parametrize("call", CALLS, ids=lambda c: c[0].__qualname__)
def test_stdlib_converted_matches_plain(call, caplog):
    fn, args = call[0], call[1]
    kwargs = call[2] if len(call) > 2 else {}
    with caplog.at_level(logging.WARNING, logger="autograph"):
        converted = ag.to_graph(fn)
    assert converted is not fn, caplog.text
    assert converted(*args, **kwargs) == fn(*args, **kwargs)
