"""`autograph convert SRC_DIR -o OUT_DIR`: a package tree converted through the command
line (a subprocess, and `autograph.cli.main` in process). The layout is mirrored, other
files are copied byte for byte, files that cannot be converted are copied and reported,
symlinks out of the tree are not followed, and the converted package imports and gives
the original's results."""
import json
import os
import re
import stat
import subprocess
import sys

import pytest

from autograph import cli, package_converter

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SUMMARY = re.compile(
    r"^autograph: (?P<src>\S+) -> (?P<out>\S+): (?P<files>\d+) files? converted, "
    r"(?P<copied>\d+) copied(?: \((?P<extra>[^)]*)\))?; (?P<functions>\d+) functions? "
    r"converted, (?P<skipped>\d+) skipped; \d+\.\d s, (?P<jobs>\d+) jobs?$")

CORE = '''\
"""Loops and branches: what the converter rewrites."""


def total(xs, stop=None):
    s = 0
    for x in xs:
        if x < 0:
            continue
        if stop is not None and x == stop:
            break
        s += x
    else:
        s += 1000
    return s


def classify(n):
    if n < 0:
        return "negative"
    elif n == 0:
        return "zero"
    while n > 10:
        n //= 10
    return f"digit {n}"


class Counter:
    def __init__(self):
        self.n = 0

    def add(self, k):
        i = 0
        while i < k:
            self.n += i
            i += 1
        return self.n


def squares(n):
    for i in range(n):
        yield i * i
'''

HELPERS = '''\
import os

HERE = os.path.dirname(__file__)


def read_data():
    with open(os.path.join(HERE, "..", "data.txt")) as f:
        lines = []
        for line in f:
            if line.strip():
                lines.append(line.strip().upper())
        return lines
'''

INIT = '''\
from .core import Counter, classify, squares, total
from .sub.helpers import read_data

VERSION = "1.0"
'''


def make_tree(tmp_path):
    """tmp_path/src/mypkg, with files of every kind, and tmp_path/outside (out of the
    tree, reached only through symlinks)."""
    src = tmp_path / "src" / "mypkg"
    (src / "sub").mkdir(parents=True)
    (src / "__pycache__").mkdir()
    (src / "__init__.py").write_text(INIT)
    (src / "core.py").write_text(CORE)
    (src / "constants.py").write_text("A = 1\nNAMES = ['a', 'b']\n")
    (src / "broken.py").write_text("def f(:\n    return 1\n")
    (src / "latin.py").write_bytes(b"def g():\n    return '\xff'\n")
    (src / "data.txt").write_bytes("alpha\n\nbeta\n\u00e9t\u00e9\n".encode())
    (src / "blob.bin").write_bytes(bytes(range(256)) * 3)
    (src / "py.typed").write_bytes(b"")
    (src / "core.pyi").write_text("def total(xs: list, stop: int | None = ...) -> int: ...\n")
    (src / "tool.py").write_text("#!/usr/bin/env python\ndef main():\n    return 0\n")
    os.chmod(src / "tool.py", 0o755)
    (src / "sub" / "__init__.py").write_text("")
    (src / "sub" / "helpers.py").write_text(HELPERS)
    (src / "__pycache__" / "core.cpython-311.pyc").write_bytes(b"\x00stale")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("def leak():\n    return 1\n")
    os.symlink(src / "sub", src / "linked_sub")              # inside the tree: followed
    os.symlink(outside, src / "linked_outside")              # out of the tree: skipped
    os.symlink(outside / "secret.py", src / "secret_link.py")
    os.symlink(tmp_path / "nowhere", src / "dangling.txt")
    os.symlink(src, src / "sub" / "loop")                    # a loop: skipped
    return src


