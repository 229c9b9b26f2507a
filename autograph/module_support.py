"""What modules written by `autograph convert` import besides the operators.

Kept free of imports, so that a converted standard-library module that autograph itself
uses (dataclasses, say) can import it without a cycle.
"""

CONVERTED = "__autograph_converted__"


def converted(fn):
    """Decorator on the functions of converted modules: `fn` is converted code already,
    so `converted_call` and `to_graph` use it as it is."""
    setattr(fn, CONVERTED, True)
    return fn
