"""`autograph convert FILE.py [-o OUT.py] [--function NAME ...]`,
`autograph convert SRC_DIR -o OUT_DIR [--jobs N]` (a whole package tree, see
`autograph.package_converter`), both also as `python -m autograph`.

For one file, bad input — a missing file, a syntax error, an undecodable file, an empty
file, a name that names no function — is one line on stderr and exit code 1 (2 for a
malformed command line), and no output file is written: the output is written to a
temporary file next to it and renamed into place only when complete.

The design in full: docs/architecture.md, under `autograph/cli.py`.
"""
from __future__ import annotations

import argparse
import os
import stat
import sys
from typing import Optional, Sequence

from autograph import module_converter, package_converter

PROG = "autograph"


def version() -> str:
    try:
        from importlib.metadata import version as installed
        return installed("autograph-rt")
    except Exception:          # noqa: BLE001 — running from a source tree
        return "unknown (not installed)"


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        """One line, not the usage block and a second line."""
        if "invalid choice: 'graph'" in message:     # drawing graphs is the runtime's
            message += ("; graphs are drawn by the runtime: python -m runtime graph "
                        "FILE.py:FUNC --signature 'float32[None]'")
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description=(
        "Convert Python files with autograph: plain Python control flow over tensors "
        "becomes staged operators, and stays plain Python on everything else."))
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    convert = commands.add_parser(
        "convert", help="convert the functions of a .py file, or of every .py file of a "
                        "package tree, into runnable modules",
        description=(
            "Write a module in which every function and method of FILE (or only the "
            "named ones) is replaced by its converted form; imports, classes, "
            "module-level code, decorators and comments outside converted functions "
            "stay as they are. The output runs on its own (it imports autograph's "
            "operators): `python OUT.py` behaves like `python FILE.py`. Functions that "
            "cannot be converted (generators, async def) are kept, with a comment "
            "saying why. Given a directory, convert every .py file under it into the "
            "same relative path under OUT_DIR (which must not be inside it), in --jobs "
            "processes; other files, and .py files that cannot be converted (reported), "
            "are copied unchanged, __pycache__ is skipped, nothing in OUT_DIR is "
            "deleted. A summary goes to stderr."),
        epilog="examples: autograph convert model.py -o model_converted.py --function step"
               "; autograph convert src/mypkg -o build/mypkg --jobs 4")
    convert.add_argument("file", metavar="FILE.py|SRC_DIR",
                         help="the Python file (- reads it from stdin), or the package "
                              "directory, to convert")
    convert.add_argument("-o", "--output", metavar="OUT.py|OUT_DIR",
                         help="where to write the converted module (default: stdout), or "
                              "the converted tree (required for a directory)")
    convert.add_argument("--function", metavar="NAME", nargs="+", action="extend",
                         dest="functions",
                         help="convert only these: a function, a method (Class.method "
                              "or method) or a class (all its methods); repeatable; the "
                              "others are left as they are")
    convert.add_argument("-j", "--jobs", metavar="N", type=_positive,
                         help="for a directory: processes converting files (default: the "
                              "number of CPUs)")
    convert.add_argument("-q", "--quiet", action="store_true",
                         help="no summary on stderr")
    convert.add_argument("-v", "--verbose", action="store_true",
                         help="for a directory: also list each function left as written")
    return parser


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value


def _write(path: str, text: str, encoding: str, mode: Optional[int] = None) -> None:
    """All or nothing: a temporary file in the same directory, renamed into place."""
    if os.path.isdir(path):
        raise module_converter.SourceError(f"{path}: is a directory; give a file name with -o")
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        raise module_converter.SourceError(
            f"{path}: the converted module cannot be written in the file's encoding "
            f"({encoding})") from None
    package_converter.write_atomic(path, data, mode)


def convert(file: str, output: Optional[str], functions: Optional[Sequence[str]],
            quiet: bool = False) -> int:
    if file == "-":          # the source from stdin
        text, encoding = module_converter.decode_source(sys.stdin.buffer.read(), "<stdin>")
        file, mode = "<stdin>", None
    else:
        text, encoding = module_converter.read_source(file)
        mode = stat.S_IMODE(os.stat(file).st_mode)
    converted, report = module_converter.convert_source(text, file, functions)
    if output:
        _write(output, converted, encoding, mode)
    else:                        # the bytes -o would write: the coding cookie stays true
        sys.stdout.flush()
        sys.stdout.buffer.write(converted.encode(encoding, errors="replace"))
        sys.stdout.buffer.flush()
    if not quiet:
        for name, line, reason in report.skipped:
            print(f"{file}:{line}: {name} not converted: {reason}", file=sys.stderr)
        print(report.summary(file), file=sys.stderr)
    return 0


def convert_directory(src: str, output: Optional[str], functions, jobs: Optional[int],
                      quiet: bool = False, verbose: bool = False) -> int:
    if functions:
        raise module_converter.SourceError(
            f"{src}: --function applies to a single file, not to a directory")
    if not output:
        raise module_converter.SourceError(
            f"{src}: is a directory; give the output directory with -o OUT_DIR")
    if output.endswith(".py") and not os.path.isdir(output):
        raise module_converter.SourceError(
            f"{src}: is a directory, and {output} names a .py file; to convert the tree, "
            f"give an output directory with -o OUT_DIR")
    report = package_converter.convert_tree(src, output, jobs)
    package_converter.print_report(report, verbose=verbose, quiet=quiet)
    return 1 if report.errors else 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        if os.path.isdir(args.file):
            return convert_directory(args.file, args.output, args.functions, args.jobs,
                                     args.quiet, args.verbose)
        return convert(args.file, args.output, args.functions, args.quiet)
    except module_converter.SourceError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:       # `autograph convert f.py | head`: quiet, as cat is
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as e:        # noqa: BLE001 — a bug of ours: one line, unless asked
        if os.environ.get("AUTOGRAPH_STRICT", "") not in ("", "0"):
            raise
        print(f"{PROG}: internal error: {type(e).__name__}: {e} (AUTOGRAPH_STRICT=1 shows "
              "the traceback)", file=sys.stderr)
        return 3
