"""`autograph convert` over the standard library: every file converts without crashing and
compiles, and CPython's own tests pass on converted modules as they pass on the originals.

    python tools/stdlib_check.py                 # both parts, all cores for the scan
    python tools/stdlib_check.py --scan-only --jobs 1
    python tools/stdlib_check.py --tests-only --modules heapq bisect
    python tools/stdlib_check.py --tests-only --known    # the modules that differ, and why

Scan: each `.py` file under the installed standard library (site-packages excluded) goes
through `module_converter.convert_source`, as `autograph convert` does; the output is
compiled again here. Lines per second are lines of the files over the CPU seconds spent
converting them (process time, so it is a one-core rate whatever --jobs is). The same
files' `compile()` is timed beside each conversion: on a shared machine the absolute
rate moves with the load (by half), the ratio of the two much less.

Tests: each module is converted into a temporary directory. The test process imports
autograph (whose own imports, such as logging -> string, keep the original modules),
drops the module from sys.modules and puts the directory first on sys.path, so that
every later import of the module — the test module's, and other standard-library
modules' imported from then on — gets the converted one; it asserts that it did, then
runs `python -m test -v test_<module>` (regrtest, in process). Unless the module is one
that interpreter startup imports, the directory is also on PYTHONPATH, for the child
processes some tests start. The same command without the converted module gives the
figures to compare with. Modules with a C accelerator (heapq/_heapq, bisect/_bisect): their CPython tests
import the module twice, with the accelerator blocked and with it, so the pure-Python
(converted) functions are the ones tested in the blocked half; --block-accelerators
also blocks it for the whole run.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from autograph import module_converter  # noqa: E402

MODULES = ["heapq", "bisect", "textwrap", "fractions", "statistics", "colorsys", "shlex",
           "difflib", "calendar", "base64", "fnmatch", "string", "pprint", "ipaddress",
           "quopri", "argparse", "configparser", "getopt", "optparse", "csv", "glob", "queue",
           "sched", "reprlib", "copy", "dataclasses", "enum", "typing", "tokenize", "shutil",
           "zipfile", "pathlib", "random", "uuid", "locale", "datetime", "graphlib", "tarfile",
           "inspect", "operator", "tempfile", "functools"]
# Modules whose CPython tests do not pass converted, and why (run them with --known).
KNOWN = {
    "gettext": "plural functions made with exec walk frames while their globals are "
               "gettext's; converted callers add autograph frames (stacklevel differs)",
    "contextlib": "a test compares the frames of a traceback; converted code has more",
    "ast": "test_ast_asdl_signature counts ast.expr.__subclasses__(); importing autograph "
           "imports gast, whose node classes subclass ast.expr",
    "tabnanny": "a test starts `python -I -m tabnanny`, which ignores PYTHONPATH and runs "
                "the original, then compares its usage line with the converted file's path",
}
ACCELERATORS = {"heapq": "_heapq", "bisect": "_bisect", "statistics": "_statistics"}


def stdlib_files() -> list:
    root = sysconfig.get_paths()["stdlib"]
    found = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "__pycache__"))
        found += [os.path.join(directory, f) for f in sorted(files) if f.endswith(".py")]
    return found


def _category(reason: str) -> str:
    if reason.startswith("converter error"):
        return "converter error"
    if "does not compile" in reason:
        return "output did not compile"
    if reason.startswith("calls "):
        return "calls a function that counts stack frames"
    if "looks at the call stack" in reason:
        return "counts stack frames"
    return reason.split(":")[0]


def scan_one(path: str) -> dict:
    result = {"path": path, "lines": 0, "seconds": 0.0, "converted": 0, "skipped": {},
              "error": None, "crash": None, "compiles": None}
    start = time.process_time()
    try:
        text, encoding = module_converter.read_source(path)
        out, report = module_converter.convert_source(text, path)
    except module_converter.SourceError as e:
        result["seconds"] = time.process_time() - start
        result["error"] = str(e)
        return result
    except BaseException as e:          # noqa: BLE001 — a crash is what we count
        result["crash"] = f"{type(e).__name__}: {e}"
        return result
    result["seconds"] = time.process_time() - start
    start = time.process_time()          # the same file's compile(), side by side
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, path, "exec", dont_inherit=True)
    except SyntaxError:
        pass
    result["compile_seconds"] = time.process_time() - start
    result["lines"] = report.lines
    result["converted"] = len(report.converted)
    for name, line, reason in report.skipped:
        key = _category(reason)
        result["skipped"][key] = result["skipped"].get(key, 0) + 1
        if key in ("converter error", "output did not compile"):
            result.setdefault("details", []).append(f"{path}:{line}: {name}: {reason}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(out, path, "exec", dont_inherit=True)
        result["compiles"] = True
    except SyntaxError as e:
        result["compiles"] = False
        result["crash"] = f"output does not compile: {e}"
    return result


def scan(jobs: int, limit: int | None) -> bool:
    files = stdlib_files()[:limit]
    wall = time.perf_counter()
    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            results = pool.map(scan_one, files, chunksize=4)
    else:
        results = [scan_one(f) for f in files]
    wall = time.perf_counter() - wall
    converted = [r for r in results if r["error"] is None and r["crash"] is None]
    errors = [r for r in results if r["error"] is not None]
    crashes = [r for r in results if r["crash"] is not None]
    lines = sum(r["lines"] for r in converted)
    seconds = sum(r["seconds"] for r in converted)
    skipped: dict = {}
    for r in converted:
        for key, n in r["skipped"].items():
            skipped[key] = skipped.get(key, 0) + n
    kinds: dict = {}
    for r in errors:
        kind = ("syntax error" if "syntax error" in r["error"] else
                "nothing to convert" if "nothing to convert" in r["error"] else "other")
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f"standard library: {sysconfig.get_paths()['stdlib']}")
    print(f"files: {len(files)}; converted {len(converted)}; refused with a one-line error "
          f"{len(errors)} {kinds}; crashed {len(crashes)}")
    print(f"outputs that compile: {sum(1 for r in converted if r['compiles'])}/{len(converted)}")
    print(f"functions: converted {sum(r['converted'] for r in converted)}, "
          f"skipped {sum(skipped.values())} {dict(sorted(skipped.items()))}")
    compiling = sum(r.get("compile_seconds", 0.0) for r in converted)
    print(f"lines: {lines} in {seconds:.1f} CPU s of conversion: {lines / seconds:,.0f} lines/s "
          f"per core; wall {wall:.1f} s with {jobs} job(s)")
    print(f"side by side: compile() of the same files took {compiling:.1f} CPU s "
          f"({lines / compiling:,.0f} lines/s); conversion costs {seconds / compiling:.1f}x "
          f"compile() (a ratio that holds when the machine is loaded)")
    for r in errors:
        if "syntax error" not in r["error"] and "nothing to convert" not in r["error"]:
            print("  error:", r["error"])
    for r in crashes:
        print("  CRASH:", r["path"], r["crash"])
    for r in converted:
        for line in r.get("details", ()):
            print("  skipped:", line)
    return not crashes


_SUMMARY = re.compile(r"^Ran (\d+) tests?", re.M)
_RESULT = re.compile(r"^(OK|FAILED)(?: \((.*)\))?$", re.M)

_CHECK = """
import sys
import autograph            # first, so that its own imports (logging -> string) get originals
sys.modules.pop({module!r}, None)
sys.path.insert(0, {tmp!r})
import {module} as m
assert m.__file__.startswith({tmp!r}), m.__file__
assert hasattr(m, "__ag_converted__"), "not a converted module"
"""
_RUN = """
sys.argv = ["-m test", "-v", "test_{module}"]
import runpy
runpy.run_module("test", run_name="__main__", alter_sys=True)
"""


_STARTUP: list = []


def _startup_modules() -> set:
    """Modules a fresh interpreter has imported once autograph is (site, .pth files,
    autograph's own imports): a converted one on PYTHONPATH would need autograph before
    it is importable."""
    if not _STARTUP:
        out = subprocess.run([sys.executable, "-c", "import sys, autograph; print(*sys.modules)"],
                             capture_output=True, text=True, check=True).stdout
        _STARTUP.append(set(out.split()))
    return _STARTUP[0]


def _run_tests(module: str, tmp: str | None, block: bool) -> tuple:
    code = "import sys\n"
    if block and module in ACCELERATORS:
        code += f"sys.modules[{ACCELERATORS[module]!r}] = None\n"
    if tmp is not None:
        code += _CHECK.format(module=module, tmp=tmp)
    code += _RUN.format(module=module)
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if tmp is not None and module not in _startup_modules():
        env["PYTHONPATH"] = tmp     # child processes the tests start get it too (tabnanny)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tempfile.gettempdir(), timeout=900, env=env)
    seconds = time.perf_counter() - start
    output = proc.stdout + proc.stderr
    ran = sum(int(n) for n in _SUMMARY.findall(output))
    results = _RESULT.findall(output)
    details = ", ".join(d for _, d in results if d)
    ok = proc.returncode == 0 and bool(results) and all(r == "OK" for r, _ in results)
    return ok, ran, details, seconds, output


def run_tests(modules: list, block: bool, keep_output: str | None) -> bool:
    root = sysconfig.get_paths()["stdlib"]
    all_same = True
    print(f"{'module':12} {'functions':>9}  {'original':28} {'converted':28} same")
    for module in modules:
        path = os.path.join(root, module + ".py")
        with tempfile.TemporaryDirectory(prefix="ag-stdlib-") as tmp:
            text, encoding = module_converter.read_source(path)
            out, report = module_converter.convert_source(text, path)
            with open(os.path.join(tmp, module + ".py"), "w", encoding=encoding) as f:
                f.write(out)
            base = _run_tests(module, None, block)
            conv = _run_tests(module, tmp, block)
            if keep_output:
                with open(os.path.join(keep_output, f"{module}.log"), "w") as f:
                    f.write(conv[4])
        same = base[:3] == conv[:3]
        all_same &= same and conv[0]
        show = lambda r: f"{'OK' if r[0] else 'FAIL'} {r[1]} tests{' (' + r[2] + ')' if r[2] else ''} {r[3]:.1f}s"
        print(f"{module:12} {len(report.converted):>4}+{len(report.skipped):<4}  "
              f"{show(base):28} {show(conv):28} {'yes' if same else 'NO'}")
        if not conv[0] and not keep_output:
            print("   ", "\n    ".join(conv[4].strip().splitlines()[-25:]))
    return all_same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--limit", type=int, default=None, help="scan only the first N files")
    parser.add_argument("--modules", nargs="+", default=MODULES)
    parser.add_argument("--known", action="store_true",
                        help="run the modules with known differences (KNOWN) instead")
    parser.add_argument("--scan-only", action="store_true")
    parser.add_argument("--tests-only", action="store_true")
    parser.add_argument("--block-accelerators", action="store_true",
                        help="also block _heapq, _bisect, _statistics for the whole run")
    parser.add_argument("--keep-output", metavar="DIR", help="write each converted run's log")
    args = parser.parse_args()
    ok = True
    if not args.tests_only:
        start = time.perf_counter()
        ok &= scan(args.jobs, args.limit)
        print(f"scan: {time.perf_counter() - start:.1f} s\n")
    if not args.scan_only:
        start = time.perf_counter()
        modules = sorted(KNOWN) if args.known else args.modules
        ok &= run_tests(modules, args.block_accelerators, args.keep_output)
        if args.known:
            for module in modules:
                print(f"  {module}: {KNOWN[module]}")
        print(f"tests: {time.perf_counter() - start:.1f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
