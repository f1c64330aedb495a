"""Four programs of bench/predict.py's three kinds in idioms the zoo had not used (stop 42),
written before they were run and not tuned against: an MLP with biases, one-hot cross-entropy
and AdamW with weight decay; a pre-norm block over a parameter dict with exact (erf) GELU,
differentiated; a decode step that writes its KV caches with lax.dynamic_update_slice and masks
the unwritten positions; and greedy generation of 8 tokens with lax.scan over decode steps.
bench/predict_zoo.py times them (`--only NAME`); docs/profile.md says where they miss.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from bench.zoo_batched import draw, relu3_xent


def mlp_onehot_adamw():
    """An MLP 784-1024-1024-10 with biases (batch 512), one-hot cross-entropy, AdamW."""
    shapes = {"w1": (784, 1024), "w2": (1024, 1024), "w3": (1024, 10)}
    p = {k: draw(i, *s) for i, (k, s) in enumerate(shapes.items())}
    p |= {f"b{i}": jnp.zeros(s[1]) for i, s in enumerate(shapes.values(), 1)}
    m = jax.tree_util.tree_map(jnp.zeros_like, p)
    v = jax.tree_util.tree_map(jnp.zeros_like, p)
    x = draw(7, 512, 784, scale=1.0)
    y = jax.nn.one_hot(jnp.arange(512) % 10, 10)

    @jax.jit
    def step(p, m, v, x, y):
        value, g = jax.value_and_grad(relu3_xent)(p, x, y)
        m = jax.tree_util.tree_map(lambda a, b: 0.9 * a + 0.1 * b, m, g)
        v = jax.tree_util.tree_map(lambda a, b: 0.999 * a + 0.001 * b * b, v, g)

        def update(w, a, b):
            return w - 1e-3 * (a / (jnp.sqrt(b) + 1e-8) + 0.01 * w)

        return jax.tree_util.tree_map(update, p, m, v), m, v, value

    return step, (p, m, v, x, y)


def block_prenorm_dict():
    """A pre-norm block (batch 8, 256 tokens, width 512, 8 heads, erf GELU MLP 2048) over a
    parameter dict: the loss's gradient with respect to every parameter."""
    d, f = 512, 2048
    shapes = {"wq": (d, d), "wk": (d, d), "wv": (d, d), "wo": (d, d), "w1": (d, f), "w2": (f, d)}
    p = {k: draw(i, *s) for i, (k, s) in enumerate(shapes.items())}
    p |= {"g1": jnp.ones(d), "b1": jnp.zeros(d), "g2": jnp.ones(d), "b2": jnp.zeros(d)}
    x = draw(9, 8, 256, d, scale=1.0)

    def norm(h, g, b):
        mu = h.mean(-1, keepdims=True)
        var = ((h - mu) ** 2).mean(-1, keepdims=True)
        return (h - mu) * jax.lax.rsqrt(var + 1e-5) * g + b

    def block(p, x):
        b, t, _ = x.shape
        h = norm(x, p["g1"], p["b1"])
        q, k, v = (
            (h @ p[w]).reshape(b, t, 8, 64).transpose(0, 2, 1, 3) for w in ("wq", "wk", "wv")
        )
        s = q @ k.transpose(0, 1, 3, 2) / 8.0
        s = jnp.where(jnp.tril(jnp.ones((t, t), bool)), s, -jnp.inf)
        a = (jax.nn.softmax(s, -1) @ v).transpose(0, 2, 1, 3).reshape(b, t, -1)
        x = x + a @ p["wo"]
        h = norm(x, p["g2"], p["b2"])
        return x + jax.nn.gelu(h @ p["w1"], approximate=False) @ p["w2"]

    step = jax.jit(jax.grad(lambda p, x: jnp.mean(block(p, x) ** 2)))
    return step, (p, x)


def decode_dynamic_update():
    """One decode step of 4 layers (batch 8, width 512, 8 heads of 64): each layer writes the
    new key and value into its (8, 8, 1024, 64) caches at the position (dynamic_update_slice),
    attends over the cache with the positions past it masked, and runs a GELU MLP 2048."""
    layers, b, d, heads, hd, n = 4, 8, 512, 8, 64, 1024
    ws = [
        {
            "qkv": draw(10 * i + 1, d, 3 * d),
            "o": draw(10 * i + 2, d, d),
            "up": draw(10 * i + 3, d, 4 * d),
            "down": draw(10 * i + 4, 4 * d, d),
        }
        for i in range(layers)
    ]
    caches = [
        (draw(100 + i, b, heads, n, hd, scale=1.0), draw(200 + i, b, heads, n, hd, scale=1.0))
        for i in range(layers)
    ]
    x, pos = draw(300, b, d, scale=1.0), jnp.int32(700)

    @jax.jit
    def step(ws, caches, x, pos):
        new = []
        for w, (kc, vc) in zip(ws, caches, strict=True):
            q, k, v = jnp.split(x @ w["qkv"], 3, -1)
            q, k, v = (t.reshape(b, heads, 1, hd) for t in (q, k, v))
            kc = jax.lax.dynamic_update_slice(kc, k, (0, 0, pos, 0))
            vc = jax.lax.dynamic_update_slice(vc, v, (0, 0, pos, 0))
            s = jnp.einsum("bhqd,bhkd->bhqk", q, kc) / 8.0
            s = jnp.where(jnp.arange(n) <= pos, s, -1e30)
            a = jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, -1), vc).reshape(b, d)
            x = x + a @ w["o"]
            x = x + jax.nn.gelu(x @ w["up"]) @ w["down"]
            new.append((kc, vc))
        return x, new

    return step, (ws, caches, x, pos)


def generate_scan():
    """Greedy generation of 8 tokens (lax.scan): a 2-layer model of width 512 over an 8,192
    vocabulary, batch 4, attending over a (2, 4, 512, 512) cache it writes as it goes."""
    vocab, d, n, b = 8192, 512, 512, 4
    p = {
        "emb": draw(1, vocab, d),
        "wqkv": draw(2, 2, d, 3 * d),
        "wo": draw(3, 2, d, d),
        "w1": draw(4, 2, d, 2048),
        "w2": draw(5, 2, 2048, d),
    }
    cache = jnp.zeros((2, 2, b, n, d))  # layer, key/value, batch, position, width

    @jax.jit
    def generate(p, cache, first):
        def one(carry, _):
            cache, tok, pos = carry
            x = p["emb"][tok]
            for layer in range(2):
                q, k, v = jnp.split(x @ p["wqkv"][layer], 3, -1)
                cache = cache.at[layer, 0, :, pos].set(k).at[layer, 1, :, pos].set(v)
                s = jnp.einsum("bd,bkd->bk", q, cache[layer, 0]) / jnp.sqrt(d)
                s = jnp.where(jnp.arange(n) <= pos, s, -1e30)
                x = (
                    x
                    + jnp.einsum("bk,bkd->bd", jax.nn.softmax(s), cache[layer, 1]) @ p["wo"][layer]
                )
                x = x + jax.nn.relu(x @ p["w1"][layer]) @ p["w2"][layer]
            tok = jnp.argmax(x @ p["emb"].T, -1)
            return (cache, tok, pos + 1), tok

        return jax.lax.scan(one, (cache, first, jnp.int32(100)), None, length=8)[1]

    return generate, (p, cache, jnp.arange(b) % vocab)


IDIOMS = (mlp_onehot_adamw, block_prenorm_dict, decode_dynamic_update, generate_scan)
