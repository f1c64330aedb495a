"""Six programs in dtypes and ops the kernels suite had no curve for at stop 50, written before
anything was built for them and not tuned against: a quantized linear layer (int8 by int8,
int32 accumulation, rescaled), a convolution by FFT (complex transforms both ways), a mixture
of experts' router (top 2 of 64 per token), sampling's top 50 of a 32,000-word vocabulary, a
CNN's training step with 2×2 max pools, and a max pool's forward alone. bench/predict_zoo.py
times them (`--only NAME`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from bench.zoo_batched import draw


def int8_linear():
    """A quantized linear layer: 256 tokens of width 2,048 (int8) by a 2,048 × 2,048 int8
    weight, int32 accumulation, rescaled to float32 per output column."""
    x = jax.random.randint(jax.random.key(1), (256, 2048), -127, 128, jnp.int8)
    w = jax.random.randint(jax.random.key(2), (2048, 2048), -127, 128, jnp.int8)
    scale = draw(3, 2048, scale=1e-3)

    @jax.jit
    def linear(x, w, scale):
        acc = jax.lax.dot(x, w, preferred_element_type=jnp.int32)
        return acc.astype(jnp.float32) * scale

    return linear, (x, w, scale)


def fft_convolution():
    """A 512 × 512 image convolved with a 512 × 512 kernel by complex FFTs (fft2, product,
    ifft2, real part), 4 channels."""
    image, kernel = draw(4, 4, 512, 512, scale=1.0), draw(5, 4, 512, 512, scale=1.0)

    @jax.jit
    def convolve(image, kernel):
        return jnp.fft.ifft2(jnp.fft.fft2(image) * jnp.fft.fft2(kernel)).real

    return convolve, (image, kernel)


def moe_router():
    """A mixture of experts' router: 4,096 tokens of width 1,024 scored against 64 experts,
    the top 2 kept and their weights softmaxed."""
    x, w = draw(6, 4096, 1024, scale=1.0), draw(7, 1024, 64)

    @jax.jit
    def route(x, w):
        weights, experts = jax.lax.top_k(x @ w, 2)
        return jax.nn.softmax(weights, axis=-1), experts

    return route, (x, w)


def top_k_sampling():
    """Sampling's filter for 16 sequences: the top 50 of a 32,000-word vocabulary's logits,
    softmaxed at temperature 0.8."""
    logits = draw(8, 16, 32000, scale=3.0)

    @jax.jit
    def top(logits):
        values, tokens = jax.lax.top_k(logits / 0.8, 50)
        return jax.nn.softmax(values, axis=-1), tokens

    return top, (logits,)


def _pool(x):
    """A 2×2 max pool, stride 2, NHWC."""
    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def maxpool_cnn_train():
    """A CNN's training step on 64 images of 28×28: two 3×3 convolutions (1 → 32 → 64
    channels) each with ReLU and a 2×2 max pool, a dense layer to 10 classes, cross-entropy."""
    images, labels = draw(9, 64, 28, 28, 1, scale=1.0), jax.nn.one_hot(jnp.arange(64) % 10, 10)
    p = {"c1": draw(10, 3, 3, 1, 32, scale=0.3), "c2": draw(11, 3, 3, 32, 64, scale=0.06)}
    p["d"] = draw(12, 7 * 7 * 64, 10)
    nhwc = ("NHWC", "HWIO", "NHWC")

    def loss(p, x, y):
        for w in (p["c1"], p["c2"]):
            x = jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=nhwc)
            x = _pool(jax.nn.relu(x))
        logits = x.reshape(x.shape[0], -1) @ p["d"]
        return -(jax.nn.log_softmax(logits) * y).sum(-1).mean()

    @jax.jit
    def step(p, x, y):
        value, grads = jax.value_and_grad(loss)(p, x, y)
        return value, jax.tree.map(lambda a, g: a - 0.01 * g, p, grads)

    return step, (p, images, labels)


def maxpool_forward():
    """A 2×2 max pool's forward over 32 feature maps of 64×64 with 128 channels."""
    x = draw(13, 32, 64, 64, 128, scale=1.0)
    return jax.jit(_pool), (x,)


NUMERICS = (
    int8_linear,
    fft_convolution,
    moe_router,
    top_k_sampling,
    maxpool_cnn_train,
    maxpool_forward,
)
