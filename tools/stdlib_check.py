"""`autograph convert` over the standard library: every file converts without crashing and
compiles, and CPython's own tests pass on converted modules as they pass on the originals.

    python tools/stdlib_check.py                 # both parts, all cores for the scan
    python tools/stdlib_check.py --scan-only --jobs 1
    python tools/stdlib_check.py --scan-only --jobs 1 --sample 80      # a fixed sample, quick
    python tools/stdlib_check.py --tests-only --modules heapq bisect
    python tools/stdlib_check.py --tests-only --repeat 3      # times: best of 3, interleaved
    python tools/stdlib_check.py --tests-only --known    # the modules that differ, and why

Scan: each `.py` file under the installed standard library (site-packages excluded) goes
through `module_converter.convert_source`, as `autograph convert` does; the output is
compiled again here. Lines per second are lines of the files over the CPU seconds spent
converting them (process time, so it is a one-core rate whatever --jobs is). The same
files' `compile()` is timed beside each conversion: on a shared machine the absolute
rate moves with the load (by half), the ratio of the two much less. Progress (files
done, lines/s so far) is printed every few seconds.

Tests: each module is converted into a temporary directory, with its bytecode (the
installed original has its own: neither run compiles its module); autograph comes from a
compiled copy of this checkout's package, as an installed one would (the checkout may have
no bytecode: PYTHONDONTWRITEBYTECODE). The test process imports autograph's operators
(whose own imports, functools, typing..., keep the original modules), drops the module
from sys.modules and puts a finder first on sys.meta_path that loads that one module from
the converted file, so that every later import of it — the test module's,
`import_fresh_module`'s, and other standard-library modules' imported from then on — gets
the converted one; it asserts that it did, then runs `python -m test -v test_<module>`
(regrtest, in process). Unless the module is one that interpreter startup imports, the
test process also sets PYTHONPATH to the directory and autograph's, for the child
processes the tests start (the test process's own sys.path stays as it is:
`test.support.findfile` finds the original). Children started with `python -I` (most of
`script_helper`'s) ignore PYTHONPATH: they run the original module in both runs. Modules
the interpreter imports before site (codecs, io), whose objects others hold from then on,
are imported converted at startup instead (PYTHONPATH, frozen modules off). --copy puts
an unconverted copy through the same harness: what fails then is the harness's.

The same command without the converted module gives the figures to compare with: the two
runs alternate (with --repeat N: ABBA, best time of N), so that the machine's load falls
on both alike; each module's line and the total give the wall times of the test
processes and their ratio. Modules with a C accelerator (heapq/_heapq, bisect/_bisect):
their CPython tests import the module twice, with the accelerator blocked and with it, so
the pure-Python (converted) functions are the ones tested in the blocked half;
--block-accelerators also blocks it for the whole run. --import-times N: each module's
import time, converted against original, in fresh processes (best of N).
"""
from __future__ import annotations

import argparse
import compileall
import importlib.util
import multiprocessing
import os
import py_compile
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from autograph import module_converter  # noqa: E402
from autograph.module_converter import Report  # noqa: E402

# Every single-file module of the standard library with a test_<module> and something to
# convert (decimal, keyword and struct have none: _pydecimal is decimal's), but those of
# KNOWN.
MODULES = ["heapq", "bisect", "textwrap", "fractions", "statistics", "colorsys", "shlex",
           "difflib", "calendar", "base64", "fnmatch", "string", "pprint", "ipaddress",
           "quopri", "argparse", "configparser", "getopt", "optparse", "csv", "glob", "queue",
           "sched", "reprlib", "copy", "dataclasses", "enum", "typing", "tokenize", "shutil",
           "zipfile", "pathlib", "random", "uuid", "locale", "datetime", "graphlib", "tarfile",
           "inspect", "operator", "tempfile", "functools", "contextlib", "gettext", "ast",
           "tabnanny", "abc", "aifc", "asynchat", "asyncore", "bdb", "bz2", "cgi", "cgitb",
           "cmd", "code", "codecs", "codeop", "compileall", "copyreg", "crypt", "doctest",
           "filecmp", "fileinput", "ftplib", "genericpath", "getpass", "gzip", "hashlib",
           "hmac", "imaplib", "imghdr", "imp", "io", "linecache", "lzma", "mailbox", "mailcap",
           "mimetypes", "modulefinder", "netrc", "nntplib", "ntpath", "os", "pdb", "pickle",
           "pickletools", "pipes", "pkgutil", "platform", "plistlib", "poplib", "posixpath",
           "profile", "pstats", "pty", "py_compile", "pyclbr", "pydoc", "rlcompleter", "runpy",
           "secrets", "selectors", "shelve", "signal", "site", "smtpd", "smtplib", "sndhdr",
           "socketserver", "ssl", "stat", "stringprep", "subprocess", "sunau", "symtable",
           "sysconfig", "telnetlib", "threading", "timeit", "trace", "traceback",
           "tracemalloc", "tty", "turtle", "types", "uu", "warnings", "wave", "weakref",
           "webbrowser", "xdrlib", "zipapp", "zipimport", "_pydecimal", "_pyio", "_strptime",
           "_threading_local", "socket"]
