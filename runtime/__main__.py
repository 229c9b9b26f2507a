"""`python -m runtime graph FILE.py:FUNC --signature ... --format dot|svg|png|text`."""
from __future__ import annotations

import sys


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] != "graph":
        print("usage: python -m runtime graph FILE.py:FUNC [--signature SPEC ...] "
              "[--format dot|svg|png|text] [-o OUT]", file=sys.stderr)
        return 2
    from .graph_cli import main as graph_main
    return graph_main(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
