"""What modules written by `autograph convert` import besides the operators.

Kept free of imports, so that a converted standard-library module that autograph itself
uses (dataclasses, say) can import it without a cycle.
"""

CONVERTED = "__autograph_converted__"


class _Converted:
    """Decorator on the functions of converted modules: `fn` is converted code already,
    so `converted_call` and `to_graph` use it as it is.

    An instance, not a function: converted modules bind it as `__ag_converted__`, and a
    function there would be a routine of the module whose `__module__` is not the
    module's (CPython's test_signal checks every routine in `dir(signal)`)."""

    __slots__ = ()

    def __call__(self, fn):
        setattr(fn, CONVERTED, True)
        return fn

    def __repr__(self) -> str:
        return "<autograph.module_support.converted>"


converted = _Converted()
