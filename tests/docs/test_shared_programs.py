"""The docs and the example programs show their own copies of the shared example programs
(examples/programs.py) as text: each copy is the program there, decorators, docstrings
and comments aside."""
import ast
import inspect
import re
from pathlib import Path

import pytest

from examples import programs

ROOT = Path(__file__).resolve().parents[2]
# file -> the shared programs it shows
COPIES = {
    "examples/quickstart.py": ["collatz_steps"],
    "examples/data_dependent_loops.py": ["collatz_steps"],
    "docs/guide.md": ["collatz_steps"],
}


def _body(fn: ast.FunctionDef) -> str:
    """The function as ast dumps it, without its decorators and docstring."""
    fn.decorator_list = []
    if fn.body and isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant):
        fn.body = fn.body[1:]
    return ast.dump(fn)


def _definitions(path: str, name: str) -> list:
    """Every definition of `name` in the file: a Python file, or the ```python blocks of
    a Markdown page."""
    text = (ROOT / path).read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S) if path.endswith(".md") else [text]
    return [node for block in blocks for node in ast.walk(ast.parse(block))
            if isinstance(node, ast.FunctionDef) and node.name == name]


@pytest.mark.parametrize("path, name", [(p, n) for p, names in COPIES.items() for n in names])
def test_the_copy_is_the_shared_program(path, name):
    shared = _body(ast.parse(inspect.getsource(getattr(programs, name))).body[0])
    copies = _definitions(path, name)
    assert copies, f"{path} shows no {name}"
    for copy in copies:
        assert _body(copy) == shared, f"{path}'s {name} is not examples/programs.py's"
