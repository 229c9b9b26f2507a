"""The modules of both packages, read once for the architecture tests: their dotted
names and paths, their syntax trees (parsed when first asked for), and what a relative
import in one of them names."""
from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("autograph", "runtime")


def _modules() -> dict:
    """{dotted name: path} of every module of ours (a package as its `__init__`)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


@functools.cache
def trees() -> dict:
    """Each module's syntax tree (parsed when a test first asks, not while collecting)."""
    return {name: ast.parse(path.read_text(), str(path)) for name, path in MODULES.items()}


def import_base(module: str, node: ast.ImportFrom) -> str:
    """The module an ImportFrom in `module` imports from, as a dotted name."""
    if not node.level:
        return node.module or ""
    package = module.split(".")
    if not str(MODULES[module]).endswith("__init__.py"):
        package = package[:-1]
    package = package[:len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))
