"""Every published training run fits in memory at its own layout, or is named with why not."""

from types import SimpleNamespace

from perfcore.model.chip.specs import load_specs
from perfcore.model.llm.models import load_models
from perfcore.model.runs.published import train_plans
from perfcore.model.runs.rows import load_runs
from perfcore.model.runs.serve_runs import precisions_of
from tests.support.plans import CANNOT_FIT


def test_every_training_run_fits_at_its_own_layout_or_is_named():
    """A run fits when some layout its cells allow (published.layouts_of: an empty ZeRO cell
    0, 1 or 2; fp32 or bf16 gradients, which no row states) holds in HBM less the reserve,
    its activations with dropout masks where its source kept them (published.DROPOUT_SOURCES:
    Megatron's GPT runs) and without elsewhere (Llama, MPT and BLOOM train without dropout)."""
    models, specs = load_models(), load_specs()
    misfits = set()
    for run in load_runs(models=models, devices=specs):
        if run.kind != "train":
            continue
        plans = train_plans(run, models[run.model], specs[run.device])
        if not any(p.fits for p in plans):
            misfits.add(run.name)
    assert misfits == set(CANNOT_FIT)


def test_an_nvfp4_row_without_a_kv_width_gets_an_fp8_kv_cache():
    """TensorRT-LLM's NVFP4 checkpoints keep the KV cache in FP8: an fp4 row with empty
    weights/activation/KV bits is priced at 4-bit weights and activations, 8-bit KV."""
    row = SimpleNamespace(weights_bits=None, act_bits=None, kv_bits=None, precision="fp4")
    p = precisions_of(row)
    assert (p.weights, p.activations, p.kv) == (4, 4, 8)
