"""Golden files: the outward forms of the programs in programs.py -- converted source
(`ag.to_code`, and `autograph convert` of the whole file), the traced and optimised graphs
as printed (lines, TensorFlow-style text, DOT), the numpy executor's generated source, the
saved files (saved.json and each array's bytes) with the graph loaded back, the ONNX
model's bytes and nodes, and one run's results and prints -- regenerated here and compared
byte for byte with tests/golden/data.

A refactor must leave every file as it is. Regenerate, with

    python tests/golden/make_golden.py

only when a change is meant to change an output, and say so in its commit.

Normalised before comparing (make_golden.py): this checkout's paths, the release in
saved.json's `producer`; the .npz zip is compared member by member (the zip records the
time it was written). The ONNX bytes embed no onnx version (no producer_version; the
oldest ir_version that holds the opset), so one digest holds for every onnx release; the
ONNX files are checked only where onnx is installed. data/ holds Python 3.11's output;
data/py3XX/ the files where another Python's differs (make_golden.py run by that Python
writes them).
"""
import difflib
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_golden  # noqa: E402

NAMES = list(make_golden.load_programs().PROGRAMS)
_rendered = {}


def rendered(name: str) -> dict:
    """One program's files, made once per test session (ONNX included where installed)."""
    if name not in _rendered:
        _rendered[name] = make_golden.render(name, make_golden.onnx_available())
    return _rendered[name]


def check(fname: str, text: str) -> None:
    path = make_golden.golden_path(fname)
    assert os.path.exists(path), (f"no golden file {fname}: run python tests/golden/"
                                  "make_golden.py if the program is new")
    golden = make_golden.read(path)
    if text == golden:
        return
    shown_path = os.path.relpath(path, make_golden.HERE)
    diff = list(difflib.unified_diff(golden.splitlines(), text.splitlines(),
                                     shown_path, f"now/{fname}", lineterm="", n=2))
    shown = "\n".join(diff[:80]) + (f"\n... {len(diff) - 80} more diff lines" if len(diff) > 80
                                    else "")
    pytest.fail(f"{fname} differs from its golden file (a change of behaviour; regenerate "
                f"with python tests/golden/make_golden.py only if it is meant):\n{shown}",
                pytrace=False)


@pytest.mark.parametrize("name", NAMES)
def test_program(name):
    files = rendered(name)
    for kind in ("to_code.txt", "txt", "dot"):
        check(f"{name}.{kind}", files[f"{name}.{kind}"])


@pytest.mark.parametrize("name", NAMES)
def test_onnx(name):
    pytest.importorskip("onnx")
    fname = f"{name}.onnx.txt"
    check(fname, rendered(name)[fname])


def test_converted_module():
    for fname, text in make_golden.converted_module().items():
        check(fname, text)


def test_no_stale_golden_files():
    expected = {"programs.converted.py.txt"}
    for name in NAMES:
        expected |= {f"{name}.{kind}" for kind in ("to_code.txt", "txt", "dot", "onnx.txt")}
    found = set()
    for entry in os.listdir(make_golden.DATA):
        if os.path.isdir(os.path.join(make_golden.DATA, entry)):   # a Python's differences
            assert sorted(set(os.listdir(os.path.join(make_golden.DATA, entry))) - expected) == []
        else:
            found.add(entry)
    assert sorted(found ^ expected) == []
