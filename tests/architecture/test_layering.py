"""The architecture, checked: layers import only downwards, no import cycles, the runtime
decides what an op is by its traits (never by comparing its name with a string), and
imports inside functions are the genuinely lazy few.

    python tests/architecture/test_layering.py     # prints the figures
"""
from __future__ import annotations

import ast
import functools
import sys

import pytest

from source_modules import MODULES, PACKAGES, ROOT, import_base, trees

# The runtime's core may import these leaf modules of the runtime besides itself.
CORE_MAY_IMPORT = {"runtime.errors", "runtime.nest"}
# The runtime's layers, bottom to top: a module imports only from its own layer and those
# below (a room is a top-level module or a sub-package; the rooms of one layer may import
# one another, never in a circle). docs/architecture.md draws the same picture.
LAYERS = (
    ("leaves", {"runtime.version", "runtime.config", "runtime.nest", "runtime.unknown_dims",
                "runtime.errors", "runtime.traceback_filter", "runtime.trace_errors",
                "runtime.logs"}),
    ("core", {"runtime.core"}),
    ("ops", {"runtime.ops"}),
    ("library", {"runtime.backprop", "runtime.truth", "runtime.random", "runtime.linalg",
                 "runtime.sparse", "runtime.nn", "runtime.module", "runtime.schedules",
                 "runtime.clipping", "runtime.summary"}),
    ("control flow", {"runtime.control_flow"}),
    ("graph passes", {"runtime.functional_ops", "runtime.optimize", "runtime.inline",
                      "runtime.dot", "runtime.vectorized"}),
    ("functions", {"runtime.signature", "runtime.trace_keys", "runtime.retracing",
                   "runtime.call_runners", "runtime.concrete", "runtime.tracing", "runtime.gradients",
                   "runtime.method_binding"}),
    ("backends", {"runtime.backends"}),
    ("rt.function", {"runtime.function", "runtime.distribute", "runtime.optimizers",
                     "runtime.optimizers_extra"}),
    ("built on functions", {"runtime.data", "runtime.saved", "runtime.display",
                            "runtime.saved_model", "runtime.train",
                            "runtime.autograph_backend"}),
    ("entry points", {"runtime", "runtime.graph_cli", "runtime.__main__"}),
)
# Imports inside a function that load a layer above on demand, by design (none today).
LAZY_UPWARD: dict = {}
MAX_IMPORTS_IN_FUNCTIONS = 25        # in runtime/: optional dependencies and heavy rare paths


def _targets(module: str, node) -> list:
    """The modules of ours that an Import/ImportFrom node in `module` imports."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = import_base(module, node)
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                 for a in node.names]
    out = []
    for name in names:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name and name != module:
            out.append(name)
    return out


@functools.cache
def _imports():
    """({module: set of modules it imports}, [(module, line) of imports inside functions])."""
    edges, inner = {m: set() for m in MODULES}, []
    for module, tree in trees().items():
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges[module].update(_targets(module, node))
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    if isinstance(node, (ast.Import, ast.ImportFrom)) and _targets(module, node):
                        inner.append((module, node.lineno))
    return edges, inner


def _cycles(edges: dict) -> list:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in edges:
        if v not in index:
            visit(v)
    return out


def _op_name_comparisons() -> list:
    """`op.type == "Const"`-like comparisons: a string constant naming a registered op,
    compared with anything, in runtime/."""
    from runtime.saved.schema import registry   # every op: runtime.ops' and control flow's
    names = set(registry())
    hits = []
    for module, tree in trees().items():
        if not module.startswith("runtime"):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            for side in [node.left, *node.comparators]:
                items = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
                if any(isinstance(i, ast.Constant) and i.value in names for i in items):
                    hits.append(f"{MODULES[module].relative_to(ROOT)}:{node.lineno}")
                    break
    return hits




def test_autograph_never_imports_the_runtime():
    wrong = sorted(f"{m} -> {t}" for m, ts in _imports()[0].items() if m.startswith("autograph")
                   for t in ts if t.startswith("runtime"))
    assert not wrong, wrong


def test_the_core_imports_nothing_above_it():
    wrong = sorted(f"{m} -> {t}" for m, ts in _imports()[0].items() if m.startswith("runtime.core")
                   for t in ts if not (t.startswith("runtime.core") or t in CORE_MAY_IMPORT))
    assert not wrong, wrong


def _without_lazy(edges: dict) -> dict:
    return {m: {t for t in ts if (m, t) not in LAZY_UPWARD} for m, ts in edges.items()}


def room(module: str) -> str:
    """The room a module stands in: a sub-package of the runtime, or a top-level module."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "runtime" else parts[0]


