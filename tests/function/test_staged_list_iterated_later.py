"""A list appended to in a staged loop and iterated by a later `for` (which does not
change it): the appends make it a staged list, and the later loop iterates that (it was
kept a Python list because some `for` iterated it, and the staged loop's append was an
error naming the append's line)."""
import pytest

import runtime as rt
from autograph.errors import StagingError


def doubled_then_summed(n):
    xs = []
    for i in rt.range(n):
        xs.append(i * 2)
    total = 0
    for x in xs:
        total += x
    return total


def summed_before_and_after(n):
    xs = []
    for x in xs:          # (nothing yet)
        n += x
    for i in rt.range(n):
        xs.append(i)
    count = 0
    for _ in xs:
        count += 1
    return count


def grows_while_iterated(n):
    xs = [rt.constant(1), rt.constant(2)]
    for v in xs:
        if v < n:
            xs.append(v + 2)
    return len(xs)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_a_later_loop_iterates_the_staged_list(n):
    assert int(rt.function(doubled_then_summed)(rt.constant(n))) == sum(2 * i for i in range(n))
    assert int(rt.function(summed_before_and_after)(rt.constant(n))) == n


def test_the_same_functions_on_python_values_are_unchanged():
    assert int(doubled_then_summed(3)) == 6       # eagerly
    assert int(summed_before_and_after(3)) == 3


def test_a_list_changed_while_a_loop_iterates_it_is_still_refused():
    with pytest.raises(StagingError, match="cannot be changed inside a staged construct"):
        rt.function(grows_while_iterated)(rt.constant(4))
