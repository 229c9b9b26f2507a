"""`ag.to_code` of an `rt.function` (plain, or a method) is the code of its Python function."""
import autograph as ag
import runtime as rt


def negate_positive(x):
    if x > 0:
        x = -x
    return x


class Counter:
    def down(self, x):
        while x > 0:
            x -= 1
        return x


def test_to_code_accepts_an_rt_function():
    assert ag.to_code(rt.function(negate_positive)) == ag.to_code(negate_positive)
    assert "ag__.if_stmt(x > 0" in ag.to_code(rt.function(negate_positive))


def test_to_code_accepts_an_rt_function_method():
    Counter.down_staged = rt.function(Counter.down)
    expected = ag.to_code(Counter.down)
    assert "ag__.while_stmt(" in expected
    assert ag.to_code(Counter.down_staged) == expected
    assert ag.to_code(Counter().down_staged) == expected
