"""Six programs of the three kinds bench/predict.py holds its prediction to (an MLP training
step, a transformer block forward and backward, a decode step), written after the curves and
the predictor and at other sizes and in other styles: Adam, tanh and cross-entropy, layer
norms with gains, fused attention's backward, attention written out as einsums, grouped-query
decode with the cache written in place by dynamic_update_slice, a SiLU MLP at batch 8. None
was tuned against; bench/predict_zoo.py times them beside its own programs (`--only NAME`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def _normal(*shape, seed=0, scale=1.0):
    """Normal draws of `shape` times scale, float32, reproducible by seed."""
    return jax.random.normal(jax.random.key(seed), shape) * scale


def _norm(x, gain):
    """Layer norm over the last axis, with a gain."""
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + 1e-6) * gain


def mlp_adam():
    """An MLP 1024-2048-2048-1024 (ReLU, squared loss, batch 128) trained by Adam."""
    sizes = ((1024, 2048), (2048, 2048), (2048, 1024))
    ws = [_normal(*s, seed=k, scale=0.02) for k, s in enumerate(sizes, 1)]
    x, y = _normal(128, 1024, seed=4), _normal(128, 1024, seed=5)

    def loss(ws, x, y):
        for w in ws[:-1]:
            x = jax.nn.relu(x @ w)
        return ((x @ ws[-1] - y) ** 2).mean()

    def step(ws, m, v, x, y):
        value, g = jax.value_and_grad(loss)(ws, x, y)
        m = [0.9 * a + 0.1 * b for a, b in zip(m, g, strict=True)]
        v = [0.999 * a + 0.001 * b * b for a, b in zip(v, g, strict=True)]
        ws = [w - 1e-3 * a / (jnp.sqrt(b) + 1e-8) for w, a, b in zip(ws, m, v, strict=True)]
        return value, ws, m, v

    zeros = [jnp.zeros_like(w) for w in ws]
    return step, (ws, zeros, zeros, x, y)


def mlp_xent():
    """An MLP 784-512-512-10 (tanh, cross-entropy over 10 classes, batch 256), SGD."""
    sizes = ((784, 512), (512, 512), (512, 10))
    ws = [_normal(*s, seed=k, scale=0.05) for k, s in enumerate(sizes, 1)]
    x, labels = _normal(256, 784, seed=4), jnp.arange(256) % 10

    def loss(ws, x, labels):
        for w in ws[:-1]:
            x = jnp.tanh(x @ w)
        logp = jax.nn.log_softmax(x @ ws[-1])
        return -jnp.take_along_axis(logp, labels[:, None], 1).mean()

    def step(ws, x, labels):
        value, g = jax.value_and_grad(loss)(ws, x, labels)
        return value, [w - 0.01 * gw for w, gw in zip(ws, g, strict=True)]

    return step, (ws, x, labels)


def block_flash():
    """A pre-norm block (batch 2, 256 tokens, width 512, 8 heads, causal fused attention,
    GELU MLP): the gradient of a squared loss over its parameters."""
    b, s, d, h = 2, 256, 512, 8
    shapes = {"wq": (d, d), "wk": (d, d), "wv": (d, d), "wo": (d, d), "w1": (d, 4 * d)}
    p = {n: _normal(*sh, seed=k, scale=0.02) for k, (n, sh) in enumerate(shapes.items(), 1)}
    p |= {"w2": _normal(4 * d, d, seed=6, scale=0.02), "g1": jnp.ones(d), "g2": jnp.ones(d)}
    x = _normal(b, s, d, seed=7)

    def forward(p, x):
        y = _norm(x, p["g1"])
        q, k, v = ((y @ p[n]).reshape(b, s, h, d // h) for n in ("wq", "wk", "wv"))
        x = x + jax.nn.dot_product_attention(q, k, v, is_causal=True).reshape(b, s, d) @ p["wo"]
        return x + jax.nn.gelu(_norm(x, p["g2"]) @ p["w1"]) @ p["w2"]

    return jax.grad(lambda p, x: (forward(p, x) ** 2).mean()), (p, x)


def block_einsum():
    """A pre-norm block (batch 4, 128 tokens, width 256, 4 heads) with attention written out
    (einsums, a causal mask by where, softmax) and a ReLU MLP: value_and_grad of its mean."""
    s, d, h = 128, 256, 4
    sizes = {"qkv": (d, 3 * d), "wo": (d, d), "w1": (d, 4 * d), "w2": (4 * d, d)}
    p = {n: _normal(*sh, seed=k, scale=0.02) for k, (n, sh) in enumerate(sizes.items(), 1)}
    p["g"] = jnp.ones(d)
    x, mask = _normal(4, s, d, seed=5), jnp.tril(jnp.ones((s, s), bool))

    def forward(p, x):
        qkv = jnp.split(_norm(x, p["g"]) @ p["qkv"], 3, -1)
        q, k, v = (t.reshape(4, s, h, d // h) for t in qkv)
        scores = jnp.where(mask, jnp.einsum("bqhd,bkhd->bhqk", q, k) / 8.0, -1e9)
        a = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, -1), v).reshape(4, s, d)
        x = x + a @ p["wo"]
        return x + jax.nn.relu(_norm(x, p["g"]) @ p["w1"]) @ p["w2"]

    return jax.value_and_grad(lambda p, x: forward(p, x).mean()), (p, x)


def decode_gqa():
    """One decode step of grouped-query attention (batch 4, 1,024-token cache, 4 KV heads of
    64, 2 queries per KV head): the new token's K and V written into the cache, attention over
    the positions so far, the output projection and the residual."""
    b, t, kv, g, hd, d = 4, 1024, 4, 2, 64, 512
    cache_k, cache_v = _normal(b, t, kv, hd, seed=1), _normal(b, t, kv, hd, seed=2)
    wq, wo = (_normal(*sh, seed=k, scale=0.02) for k, sh in ((3, (d, 512)), (5, (512, d))))
    wkv, x = _normal(d, 2 * kv * hd, seed=4, scale=0.02), _normal(b, d, seed=6)

    def step(cache_k, cache_v, x, pos):
        q = (x @ wq).reshape(b, kv, g, hd)
        k, v = jnp.split((x @ wkv).reshape(b, 2, kv, hd), 2, 1)
        cache_k = jax.lax.dynamic_update_slice(cache_k, k, (0, pos, 0, 0))
        cache_v = jax.lax.dynamic_update_slice(cache_v, v, (0, pos, 0, 0))
        scores = jnp.einsum("bkgd,btkd->bkgt", q, cache_k) / 8.0
        scores = jnp.where(jnp.arange(t) <= pos, scores, -1e9)
        o = jnp.einsum("bkgt,btkd->bkgd", jax.nn.softmax(scores, -1), cache_v)
        return x + o.reshape(b, -1) @ wo, cache_k, cache_v

    return step, (cache_k, cache_v, x, jnp.int32(100))


def decode_mlp():
    """A decode step's SiLU MLP (width 1024, hidden 4096) over a batch of 8 tokens."""
    w1, w2 = _normal(1024, 4096, seed=1, scale=0.02), _normal(4096, 1024, seed=2, scale=0.02)
    return (lambda w1, w2, x: x + jax.nn.silu(x @ w1) @ w2), (w1, w2, _normal(8, 1024, seed=3))


HELD_OUT = (mlp_adam, mlp_xent, block_flash, block_einsum, decode_gqa, decode_mlp)
