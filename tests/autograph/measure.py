"""Readability and speed of the converter on the guides' examples.

    python tests/autograph/measure.py

prints, per example, source lines -> generated lines (non-blank, `to_code` output vs the
function's own source), the overall ratio, and the time to convert `fizzbuzz` (parse,
analyse, convert and compile; cache bypassed): as rt.function converts it (the converted
body alone, `ag.for_staging`), and as `ag.to_graph` does (the original body too).
"""
import inspect
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import autograph as ag                      # noqa: E402
from autograph import api                   # noqa: E402
import guide_examples                       # noqa: E402


def _lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())


def line_ratio() -> tuple:
    rows, source_total, generated_total = [], 0, 0
    for fn in guide_examples.EXAMPLES:
        source, generated = _lines(inspect.getsource(fn)), _lines(ag.to_code(fn))
        rows.append((fn.__name__, source, generated))
        source_total += source
        generated_total += generated
    return rows, generated_total / source_total


def conversion_ms(fn=guide_examples.fizzbuzz, repeat: int = 200, both_paths: bool = False) -> float:
    """Best CPU time of converting `fn` as rt.function does (`ag.for_staging`: the
    converted body alone), or with `both_paths` as `ag.to_graph` does."""
    api._compile(fn, True, both_paths=both_paths)
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for _ in range(repeat // 5):
            api._compile(fn, True, both_paths=both_paths)
        best = min(best, (time.process_time() - start) / (repeat // 5))
    return best * 1000


def compile_ms(fn=guide_examples.fizzbuzz, repeat: int = 200) -> float:
    """Machine-speed reference: parsing and compiling the same source, unconverted."""
    source = inspect.getsource(fn)
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for _ in range(repeat // 5):
            compile(source, "<fizzbuzz>", "exec")
        best = min(best, (time.process_time() - start) / (repeat // 5))
    return best * 1000


if __name__ == "__main__":
    rows, ratio = line_ratio()
    for name, source, generated in rows:
        print(f"{name:36s} {source:3d} -> {generated:3d}  ({generated / source:.2f}x)")
    print(f"overall generated/source lines: {ratio:.2f}")
    convert, both, plain = conversion_ms(), conversion_ms(both_paths=True), compile_ms()
    print(f"fizzbuzz conversion (parse+analyse+convert+compile) for rt.function: "
          f"{convert:.2f} ms (plain compile() of its source: {plain:.2f} ms, "
          f"{convert / plain:.0f}x)")
    print(f"fizzbuzz conversion with the original body too (ag.to_graph): {both:.2f} ms")