# Modules whose CPython tests do not pass converted, and why (run them with --known).
# contextlib and gettext pass since converted functions run their original body while
# nothing is staged (frames, stack levels and tracebacks are the original's); ast since
# importing the operators no longer imports gast; tabnanny since the converted module is
# found by a finder rather than on sys.path (its usage line names what findfile() finds).
KNOWN = {
    "dis": "test_dis's CodeInfoTests disassemble dis.code_info itself and compare its "
           "co_names with the original's: a converted function's code object holds both "
           "bodies (the original's and the converted one), so it also names __ag__, "
           "staging and converted. Inherent to keeping both paths in one function.",
}
# Test cases that fail on the original in this environment, left out of both runs.
IGNORED = {"threading": ["test_import_from_another_thread"],    # .pth files import threading
           "socket": ["*VSOCK*"]}         # hangs (then blocks its port) in this sandbox
# Modules whose tests are not test_<module>: the pure-Python halves of C-accelerated ones.
TESTS = {"_pydecimal": "decimal", "_pyio": "io", "_strptime": "strptime",
         "_threading_local": "threading_local"}
# Modules whose tests read standard-library files next to the module's own __file__
# (test_linecache opens abc.py there): their directory gets links to those files.
SIBLINGS = {"linecache"}
# Modules whose tests need bytecode written (test_compileall checks what a child's import
# writes): their runs lift PYTHONDONTWRITEBYTECODE.
WRITES_BYTECODE = {"compileall"}
# Modules whose tests need a regrtest resource (-u): socketserver's serve on localhost.
RESOURCES = {"socketserver": "network"}
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


def _progress(done: int, total: int, results: list, wall: float) -> None:
    lines = sum(r["lines"] for r in results)
    cpu = sum(r["seconds"] for r in results)
    rate = f"{lines / cpu:,.0f} lines/s per core" if cpu else "-"
    print(f"  scan: {done}/{total} files, {lines:,} lines, {rate} so far, "
          f"{time.perf_counter() - wall:.0f} s", flush=True)


