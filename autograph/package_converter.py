"""Whole package trees, converted: `autograph convert SRC_DIR -o OUT_DIR`.

    report = convert_tree("mypkg", "build/mypkg", jobs=4)

Every file under SRC_DIR lands at the same relative path under OUT_DIR:

The design in full: docs/architecture.md, under `autograph/package_converter.py`.
"""
from __future__ import annotations

import multiprocessing
import os
import stat
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Optional

from autograph import module_converter
from autograph.module_converter import SourceError

SKIPPED_DIRECTORIES = frozenset({"__pycache__"})


# ---------------------------------------------------------------------------------------
# Writing one file

def write_atomic(path: str, data: bytes, mode: Optional[int] = None) -> None:
    """All or nothing: a temporary file in the same directory, renamed into place; `mode`:
    the permission bits (default: those a new file gets under the umask)."""
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise SourceError(f"{path}: is a directory")
    if not os.path.isdir(directory):
        raise SourceError(f"{path}: directory {directory} does not exist")
    if mode is None:
        mode = 0o666 & ~_umask()
    fd, temp = tempfile.mkstemp(prefix=".autograph-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException as e:
        try:
            os.unlink(temp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise SourceError(f"{path}: cannot write: {e.strerror or e}") from None
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# ---------------------------------------------------------------------------------------
# What the tree holds

@dataclass(frozen=True)
class Task:
    rel: str                  # relative path, '/'-separated
    source: str               # path to read
    target: str               # path to write
    convert: bool             # a .py file: convert it (else copy)


@dataclass
class Plan:
    directories: list = field(default_factory=list)   # relative, parents first
    tasks: list = field(default_factory=list)          # Task, sorted by rel
    skipped: list = field(default_factory=list)        # (rel, reason)


def _inside(path: str, root: str) -> bool:
    """Whether real path `path` is `root` or below it (both real paths)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def check_paths(src: str, out: str) -> None:
    """SourceError unless SRC is a directory and OUT can be the tree's root."""
    if not os.path.exists(src):
        raise SourceError(f"{src}: no such directory")
    if not os.path.isdir(src):
        raise SourceError(f"{src}: not a directory")
    real_src, real_out = os.path.realpath(src), os.path.realpath(out)
    if _inside(real_out, real_src):
        where = "the source directory" if real_out == real_src else \
            "inside the source directory"
        raise SourceError(f"{out}: the output directory must not be {where} {src}")
    if os.path.exists(out) and not os.path.isdir(out):
        raise SourceError(f"{out}: exists and is not a directory")


def plan_tree(src: str, out: str) -> Plan:
    """Walk SRC (sorted, so the plan is the same every time) into directories to make,
    files to convert or copy, and what is skipped."""
    root = os.path.realpath(src)
    plan = Plan()

    def walk(directory: str, rel: str, ancestors: tuple) -> None:
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as e:
            plan.skipped.append((rel or ".", f"cannot list: {e.strerror or e}"))
            return
        for entry in entries:
            child_rel = f"{rel}/{entry.name}" if rel else entry.name
            path = entry.path
            link = entry.is_symlink()
            if link:
                target = os.path.realpath(path)
                if not os.path.exists(target):
                    plan.skipped.append((child_rel, "dangling symlink"))
                    continue
                if not _inside(target, root):
                    plan.skipped.append((child_rel, "symlink out of the source tree, "
                                                    "not followed"))
                    continue
            if entry.is_dir():                    # follows links (checked above)
                if entry.name in SKIPPED_DIRECTORIES:
                    continue
                real_child = os.path.realpath(path)
                if real_child in ancestors:
                    plan.skipped.append((child_rel, "symlink to a directory that holds "
                                                    "it (a loop), not followed"))
                    continue
                plan.directories.append(child_rel)
                walk(path, child_rel, ancestors + (real_child,))
                continue
            if not entry.is_file():
                plan.skipped.append((child_rel, "not a regular file"))
                continue
            target = os.path.join(out, *child_rel.split("/"))
            plan.tasks.append(Task(child_rel, path, target, entry.name.endswith(".py")))

    walk(src, "", (root,))
    return plan


def _check_targets(plan: Plan, src: str, out: str) -> None:
    """No output path may resolve into the source tree (OUT holding a link into SRC, or
    SRC below OUT where a subdirectory repeats its path)."""
    root = os.path.realpath(src)
    for rel in [""] + plan.directories:
        real = os.path.realpath(os.path.join(out, *rel.split("/")) if rel else out)
        if _inside(real, root):
            raise SourceError(f"{os.path.join(out, rel) if rel else out}: would write into "
                              f"the source directory {src}; choose another output directory")


# ---------------------------------------------------------------------------------------
# One file, in a worker

@dataclass
class FileResult:
    rel: str
    kind: str                     # "converted", "copied", "failed" (copied), "error"
    converted: int = 0
    skipped: list = field(default_factory=list)     # (qualified name, line, reason)
    message: str = ""             # why it failed (kind "failed" or "error")


def _nothing_to_convert(message: str) -> bool:
    # SourceErrors of module_converter for a module without functions or an empty one.
    return message.endswith("nothing to convert")


def process(task: Task) -> FileResult:
    """Convert or copy one file; never raises (the result says what happened)."""
    try:
        mode = stat.S_IMODE(os.stat(task.source).st_mode)
        if not task.convert:
            return _copy(task, mode, "copied")
        try:
            text, encoding = module_converter.read_source(task.source)
            converted, report = module_converter.convert_source(text, task.source)
            data = converted.encode(encoding)
        except SourceError as e:
            message = str(e)
            if _nothing_to_convert(message):
                return _copy(task, mode, "copied")
            return _copy(task, mode, "failed", message)
        except UnicodeEncodeError:
            return _copy(task, mode, "failed", f"{task.source}: the converted module cannot "
                                               f"be written in the file's encoding")
        except Exception as e:              # noqa: BLE001 — a converter bug: copy the file
            return _copy(task, mode, "failed",
                         f"{task.source}: internal error: {type(e).__name__}: {e}")
        write_atomic(task.target, data, mode)
        return FileResult(task.rel, "converted", len(report.converted), report.skipped)
    except SourceError as e:
        return FileResult(task.rel, "error", message=str(e))
    except OSError as e:
        return FileResult(task.rel, "error", message=f"{task.source}: {e.strerror or e}")


def _copy(task: Task, mode: int, kind: str, message: str = "") -> FileResult:
    with open(task.source, "rb") as f:
        data = f.read()
    write_atomic(task.target, data, mode)
    return FileResult(task.rel, kind, message=message)


# ---------------------------------------------------------------------------------------
# The tree

@dataclass
class TreeReport:
    src: str
    out: str
    jobs: int
    files: list = field(default_factory=list)       # FileResult, in path order
    skipped_paths: list = field(default_factory=list)
    seconds: float = 0.0

    def count(self, kind: str) -> int:
        return sum(r.kind == kind for r in self.files)

    @property
    def errors(self) -> list:
        return [r for r in self.files if r.kind == "error"]

    def summary(self) -> str:
        converted = self.count("converted")
        copied = self.count("copied") + self.count("failed")
        functions = sum(r.converted for r in self.files)
        skipped = sum(len(r.skipped) for r in self.files)
        extra = []
        if self.count("failed"):
            extra.append(f"{self.count('failed')} could not be converted")
        if self.skipped_paths:
            extra.append(f"{len(self.skipped_paths)} paths skipped")
        if self.errors:
            extra.append(f"{len(self.errors)} not written")
        return (f"autograph: {self.src} -> {self.out}: {converted} file"
                f"{'' if converted == 1 else 's'} converted, {copied} copied"
                f"{' (' + ', '.join(extra) + ')' if extra else ''}; {functions} function"
                f"{'' if functions == 1 else 's'} converted, {skipped} skipped; "
                f"{self.seconds:.1f} s, {self.jobs} job{'' if self.jobs == 1 else 's'}")


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def convert_tree(src: str, out: str, jobs: Optional[int] = None) -> TreeReport:
    """Convert the tree SRC into OUT (see the module docstring). Raises SourceError, before
    writing anything, when the paths are unusable; per-file problems are in the report."""
    start = time.perf_counter()
    check_paths(src, out)
    plan = plan_tree(src, out)
    _check_targets(plan, src, out)
    jobs = max(1, jobs or default_jobs())
    for rel in [""] + plan.directories:
        path = os.path.join(out, *rel.split("/")) if rel else out
        try:
            os.makedirs(path, exist_ok=True)
        except OSError as e:
            raise SourceError(f"{path}: cannot create the directory: {e.strerror or e}") \
                from None
    work = sorted(plan.tasks, key=lambda t: (not t.convert, t.rel))
    jobs = min(jobs, max(1, sum(t.convert for t in work)))
    # Fresh interpreters (spawn), with one job too: what a name resolves to at conversion
    # time depends on the modules already loaded (module_converter._import_value), so a
    # worker forked from the caller would convert differently from one forked from
    # another caller. imap returns results in the order of `work`.
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        results = list(pool.imap(process, work, chunksize=1))
    report = TreeReport(src, out, jobs, sorted(results, key=lambda r: r.rel),
                        plan.skipped)
    report.seconds = time.perf_counter() - start
    return report


def print_report(report: TreeReport, verbose: bool = False, quiet: bool = False,
                 stream=None) -> None:
    """Failures, errors and skipped paths always (one line each); each function that
    stays as written with `verbose`; the summary line unless `quiet`."""
    stream = stream or sys.stderr
    for rel, reason in report.skipped_paths:
        print(f"autograph: {os.path.join(report.src, rel)}: skipped: {reason}", file=stream)
    for result in report.files:
        if result.kind == "failed":
            print(f"autograph: {result.message}; copied unchanged", file=stream)
        elif result.kind == "error":
            print(f"autograph: error: {result.message}", file=stream)
        elif verbose:
            path = os.path.join(report.src, result.rel)
            for name, line, reason in result.skipped:
                print(f"{path}:{line}: {name} not converted: {reason}", file=stream)
    if not quiet:
        print(report.summary(), file=stream)
