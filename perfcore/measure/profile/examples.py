"""Built-in programs to profile before writing any: an MLP, a transformer block, a scan.

Each is a pure function of its inputs with its matmul FLOPs counted by hand (2·M·N·K each:
FLOPs, not MACs), so a profile of it can be checked against the count. JAX is imported
when an example's inputs are made.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MLP_BATCH, MLP_WIDTHS = 128, (256, 512, 512, 256)
BLOCK_SEQ, BLOCK_D, BLOCK_HEADS, BLOCK_FFN = 128, 256, 4, 1024
SCAN_STEPS, SCAN_BATCH, SCAN_D = 8, 32, 256


@dataclass(frozen=True)
class Example:
    """A built-in program: its function, inputs, and FLOPs counted by hand."""

    name: str
    title: str
    fn: Callable
    args: tuple
    matmul_flops: float  # 2·M·N·K summed over its matmuls
    flops: float | None  # every FLOP XLA counts, where the count is simple; else None


def _jax() -> tuple[Any, Any]:
    """jax and jax.numpy."""
    import jax
    import jax.numpy as jnp

    return jax, jnp


def mlp() -> Example:
    """x -> tanh(x @ w + b) per layer: FLOPs 2·B·K·N for each matmul plus B·N for each bias add."""
    jax, jnp = _jax()
    keys = jax.random.split(jax.random.key(0), len(MLP_WIDTHS))
    pairs = list(zip(MLP_WIDTHS, MLP_WIDTHS[1:], strict=False))
    params = [
        (jax.random.normal(k, (a, b)) * 0.05, jnp.zeros(b))
        for k, (a, b) in zip(keys, pairs, strict=False)
    ]
    x = jax.random.normal(keys[-1], (MLP_BATCH, MLP_WIDTHS[0]))

    def mlp(params, x):
        for w, b in params:
            x = jnp.tanh(x @ w + b)
        return x

    matmuls = sum(2 * MLP_BATCH * a * b for a, b in pairs)
    adds = sum(MLP_BATCH * b for _, b in pairs)
    return Example("mlp", "MLP, 3 layers", mlp, (params, x), matmuls, matmuls + adds)


def _block_fn(jax, jnp) -> Callable:
    """One pre-norm transformer block: attention then a GELU MLP, residuals around both."""
    heads = BLOCK_HEADS

    def norm(x):
        mean = x.mean(-1, keepdims=True)
        return (x - mean) * jax.lax.rsqrt(((x - mean) ** 2).mean(-1, keepdims=True) + 1e-5)

    def block(p, x):
        s, d = x.shape
        q, k, v = (norm(x) @ p["qkv"]).reshape(s, 3, heads, d // heads).transpose(1, 2, 0, 3)
        scores = q @ k.transpose(0, 2, 1) / (d // heads) ** 0.5
        attn = jax.nn.softmax(scores, axis=-1) @ v
        x = x + attn.transpose(1, 0, 2).reshape(s, d) @ p["out"]
        return x + jax.nn.gelu(norm(x) @ p["up"]) @ p["down"]

    return block


def transformer() -> Example:
    """A transformer block; matmul FLOPs by hand (s = seq, d = width, f = FFN width):
    QKV 2·s·d·3d, scores 2·s·s·d, attention x V 2·s·s·d, out 2·s·d·d, up and down 2·s·d·f each."""
    jax, jnp = _jax()
    s, d, f = BLOCK_SEQ, BLOCK_D, BLOCK_FFN
    keys = jax.random.split(jax.random.key(1), 5)
    shapes = {"qkv": (d, 3 * d), "out": (d, d), "up": (d, f), "down": (f, d)}
    p = {
        n: jax.random.normal(k, shape) * 0.02
        for k, (n, shape) in zip(keys, shapes.items(), strict=False)
    }
    x = jax.random.normal(keys[-1], (s, d))
    matmuls = 2 * s * d * 3 * d + 2 * (2 * s * s * d) + 2 * s * d * d + 2 * (2 * s * d * f)
    return Example("transformer", "transformer block", _block_fn(jax, jnp), (p, x), matmuls, None)


def scan() -> Example:
    """h -> tanh(h @ w + x_t) for each of N steps: FLOPs N·(2·B·D·D + B·D), plus the counter."""
    jax, jnp = _jax()
    k1, k2 = jax.random.split(jax.random.key(2))
    w = jax.random.normal(k1, (SCAN_D, SCAN_D)) * 0.05
    xs = jax.random.normal(k2, (SCAN_STEPS, SCAN_BATCH, SCAN_D))

    def rnn(w, xs):
        def step(h, x):
            h = jnp.tanh(h @ w + x)
            return h, None

        return jax.lax.scan(step, jnp.zeros((SCAN_BATCH, SCAN_D)), xs)[0]

    body = 2 * SCAN_BATCH * SCAN_D * SCAN_D
    return Example("scan", f"lax.scan of {SCAN_STEPS} steps", rnn, (w, xs), SCAN_STEPS * body, None)


EXAMPLES: dict[str, Callable[[], Example]] = {"mlp": mlp, "transformer": transformer, "scan": scan}