def layer_of(module: str) -> int:
    for i, (_, rooms) in enumerate(LAYERS):
        if room(module) in rooms:
            return i
    raise AssertionError(f"{module} is in no layer: add {room(module)} to LAYERS")


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle(package):
    """Neither package has an import cycle (autograph's operators reach the converter
    through a hook that `autograph.api` installs; each backend merges its rule tables)."""
    inside = {m: {t for t in ts if t.split(".")[0] == package}
              for m, ts in _without_lazy(_imports()[0]).items() if m.split(".")[0] == package}
    assert not _cycles(inside)


def test_the_runtime_imports_only_downwards():
    """Every import goes to the importer's layer or one below (0 arrows back up)."""
    up = sorted(f"{m} ({LAYERS[layer_of(m)][0]}) -> {t} ({LAYERS[layer_of(t)][0]})"
                for m, ts in _without_lazy(_imports()[0]).items() if m.startswith("runtime")
                for t in ts if t.startswith("runtime") and layer_of(t) > layer_of(m))
    assert not up, up


def test_no_cycle_between_the_runtimes_rooms():
    """Sub-packages import one another one way only (gradients/ and control_flow/ did both)."""
    rooms: dict = {}
    for m, ts in _without_lazy(_imports()[0]).items():
        if m.startswith("runtime"):
            rooms.setdefault(room(m), set()).update(
                room(t) for t in ts if t.startswith("runtime") and room(t) != room(m))
    for targets in list(rooms.values()):
        for t in targets:
            rooms.setdefault(t, set())
    assert not _cycles(rooms)


def test_lazy_upward_imports_are_inside_functions():
    """Each declared lazy edge is an import inside a function, never at module level."""
    for module, target in LAZY_UPWARD:
        top = [n for n in trees()[module].body if isinstance(n, (ast.Import, ast.ImportFrom))]
        assert target not in {t for n in top for t in _targets(module, n)}, (module, target)


def test_imports_inside_functions_are_few():
    inside = [f"{m}:{line}" for m, line in _imports()[1] if m.startswith("runtime")]
    assert len(inside) <= MAX_IMPORTS_IN_FUNCTIONS, inside


def test_no_op_name_compared_with_a_string():
    hits = _op_name_comparisons()
    assert not hits, hits


def test_the_repository_speaks_of_itself_alone():
    """No path that leads outside the repository (a notes file, a sibling directory)."""
    # (spelt in pieces, so that this file does not name them itself)
    outside = tuple("".join(p) for p in (("..", "/shared"), ("/wo", "rk/"),
                                         ("shared", "/reference"), ("DESIGN", "-NOTES"),
                                         ("STYLE", ".md")))
    wrong = []
    for path in [*ROOT.joinpath("tests").rglob("*.py"), *MODULES.values(),
                 *ROOT.joinpath("docs").rglob("*.md"), ROOT / "README.md"]:
        text = path.read_bytes().decode("utf-8", "replace")
        wrong += [f"{path.relative_to(ROOT)}: {o}" for o in outside if o in text]
    assert not wrong, wrong


def test_the_checks_catch_what_they_look_for():
    """The import walker sees function-level and relative imports, and finds cycles."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    tree = ast.parse("def f():\n    from .core import graph\n")
    node = tree.body[0].body[0]
    assert _targets("runtime.function", node) == ["runtime.core.graph"]
    assert layer_of("runtime.core.graph") < layer_of("runtime.ops.math_ops") < layer_of(
        "runtime.backends.xla.backend") < layer_of("runtime")
    assert room("runtime.backends.xla.backend") == "runtime.backends"


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    cycles = _cycles(_without_lazy(_imports()[0]))
    print("import cycles:", [(len(c), c) for c in cycles] or "none")
    up = [(m, t) for m, ts in _imports()[0].items() if m.startswith("runtime")
          for t in ts if t.startswith("runtime") and layer_of(t) > layer_of(m)]
    print(f"imports back up a layer of the runtime ({len(LAYERS)} layers): {len(up) or 'none'}")
    inside = [f"{m}:{line}" for m, line in _imports()[1] if m.startswith("runtime")]
    print(f"imports inside functions in runtime/: {len(inside)}")
    for where in inside:
        print("   ", where)
    hits = _op_name_comparisons()
    print(f"op-name comparisons with string literals in runtime/: {len(hits)}")
    for where in hits:
        print("   ", where)