def scan(jobs: int, limit: int | None, every: float = 5.0, sample: int | None = None) -> bool:
    """Converts every file (or a `sample` of them, spread evenly: every k-th file, the same
    ones in every run); prints its progress every `every` seconds as it goes."""
    files = stdlib_files()
    if sample:
        files = files[::max(1, len(files) // sample)][:sample]
    files = files[:limit]
    wall = time.perf_counter()
    results: list = []
    pool = multiprocessing.Pool(jobs) if jobs > 1 else None
    try:
        done = pool.imap_unordered(scan_one, files, chunksize=4) if pool else map(scan_one, files)
        shown = wall
        for result in done:
            results.append(result)
            if time.perf_counter() - shown >= every:
                shown = time.perf_counter()
                _progress(len(results), len(files), results, wall)
    finally:
        if pool:
            pool.close()
            pool.join()
    _progress(len(results), len(files), results, wall)
    results.sort(key=lambda r: r["path"])
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
sys.path.insert(0, {package!r})     # autograph with its bytecode, as installed
import autograph.operators  # first, so that its own imports (functools, typing) get originals
sys.path.remove({package!r})
import importlib.util
sys.modules.pop({module!r}, None)

class ConvertedFinder:      # this one module, from the converted file; nothing else moves
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == {module!r}:
            return importlib.util.spec_from_file_location(name, {file!r})

sys.meta_path.insert(0, ConvertedFinder)
import {module} as m
assert m.__file__ == {file!r}, m.__file__
assert hasattr(m, "__ag_converted__") != {copy}, "converted or not, as asked"
assert autograph.__file__.startswith({package!r}), autograph.__file__
for i, hook in enumerate(sys.path_hooks):    # zipimport's: the import system's, converted
    if getattr(hook, "__module__", None) == {module!r}:
        sys.path_hooks[i] = getattr(m, hook.__name__)
        sys.path_importer_cache.clear()
"""
_CHECK_STARTUP = """
import {module} as m, autograph
assert m.__file__ == {file!r}, m.__file__
assert hasattr(m, "__ag_converted__") != {copy}, "converted or not, as asked"
assert autograph.__file__.startswith({package!r}), autograph.__file__
"""
_RUN = """
sys.argv = ["-m test", "-v", *{resources!r}, "test_{test}"]
import runpy
runpy.run_module("test", run_name="__main__", alter_sys=True)
"""


_STARTUP: dict = {}


def _startup_modules(init: bool = False) -> set:
    """Modules a fresh interpreter has imported once autograph's operators are (site,
    .pth files, the operators' own imports): a converted one on PYTHONPATH would need
    autograph before it is importable. With `init`: the modules the interpreter imports
    before site and autograph's operators do not need (abc, codecs, io)."""
    if init not in _STARTUP:
        flags = ["-S", "-X", "frozen_modules=off"] if init else []
        code = "import sys; print(*sys.modules)"
        out = subprocess.run([sys.executable, *flags, "-c", code], capture_output=True,
                             text=True, check=True).stdout.split()
        if init:
            root = os.path.dirname(os.path.dirname(os.path.abspath(module_converter.__file__)))
            code = (f"import sys; before = set(sys.modules); sys.path.insert(0, {root!r}); "
                    f"import autograph.operators; print(*(set(sys.modules) - before))")
            needs = subprocess.run([sys.executable, *flags, "-c", code], capture_output=True,
                                   text=True, check=True).stdout.split()
            # (zipimport is imported before PYTHONPATH reaches sys.path: not from there)
            out = set(out) - set(needs) - {"abc", "sys", "builtins", "__main__", "zipimport"}
        else:
            code = "import sys, autograph.operators; print(*sys.modules)"
            out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                                 text=True, check=True).stdout.split()
        _STARTUP[init] = set(out)
    return _STARTUP[init]


_PACKAGE: list = []       # a directory with a compiled copy of autograph, for the whole run


def _run_tests(module: str, tmp: str | None, block: bool) -> tuple:
    """One run of the module's CPython tests: on the converted module from `tmp`, or (None)
    on the original."""
    code = "import sys\n"
    flags = []
    if block and module in ACCELERATORS:
        code += f"sys.modules[{ACCELERATORS[module]!r}] = None\n"
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    file = os.path.join(tmp or "", module + ".py")
    package = _PACKAGE[0]
    if module in _startup_modules(init=True):
        # Imported while the interpreter starts, before site, its objects held by others
        # (codecs: the codec registry's CodecInfo): the converted one must be the one
        # imported then, from PYTHONPATH (with the operators' package), not frozen.
        flags = ["-X", "frozen_modules=off"]
        if tmp is not None:
            env["PYTHONPATH"] = os.pathsep.join([tmp, package])
            code += _CHECK_STARTUP.format(module=module, file=file, copy=_COPY[0],
                                          package=package)
    elif tmp is not None:
        code += _CHECK.format(module=module, file=file, copy=_COPY[0], package=package)
        if module not in _startup_modules():
            # The child processes the tests start import it (and autograph, also without
            # site: `python -S`) from PYTHONPATH; this process has it from the finder only
            # (test.support.findfile looks along sys.path).
            path = os.pathsep.join([tmp, package])
            code += f"import os\nos.environ['PYTHONPATH'] = {path!r}\n"
    if module in WRITES_BYTECODE:
        # Its tests' children must write bytecode: not inherited from the environment;
        # this process writes none before the tests run (-B).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        flags.append("-B")
        code += "sys.dont_write_bytecode = False\n"
    resources = ["-u", RESOURCES[module]] if module in RESOURCES else []
    for pattern in IGNORED.get(module, ()):
        resources += ["-i", pattern]
    code += _RUN.format(test=TESTS.get(module, module), resources=resources)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, *flags, "-c", code], capture_output=True, text=True,
                          cwd=tempfile.gettempdir(), timeout=900, env=env)
    seconds = time.perf_counter() - start
    output = proc.stdout + proc.stderr
    ran = sum(int(n) for n in _SUMMARY.findall(output))
    results = _RESULT.findall(output)
    details = ", ".join(d for _, d in results if d)
    ok = proc.returncode == 0 and bool(results) and all(r == "OK" for r, _ in results)
    return ok, ran, details, seconds, output


_COPY = [False]


