"""Six more programs of bench/predict.py's three kinds (stop 41), written after the strided
transpose and a matvec's rows were built and not tuned against: an MLP over (8, 128, 512) tokens
with a layer norm and Adam written out, a bfloat16 classifier, a block with grouped-query
attention and rotary embeddings written as einsums, a bfloat16 block with
dot_product_attention (the gradient of its weights and input), a decode step gathering a paged
KV cache through a page table, and six bfloat16 decode layers in a Python loop.
bench/predict_zoo.py times them (`--only NAME`); docs/profile.md says where they miss.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from bench.zoo_batched import draw


def mlp_seq_adam():
    """An MLP over (8, 128, 512) tokens: a layer norm, GELU 512-2048-512, Adam written out."""
    p = {
        "w1": draw(1, 512, 2048),
        "b1": jnp.zeros(2048),
        "w2": draw(2, 2048, 512),
        "g": jnp.ones(512),
    }
    m = jax.tree_util.tree_map(jnp.zeros_like, p)
    v = jax.tree_util.tree_map(jnp.zeros_like, p)
    x = draw(3, 8, 128, 512, scale=1.0)
    y = draw(4, 8, 128, 512, scale=1.0)

    def loss(p, x, y):
        h = (x - x.mean(-1, keepdims=True)) / (x.std(-1, keepdims=True) + 1e-5) * p["g"]
        h = jax.nn.gelu(h @ p["w1"] + p["b1"]) @ p["w2"]
        return jnp.mean((h + x - y) ** 2)

    @jax.jit
    def step(p, m, v, x, y):
        value, g = jax.value_and_grad(loss)(p, x, y)
        m = jax.tree_util.tree_map(lambda a, b: 0.9 * a + 0.1 * b, m, g)
        v = jax.tree_util.tree_map(lambda a, b: 0.999 * a + 0.001 * b * b, v, g)
        p = jax.tree_util.tree_map(lambda w, a, b: w - 1e-3 * a / (jnp.sqrt(b) + 1e-8), p, m, v)
        return p, m, v, value

    return step, (p, m, v, x, y)


def mlp_classifier_bf16():
    """A bfloat16 classifier 1024-1024-1024-100 (batch 512, cross-entropy) and its SGD step."""
    ws = [
        draw(i, a, b, dtype=jnp.bfloat16)
        for i, (a, b) in enumerate(((1024, 1024), (1024, 1024), (1024, 100)))
    ]
    x = draw(9, 512, 1024, scale=1.0, dtype=jnp.bfloat16)
    lab = jnp.arange(512) % 100

    def loss(ws, x, lab):
        h = x
        for w in ws[:-1]:
            h = jax.nn.relu(h @ w)
        logits = (h @ ws[-1]).astype(jnp.float32)
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), lab[:, None], 1))

    @jax.jit
    def step(ws, x, lab):
        value, g = jax.value_and_grad(loss)(ws, x, lab)
        return [w - (0.01 * gi).astype(w.dtype) for w, gi in zip(ws, g, strict=True)], value

    return step, (ws, x, lab)


def block_gqa_rope():
    """A block over (2, 256, 768): 12 query heads over 4 KV heads with rotary embeddings, a causal
    softmax written out as einsums, a SwiGLU of 2048; value_and_grad."""
    B, S, D, H, KV = 2, 256, 768, 12, 4
    hd = D // H
    p = {
        "wq": draw(1, D, D),
        "wk": draw(2, D, KV * hd),
        "wv": draw(3, D, KV * hd),
        "wo": draw(4, D, D),
        "wg": draw(5, D, 2048),
        "wu": draw(6, D, 2048),
        "wd": draw(7, 2048, D),
        "n1": jnp.ones(D),
        "n2": jnp.ones(D),
    }
    x = draw(8, B, S, D, scale=1.0)
    pos = jnp.arange(S)[:, None] / (10000 ** (jnp.arange(0, hd, 2) / hd))[None]
    cos, sin = jnp.cos(pos), jnp.sin(pos)

    def rope(t):
        a, b = t[..., ::2], t[..., 1::2]
        return jnp.concatenate(
            [a * cos[:, None] - b * sin[:, None], a * sin[:, None] + b * cos[:, None]], -1
        )

    def rms(x, g):
        return x * jax.lax.rsqrt(jnp.mean(x * x, -1, keepdims=True) + 1e-6) * g

    def loss(p, x):
        y = rms(x, p["n1"])
        q = rope((y @ p["wq"]).reshape(B, S, H, hd))
        k = rope((y @ p["wk"]).reshape(B, S, KV, hd))
        v = (y @ p["wv"]).reshape(B, S, KV, hd)
        k = jnp.repeat(k, H // KV, axis=2)
        v = jnp.repeat(v, H // KV, axis=2)
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(hd)
        s = jnp.where(jnp.tril(jnp.ones((S, S), bool)), s, -1e9)
        o = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1), v).reshape(B, S, D)
        x = x + o @ p["wo"]
        y = rms(x, p["n2"])
        x = x + (jax.nn.silu(y @ p["wg"]) * (y @ p["wu"])) @ p["wd"]
        return jnp.mean(x**2)

    return jax.jit(jax.value_and_grad(loss)), (p, x)


def block_bf16_flash():
    """A bfloat16 block over (4, 512, 512), 8 heads, dot_product_attention, a GELU MLP; the
    gradient of its weights and its input."""
    B, S, D, H = 4, 512, 512, 8
    p = {
        "qkv": draw(1, D, 3 * D, dtype=jnp.bfloat16),
        "o": draw(2, D, D, dtype=jnp.bfloat16),
        "up": draw(3, D, 4 * D, dtype=jnp.bfloat16),
        "down": draw(4, 4 * D, D, dtype=jnp.bfloat16),
    }
    x = draw(5, B, S, D, scale=1.0, dtype=jnp.bfloat16)

    def f(p, x):
        q, k, v = jnp.split(x @ p["qkv"], 3, -1)
        q, k, v = (t.reshape(B, S, H, D // H) for t in (q, k, v))
        a = jax.nn.dot_product_attention(q, k, v, is_causal=True).reshape(B, S, D)
        x = x + a @ p["o"]
        return (x + jax.nn.gelu(x @ p["up"]) @ p["down"]).astype(jnp.float32).sum()

    return jax.jit(jax.grad(f, argnums=(0, 1))), (p, x)


def decode_paged():
    """A decode step of 16 sequences reading a paged KV cache: a page table gathers each
    sequence's 16 pages of 64 tokens from a pool of 512."""
    B, P, PT, H, D = 16, 512, 64, 8, 64
    kpool = draw(1, P, PT, H, D, scale=1.0)
    vpool = draw(2, P, PT, H, D, scale=1.0)
    table = (jnp.arange(B * 16).reshape(B, 16) * 7) % P
    q = draw(3, B, H, D, scale=1.0)
    wo = draw(4, H * D, H * D)

    @jax.jit
    def step(q, kpool, vpool, table, wo):
        k = kpool[table].reshape(B, 16 * PT, H, D)
        v = vpool[table].reshape(B, 16 * PT, H, D)
        s = jnp.einsum("bhd,bthd->bht", q, k) / 8.0
        o = jnp.einsum("bht,bthd->bhd", jax.nn.softmax(s, -1), v).reshape(B, H * D)
        return o @ wo

    return step, (q, kpool, vpool, table, wo)


