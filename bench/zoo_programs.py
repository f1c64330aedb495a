"""The zoo's own programs (bench/predict_zoo.py times them): ordinary JAX programs of other
kinds than bench/predict.py's three, none of them a kernel the curves were built from. Each
function returns a jitted step and its inputs: convolutions (forward, weight gradient, a small
CNN's training step), attention (fused and as einsums), a tanh RNN by scan, gathers, a sort, a
cumulative sum, reductions, a norm and softmax, an elementwise chain, a transposed matmul,
dropout drawn inside the step, an embedding with cross-entropy, bfloat16 matmuls and blocks.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

NHWC = ("NHWC", "HWIO", "NHWC")  # images channels-last, filters HWIO


def _normal(*shape, seed=0, dtype=jnp.float32):
    """Standard normal draws of `shape`, reproducible by seed."""
    return jax.random.normal(jax.random.key(seed), shape, dtype)


def mlp_gelu():
    """Inference of a 2-layer GELU MLP, 512 tokens of width 768."""
    w1, w2, x = _normal(768, 3072, seed=1), _normal(3072, 768, seed=2), _normal(512, 768)
    return (lambda w1, w2, x: jax.nn.gelu(x @ w1) @ w2), (w1, w2, x)


def bf16_matmul():
    """One bf16 matmul, 512 x 512 x 512."""
    a, b = _normal(512, 512, dtype=jnp.bfloat16), _normal(512, 512, seed=1, dtype=jnp.bfloat16)
    return (lambda a, b: a @ b), (a, b)


def bf16_mlp_block():
    """A transformer's MLP block in bfloat16: layer norm, 768-3072-768 GELU MLP, residual add,
    512 tokens (its norm and GELU computed in float32, rounded to bfloat16 op by op)."""
    x = _normal(512, 768, dtype=jnp.bfloat16)
    w1, w2 = (
        _normal(*s, seed=k, dtype=jnp.bfloat16) * 0.02
        for k, s in ((1, (768, 3072)), (2, (3072, 768)))
    )

    def f(x, w1, w2):
        y = (x - x.mean(-1, keepdims=True)) * jax.lax.rsqrt(x.var(-1, keepdims=True) + 1e-5)
        return x + jax.nn.gelu(y @ w1) @ w2

    return f, (x, w1, w2)


def norm_softmax():
    """Layer norm then softmax over rows of a 1024 x 1024 matrix."""

    def f(x):
        y = (x - x.mean(-1, keepdims=True)) * jax.lax.rsqrt(x.var(-1, keepdims=True) + 1e-5)
        return jax.nn.softmax(y, axis=-1)

    return f, (_normal(1024, 1024),)


def conv_forward():
    """A 3x3 convolution, batch 8, 32x32 pixels, 64 -> 64 channels (NHWC)."""
    x, w = _normal(8, 32, 32, 64), _normal(3, 3, 64, 64, seed=1)

    def f(x, w):
        return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=NHWC)

    return f, (x, w)


def conv_wgrad():
    """The weight gradient of that convolution."""
    x, w = _normal(8, 32, 32, 64), _normal(3, 3, 64, 64, seed=1)

    def loss(w, x):
        y = jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=NHWC)
        return (y * y).sum()

    return jax.grad(loss), (w, x)


def cnn_train():
    """A small CNN's training step: two 3x3 convs with ReLU, average pool, dense, cross-entropy."""
    x, labels = _normal(16, 32, 32, 3), jnp.arange(16) % 10
    p = {
        "c1": _normal(3, 3, 3, 32, seed=1) * 0.1,
        "c2": _normal(3, 3, 32, 64, seed=2) * 0.05,
        "d": _normal(64, 10, seed=3) * 0.1,
    }

    def loss(p, x, labels):
        for name in ("c1", "c2"):
            x = jax.lax.conv_general_dilated(x, p[name], (1, 1), "SAME", dimension_numbers=NHWC)
            x = jax.nn.relu(x)
        logits = x.mean((1, 2)) @ p["d"]
        return -jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], 1).mean()

    def step(p, x, labels):
        grads = jax.grad(loss)(p, x, labels)
        return jax.tree.map(lambda w, g: w - 0.1 * g, p, grads)

    return step, (p, x, labels)


def attention():
    """Causal attention, batch 2, 512 tokens, 8 heads of 64."""
    q, k, v = (_normal(2, 512, 8, 64, seed=i) for i in range(3))
    return (lambda q, k, v: jax.nn.dot_product_attention(q, k, v, is_causal=True)), (q, k, v)


def einsum_attention():
    """Attention written out: scores, mask, softmax, weighted sum (batch 4, 256 tokens, 4 x 64)."""
    q, k, v = (_normal(4, 256, 4, 64, seed=i) for i in range(3))

    def f(q, k, v):
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / 8.0
        s = jnp.where(jnp.tril(jnp.ones((256, 256), bool)), s, -1e9)
        return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1), v)

    return f, (q, k, v)


def rnn_scan():
    """A tanh RNN over 64 steps (lax.scan), batch 32, width 256."""
    w, u, xs = (
        _normal(256, 256, seed=1) * 0.05,
        _normal(256, 256, seed=2) * 0.05,
        _normal(64, 32, 256),
    )

    def f(w, u, xs):
        def cell(h, x):
            h = jnp.tanh(h @ w + x @ u)
            return h, h

        return jax.lax.scan(cell, jnp.zeros((32, 256)), xs)[1]

    return f, (w, u, xs)


def gather_rows():
    """4,096 rows of width 256 gathered from a 65,536-row table."""
    table, idx = _normal(65536, 256), jax.random.randint(jax.random.key(1), (4096,), 0, 65536)
    return (lambda t, i: t[i]), (table, idx)


def sort():
    """A sort of 1M floats."""
    return jnp.sort, (_normal(1 << 20),)


def cumsum():
    """A cumulative sum over rows of a 1024 x 1024 matrix."""
    return (lambda x: jnp.cumsum(x, axis=1)), (_normal(1024, 1024),)


def reductions():
    """Mean, variance and max over the last axis of a 256 x 4096 matrix, and the total."""

    def f(x):
        return x.mean(-1), x.var(-1), x.max(-1), x.sum()

    return f, (_normal(256, 4096),)


def elementwise():
    """A chain of elementwise math over 4M floats: exp, multiply-add, tanh, where."""

    def f(x, y):
        z = jnp.exp(-x * x) * y + 0.5
        return jnp.where(z > 1.0, jnp.tanh(z), z * y)

    return f, (_normal(1 << 22), _normal(1 << 22, seed=1))


def transpose_matmul():
    """x.T @ y with both 2048 x 512: a transposed operand."""
    x, y = _normal(2048, 512), _normal(2048, 512, seed=1)
    return (lambda x, y: x.T @ y), (x, y)


def dropout():
    """Dropout at 0.1 over a 1024 x 1024 activation, its mask drawn inside the step."""

    def f(key, x):
        return jnp.where(jax.random.bernoulli(key, 0.9, x.shape), x / 0.9, 0.0)

    return f, (jax.random.key(1), _normal(1024, 1024))


def embed_xent():
    """An embedding lookup, a projection to a 8,192-word vocabulary, cross-entropy (256 tokens)."""
    emb, ids = _normal(8192, 256) * 0.02, jnp.arange(256) * 31 % 8192

    def f(emb, ids):
        logits = emb[ids] @ emb.T
        return -jnp.take_along_axis(jax.nn.log_softmax(logits), ids[:, None], 1).mean()

    return jax.value_and_grad(f), (emb, ids)
