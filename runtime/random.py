"""`rt.random`: uniform and normal draws, and the global seed."""
from .ops.random_ops import normal, set_seed, uniform  # noqa: F401
from .ops.sampling_ops import categorical, shuffle  # noqa: F401,E402
from .ops.random_more import Generator, get_global_generator, truncated_normal  # noqa: F401,E402
