"""Checks of a loop about to be staged, at the user's line: its test, which staging runs
once more than Python does, and the options `set_loop_options` gave it."""
from __future__ import annotations

from builtins import dict, isinstance  # the originals: see operators/__init__

from autograph.errors import StagingError, StagingValueError, user_location


def test_runs_again(backend, before) -> None:
    """A `while` about to be staged: its test just ran once (in the graph being built,
    which had `before` ops) to find that, and the staged loop runs it again, first of all.
    What its ops do, they would do once more than in Python: refused where it would show
    (a Variable changed, a print), rather than silently given."""
    effects = getattr(backend, "effects_since", None)
    found = effects(before) if effects is not None and before is not None else None
    if found:
        raise StagingError(
            f"{user_location(3)}: the test of this staged `while` {found}. Staged, the test "
            f"runs once more than in Python (once to find that the loop is staged, then as "
            f"the loop's own test), so this would happen once too often. Compute the test "
            f"into a variable before the loop and again at the end of its body "
            f"(`go = <test>` / `while go:`)")


def check_options(opts, names):
    """The `set_loop_options` of a loop being staged (converters/loop_options.py): its
    `shape_invariants` must be a dict keyed by names of the loop's variables."""
    invariants = opts.get("shape_invariants")
    if invariants is None:
        return
    where = user_location(3)
    if not isinstance(invariants, dict):
        raise StagingValueError(
            f"{where}: set_loop_options(shape_invariants=...) must be written in the call as "
            f"a list of (variable, shape) pairs, e.g. shape_invariants=[(x, "
            f"rt.TensorShape([None]))]: autograph reads the variables' names from the code")
    own = [name for name in names if " " not in name]
    for key in invariants:
        if key not in own:
            raise StagingValueError(
                f"{where}: set_loop_options gives a shape invariant for `{key}`, which is not "
                f"a variable of this staged loop (its variables: "
                f"{', '.join(own) or 'none'}); give shape invariants only for local names "
                f"the loop assigns, as (name, shape) pairs")
