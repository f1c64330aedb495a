"""The kernels suite's max pools: a 2×2 max pool of stride 2 (windows that do not overlap:
YNNPACK runs it on XLA:CPU), and the same windows' maxima with their indices in one
reduce-window, which is how XLA:CPU expands a max pool's gradient: a loop over tuples, not
vectorized (64×28×28×32 took 5-8 ms there, where the pool alone is a fraction of a
millisecond).
"""

from __future__ import annotations

from perfcore.measure.experiments.kernels.windows import Planned
from perfcore.measure.experiments.suites import Suite
from perfcore.model.chip import kernel_kinds, ops

# The pools' image side and channels: (elements / side² / channels, side, side, channels)
POOL = (64, 64)
POOL_WINDOW = (1, 2, 2, 1)  # a 2×2 max pool, stride 2, NHWC
ARG_POOL_MAX = 2**22  # the largest windowed arg reduction: its five arrays read, 80 MiB


def pools(suite: Suite, dtype: str, b: int) -> list[list[Planned]]:
    """A 2×2 max pool, stride 2, over NHWC images (POOL), at each element count from one
    image: sized by its windows' reads (window_bytes: each input read once); and the
    reduce-window of those values and one index per dimension together (a max pool's
    gradient's argmax as XLA:CPU expands it, its indices carried here in the values' dtype),
    up to ARG_POOL_MAX: its five arrays read, their quarter written."""
    side, channels = POOL
    image = side * side * channels
    sizes = [n for n in suite.kernel_elements if n >= image]
    rank = len(POOL_WINDOW)

    def shape(n: int) -> tuple[int, ...]:
        return (n // image, side, side, channels)

    plain = [
        Planned(
            "pool",
            f"max pool 2x2 {dtype} {n // image} images of {side}x{side}x{channels}",
            dtype,
            (shape(n),),
            "pool",
            ops.Cost(3 * (n // 4), kernel_kinds.window_bytes(n // 4, 4, b)),
        )
        for n in sizes
    ]
    arg = [
        Planned(
            "windowed arg reduction",
            f"max pool 2x2 with indices {dtype} {n // image} images of {side}x{side}x{channels}",
            dtype,
            (shape(n),) * (1 + rank),
            "windowed arg reduction",
            ops.Cost(3 * (2 + rank) * (n // 4), (1 + rank) * (n + n // 4) * b),
        )
        for n in sizes
        if n <= ARG_POOL_MAX
    ]
    return [s for s in (plain, arg) if s]


def _arg_pool(jax, jnp, x, *indices):
    """x's 2×2 max pool with the indices of each window's maximum, in one reduce-window."""

    def pick(a, b):
        take = a[0] >= b[0]
        return tuple(jnp.where(take, u, v) for u, v in zip(a, b, strict=True))

    init = (jnp.array(-jnp.inf, x.dtype), *(jnp.array(0, i.dtype) for i in indices))
    return jax.lax.reduce_window((x, *indices), init, pick, POOL_WINDOW, POOL_WINDOW, "VALID")


def functions_of(jax, jnp) -> dict:
    """The jittable function of each kind this module plans, by its Planned.fn: the max pool
    and the max pool with its indices."""
    return {
        "pool": lambda x: jax.lax.reduce_window(
            x, -jnp.inf, jax.lax.max, POOL_WINDOW, POOL_WINDOW, "VALID"
        ),
        "windowed arg reduction": lambda x, *ixs: _arg_pool(jax, jnp, x, *ixs),
    }
