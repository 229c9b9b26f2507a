"""Writes the golden files of tests/golden/data: for each program of programs.py, its
converted source, graphs as printed, executor source, saved files and ONNX model.

    python tests/golden/make_golden.py

Run it only when a change is meant to change one of these outputs, and say so in the
commit; test_golden.py regenerates them in memory and compares byte for byte.
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile

os.environ.setdefault("AUTOGRAPH_STRICT", "1")    # as under pytest (tests/conftest.py)

import numpy as np  # noqa: E402

import autograph as ag  # noqa: E402
import runtime as rt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
PROGRAMS_PATH = os.path.join(HERE, "programs.py")
BASE = (3, 11)                       # the Python whose output data/ holds
VERSION_DIR = "py%d%d" % sys.version_info[:2]
# The checkout whose runtime is imported (its paths may show in messages).
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(rt.__file__)))


def load_programs():
    """programs.py as the module `golden_programs` (tests/cli/samples has a programs.py too)."""
    mod = sys.modules.get("golden_programs")
    if mod is None:
        spec = importlib.util.spec_from_file_location("golden_programs", PROGRAMS_PATH)
        mod = importlib.util.module_from_spec(spec)
        sys.modules["golden_programs"] = mod
        spec.loader.exec_module(mod)
    return mod


def normalise(text: str) -> str:
    """Paths of this checkout, which differ between checkouts, as short stable names (a
    path the graph printer cut short, "/home/user/che...", as "<path>...")."""
    text = re.sub(r"(/[^\s'\"()]*)\.\.\.", _cut_path, text)
    for path, short in ((PROGRAMS_PATH, "programs.py"), (HERE, "<golden>"), (ROOT, "<root>")):
        text = text.replace(json.dumps(path)[1:-1], short).replace(path, short)
    return text


def _cut_path(m) -> str:
    cut = m.group(1)
    mine = PROGRAMS_PATH.startswith(cut) or cut.startswith(PROGRAMS_PATH)
    return "<path>..." if mine else m.group(0)


def section(title: str, body: str) -> str:
    return f"==== {title} ====\n{body}{'' if body.endswith(chr(10)) else chr(10)}"


def _error(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}\n"


def _leaves(structure) -> list:
    return [t for t in rt.nest.flatten(structure, expand_composites=True)
            if isinstance(t, rt.Tensor)]


def _value_text(v) -> str:
    if isinstance(v, rt.Tensor):
        a = v.numpy()
        with np.printoptions(precision=4, suppress=True, threshold=50, floatmode="maxprec"):
            return f"{a.dtype}{list(a.shape)} {np.array2string(np.asarray(a), separator=', ')}"
    return repr(v)


def saved_text(path: str) -> str:
    """saved.json pretty printed (its keys in their order; `producer` names the release and
    is shown as <version>), the raw file's sha256, and each array member's sha256: the
    .npz zip holds the time it was written, its members' bytes do not."""
    with open(os.path.join(path, "saved.json"), "rb") as f:
        raw = normalise(f.read().decode("utf-8"))
    doc = json.loads(raw)
    producer = doc.get("producer", "")
    if producer.startswith("autograph-rt "):
        raw = raw.replace(json.dumps(producer), json.dumps("autograph-rt <version>"), 1)
        doc["producer"] = "autograph-rt <version>"
    lines = [f"files {sorted(os.listdir(path))}",
             f"saved.json sha256 {hashlib.sha256(raw.encode()).hexdigest()} (normalised)"]
    with zipfile.ZipFile(os.path.join(path, "arrays.npz")) as z:
        for info in z.infolist():
            data = z.read(info)
            lines.append(f"arrays.npz {info.filename} {len(data)} bytes sha256 "
                         f"{hashlib.sha256(data).hexdigest()}")
    return "\n".join(lines) + "\n" + json_lines(doc) + "\n"


