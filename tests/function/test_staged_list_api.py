"""A list that a staged loop appends to is a staged list: what it supports works as on a
Python list, and what it does not is a TypeError or AttributeError at the user's line that
says what it supports and how to get a tensor of its elements (ag.stack)."""
import re

import pytest

import autograph as ag
import runtime as rt


def filled(n):
    out = []
    for i in rt.range(n):
        out.append(i * 10)
    return out


def test_append_extend_pop_index_and_len_match_python():
    def f(n):
        out = filled(n)
        out.extend([rt.constant(7), 8])
        last = out.pop()
        out[0] = out[1] + last
        return ag.stack(out), len(out), out[-1]

    stacked, length, last = rt.function(f)(rt.constant(3))
    expected = [10 + 8, 10, 20, 7]
    assert stacked.numpy().tolist() == expected
    assert length.numpy() == len(expected) and last.numpy() == expected[-1]


def test_extend_inside_the_staged_loop_matches_python():
    def f(n):
        out = [1]
        for i in rt.range(n):
            out.append(i)
            out.extend([i * 2, i * 3])
        return ag.stack(out)

    def python(n):
        out = [1]
        for i in range(n):
            out.append(i)
            out.extend([i * 2, i * 3])
        return out
    assert rt.function(f)(rt.constant(3)).numpy().tolist() == python(3)


def check(body):
    """Runs `body(staged list)` inside rt.function; returns the exception."""
    def f(n):
        out = filled(n)
        return body(out)
    with pytest.raises((TypeError, AttributeError)) as info:
        rt.function(f)(rt.constant(3))
    return info.value


@pytest.mark.parametrize("body, kind, says", [
    (lambda out: out.copy(), AttributeError, "has no `copy`: it supports append"),
    (lambda out: out.index(10), AttributeError, "has no `index`: it supports append"),
    (lambda out: out.sort(), AttributeError, "has no `sort`"),
    (lambda out: out[1:], TypeError, r"not sliced: stack it first \(ag.stack\(l\)\[1:\]"),
    (lambda out: out + [5], TypeError, "supports append, extend"),
    (lambda out: [5] + out, TypeError, "supports append, extend"),
    (lambda out: out * 2, TypeError, "supports append, extend"),
    (lambda out: reversed(out), TypeError, r"ag.stack\(l\)\[::-1\]"),
    (lambda out: out.extend(out), TypeError, "extends by a Python list or tuple"),
])
def test_what_it_does_not_support_says_what_it_does(body, kind, says):
    error = check(body)
    assert isinstance(error, kind)
    assert __file__ in str(error) and "a list that a staged construct changes" in str(error)
    assert re.search(says, str(error)), str(error)


def test_not_and_if_on_it_ask_whether_it_is_empty_as_in_python():
    def f(n):
        out = filled(n)
        if out:
            first = out[0] + 1
        else:
            first = -1
        return not out, first

    def python(n):
        out = [i * 10 for i in range(n)]
        return not out, (out[0] + 1 if out else -1)

    for n in (0, 1, 3):
        empty, first = rt.function(f)(rt.constant(n))
        assert (bool(empty), int(first)) == python(n)


def test_read_as_a_tensor_it_is_its_elements_stacked():
    """As a Python list of tensors converts (by stacking), so does a staged list: an op's
    input, convert_to_tensor, rt.stack, rt.concat."""
    def f(n):
        out = filled(n)
        return (rt.reduce_sum(out), rt.convert_to_tensor(out), rt.stack(out),
                rt.constant(1) + out)

    total, converted, stacked, added = rt.function(f)(rt.constant(3))
    assert int(total) == 30
    assert converted.numpy().tolist() == stacked.numpy().tolist() == [0, 10, 20]
    assert added.numpy().tolist() == [1, 11, 21]


def test_an_unknown_attribute_is_a_plain_attribute_error():
    def f(n):
        out = filled(n)
        return hasattr(out, "nonsense"), hasattr(out, "copy"), hasattr(out, "append")
    assert rt.function(f)(rt.constant(3)) == (False, False, True)
