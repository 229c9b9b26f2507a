"""A staged `if` or loop that gives a variable one of two existing lists or dicts: in
Python the variable *is* that object, and a change through it changes it; staged, it is
a new list or dict the construct built of its outputs. Reading it agrees with Python; a
change to it in place is a StagingError at the user's line, not a silently different
answer. Each program runs plain, converted on Python values, and staged."""
import copy
import inspect
import pickle

import pytest

import autograph as ag
import runtime as rt
from autograph.operators import watch


def _value(x):
    return float(x.numpy()) if hasattr(x, "numpy") else float(x)


def _agrees(fn, arg):
    expected = _value(fn(arg))
    assert _value(ag.to_graph(fn)(arg)) == expected
    assert _value(rt.function(fn)(rt.constant(arg))) == expected


def _refused(fn, arg):
    lines, first = inspect.getsourcelines(fn)
    where = first + next(i for i, line in enumerate(lines) if "# refused" in line)
    fn(arg)                                  # plain Python and converted run as written
    ag.to_graph(fn)(arg)
    with pytest.raises(ag.StagingError) as info:
        rt.function(fn)(rt.constant(arg))
    message = str(info.value)
    assert message.startswith(f"{__file__}:{where}:")
    assert "would not change" in message
    return message


def changes_the_chosen_list(c):
    a = [1.0, 2.0]
    b = [3.0, 4.0]
    if c > 0:
        cur = a
    else:
        cur = b
    cur[0] = 9.0                    # refused: changes `a` or `b` in Python
    return a[0] + 10 * b[0]


def appends_to_the_chosen_list(c):
    a = [1.0]
    b = [2.0]
    cur = a
    if c > 0:
        cur = b
    cur.append(5.0)                 # refused
    return len(a) + 10 * len(b)


def changes_the_dict_a_loop_chose(n):
    a = {"k": 0.0}
    b = {"k": 0.0}
    cur = a
    for _ in rt.range(n):
        cur = b
    cur["k"] = cur["k"] + 1         # refused
    return a["k"] + 10 * b["k"]


def changes_a_list_inside_a_tuple(c):
    a = [1.0, 2.0]
    b = [3.0, 4.0]
    if c > 0:
        pair = (a, 1.0)
    else:
        pair = (b, 2.0)
    pair[0][0] = pair[1]            # refused
    return a[0] + 10 * b[0]


def changes_a_list_inside_the_chosen_one(c):
    a = [[1.0], [2.0]]
    b = [[3.0], [4.0]]
    if c > 0:
        cur = a
    else:
        cur = b
    inner = cur[1]
    inner.append(5.0)               # refused
    return len(a[1]) + 10 * len(b[1])


def changes_new_nested_lists(c):
    a = [1.0]
    if c > 0:
        rows = [[c, 1.0], a]
    else:
        rows = [[2.0, c], [3.0]]
    rows[0].append(4.0)
    rows.append([5.0])
    return rows[0][0] + rows[0][2] + len(rows) + rows[1][0]


def changes_what_a_conditional_expression_chose(c):
    a = [1.0, 2.0]
    b = [3.0, 4.0]
    cur = a if c > 0 else b
    cur[0] = 9.0                    # refused
    return a[0] + 10 * b[0]


def changes_what_a_function_returned(c):
    a = [1.0, 2.0]
    b = [3.0, 4.0]

    def pick():
        if c > 0:
            return a
        return b
    cur = pick()
    cur[0] = 9.0                    # refused
    return a[0] + 10 * b[0]


def passes_the_same_list_through_an_expression(c):
    a = [1.0]
    cur = a if c > 0 else a
    cur[0] = 4.0
    return a[0]


@pytest.mark.parametrize("fn, arg", [
    (changes_what_a_conditional_expression_chose, 1.0),
    (changes_what_a_function_returned, -1.0),
    (changes_the_chosen_list, 1.0), (changes_the_chosen_list, -1.0),
    (appends_to_the_chosen_list, 1.0), (changes_the_dict_a_loop_chose, 3),
    (changes_a_list_inside_a_tuple, 1.0), (changes_a_list_inside_the_chosen_one, -1.0),
])
def test_a_change_to_a_list_or_dict_the_construct_chose_is_an_error_at_its_line(fn, arg):
    message = _refused(fn, arg)
    assert "as the staged construct at" in message and "copy what the construct" in message


def reads_the_chosen_list(c):
    a = [1.0, 2.0]
    if c > 0:
        cur = a
    else:
        cur = [5.0, 6.0]
    return cur[0] + cur[1] * len(cur)


def copies_what_it_chose(c):
    a = [1.0, 2.0]
    b = [3.0, 4.0]
    if c > 0:
        cur = list(a)
    else:
        cur = list(b)
    cur[0] = 9.0
    cur.append(1.0)
    return a[0] + 10 * b[0] + cur[0] + len(cur)


def changes_lists_the_branches_made(c):
    vals = [1.0, 2.0]
    if c > 0:
        vals = [vals[1], vals[0]]
    vals.append(3.0)
    vals[0] = vals[0] + 10
    if c > 1:
        fresh = [c, 1.0]
    else:
        fresh = [2.0, c]
    fresh[1] = 7.0
    return vals[0] + vals[2] + fresh[0] + fresh[1]


def passes_the_same_list_on(c):
    a = [1.0]
    b = a
    if c > 0:
        b = a
    b[0] = 4.0
    return a[0]


@pytest.mark.parametrize("fn", [reads_the_chosen_list, copies_what_it_chose,
                                changes_lists_the_branches_made, passes_the_same_list_on,
                                changes_new_nested_lists,
                                passes_the_same_list_through_an_expression])
@pytest.mark.parametrize("arg", [-1.0, 1.0, 2.0])
def test_reads_copies_and_new_lists_agree_with_python(fn, arg):
    _agrees(fn, arg)


def test_a_chosen_list_copies_as_a_plain_list():
    def choose(c):
        a = [1.0, 2.0]
        if c > 0:
            cur = a
        else:
            cur = [3.0, 4.0]
        return cur
    seen = {}

    @rt.function
    def keep(c):
        seen["cur"] = choose_converted(c)
        return c
    choose_converted = ag.to_graph(choose)
    keep(rt.constant(1.0))
    chosen = seen["cur"]
    assert isinstance(chosen, list) and len(chosen) == 2
    for twin in (copy.copy(chosen), copy.deepcopy(chosen), list(chosen), chosen.copy(),
                 chosen[:]):
        assert type(twin) is list
        twin.append(0.0)
    with pytest.raises(ag.StagingError):
        chosen.append(0.0)
    for made in (watch.chosen([1.0, 2.0], "cur", "a", "f.py:3"),
                 watch.chosen({"k": 1.0}, "cur", "a", "f.py:3")):
        again = pickle.loads(pickle.dumps(made))
        assert again == made and type(again) in (list, dict)
