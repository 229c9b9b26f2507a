"""What each converter generates: the rewrites documented in the converter modules."""
import textwrap

import autograph as ag
import guide_examples


def _code(fn):
    return ag.to_code(fn)


def test_simple_relu_is_a_handful_of_lines():
    assert _code(guide_examples.simple_relu) == textwrap.dedent("""\
        def simple_relu(x):

            def if_true():
                return x

            def if_false():
                return 0
            return ag__.if_stmt(rt.greater(x, 0), if_true, if_false)
        """)


def test_while_loop_state_and_plain_library_calls():
    assert _code(guide_examples.f) == textwrap.dedent("""\
        def f(x):

            def loop_test(x):
                return rt.reduce_sum(x) > 1

            def loop_body(x):
                rt.print(x)
                x = rt.tanh(x)
                return x
            x = ag__.while_stmt(loop_test, loop_body, (x,), ('x',))
            return x
        """)


def branch_state(x):
    if x > 0:
        y = x
    else:
        y = -x
    return y


def test_if_assigned_on_every_path_is_an_output_only():
    code = _code(branch_state)
    assert "def if_true():" in code
    assert "y = ag__.if_stmt(x > 0, if_true, if_false, (), ('y',))" in code
    assert "return y" in code and "ag__.ld" not in code and "Undefined" not in code


def one_branch(x):
    if x > 0:
        y = 1
    return y


def test_read_of_name_defined_on_some_paths_goes_through_ld():
    code = _code(one_branch)
    assert "return ag__.ld(y)" in code
    assert "y = ag__.if_stmt(x > 0, if_true, None, (ag__.Undefined('y'),), ('y',))" in code


def temporaries(xs):
    total = 0
    for x in xs:
        doubled = x * 2
        total += doubled
    return total


def test_loop_temporaries_are_not_state():
    code = _code(temporaries)
    assert "def loop_body(x, total):" in code
    assert "total = ag__.for_stmt(xs, loop_body, (total,), ('total',))" in code


def early(x):
    if x > 3:
        return x * 2
    y = x + 1
    return y


def test_early_return_moves_the_rest_into_else():
    code = _code(early)
    assert "return ag__.if_stmt(x > 3, if_true, if_false)" in code
    assert "do_return" not in code


def with_break(n):
    i = 0
    while i < n:
        if i == 3:
            break
        i += 1
    return i


def test_break_becomes_a_flag_in_the_test():
    code = _code(with_break)
    assert "break_ = False" in code
    assert "return ag__.and_(ag__.not_(break_), lambda: i < n)" in code
    assert "break_ = True" in code and "break\n" not in code


def with_continue(xs):
    t = 0
    for x in xs:
        if x < 0:
            continue
        t += x
    return t


def test_continue_needs_no_flag():
    code = _code(with_continue)
    assert "continue" not in code.split(":", 1)[1]
    assert "t = ag__.if_stmt(ag__.not_(x < 0), if_true, None, (t,), ('t',))" in code


def return_in_loop(xs):
    for x in xs:
        if x > 1:
            return x
    return 0


def test_return_in_loop_uses_do_return_and_retval():
    code = _code(return_in_loop)
    assert "do_return = True" in code and "retval_ = x" in code
    assert "extra_test=loop_test" in code
    assert "return ag__.if_stmt(do_return, if_true, if_false)" in code


def for_else(xs):
    for x in xs:
        if x:
            break
    else:
        x = -1
    return x


def test_for_else_runs_when_not_broken():
    assert "ag__.if_stmt(ag__.not_(break_)" in _code(for_else)


def logic(a, b, c):
    assert a, 'a must be true'
    return a and b or not c, (b if a else c)


def test_expressions():
    code = _code(logic)
    assert "ag__.assert_stmt(a, lambda: 'a must be true')" in code
    assert "ag__.or_(ag__.and_(a, lambda: b), lambda: ag__.not_(c))" in code
    assert "ag__.if_exp(a, lambda: b, lambda: c)" in code


def helper(x):
    return x


def calls(xs):
    return helper(len(xs)) + sum(xs)


def test_user_calls_are_converted_builtins_are_not():
    assert "ag__.converted(helper)(ag__.len_(xs)) + sum(xs)" in _code(calls)


def test_range_in_for_stages_with_tensor_bounds():
    assert "ag__.for_stmt(ag__.range_(y), loop_body" in _code(guide_examples.power)


def nonlocal_user(n):
    count = 0

    def bump():
        nonlocal count
        for i in range(n):
            count += i
    bump()
    return count


def test_nonlocal_names_are_declared_and_carried_when_staged():
    code = _code(nonlocal_user)
    assert "nonlocal count" in code.split("def loop_body")[1]
    # not a parameter of the body: the body writes the variable itself; staged, the
    # loop carries it through `composite=` (its setter is declared nonlocal too)
    assert "ag__.for_stmt(ag__.range_(n), loop_body, composite=" in code
    assert "def set_count(value):\n            nonlocal count\n            count = value" in code


def name_clash(loop_body, if_true):
    if loop_body:
        if_true = 2
    return if_true


def test_generated_names_avoid_user_names():
    code = _code(name_clash)
    assert "def if_true1(if_true):" in code


def test_recursive_false_leaves_calls_alone():
    assert "converted" not in ag.to_code(calls, recursive=False)


def test_to_code_of_lambda_and_method():
    fn = lambda x: x if x > 0 else -x     # noqa: E731
    assert ag.to_code(fn).strip() == "lambda x: ag__.if_exp(x > 0, lambda: x, lambda: -x)"

    class Box:
        def get(self, x):
            if x:
                return self
            return None
    assert "return ag__.if_stmt(x, if_true, if_false)" in ag.to_code(Box().get)


def test_generated_code_compiles_and_runs_as_a_module():
    namespace = {}
    exec("from autograph import operators as ag__\nimport runtime as rt\n" + _code(early),
         namespace)
    assert namespace["early"](5) == 10 and namespace["early"](1) == 2


def test_lambdas_on_one_line_spanning_lines_and_inside_expressions():
    first, second = (lambda x: x + 1 if x else 0), (lambda x: x * 2 if x else 0)  # noqa: E731
    assert "x + 1" in ag.to_code(first) and "x * 2" in ag.to_code(second)
    assert ag.to_graph(second)(4) == 8 and ag.to_graph(first)(4) == 5
    spanning = (lambda a,
                b: a and b)
    assert ag.to_code(spanning).strip() == "lambda a, b: ag__.and_(a, lambda: b)"
    assert sorted([3, 1, 2], key=ag.to_graph(lambda v: -v if v > 1 else v)) == [3, 2, 1]
