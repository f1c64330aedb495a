"""Seven programs of bench/predict.py's three kinds written the way a user might, over batched
activations and caches (stop 41): two MLP training steps, two transformer blocks over (batch,
seq, width) activations with their gradients, and three decode steps (a tied LM head's argmax,
layers by lax.scan, bfloat16 multi-query attention). Their blocks' backward passes move weight
gradients' operands through strided transposes (permutes.strided_transpose), their decode steps
read caches one query a head (a matvec's rows). bench/predict_zoo.py times them (`--only NAME`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def draw(key, *shape, scale=0.02, dtype=jnp.float32):
    """Normal draws of `shape` times scale, reproducible by key, in dtype."""
    return (jax.random.normal(jax.random.key(key), shape) * scale).astype(dtype)


def relu3_xent(p, x, y):
    """Cross-entropy against one-hot y of a 3-layer ReLU MLP with biases (w1, b1 ... w3, b3)."""
    h = jax.nn.relu(x @ p["w1"] + p["b1"])
    h = jax.nn.relu(h @ p["w2"] + p["b2"])
    logits = h @ p["w3"] + p["b3"]
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, -1))


def mlp_sgd_784():
    """An MLP 784-512-512-10 (ReLU, softmax cross-entropy, batch 256) and its SGD update."""
    params = {
        "w1": draw(1, 784, 512),
        "b1": jnp.zeros(512),
        "w2": draw(2, 512, 512),
        "b2": jnp.zeros(512),
        "w3": draw(3, 512, 10),
        "b3": jnp.zeros(10),
    }
    x = draw(4, 256, 784, scale=1.0)
    y = jax.nn.one_hot(jnp.arange(256) % 10, 10)

    @jax.jit
    def step(p, x, y):
        value, g = jax.value_and_grad(relu3_xent)(p, x, y)
        return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g), value

    return step, (params, x, y)


def mlp_momentum_gelu():
    """An MLP 1024-4096-1024 (GELU, squared loss, batch 64) trained with momentum."""
    sizes = [1024, 4096, 1024]
    ws = [draw(k, a, b) for k, (a, b) in enumerate(zip(sizes, sizes[1:], strict=False))]
    vs = [jnp.zeros_like(w) for w in ws]
    x = draw(9, 64, 1024, scale=1.0)
    t = draw(10, 64, 1024, scale=1.0)

    def loss(ws, x, t):
        h = x
        for i, w in enumerate(ws):
            h = h @ w
            if i < len(ws) - 1:
                h = jax.nn.gelu(h)
        return jnp.mean((h - t) ** 2)

    @jax.jit
    def step(ws, vs, x, t):
        value, g = jax.value_and_grad(loss)(ws, x, t)
        vs = [0.9 * v + gi for v, gi in zip(vs, g, strict=True)]
        ws = [w - 1e-3 * v for w, v in zip(ws, vs, strict=True)]
        return ws, vs, value

    return step, (ws, vs, x, t)


def block_ln_batched():
    """A transformer block over (4, 256, 512) activations, 8 heads: layer norms, causal attention
    written as einsums with a mask, a GELU MLP; value_and_grad of a squared mean."""
    b, s, d, h = 4, 256, 512, 8
    hd = d // h
    p = {
        "ln1": jnp.ones(d),
        "ln2": jnp.ones(d),
        "qkv": draw(1, d, 3 * d),
        "o": draw(2, d, d),
        "up": draw(3, d, 4 * d),
        "down": draw(4, 4 * d, d),
    }
    x = draw(5, b, s, d, scale=1.0)

    def ln(x, g):
        m = x.mean(-1, keepdims=True)
        v = x.var(-1, keepdims=True)
        return (x - m) * jax.lax.rsqrt(v + 1e-5) * g

    def block(p, x):
        y = ln(x, p["ln1"])
        q, k, v = jnp.split(y @ p["qkv"], 3, axis=-1)
        q = q.reshape(b, s, h, hd)
        k = k.reshape(b, s, h, hd)
        v = v.reshape(b, s, h, hd)
        sc = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(hd)
        mask = jnp.tril(jnp.ones((s, s), bool))
        sc = jnp.where(mask, sc, -1e9)
        a = jax.nn.softmax(sc, -1)
        o = jnp.einsum("bhqk,bkhd->bqhd", a, v).reshape(b, s, d)
        x = x + o @ p["o"]
        y = ln(x, p["ln2"])
        return x + jax.nn.gelu(y @ p["up"]) @ p["down"]

    @jax.jit
    def step(p, x):
        return jax.value_and_grad(lambda p, x: jnp.mean(block(p, x) ** 2))(p, x)

    return step, (p, x)


def block_swiglu_batched():
    """A transformer block over (2, 512, 256) activations, 4 heads: RMS norms,
    jax.nn.dot_product_attention (causal), a SwiGLU MLP of 683; the gradient of its weights."""
    b, s, d, h = 2, 512, 256, 4
    hd = d // h
    p = {
        "n1": jnp.ones(d),
        "n2": jnp.ones(d),
        "wq": draw(1, d, d),
        "wk": draw(2, d, d),
        "wv": draw(3, d, d),
        "wo": draw(4, d, d),
        "wg": draw(5, d, 683),
        "wu": draw(6, d, 683),
        "wd": draw(7, 683, d),
    }
    x = draw(8, b, s, d, scale=1.0)

    def rms(x, g):
        return x * jax.lax.rsqrt(jnp.mean(x * x, -1, keepdims=True) + 1e-6) * g

    def loss(p, x):
        y = rms(x, p["n1"])
        q = (y @ p["wq"]).reshape(b, s, h, hd)
        k = (y @ p["wk"]).reshape(b, s, h, hd)
        v = (y @ p["wv"]).reshape(b, s, h, hd)
        o = jax.nn.dot_product_attention(q, k, v, is_causal=True).reshape(b, s, d)
        x = x + o @ p["wo"]
        y = rms(x, p["n2"])
        x = x + (jax.nn.silu(y @ p["wg"]) * (y @ p["wu"])) @ p["wd"]
        return jnp.sum(x**2) / x.size

    return jax.jit(jax.grad(loss)), (p, x)


def decode_lm_head():
    """A decode step of 8 sequences: an embedding row, attention over a 1,024-token cache written
    at the position by .at[].set, a masked softmax, and the argmax of a tied 32,000-word head."""
    B, T, H, D, d, V = 8, 1024, 8, 64, 512, 32000
    p = {
        "wq": draw(1, d, d),
        "wk": draw(2, d, d),
        "wv": draw(3, d, d),
        "wo": draw(4, d, d),
        "emb": draw(5, V, d),
    }
    kc = draw(6, B, T, H, D, scale=1.0)
    vc = draw(7, B, T, H, D, scale=1.0)
    tok = jnp.arange(B) % V
    pos = jnp.int32(700)

    @jax.jit
    def step(p, kc, vc, tok, pos):
        x = p["emb"][tok]
        q = (x @ p["wq"]).reshape(B, H, D)
        k = (x @ p["wk"]).reshape(B, H, D)
        v = (x @ p["wv"]).reshape(B, H, D)
        kc = kc.at[:, pos].set(k)
        vc = vc.at[:, pos].set(v)
        sc = jnp.einsum("bhd,bthd->bht", q, kc) / 8.0
        sc = jnp.where(jnp.arange(T) <= pos, sc, -jnp.inf)
        a = jax.nn.softmax(sc, -1)
        o = jnp.einsum("bht,bthd->bhd", a, vc).reshape(B, d)
        x = x + o @ p["wo"]
        logits = x @ p["emb"].T
        return jnp.argmax(logits, -1), kc, vc, pos + 1

    return step, (p, kc, vc, tok, pos)


def decode_scan_layers():
    """Four decode layers by lax.scan over stacked weights and (4, 4, 8, 2048, 64) caches, each
    written in place by dynamic_update_slice; 4 sequences, width 512, a ReLU MLP."""
    L, B, T, H, D = 4, 4, 2048, 8, 64
    d = H * D
    W = {
        "qkv": draw(1, L, d, 3 * d),
        "o": draw(2, L, d, d),
        "up": draw(3, L, d, 4 * d),
        "down": draw(4, L, 4 * d, d),
    }
    kc = draw(5, L, B, H, T, D, scale=1.0)
    vc = draw(6, L, B, H, T, D, scale=1.0)
    x = draw(7, B, d, scale=1.0)
    pos = jnp.int32(1500)

    @jax.jit
    def step(W, kc, vc, x, pos):
        def layer(x, lw):
            w, k_l, v_l = lw
            q, k, v = jnp.split(x @ w["qkv"], 3, -1)
            q, k, v = (t.reshape(B, H, 1, D) for t in (q, k, v))
            k_l = jax.lax.dynamic_update_slice(k_l, k, (0, 0, pos, 0))
            v_l = jax.lax.dynamic_update_slice(v_l, v, (0, 0, pos, 0))
            sc = (q @ k_l.swapaxes(-1, -2)) / 8.0
            sc = jnp.where(jnp.arange(T) <= pos, sc, -1e30)
            o = (jax.nn.softmax(sc, -1) @ v_l).reshape(B, d)
            x = x + o @ w["o"]
            x = x + jax.nn.relu(x @ w["up"]) @ w["down"]
            return x, (k_l, v_l)

        x, (kc, vc) = jax.lax.scan(layer, x, (W, kc, vc))
        return x, kc, vc

    return step, (W, kc, vc, x, pos)


def decode_bf16_mqa():
    """A bfloat16 decode step of 16 sequences, 16 query heads over one shared KV head (4,096-token
    caches written per sequence at its length), a float32 softmax."""
    B, T, H, D, d = 16, 4096, 16, 64, 1024
    wq = draw(1, d, d, dtype=jnp.bfloat16)
    wkv = draw(2, d, 2 * D, dtype=jnp.bfloat16)
    wo = draw(3, d, d, dtype=jnp.bfloat16)
    kc = draw(4, B, T, D, scale=1.0, dtype=jnp.bfloat16)
    vc = draw(5, B, T, D, scale=1.0, dtype=jnp.bfloat16)
    x = draw(6, B, d, scale=1.0, dtype=jnp.bfloat16)
    lengths = jnp.full((B,), 3000, jnp.int32)

    @jax.jit
    def step(x, kc, vc, lengths):
        q = (x @ wq).reshape(B, H, D)
        k, v = jnp.split(x @ wkv, 2, -1)
        idx = lengths
        kc = kc.at[jnp.arange(B), idx].set(k)
        vc = vc.at[jnp.arange(B), idx].set(v)
        sc = jnp.einsum("bhd,btd->bht", q, kc).astype(jnp.float32) / 8.0
        valid = jnp.arange(T)[None, :] <= idx[:, None]
        sc = jnp.where(valid[:, None, :], sc, -1e30)
        a = jax.nn.softmax(sc, -1).astype(jnp.bfloat16)
        o = jnp.einsum("bht,btd->bhd", a, vc).reshape(B, d)
        return x + o @ wo, kc, vc, lengths + 1

    return step, (x, kc, vc, lengths)


BATCHED = (
    mlp_sgd_784,
    mlp_momentum_gelu,
    block_ln_batched,
    block_swiglu_batched,
    decode_lm_head,
    decode_scan_layers,
    decode_bf16_mqa,
)