def decode_mlp_layers_bf16():
    """Six bfloat16 decode layers of 4 tokens in a Python loop, each attending over a (4, 8,
    2048, 128) cache written by dynamic_update_slice, then a 1024-4096 GELU MLP."""
    L, B, H, T, D = 6, 4, 8, 2048, 128
    d = H * D
    ws = [
        {
            "qkv": draw(10 * i + 1, d, 3 * d, dtype=jnp.bfloat16),
            "up": draw(10 * i + 2, d, 4096, dtype=jnp.bfloat16),
            "down": draw(10 * i + 3, 4096, d, dtype=jnp.bfloat16),
        }
        for i in range(L)
    ]
    caches = [
        (
            draw(100 + i, B, H, T, D, scale=1.0, dtype=jnp.bfloat16),
            draw(200 + i, B, H, T, D, scale=1.0, dtype=jnp.bfloat16),
        )
        for i in range(L)
    ]
    x = draw(7, B, d, scale=1.0, dtype=jnp.bfloat16)

    @jax.jit
    def step(ws, caches, x, pos):
        new = []
        for w, (kc, vc) in zip(ws, caches, strict=True):
            q, k, v = jnp.split(x @ w["qkv"], 3, -1)
            kc = jax.lax.dynamic_update_slice(kc, k.reshape(B, H, 1, D), (0, 0, pos, 0))
            vc = jax.lax.dynamic_update_slice(vc, v.reshape(B, H, 1, D), (0, 0, pos, 0))
            s = jnp.einsum("bhd,bhtd->bht", q.reshape(B, H, D), kc).astype(jnp.float32) / 11.3
            s = jnp.where(jnp.arange(T) <= pos, s, -1e30)
            o = jnp.einsum("bht,bhtd->bhd", jax.nn.softmax(s, -1).astype(jnp.bfloat16), vc).reshape(
                B, d
            )
            x = x + o
            x = x + jax.nn.gelu(x @ w["up"]) @ w["down"]
            new.append((kc, vc))
        return x, new

    return step, (ws, caches, x, jnp.int32(1000))


STYLES = (
    mlp_seq_adam,
    mlp_classifier_bf16,
    block_gqa_rope,
    block_bf16_flash,
    decode_paged,
    decode_mlp_layers_bf16,
)
