"""Quick start: plain Python control flow over tensors, converted and staged.

    python examples/quickstart.py
"""
import autograph as ag
import runtime as rt


def collatz_steps(n):
    """How many Collatz steps take n to 1 -- a data-dependent `while` with an `if` inside."""
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


print("== the converted source (ag.to_code) ==")
print(ag.to_code(collatz_steps))

print("== plain Python, and staged on tensors ==")
staged = rt.function(collatz_steps)
for n in (1, 6, 27):
    print(f"collatz_steps({n}) = {collatz_steps(n)}   staged: {staged(rt.constant(n))}")
print("traced", staged.experimental_get_tracing_count(), "time(s) for 3 tensor calls")

print("== the graph it runs ==")
concrete = staged.get_concrete_function(rt.TensorSpec([], rt.int32))
print(concrete)
print(concrete.graph.to_text())      # one line per node; the loop's body indented
