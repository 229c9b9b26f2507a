"""Red-team programs over jit_compile results (DeviceTensor), donated Variables and jax
arrays / numpy scalars keyed as tensors: each program run on the numpy backend and with
jit_compile=True (and eagerly where it can be), the answers compared."""
import importlib.util

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="needs jax")

if importlib.util.find_spec("jax") is not None:
    import jax.numpy as jnp

import runtime as rt  # noqa: E402

BACKENDS = [False, True]
BACKEND_IDS = ["numpy", "xla"]


@pytest.mark.parametrize("jit_compile", BACKENDS, ids=BACKEND_IDS)
def test_reduce_retracing_takes_jax_arrays_of_new_shapes(jit_compile):
    # A relaxed retrace pairs each tensor leaf with a placeholder: a jax array is one (it
    # was left out of the pairing, and the retrace raised StopIteration).
    f = rt.function(lambda x, s: x * s, reduce_retracing=True, jit_compile=jit_compile)
    calls = [(rt.constant([1.0, 2.0, 3.0]), np.float32(2.0)),
             (jnp.asarray([1.0, 2.0]), np.float32(3.0)),
             (np.ones(4, np.float32), jnp.asarray(4.0)),
             (jnp.asarray([5.0]), jnp.asarray(2.0))]
    for x, s in calls:
        np.testing.assert_array_equal(f(x, s).numpy(), np.asarray(x) * np.asarray(s))
    assert f.experimental_get_tracing_count() == 2


@pytest.mark.parametrize("jit_compile", BACKENDS, ids=BACKEND_IDS)
def test_an_input_signature_takes_jax_arrays(jit_compile):
    # keyed as tensors without a signature, a jax array fits a TensorSpec as a numpy
    # array of its value does (it was refused: "cannot convert a value of type ArrayImpl")
    f = rt.function(lambda x, d: x * 2.0 + d["b"],
                    input_signature=[rt.TensorSpec([None], rt.float32),
                                     {"b": rt.TensorSpec([], rt.float32)}],
                    jit_compile=jit_compile)
    for n in (0, 1, 3):
        x = jnp.arange(n, dtype=jnp.float32)
        got = f(x, {"b": jnp.asarray(1.5, jnp.float32)})
        np.testing.assert_array_equal(got.numpy(), np.arange(n, dtype=np.float32) * 2 + 1.5)
    with pytest.raises(ValueError, match="input_signature"):
        f(jnp.ones((2, 2), jnp.float32), {"b": jnp.asarray(1.5, jnp.float32)})
    assert f.experimental_get_tracing_count() == 1
