"""`python -m runtime graph FILE.py:FUNC --signature 'float32[None]' --format dot|svg|png|text|graphdef`
(also `runtime graph ...`, the console script): draws the graph of a function traced for a
signature. `python -m runtime graph SAVED_DIR[:NAME]` draws a function saved by
rt.saved.save, as loaded. The command is the runtime's own: `runtime/__main__.py` routes
to `main` here.

Each `--signature` is one argument: a tensor spec `DTYPE[DIMS]` (`float32[None]`,
`int32[]` for a scalar, `float32[2,3]`, `float32[...]` for unknown rank) or a Python
literal passed as is (`3`, `'mean'`). Several may be given at once, separated by
spaces or semicolons.
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import inspect
import os
import re
import shutil
import subprocess
import sys
from typing import Optional

PROG = "python -m runtime graph"

INSTALL_DOT = ("rendering to {fmt} needs Graphviz's `dot` program, which is not installed: "
               "install Graphviz (Debian/Ubuntu: `apt-get install graphviz`; macOS: "
               "`brew install graphviz`; Windows and others: https://graphviz.org/download/), "
               "or use --format dot and render the text elsewhere")

_SPEC = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\[([^\]]*)\]$")


class CommandError(Exception):
    """One line for stderr."""


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a malformed command line is one line on stderr (exit 2), not the usage
    block and a second line."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def parse_signature(texts: list) -> list:
    """The arguments the function is traced with: TensorSpecs and Python values."""
    import runtime as rt
    items = []
    for text in texts:
        items += [p for p in re.split(r"[;\s]+(?![^\[]*\])", text.strip()) if p]
    out = []
    for item in items:
        m = _SPEC.match(item)
        if m:
            dtype, dims = m.group(1), m.group(2).strip()
            try:
                dt = rt.as_dtype(dtype)
            except TypeError as e:
                raise CommandError(f"--signature {item!r}: {e}") from None
            if dims == "...":
                shape = None
            else:
                shape = []
                for d in (x.strip() for x in dims.split(",") if x.strip()):
                    if d in ("None", "?", "-1"):
                        shape.append(None)
                    elif d.isdigit():
                        shape.append(int(d))
                    else:
                        raise CommandError(f"--signature {item!r}: a dimension must be a "
                                           f"number or None, got {d!r}")
            out.append(rt.TensorSpec(shape, dt))
            continue
        try:
            out.append(ast.literal_eval(item))
        except (ValueError, SyntaxError):
            raise CommandError(f"--signature {item!r}: expected DTYPE[DIMS] such as "
                               "'float32[None]' or 'int32[]', or a Python literal") from None
    return out


def _load_function(target: str):
    path, sep, func = target.rpartition(":")
    if not sep or not path or not func:
        raise CommandError(f"expected FILE.py:FUNCTION, got {target!r}")
    if not os.path.isfile(path):
        raise CommandError(f"{path}: no such file")
    name = "_graph_cli_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise CommandError(f"{path}:{e.lineno}: syntax error: {e.msg}") from None
    finally:
        sys.path.pop(0)
    obj = module
    for part in func.split("."):
        if not hasattr(obj, part):
            raise CommandError(f"{path} has no function {func!r}")
        obj = getattr(obj, part)
    return obj


def _saved_function(target: str):
    """DIR or DIR:NAME of a saved directory (rt.saved.save): its function, drawn as loaded."""
    import runtime as rt
    path, name = _saved_parts(target)
    try:
        loaded = rt.saved.load(path)
    except rt.errors.InvalidGraphError as e:
        raise CommandError(str(e)) from None
    if name:
        fn = loaded.signatures.get(name) or getattr(loaded, name, None)
        if fn is None:
            raise CommandError(f"{path} has no saved function or signature {name!r}")
    elif "serving_default" in loaded.signatures:
        fn = loaded.signatures["serving_default"]
    else:
        names = sorted(n for n in vars(loaded) if not n.startswith("_")
                       and n not in ("signatures", "variables"))
        if len(names) != 1:
            raise CommandError(f"{path} holds several functions ({', '.join(names)}): "
                               f"name one as {path}:NAME")
        fn = getattr(loaded, names[0])
    cfs = getattr(fn, "concrete_functions", [fn])
    if len(cfs) != 1:
        raise CommandError(f"{target} was saved for {len(cfs)} signatures; save one, or name a "
                           "signature")
    return cfs[0]


def _saved_parts(target: str):
    """(directory, name) when `target` is DIR or DIR:NAME of a saved directory, else None."""
    if os.path.isfile(os.path.join(target, "saved.json")):
        return target, ""
    path, sep, name = target.rpartition(":")
    if sep and os.path.isfile(os.path.join(path, "saved.json")):
        return path, name
    return None


def _is_saved(target: str) -> bool:
    return _saved_parts(target) is not None


def concrete_function(target: str, signature: list):
    import runtime as rt
    if _is_saved(target):
        return _saved_function(target)
    fn = _load_function(target)
    if isinstance(fn, rt.ConcreteFunction):
        return fn
    if not isinstance(fn, rt.Function):
        if not callable(fn):
            raise CommandError(f"{target} is not a function")
        fn = rt.function(fn)
    args = parse_signature(signature)
    if not args and fn.input_signature is not None:
        return fn.get_concrete_function()
    if fn.input_signature is None:
        _check_arity(target, fn.python_function, args, given=bool(signature))
    return fn.get_concrete_function(*args)


def _check_arity(target: str, python_function, args: list, given: bool) -> None:
    """The arguments from --signature must fit the function's parameters: say so in one line
    (with how to give them) rather than as a tracing failure."""
    try:
        sig = inspect.signature(python_function)
    except (TypeError, ValueError):       # a builtin or some other callable: let it trace
        return
    try:
        sig.bind(*args)
    except TypeError as e:
        if not given:
            raise CommandError(
                f"{target}{sig} takes arguments: pass --signature with one item per "
                f"argument, a tensor spec such as 'float32[None]' or 'int32[]', or a Python "
                f"literal (e.g. --signature 'float32[None]; 2.0')") from None
        raise CommandError(
            f"{target}{sig}: --signature gives {len(args)} argument"
            f"{'' if len(args) == 1 else 's'}: {e} (one item per argument, separated by "
            f"';' or as repeated -s)") from None


def render(cf, fmt: str) -> bytes:
    if fmt in ("text", "graphdef"):
        return (cf.graph.to_text(graph_def=fmt == "graphdef") + "\n").encode()
    dot_text = cf.graph.to_dot(list(cf.outputs))
    if fmt == "dot":
        return dot_text.encode()
    exe = shutil.which("dot")
    if exe is None:
        raise CommandError(INSTALL_DOT.format(fmt=fmt.upper()))
    proc = subprocess.run([exe, f"-T{fmt}"], input=dot_text.encode(), capture_output=True,
                          timeout=120)
    if proc.returncode != 0:
        raise CommandError(f"dot failed: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("target", metavar="FILE.py:FUNC",
                        help="a function in a Python file, or SAVED_DIR[:NAME] from rt.saved.save")
    parser.add_argument("--signature", "-s", action="append", default=[], metavar="SPEC",
                        help="the arguments to trace with: DTYPE[DIMS] (float32[None], "
                             "int32[] for a scalar, float32[...] for any rank) or a Python "
                             "literal; repeat it (or separate by ';') for several")
    parser.add_argument("--format", "-f", choices=["dot", "svg", "png", "text", "graphdef"],
                        default="dot",
                        help="dot (Graphviz text, default), svg or png (rendered by Graphviz's "
                             "`dot` program), text (one line per node, cond/while bodies "
                             "indented), graphdef (the GraphDef text form)")
    parser.add_argument("-o", "--output", help="write here instead of stdout (required for png)")
    return parser


DESCRIPTION = ("Draw the graph of FUNC in FILE.py traced for a signature (cond and while "
               "bodies as nested clusters), or of a function saved by rt.saved.save.")
EPILOG = ("example: python -m runtime graph model.py:step --signature 'float32[None]; 2.0' "
          "--format svg -o step.svg")


def parser(prog: str = PROG) -> argparse.ArgumentParser:
    return add_arguments(OneLineParser(prog=prog, description=DESCRIPTION, epilog=EPILOG))


def main(argv: Optional[list] = None, prog: str = PROG) -> int:
    """The `graph` command; argv without the word `graph`."""
    args = parser(prog).parse_args(argv)
    return run(args, prog)


def run(args: argparse.Namespace, prog: str = PROG) -> int:
    if args.format == "png" and not args.output:
        print(f"{prog}: error: --format png writes binary data: give -o FILE.png",
              file=sys.stderr)
        return 1
    try:
        cf = concrete_function(args.target, args.signature)
        data = render(cf, args.format)
    except CommandError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - the user's function failed to trace
        print(f"{prog}: error: tracing {args.target} failed: {type(e).__name__}: "
              f"{str(e).splitlines()[0] if str(e) else ''}", file=sys.stderr)
        return 1
    if args.output:
        with open(args.output, "wb") as f:
            f.write(data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    return 0