def _convert_into(module: str, tmp: str) -> Report:
    """Writes the converted module into `tmp`, and its bytecode into `tmp/__pycache__`
    (as the installed original has it: neither run compiles its module)."""
    path = os.path.join(sysconfig.get_paths()["stdlib"], module + ".py")
    text, encoding = module_converter.read_source(path)
    out, report = module_converter.convert_source(text, path)
    if _COPY[0]:
        out = text                # --copy: the harness alone, with the original's text
    target = os.path.join(tmp, module + ".py")
    with open(target, "w", encoding=encoding) as f:
        f.write(out)
    py_compile.compile(target, cfile=importlib.util.cache_from_source(target), doraise=True)
    if module in SIBLINGS:
        for name in os.listdir(os.path.dirname(path)):
            if name.endswith(".py") and name != module + ".py":
                os.symlink(os.path.join(os.path.dirname(path), name), os.path.join(tmp, name))
    return report


def _both(module: str, tmp: str, block: bool, repeat: int) -> tuple:
    """Original and converted runs, `repeat` times each, interleaved (ABBA), so that the
    machine's load falls on both alike: (original, converted), each the first run's
    outcome with the best time, and ok only if every run was."""
    runs: dict = {None: [], tmp: []}
    for i in range(repeat):
        for which in ((None, tmp) if i % 2 == 0 else (tmp, None)):
            runs[which].append(_run_tests(module, which, block))
    best = []
    for which in (None, tmp):
        first = runs[which][0]
        failed = next((r for r in runs[which] if not r[0]), first)
        best.append((all(r[0] for r in runs[which]), failed[1], failed[2],
                     min(r[3] for r in runs[which]), failed[4]))
    return tuple(best)


def _show(r: tuple) -> str:
    return f"{'OK' if r[0] else 'FAIL'} {r[1]} tests{' (' + r[2] + ')' if r[2] else ''}"


def run_tests(modules: list, block: bool, keep_output: str | None, repeat: int = 1) -> bool:
    all_same = True
    totals = [0.0, 0.0]
    print(f"{'module':17}{'functions':>9}  {'original':38}{'converted':38}{'same':5}"
          f"{'orig s':>8}{'conv s':>8}{'ratio':>7}", flush=True)
    package = tempfile.TemporaryDirectory(prefix="ag-pkg-")
    _PACKAGE[:] = [_compiled_autograph(package.name)]
    for module in modules:
        with tempfile.TemporaryDirectory(prefix="ag-stdlib-") as tmp:
            try:
                report = _convert_into(module, tmp)
                base, conv = _both(module, tmp, block, repeat)
            except (module_converter.SourceError, OSError,
                    subprocess.TimeoutExpired) as e:      # one module, not the whole run
                print(f"{module:17}not checked: {type(e).__name__}: {e}", flush=True)
                all_same = False
                continue
        if keep_output:
            with open(os.path.join(keep_output, f"{module}.log"), "w") as f:
                f.write(conv[4])
        same = base[:3] == conv[:3]
        all_same &= same and conv[0]
        totals[0] += base[3]
        totals[1] += conv[3]
        print(f"{module:17}{len(report.converted):>4}+{len(report.skipped):<4}  "
              f"{_show(base):38}{_show(conv):38}{'yes' if same else 'NO':5}"
              f"{base[3]:8.2f}{conv[3]:8.2f}{conv[3] / base[3]:6.2f}x", flush=True)
        if not conv[0] and not keep_output:
            print("   ", "\n    ".join(conv[4].strip().splitlines()[-25:]), flush=True)
    package.cleanup()
    print(f"{'total':17}{'':9}  {'':38}{'':38}{'':5}{totals[0]:8.2f}{totals[1]:8.2f}"
          f"{totals[1] / max(totals[0], 1e-9):6.2f}x   (test process wall times, best of "
          f"{repeat}: converted / original)", flush=True)
    return all_same


_IMPORT = """
import sys, time
sys.path[:0] = {paths!r}
sys.modules.pop({module!r}, None)
start = time.perf_counter()
import {module}
took = time.perf_counter() - start
assert {module}.__file__.startswith({paths[0]!r}) == {converted!r}, {module}.__file__
assert ("autograph.operators" in sys.modules) == {converted!r}
print(took, {module}.__file__, sys.modules["autograph"].__file__ if {converted!r} else "")
"""


