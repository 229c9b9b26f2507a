"""`tools/stdlib_check.py` runs CPython's tests on converted modules, times them against
the originals, measures import times, and reports the scan's progress. Small runs only:
the full check is `python tools/stdlib_check.py --tests-only` (minutes)."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow        # converts standard-library modules and runs their tests

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "stdlib_check.py"


def _run(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def test_converted_modules_pass_their_cpython_tests_and_are_timed():
    proc = _run("--tests-only", "--modules", "string", "colorsys", "codecs")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = {line.split()[0]: line for line in proc.stdout.splitlines() if line.strip()}
    for module in ("string", "colorsys", "codecs"):      # codecs: imported at startup
        row = rows[module]
        assert row.count("OK") == 2 and " yes " in row, row
        assert re.search(r"\d+\.\d\dx$", row), row          # original s, converted s, ratio
    assert re.search(r"^total .*\d+\.\d\dx", proc.stdout, re.M), proc.stdout


def test_an_unconverted_copy_goes_through_the_same_harness():
    proc = _run("--tests-only", "--copy", "--modules", "string")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_import_times_print_original_and_converted():
    proc = _run("--import-times", "1", "--modules", "string")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    row = next(line for line in proc.stdout.splitlines() if line.startswith("string"))
    assert len(row.split()) == 6, row     # module, original, converted, extra, no-pyc, extra


def test_scan_prints_its_progress():
    proc = _run("--scan-only", "--jobs", "1", "--limit", "12")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"^  scan: 12/12 files, [\d,]+ lines, [\d,]+ lines/s per core so far",
                     proc.stdout, re.M), proc.stdout


def test_a_sample_scans_that_many_files():
    proc = _run("--scan-only", "--jobs", "1", "--sample", "6")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"^  scan: 6/6 files", proc.stdout, re.M), proc.stdout
    assert "files: 6;" in proc.stdout and "lines/s per core" in proc.stdout