EXPECTED_FILES = {
    "__init__.py", "core.py", "constants.py", "broken.py", "latin.py", "data.txt", "blob.bin",
    "py.typed", "core.pyi", "tool.py", "sub/__init__.py", "sub/helpers.py",
    "linked_sub/__init__.py", "linked_sub/helpers.py",
}
COPIED_AS_IS = {"__init__.py", "constants.py", "broken.py", "latin.py", "data.txt",
                "blob.bin", "py.typed", "core.pyi", "sub/__init__.py",
                "linked_sub/__init__.py"}         # no functions, cannot convert, not .py
CONVERTED = {"core.py", "tool.py", "sub/helpers.py", "linked_sub/helpers.py"}


def files_under(root):
    found = set()
    for dirpath, dirnames, filenames in os.walk(root):
        for f in filenames:
            found.add(os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/"))
    return found


def run(*args, cwd=None, pythonpath=ROOT):
    env = dict(os.environ, PYTHONPATH=pythonpath)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


def convert(*args, cwd=None):
    return run("-m", "autograph", "convert", *args, cwd=cwd)


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    """The tree, converted once through a subprocess with two jobs."""
    tmp_path = tmp_path_factory.mktemp("tree")
    src = make_tree(tmp_path)
    out = tmp_path / "out" / "mypkg"
    result = convert(str(src), "-o", str(out), "--jobs", "2")
    return src, out, result


def test_exit_code_and_summary(converted):
    src, out, result = converted
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    m = SUMMARY.match(lines[-1])
    assert m, lines[-1]
    assert (m["src"], m["out"]) == (str(src), str(out))
    assert int(m["files"]) == len(CONVERTED)
    assert int(m["copied"]) == len(EXPECTED_FILES) - len(CONVERTED)
    assert m["extra"] == "2 could not be converted, 5 paths skipped"
    assert int(m["functions"]) == 7          # total classify __init__ add main read_data x2
    assert int(m["skipped"]) == 1            # squares, a generator
    assert m["jobs"] == "2"


def test_failures_and_skipped_paths_are_reported_one_line_each(converted):
    src, out, result = converted
    lines = result.stderr.strip().splitlines()[:-1]
    assert "Traceback" not in result.stderr
    assert len(lines) == 7, result.stderr
    text = "\n".join(lines)
    assert re.search(r"broken\.py:1: syntax error: .*; copied unchanged", text)
    assert re.search(r"latin\.py:2: not a Python source file: cannot decode it as utf-8.*; "
                     r"copied unchanged", text)
    for name in ("linked_outside", "secret_link.py"):
        assert re.search(rf"{name}: skipped: symlink out of the source tree", text)
    assert re.search(r"dangling\.txt: skipped: dangling symlink", text)
    for name in ("sub/loop", "linked_sub/loop"):
        assert re.search(rf"mypkg/{name}: skipped: symlink to a directory that holds it", text)


def test_layout_mirrors_the_tree(converted):
    src, out, _ = converted
    assert files_under(out) == EXPECTED_FILES
    for rel in files_under(out):                  # real files and directories only
        assert not os.path.islink(out / rel)
    assert not (out / "linked_outside").exists()
    assert not (out / "__pycache__").exists()


def test_other_files_are_copied_byte_for_byte(converted):
    src, out, _ = converted
    for rel in COPIED_AS_IS:
        assert (out / rel).read_bytes() == (src / rel).read_bytes(), rel


def test_python_files_are_converted(converted):
    src, out, _ = converted
    for rel in CONVERTED:
        text = (out / rel).read_text()
        assert "from autograph import operators as __ag__" in text, rel
    core = (out / "core.py").read_text()
    assert "__ag__.for_stmt" in core and "__ag__.while_stmt" in core
    assert "not converted: generator function" in core
    assert (out / "tool.py").read_text().startswith("#!/usr/bin/env python\n")


def test_permission_bits_are_kept(converted):
    src, out, _ = converted
    assert stat.S_IMODE(os.stat(out / "tool.py").st_mode) == 0o755
    for rel in ("core.py", "data.txt"):
        assert stat.S_IMODE(os.stat(out / rel).st_mode) == \
            stat.S_IMODE(os.stat(src / rel).st_mode)


PROGRAM = '''\
import json, mypkg, mypkg.core
c = mypkg.Counter()
print(json.dumps([
    "__ag__" in open(mypkg.core.__file__).read(),
    [mypkg.total(xs, stop) for xs in ([], [1, 2, 3], [1, -5, 7, 2], [4, 9, 1])
     for stop in (None, 9)],
    [mypkg.classify(n) for n in (-3, 0, 7, 1234)],
    [c.add(k) for k in (0, 3, 5)],
    list(mypkg.squares(5)),
    mypkg.read_data(),
    mypkg.VERSION,
]))
'''


# Converted functions run their original body unless something stages: forced on, the
# converted bodies (for_stmt, while_stmt, ...) run.
STAGING = "from autograph.operators import Staging\nStaging().__enter__()\n"


@pytest.mark.parametrize("staging", [False, True], ids=["python-path", "converted-path"])
def test_converted_package_imports_and_agrees_with_the_original(converted, tmp_path, staging):
    src, out, _ = converted
    original = run("-c", PROGRAM, cwd=tmp_path,
                   pythonpath=os.pathsep.join([str(src.parent), ROOT]))
    new = run("-c", STAGING * staging + PROGRAM, cwd=tmp_path,
              pythonpath=os.pathsep.join([str(out.parent), ROOT]))
    assert original.returncode == 0, original.stderr
    assert new.returncode == 0, new.stderr
    is_converted, *results = json.loads(original.stdout)
    is_converted_new, *results_new = json.loads(new.stdout)
    assert (is_converted, is_converted_new) == (False, True)   # each got its own tree
    assert results_new == results
    assert results[4] == ["ALPHA", "BETA", "\u00c9T\u00c9"]


def test_in_process_main_gives_the_same_tree(converted, tmp_path, capsys):
    src, out, _ = converted
    other = tmp_path / "again"
    assert cli.main(["convert", str(src), "-o", str(other), "-j", "1"]) == 0
    err = capsys.readouterr().err
    assert SUMMARY.match(err.strip().splitlines()[-1])
    assert "1 job" in err.strip().splitlines()[-1]
    assert files_under(other) == EXPECTED_FILES
    for rel in EXPECTED_FILES:             # the output does not depend on jobs or caller
        assert (other / rel).read_bytes() == (out / rel).read_bytes(), rel


def test_existing_output_is_written_into_and_nothing_deleted(tmp_path, capsys):
    src = make_tree(tmp_path)
    out = tmp_path / "out"
    (out / "sub").mkdir(parents=True)
    (out / "keep.txt").write_text("mine")
    (out / "sub" / "extra.py").write_text("x = 1\n")
    (out / "core.py").write_text("stale\n")
    assert cli.main(["convert", str(src), "-o", str(out), "-q"]) == 0
    captured = capsys.readouterr()
    assert not SUMMARY.search(captured.err)           # -q: no summary, failures still said
    assert "copied unchanged" in captured.err
    assert (out / "keep.txt").read_text() == "mine"
    assert (out / "sub" / "extra.py").read_text() == "x = 1\n"
    assert "__ag__" in (out / "core.py").read_text()
    assert files_under(out) == EXPECTED_FILES | {"keep.txt", "sub/extra.py"}
    assert not [f for f in files_under(out) if ".autograph-" in f]


def test_verbose_lists_functions_left_as_written(tmp_path, capsys):
    src = make_tree(tmp_path)
    assert cli.main(["convert", str(src), "-o", str(tmp_path / "o"), "-v", "-j", "1"]) == 0
    assert re.search(r"core\.py:\d+: squares not converted: generator function",
                     capsys.readouterr().err)


# --- errors: one line, exit 1, nothing written -----------------------------------------

def _bad(args, expect, cwd, must_not_exist=()):
    result = convert(*args, cwd=cwd)
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert re.search(expect, lines[0]), lines[0]
    for path in must_not_exist:
        assert not os.path.exists(path), path
    return lines[0]


def test_output_inside_source_is_refused(tmp_path):
    src = make_tree(tmp_path)
    before = files_under(src)
    _bad([str(src), "-o", str(src / "build")], r"^autograph: error: .*build: the output "
         r"directory must not be inside the source directory", tmp_path, [src / "build"])
    _bad([str(src), "-o", str(src / "sub" / "x")], r"must not be inside", tmp_path)
    _bad([str(src), "-o", str(src)], r"must not be the source directory", tmp_path)
    _bad(["src/mypkg", "-o", "src/mypkg/./"], r"must not be the source directory", tmp_path)
    # through a symlink that resolves into the tree
    os.symlink(src / "sub", tmp_path / "alias")
    _bad([str(src), "-o", str(tmp_path / "alias" / "o")], r"must not be inside", tmp_path)
    assert files_under(src) == before


def test_output_above_the_source_that_would_write_into_it_is_refused(tmp_path):
    top = tmp_path / "a"
    (top / "pkg" / "pkg").mkdir(parents=True)
    (top / "pkg" / "pkg" / "m.py").write_text("def f():\n    return 1\n")
    _bad([str(top / "pkg"), "-o", str(top)], r"would write into the source directory",
         tmp_path)
    assert (top / "pkg" / "pkg" / "m.py").read_text() == "def f():\n    return 1\n"


def test_function_with_a_directory_is_refused(tmp_path):
    src = make_tree(tmp_path)
    _bad([str(src), "-o", str(tmp_path / "o"), "--function", "total"],
         r"--function applies to a single file, not to a directory", tmp_path,
         [tmp_path / "o"])


def test_missing_source(tmp_path):
    _bad(["nope", "-o", "out"], r"^autograph: error: nope: no such file", tmp_path,
         [tmp_path / "out"])


def test_directory_needs_an_output_directory(tmp_path):
    src = make_tree(tmp_path)
    _bad([str(src)], r"is a directory; give the output directory with -o OUT_DIR", tmp_path)
    _bad([str(src), "-o", "x.py"], r"is a directory, and x\.py names a \.py file", tmp_path,
         [tmp_path / "x.py"])


def test_output_that_is_a_file_is_refused(tmp_path):
    src = make_tree(tmp_path)
    (tmp_path / "o").write_text("a file")
    _bad([str(src), "-o", str(tmp_path / "o")], r"exists and is not a directory", tmp_path)
    assert (tmp_path / "o").read_text() == "a file"


def test_jobs_must_be_positive(tmp_path):
    result = convert(".", "-o", "o", "--jobs", "0", cwd=tmp_path)
    assert result.returncode == 2 and "must be at least 1" in result.stderr


def test_convert_tree_api_reports_in_path_order(tmp_path):
    src = make_tree(tmp_path)
    report = package_converter.convert_tree(str(src), str(tmp_path / "o"), jobs=2)
    rels = [r.rel for r in report.files]
    assert rels == sorted(rels) and set(rels) == EXPECTED_FILES
    kinds = {r.rel: r.kind for r in report.files}
    assert kinds["broken.py"] == kinds["latin.py"] == "failed"
    assert kinds["constants.py"] == kinds["data.txt"] == "copied"
    assert kinds["core.py"] == "converted" and not report.errors


def test_a_file_that_cannot_be_written_is_an_error_and_the_rest_is_written(tmp_path, capsys):
    src = make_tree(tmp_path)
    out = tmp_path / "o"
    (out / "core.py").mkdir(parents=True)              # in the way of a converted file
    assert cli.main(["convert", str(src), "-o", str(out), "-j", "1"]) == 1
    err = capsys.readouterr().err
    assert re.search(r"autograph: error: .*core\.py: is a directory", err)
    assert "1 not written" in err.strip().splitlines()[-1]
    assert (out / "core.py").is_dir()                  # left as it was
    assert files_under(out) == EXPECTED_FILES - {"core.py"}