def _compiled_autograph(where: str, compiled: bool = True) -> str:
    """A copy of the autograph package with its bytecode, as an installed one has it (this
    checkout may have none: PYTHONDONTWRITEBYTECODE), or (not `compiled`) without."""
    source = os.path.dirname(os.path.abspath(module_converter.__file__))
    shutil.copytree(source, os.path.join(where, "autograph"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    if compiled:
        compileall.compile_dir(os.path.join(where, "autograph"), quiet=1)
    return where


def import_times(modules: list, n: int) -> None:
    """Import time of each converted module (the operators' import included) against the
    original's, in fresh interpreters, the module from bytecode in both, interleaved,
    best of n: with autograph's own bytecode (installed) and without (this checkout)."""
    print(f"{'module':17}{'original ms':>12}{'converted ms':>13}{'extra ms':>9}"
          f"{'no-pyc conv ms':>15}{'extra ms':>9}   (import in a fresh process, best of {n}; "
          f"converted includes the operators' import; no-pyc: autograph compiled from "
          f"source)")
    with tempfile.TemporaryDirectory(prefix="ag-pkg-") as package, \
            tempfile.TemporaryDirectory(prefix="ag-src-") as source:
        _compiled_autograph(package)
        _compiled_autograph(source, compiled=False)
        for module in modules:
            with tempfile.TemporaryDirectory(prefix="ag-stdlib-") as tmp, \
                    tempfile.TemporaryDirectory(prefix="ag-empty-") as empty:
                _convert_into(module, tmp)
                kinds = {"original": [empty], "converted": [tmp, package],
                         "no-pyc": [tmp, source]}
                best = dict.fromkeys(kinds, float("inf"))
                for i in range(n):
                    order = list(kinds) if i % 2 == 0 else list(kinds)[::-1]
                    for kind in order:
                        code = _IMPORT.format(module=module, paths=kinds[kind],
                                              converted=kind != "original")
                        out = subprocess.run([sys.executable, "-B", "-c", code],
                                             capture_output=True,
                                             text=True, cwd=empty)
                        if out.returncode:
                            raise RuntimeError(f"{module} ({kind}): {out.stderr}")
                        took, *files = out.stdout.split()
                        assert kind == "original" or files[1].startswith(kinds[kind][1]), files
                        best[kind] = min(best[kind], float(took))
            ms = {k: v * 1e3 for k, v in best.items()}
            print(f"{module:17}{ms['original']:12.2f}{ms['converted']:13.2f}"
                  f"{ms['converted'] - ms['original']:9.2f}{ms['no-pyc']:15.2f}"
                  f"{ms['no-pyc'] - ms['original']:9.2f}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--limit", type=int, default=None, help="scan only the first N files")
    parser.add_argument("--sample", type=int, default=None, metavar="N",
                        help="scan N files spread over the standard library (every k-th), "
                             "the same ones each run: rates to compare in a minute")
    parser.add_argument("--modules", nargs="+", default=MODULES)
    parser.add_argument("--known", action="store_true",
                        help="run the modules with known differences (KNOWN) instead")
    parser.add_argument("--scan-only", action="store_true")
    parser.add_argument("--tests-only", action="store_true")
    parser.add_argument("--block-accelerators", action="store_true",
                        help="also block _heapq, _bisect, _statistics for the whole run")
    parser.add_argument("--keep-output", metavar="DIR", help="write each converted run's log")
    parser.add_argument("--import-times", type=int, metavar="N", default=0,
                        help="instead: import time of each of --modules, converted against "
                             "original, in fresh processes, best of N")
    parser.add_argument("--copy", action="store_true",
                        help="load an unconverted copy of each module the same way: what "
                             "fails then is the harness's, not the conversion's")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="run each module's tests N times original and converted, "
                             "interleaved; times are the best of N")
    args = parser.parse_args()
    ok = True
    _COPY[0] = args.copy
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        # Started in the background (`cmd &`): the test processes would inherit an ignored
        # SIGINT, which test_pdb (and others that look at the handler) see.
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if args.import_times:
        import_times(args.modules, args.import_times)
        return 0
    if not args.tests_only:
        start = time.perf_counter()
        ok &= scan(args.jobs, args.limit, sample=args.sample)
        print(f"scan: {time.perf_counter() - start:.1f} s\n")
    if not args.scan_only:
        start = time.perf_counter()
        modules = sorted(KNOWN) if args.known else args.modules
        if args.known and not KNOWN:
            print("no known differences: every module checked passes (see MODULES)")
            modules = []
        ok &= run_tests(modules, args.block_accelerators, args.keep_output, args.repeat)
        if args.known:
            for module in modules:
                print(f"  {module}: {KNOWN[module]}")
        print(f"tests: {time.perf_counter() - start:.1f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
