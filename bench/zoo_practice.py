"""Twelve programs written at stop 59, before they were first predicted, in idioms the other
zoo files do not use: per-example gradients by vmap, rematerialised layers, batch norm in
training, a dilated 1-D convolution stack, an LSTM's scan, lax.cond and lax.switch, a
label-smoothed cross-entropy, a ViT's patch embedding, a stencil iterated by fori_loop,
a k-means step, Sinkhorn iterations and a bfloat16 attention with an additive bias.
bench/predict_zoo.py times them (`--only NAME`); docs/profile.md keeps what they measured
first.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from bench.zoo_batched import draw


def per_example_grads():
    """Per-example gradients of a 512-1024-10 ReLU MLP by vmap(grad), batch 64, and their
    norms (as differentially private training clips them)."""
    params = (draw(1, 512, 1024), draw(2, 1024, 10))
    x, y = draw(3, 64, 512, scale=1.0), jax.nn.one_hot(jnp.arange(64) % 10, 10)

    def loss(params, x, y):
        w1, w2 = params
        return -(jax.nn.log_softmax(jax.nn.relu(x @ w1) @ w2) * y).sum()

    def step(params, x, y):
        grads = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
        norms = jnp.sqrt(sum((g.reshape(64, -1) ** 2).sum(1) for g in grads))
        return grads, norms

    return step, (params, x, y)


def remat_mlp():
    """A 4-layer 1024-wide GELU MLP, each layer under jax.checkpoint, value_and_grad at batch
    256."""
    ws = [draw(k, 1024, 1024) for k in range(4)]
    x = draw(9, 256, 1024, scale=1.0)

    @jax.checkpoint
    def layer(h, w):
        return jax.nn.gelu(h @ w)

    def loss(ws, x):
        for w in ws:
            x = layer(x, w)
        return (x**2).mean()

    return jax.value_and_grad(loss), (ws, x)


def batchnorm_cnn():
    """Two 3×3 convolutions (32 channels) with batch norm on the batch's statistics and ReLU,
    a global average pool and a linear head: value_and_grad at batch 16 of 32×32 images."""
    nhwc = ("NHWC", "HWIO", "NHWC")
    p = {
        "k1": draw(1, 3, 3, 3, 32, scale=0.1),
        "k2": draw(2, 3, 3, 32, 32, scale=0.1),
        "g": jnp.ones(32),
        "w": draw(3, 32, 10),
    }
    x = draw(4, 16, 32, 32, 3, scale=1.0)

    def bn(h, gain):
        mean = h.mean((0, 1, 2))
        var = h.var((0, 1, 2))
        return (h - mean) * jax.lax.rsqrt(var + 1e-5) * gain

    def loss(p, x):
        h = x
        for k in ("k1", "k2"):
            h = jax.lax.conv_general_dilated(h, p[k], (1, 1), "SAME", dimension_numbers=nhwc)
            h = jax.nn.relu(bn(h, p["g"]))
        return jax.nn.logsumexp(h.mean((1, 2)) @ p["w"], -1).mean()

    return jax.value_and_grad(loss), (p, x)


def dilated_conv1d():
    """A WaveNet-like stack: four 1-D convolutions of width 2 at dilations 1, 2, 4, 8, 64
    channels, gated (tanh × sigmoid) with residuals, over 4 signals of 16,384 samples."""
    ks = [draw(k, 2, 64, 128, scale=0.1) for k in range(4)]
    x = draw(5, 4, 16384, 64, scale=1.0)
    labels = ("NWC", "WIO", "NWC")

    def f(ks, x):
        for i, k in enumerate(ks):
            h = jax.lax.conv_general_dilated(
                x, k, (1,), [(2**i, 0)], rhs_dilation=(2**i,), dimension_numbers=labels
            )
            x = x + jnp.tanh(h[..., :64]) * jax.nn.sigmoid(h[..., 64:])
        return x

    return f, (ks, x)


def lstm_scan():
    """An LSTM (hidden 512, the four gates from one matmul of [x, h]) over 32 steps of batch
    64, by lax.scan, forward only."""
    w = draw(1, 1024, 2048)
    xs = draw(2, 32, 64, 512, scale=1.0)

    def f(w, xs):
        def cell(carry, x):
            h, c = carry
            gates = jnp.concatenate([x, h], -1) @ w
            i, f, g, o = jnp.split(gates, 4, -1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (h, c), h

        zeros = jnp.zeros((64, 512))
        return jax.lax.scan(cell, (zeros, zeros), xs)[1]

    return f, (w, xs)


def cond_switch():
    """A 1024² matmul's result sent down lax.cond (its mean's sign) and then lax.switch (one of
    three elementwise branches by its max), batch 512."""
    w, x = draw(1, 1024, 1024), draw(2, 512, 1024, scale=1.0)

    def f(w, x):
        h = x @ w
        h = jax.lax.cond(h.mean() > 0, lambda a: a @ w, lambda a: jnp.tanh(a), h)
        index = jnp.clip(jnp.abs(h).max().astype(jnp.int32), 0, 2)
        branches = [jax.nn.relu, jnp.sin, lambda a: a * jax.nn.sigmoid(a)]
        return jax.lax.switch(index, branches, h)

    return f, (w, x)


def smoothed_xent():
    """A 512-token batch's projection to 8,192 classes and its label-smoothed cross-entropy
    (logsumexp), value_and_grad with respect to the projection."""
    w, h = draw(1, 512, 8192), draw(2, 512, 512, scale=1.0)
    labels = jnp.arange(512) * 7 % 8192

    def loss(w, h, labels):
        logits = h @ w
        target = jax.nn.one_hot(labels, 8192) * 0.9 + 0.1 / 8192
        return (jax.nn.logsumexp(logits, -1) - (logits * target).sum(-1)).mean()

    return jax.value_and_grad(loss), (w, h, labels)


def vit_patches():
    """A ViT's stem: 8 images of 224×224×3 cut into 16×16 patches by reshape and transpose,
    projected to 384, a position embedding added and layer-normed."""
    images = draw(1, 8, 224, 224, 3, scale=1.0)
    w, pos = draw(2, 768, 384), draw(3, 196, 384)

    def f(images, w, pos):
        p = images.reshape(8, 14, 16, 14, 16, 3).transpose(0, 1, 3, 2, 4, 5)
        x = p.reshape(8, 196, 768) @ w + pos
        mean = x.mean(-1, keepdims=True)
        return (x - mean) * jax.lax.rsqrt(x.var(-1, keepdims=True) + 1e-6)

    return f, (images, w, pos)


def jacobi_stencil():
    """Fifty Jacobi sweeps of a 5-point Laplacian over a 1,024² grid (jnp.roll, periodic),
    by fori_loop."""
    grid = draw(1, 1024, 1024, scale=1.0)

    def f(u):
        def sweep(_, u):
            near = jnp.roll(u, 1, 0) + jnp.roll(u, -1, 0) + jnp.roll(u, 1, 1)
            return 0.25 * (near + jnp.roll(u, -1, 1))

        return jax.lax.fori_loop(0, 50, sweep, u)

    return f, (grid,)


def kmeans_step():
    """One k-means step: 16,384 points of 64 against 256 centroids, distances by matmul,
    argmin, new centroids by a one-hot matmul over the assignments."""
    points, centroids = draw(1, 16384, 64, scale=1.0), draw(2, 256, 64, scale=1.0)

    def f(points, centroids):
        d = (points**2).sum(1, keepdims=True) - 2 * points @ centroids.T
        d = d + (centroids**2).sum(1)
        assign = jax.nn.one_hot(d.argmin(1), 256)
        return (assign.T @ points) / jnp.maximum(assign.sum(0), 1)[:, None]

    return f, (points, centroids)


def sinkhorn():
    """Twenty log-domain Sinkhorn iterations on a 1,024 × 1,024 cost matrix (logsumexp over
    rows and columns), by fori_loop."""
    cost = jnp.abs(draw(1, 1024, 1024, scale=1.0))

    def f(cost):
        logk = -cost / 0.1

        def iterate(_, uv):
            u, v = uv
            u = -jax.nn.logsumexp(logk + v[None, :], 1)
            v = -jax.nn.logsumexp(logk + u[:, None], 0)
            return u, v

        zeros = jnp.zeros(1024)
        u, v = jax.lax.fori_loop(0, 20, iterate, (zeros, zeros))
        return jnp.exp(logk + u[:, None] + v[None, :])

    return f, (cost,)


def biased_attention_bf16():
    """Bidirectional attention in bfloat16 with an ALiBi-style additive bias, written out:
    batch 2, 512 tokens, 8 heads of 64, forward and the gradient with respect to q."""
    q, k, v = (draw(i, 2, 512, 8, 64, scale=1.0, dtype=jnp.bfloat16) for i in range(3))
    slopes = 2.0 ** -jnp.arange(1, 9)
    distance = jnp.abs(jnp.arange(512)[:, None] - jnp.arange(512)[None, :])
    bias = (-slopes[:, None, None] * distance).astype(jnp.bfloat16)

    def loss(q, k, v, bias):
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / 8 + bias
        out = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1), v)
        return out.astype(jnp.float32).sum()

    return jax.grad(loss), (q, k, v, bias)


PRACTICE = (
    per_example_grads,
    remat_mlp,
    batchnorm_cnn,
    dilated_conv1d,
    lstm_scan,
    cond_switch,
    smoothed_xent,
    vit_patches,
    jacobi_stencil,
    kmeans_step,
    sinkhorn,
    biased_attention_bf16,
)
