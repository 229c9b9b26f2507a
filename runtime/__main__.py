"""`python -m runtime graph FILE.py:FUNC --signature ... [--format dot|svg|png|text]`, also
installed as the console script `runtime` (`runtime graph ...`). The runtime's own command
line; the command itself is runtime.graph_cli."""
from __future__ import annotations

import os
import sys
from typing import Optional, Sequence

from runtime import graph_cli


def _prog() -> str:
    """`python -m runtime` when run as a module, else the console script's name."""
    argv0 = sys.argv[0] if sys.argv else ""
    name = os.path.basename(argv0)
    if not name or name in ("__main__.py", "-c") or name.endswith(".py"):
        return "python -m runtime"
    return os.path.splitext(name)[0]


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    prog = _prog()
    parser = graph_cli.OneLineParser(
        prog=prog, description="The runtime's command line.",
        epilog=f"example: {prog} graph model.py:step --signature 'float32[None]' --format svg "
               "-o step.svg")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                     parser_class=graph_cli.OneLineParser)
    graph = commands.add_parser(
        "graph", help="draw the graph of FILE.py:FUNC traced for a signature (dot, svg, png, "
                      f"text); see `{prog} graph --help`",
        description=graph_cli.DESCRIPTION,
        epilog=graph_cli.EPILOG.replace(graph_cli.PROG, f"{prog} graph"))
    graph_cli.add_arguments(graph)
    args = parser.parse_args(argv)
    return graph_cli.run(args, f"{prog} graph")


if __name__ == "__main__":
    sys.exit(main())
