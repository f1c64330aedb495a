"""What each point of the kernels suite runs: the jittable function of its Planned.fn (the
matmul layouts, fused attention and its gradient, the stream kinds, the copies and transposes,
and each planning module's own: kernel_windows, kernel_pools, kernel_rows,
kernel_factorizations)."""

from __future__ import annotations

from perfcore.measure.experiments.kernels import factorizations as kernel_factorizations
from perfcore.measure.experiments.kernels import pools as kernel_pools
from perfcore.measure.experiments.kernels import rows as kernel_rows
from perfcore.measure.experiments.kernels import windows as kernel_windows
from perfcore.measure.experiments.kernels.sweeps import TRANSPOSES


def _attention(jax, q, k, v):
    """Causal fused attention over (batch, seq, heads, head dim) inputs."""
    return jax.nn.dot_product_attention(q, k, v, is_causal=True)


def _matmul(jnp, a, b):
    """a · b, an integer dtype's accumulated in int32 (as a quantized layer's)."""
    wide = jnp.int32 if jnp.issubdtype(a.dtype, jnp.integer) else None
    return jnp.matmul(a, b, preferred_element_type=wide)


def function(jax, jnp, name: str):
    """The jittable function a point times, by its Planned.fn."""
    return {
        "matmul": lambda a, b: _matmul(jnp, a, b),
        "matmul transposed": lambda a, b: _matmul(jnp, a.T, b),
        "matmul rhs transposed": lambda a, b: _matmul(jnp, a, b.T),
        "matmul both transposed": lambda a, b: _matmul(jnp, a.T, b.T),
        "attention": lambda q, k, v: _attention(jax, q, k, v),
        "attention backward": jax.grad(
            lambda q, k, v: _attention(jax, q, k, v).astype("float32").sum(), argnums=(0, 1, 2)
        ),
        "elementwise": lambda x, y: (x * 1.5 + y) * 0.5 - y,
        "transcendental": lambda x: jnp.exp(-x) * jnp.tanh(x),  # kernel_kinds.CHAIN_TRANSCENDENTALS
        "reduction": lambda x: x.sum(axis=-1),
        "column reduction": lambda x: x.sum(axis=0),
        **kernel_windows.functions_of(jax, jnp),
        **kernel_pools.functions_of(jax, jnp),
        **kernel_rows.functions_of(jax, jnp),
        **kernel_factorizations.functions_of(jax, jnp),
        "copy": lambda x: x.T,
        "plain copy": lambda x: x,  # XLA copies a parameter it returns, layout kept
        "transpose": lambda x: x.transpose(TRANSPOSES["transpose"]),
        "row transpose": lambda x: x.transpose(TRANSPOSES["row transpose"]),
        # each matrix's: the broadcast 1 keeps XLA:CPU from tiling
        "strided transpose": lambda x: jnp.swapaxes(x + 1.0, -1, -2),
    }[name]
