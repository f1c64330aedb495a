"""The private JAX/XLA APIs of perfcore.measure.profile.hlo.xla_private, on the pinned JAX.

Each is checked against a public oracle: compiled.cost_analysis() for the cost model, the
module's own printed text for the proto round trip.
"""

import jax
import jax.numpy as jnp

from perfcore.measure.profile import hlo
from perfcore.measure.profile.hlo import xla_private


def _compiled():
    a, b = jnp.ones((32, 64)), jnp.ones((64, 16))
    return jax.jit(lambda a, b: jnp.tanh(a @ b)).lower(a, b).compile()


def test_the_pinned_jax_is_installed():
    assert jax.__version__ == xla_private.PINNED_JAX
    assert xla_private.check_version() == ""
    assert "tested on jax 0.10.2" in xla_private.version_note("0.11.0")


def test_module_cost_equals_cost_analysis():
    """x (32 x 64) @ (64 x 16): 2·32·16·64 = 65,536 FLOPs; tanh is 512 transcendentals."""
    compiled = _compiled()
    (text,) = xla_private.compiled_texts(compiled)
    flops, n_bytes, transcendentals = xla_private.cost(text)
    assert flops == compiled.cost_analysis()["flops"] == 65_536
    assert n_bytes == compiled.cost_analysis()["bytes accessed"]
    assert transcendentals == 512


def test_a_module_proto_round_trips_to_the_same_text():
    (text,) = xla_private.compiled_texts(_compiled())
    again = xla_private.module_text(xla_private.module_proto(text))
    assert hlo.parse_module(again).instructions.keys() == hlo.parse_module(text).instructions.keys()


def test_one_op_modules_add_up_to_the_module():
    (text,) = xla_private.compiled_texts(_compiled())
    module = hlo.parse_module(text)
    entry = [i for i in module.computations[module.entry] if i.opcode not in hlo.FREE]
    parts = [xla_private.cost(hlo.one_op_module(module, i)) for i in entry]
    assert sum(p[0] for p in parts) == xla_private.cost(text)[0]
    assert sum(p[1] for p in parts) == xla_private.cost(text)[1]


def test_every_op_of_a_program_drawing_random_numbers_is_priced():
    """jax.random inside the jit: XLA orders the copies of its key with control-predecessors,
    which point at instructions a one-op module does not hold; each op still gets priced."""

    def dropout(key, x):
        return jnp.where(jax.random.bernoulli(key, 0.9, x.shape), x / 0.9, 0.0)

    args = (jax.random.key(1), jnp.ones((64, 64)))
    (text,) = xla_private.compiled_texts(jax.jit(dropout).lower(*args).compile())
    module = hlo.parse_module(text)
    ordered = [i for c in module.computations.values() for i in c if "control-pred" in i.attrs]
    assert ordered  # the case this test is for
    for i in ordered:
        flops, n_bytes, _ = xla_private.cost(hlo.one_op_module(module, i))
        assert n_bytes >= 0
