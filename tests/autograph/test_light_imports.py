"""Converted code imports light: `from autograph import operators` (all that a module
written by `autograph convert` imports) loads no parser, no converter and no `logging`,
and a converted standard-library module (`string`) imports and works on its own.

Each check runs in a fresh interpreter, so that nothing this test session imported
counts."""
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Modules that converted code must not need: the parser, the converter and its
# analyses, logging, and the heavy standard-library modules the converter uses.
HEAVY = ("gast", "ast", "logging", "inspect", "tokenize", "dis")
HEAVY_PACKAGES = ("autograph.converters", "autograph.analysis")
CONVERTER = ("autograph.api", "autograph.module_converter", "autograph.parsing",
             "autograph.pipeline", "autograph.templates", "autograph.unparsing",
             "autograph.two_paths", "autograph.tree", "autograph.anno")


def _python(code: str, cwd) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _heavy(new: list) -> list:
    return sorted(m for m in new
                  if m in HEAVY or m in CONVERTER
                  or any(m == p or m.startswith(p + ".") for p in HEAVY_PACKAGES))


_NEW_MODULES = """
import json, sys
before = set(sys.modules)
{body}
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def test_operators_import_no_parser_converter_or_logging(tmp_path):
    new = _python(_NEW_MODULES.format(body="from autograph import operators"), tmp_path)
    assert "autograph.operators" in new
    assert _heavy(new) == []


def test_package_import_is_light_too(tmp_path):
    """`import autograph` loads the converter only when to_graph/to_code is first used."""
    new = _python(_NEW_MODULES.format(body="import autograph"), tmp_path)
    assert _heavy(new) == []
    new = _python(_NEW_MODULES.format(body="import autograph; autograph.to_code"), tmp_path)
    assert "gast" in new and "autograph.api" in new


_CONVERTED_STRING = """
import json, sys
sys.path.insert(0, {tmp!r})
sys.modules.pop("string", None)
before = set(sys.modules)
import string
assert string.__file__.startswith({tmp!r}), string.__file__
assert hasattr(string, "__ag_converted__")
from autograph import operators
out = {{"template": string.Template("$a").substitute(a=1),
        "safe": string.Template("$a and $b").safe_substitute(a=1),
        "capwords": string.capwords("hello   wide  world"),
        "sep": string.capwords("a-b-c", "-"),
        "format": string.Formatter().format("{{0}}-{{x!r}}", 1, x="y")}}
with operators.Staging():      # the converted bodies, as while a graph is built
    staged = {{"template": string.Template("$a").substitute(a=1),
               "capwords": string.capwords("hello   wide  world"),
               "format": string.Formatter().format("{{0}}-{{x!r}}", 1, x="y")}}
out["staged"] = staged
out["new"] = sorted(set(sys.modules) - before)
print(json.dumps(out))
"""


def test_converted_string_module_imports_and_works(tmp_path):
    from autograph import module_converter
    source = os.path.join(sysconfig.get_paths()["stdlib"], "string.py")
    text, encoding = module_converter.read_source(source)
    out, report = module_converter.convert_source(text, source)
    assert report.converted and not report.skipped
    (tmp_path / "string.py").write_text(out, encoding=encoding)
    result = _python(_CONVERTED_STRING.format(tmp=str(tmp_path)), tmp_path)
    assert result["template"] == "1"
    assert result["safe"] == "1 and $b"
    assert result["capwords"] == "Hello Wide World"
    assert result["sep"] == "A-B-C"
    assert result["format"] == "1-'y'"
    assert result["staged"] == {"template": "1", "capwords": "Hello Wide World",
                                "format": "1-'y'"}
    assert "autograph.operators" in result["new"]
    assert _heavy(result["new"]) == []