def json_lines(value, depth: int = 0) -> str:
    """JSON with a graph node, or anything short, on one line: diffs stay readable and the
    files small."""
    flat = json.dumps(value)
    if not isinstance(value, (dict, list)) or len(flat) <= 100 or (
            isinstance(value, dict) and "op" in value and '"graph"' not in flat):
        return flat
    pad = " " * (depth + 1)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k)}: {json_lines(v, depth + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * depth + "}"
    items = [pad + json_lines(v, depth + 1) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * depth + "]"


def onnx_node_lines(graph, depth=0) -> list:
    lines = []
    for n in graph.node:
        lines.append("  " * depth + f"{n.op_type} {list(n.input)} -> {list(n.output)}")
        for a in n.attribute:
            if a.type == a.GRAPH:
                lines.append("  " * depth + f"  {a.name}:")
                lines += onnx_node_lines(a.g, depth + 2)
            elif a.type == a.TENSOR:
                lines.append("  " * depth + f"  {a.name}: tensor {_digest(a.t)}")
            else:
                lines.append("  " * depth + f"  {a.name}: {str(a).strip()}".replace("\n", " "))
    return lines


def _digest(proto) -> str:
    return hashlib.sha256(proto.SerializeToString()).hexdigest()[:16]


def _onnx_value_info(v) -> str:
    t = v.type.tensor_type
    dims = [d.dim_param or (d.dim_value if d.HasField("dim_value") else None) for d in t.shape.dim]
    return f"{v.name}: elem_type {t.elem_type} dims {dims}"


def onnx_text(cf) -> str:
    """The exported model's sha256 and nodes. The bytes hold no onnx version: the exporter
    sets no producer_version, and ir_version is the oldest that holds the opset (a fixed
    table entry), so the digest is the same under every onnx release."""
    try:
        model = rt.onnx.export(cf, drop_prints=True, drop_asserts=True)
    except Exception as e:  # noqa: BLE001  -- what fails to export is pinned too
        return section("export error", normalise(_error(e)))
    data = model.SerializeToString()
    g = model.graph
    head = [f"sha256 {hashlib.sha256(data).hexdigest()} ({len(data)} bytes)",
            f"ir_version {model.ir_version} opsets "
            f"{[(o.domain, o.version) for o in model.opset_import]} "
            f"producer {model.producer_name!r} {model.producer_version!r}",
            f"inputs {[_onnx_value_info(i) for i in g.input]}",
            f"outputs {[_onnx_value_info(o) for o in g.output]}",
            f"initializers {[(i.name, _digest(i)) for i in g.initializer]}"]
    return section("model", normalise("\n".join(head + onnx_node_lines(g)) + "\n"))


def render(name: str, with_onnx: bool) -> dict:
    """{file name: text} of one program."""
    programs = load_programs()
    prog = programs.PROGRAMS[name]()
    cf = programs.concrete(prog)
    outputs = list(cf.outputs)
    main = [section("signature", str(cf) + "\n" + repr(cf) + "\n"),
            section("graph.to_text()", cf.graph.to_text() + "\n"),
            section("graph.to_text(graph_def=True)", cf.graph.to_text(graph_def=True)),
            section("optimized_graph.to_text()", cf.optimized_graph.to_text() + "\n"),
            section("executor source (optimized graph)", cf._compiled().source)]
    with tempfile.TemporaryDirectory() as tmp:
        where = os.path.join(tmp, "m")
        try:
            rt.saved.save(cf, where)
        except Exception as e:  # noqa: BLE001
            main.append(section("saved", "save error: " + _error(e)))
        else:
            main.append(section("saved", saved_text(where)))
            loaded = rt.saved.load(where).signatures["serving_default"]
            text = loaded.graph.to_text() + "\n"
            same = text == cf.graph.to_text() + "\n"
            main.append(section("loaded graph.to_text()", "as traced\n" if same else text))
    files = {f"{name}.to_code.txt": normalise(ag.to_code(prog.function)),
             f"{name}.dot": normalise(cf.graph.to_dot(outputs))}
    if with_onnx:
        files[f"{name}.onnx.txt"] = onnx_text(cf) if prog.onnx else "not exported\n"
    if prog.args is not None:   # last: a run may change the Variables saved above
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            try:
                result = cf(*prog.args)
            except Exception as e:  # noqa: BLE001
                result = e
        if isinstance(result, Exception):
            body = "raised " + _error(result)
        else:
            body = "\n".join(_value_text(v) for v in rt.nest.flatten(result)) + "\n"
        main.append(section("run", body + "-- printed --\n" + printed.getvalue()))
    files[f"{name}.txt"] = normalise("".join(main))
    return files


def converted_module() -> dict:
    """programs.py as `autograph convert` writes it (a child process: the CLI's entry)."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-m", "autograph", "convert", PROGRAMS_PATH],
                         capture_output=True, env=env, check=False)
    text = out.stdout.decode("utf-8") + (f"-- exit {out.returncode} --\n"
                                         + out.stderr.decode("utf-8") if out.returncode else "")
    return {"programs.converted.py.txt": normalise(text)}


def onnx_available() -> bool:
    try:
        import onnx  # noqa: F401
    except ImportError:
        return False
    return True


def render_all(with_onnx: bool) -> dict:
    files = converted_module()
    for name in load_programs().PROGRAMS:
        files.update(render(name, with_onnx))
    return files


def golden_path(fname: str) -> str:
    """The golden file for this Python: data/py3XX/FNAME where this version's output
    differs from the base version's (3.10's ast.unparse writes `(a, b) = ...` where later
    versions write `a, b = ...`), else data/FNAME."""
    override = os.path.join(DATA, VERSION_DIR, fname)
    return override if os.path.exists(override) else os.path.join(DATA, fname)


def read(path: str) -> str:
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def _write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def main() -> None:
    """Writes data/ when run by the base Python (BASE), else the files that differ from
    data/'s into data/py3XX/ (and removes those that no longer differ)."""
    with_onnx = onnx_available()
    files = render_all(with_onnx)
    base = sys.version_info[:2] == BASE
    here = DATA if base else os.path.join(DATA, VERSION_DIR)
    kept = set(files) | ({n for n in os.listdir(here) if n.endswith(".onnx.txt")}
                         if not with_onnx and os.path.isdir(here) else set())
    for old in os.listdir(here) if os.path.isdir(here) else ():
        if os.path.isfile(os.path.join(here, old)) and old not in kept:
            os.remove(os.path.join(here, old))
    written = 0
    for fname, text in sorted(files.items()):
        target = os.path.join(here, fname)
        if base or text != read(os.path.join(DATA, fname)):
            _write(target, text)
            written += 1
        elif os.path.exists(target):
            os.remove(target)
    if not base and os.path.isdir(here) and not os.listdir(here):
        os.rmdir(here)
    print(f"wrote {written} of {len(files)} files ({sum(len(t) for t in files.values())} "
          f"characters) to {here} (runtime from {ROOT})")


if __name__ == "__main__":
    main()
