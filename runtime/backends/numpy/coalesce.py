"""Copy coalescing for the numpy executor's generated loops: a staged loop's body ends
with `w = t` for each loop variable, and a staged cond with `t = x` in each branch for
each of its results, so a loop over an `if`/`elif` chain copies every loop variable
through two or three names per iteration. Where it is safe, the value is written straight
into its final name instead (`w = t` folded into the lines that set `t`), and the copies
become `pass`, which compiles to nothing. Lines are never removed, so every line keeps
its number (and the node it maps to for errors).

The rewrite of a copy `A = B` (B a temporary of the loop) is made only when:
- B is mentioned nowhere in the lines but that copy and its own definitions, each a
  plain `B = ...` statement before the copy: all in one `if` block at the copy's level
  (a cond's results, set in every branch), or one statement at the copy's level;
- no `while`, `for` or `break` lies between the first definition and the copy (a later
  iteration, or the code after the loop, must not read A early);
- on every path from a definition of B to the copy (the rest of its branch, and the
  statements after the `if` block; other branches are other paths), nothing mentions A:
  A then holds the copy's value at every line where it is read, as before.
"""
from __future__ import annotations

import bisect
import re

_COPY = re.compile(r"^( *)([A-Za-z_]\w*) = ([A-Za-z_]\w*)$")
_NAME = re.compile(r"[A-Za-z_]\w*")
_TEMP = re.compile(r"^t\d+$")
# The most lines a fold looks across (the checks walk them: a huge loop body would make
# compiling it quadratic); a copy farther from its definitions stays.
_MAX_SPAN = 400


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _names(line: str) -> set:
    return set(_NAME.findall(line))


def coalesce_copies(lines: list, start: int) -> None:
    """Rewrites, in place, the copies in `lines[start:]` (one staged loop's lines)."""
    names = [_names(line) for line in lines[start:]]
    where: dict = {}  # name -> the indices of the lines that mention it, ascending
    for i, found in enumerate(names, start):
        for n in found:
            where.setdefault(n, []).append(i)
    changed = True
    while changed:  # a fold can free the one in a branch above it: again until none
        changed = False
        for c in range(start, len(lines)):
            m = _COPY.match(lines[c])
            if m is None or not _TEMP.match(m.group(3)) or m.group(2) == m.group(3):
                continue
            a, b = m.group(2), m.group(3)
            defs = _try(lines, names, where, start, c, len(m.group(1)), a, b)
            if defs:
                changed = True
                for i in defs + [c]:
                    names[i - start] = found = _names(lines[i])
                    if a in found and i not in where.setdefault(a, []):
                        bisect.insort(where[a], i)
                where[b] = []


def _try(lines, names, where, start, c, level, a, b):
    defs = []
    for i in where.get(b, ()):
        if i == c or b not in names[i - start]:
            continue  # the copy itself, or a line that no longer mentions b
        line = lines[i]
        if i > c or not line.lstrip(" ").startswith(f"{b} = ") or _count(line, b) != 1:
            return None
        defs.append(i)
    if not defs:
        return None
    first = defs[0]
    if _indent(lines[first]) == level:
        if len(defs) != 1:
            return None
        anchor = first
    else:
        anchor = _if_above(lines, first, level)
        if anchor is None or any(_indent(lines[d]) <= level for d in defs):
            return None
    if c - anchor > _MAX_SPAN:
        return None
    for i in range(anchor, c):
        if (_indent(lines[i]) < level or lines[i].lstrip(" ").startswith(("while ", "for "))
                or "break" in names[i - start]):
            return None
    for d in defs:
        if not _path_clear(lines, names, start, d, c, a):
            return None
    for d in defs:
        line = lines[d]
        ind = " " * _indent(line)
        rhs = line[len(ind) + len(b) + 3:]
        lines[d] = f"{ind}pass" if rhs == a else f"{ind}{a} = {rhs}"
    lines[c] = " " * level + "pass"
    return defs


def _count(line, name) -> int:
    return _NAME.findall(line).count(name)


def _if_above(lines, first, level):
    """The `if` at `level` whose block holds line `first` (None if it is not in one)."""
    for i in range(first - 1, -1, -1):
        ind = _indent(lines[i])
        if ind < level:
            return None
        if ind == level:
            text = lines[i].lstrip(" ")
            if text.startswith("if ") and text.endswith(":"):
                return i
            if text != "else:":
                return None
    return None


def _path_clear(lines, names, start, d, c, a) -> bool:
    """Whether nothing on the way from line `d` (after it) to the copy at `c` mentions
    `a` (lines of sibling branches, after an `else:`, are another path: skipped)."""
    low = _indent(lines[d])
    i = d + 1
    while i < c:
        line = lines[i]
        ind = _indent(line)
        if ind < low:
            low = ind
            if line.lstrip(" ") == "else:":
                i += 1
                while i < c and _indent(lines[i]) > ind:
                    i += 1
                continue
        if a in names[i - start]:
            return False
        i += 1
    return True
