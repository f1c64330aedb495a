"""The Plan tests' shared setting: a small training run and a table at half the bound."""

from perfcore.explain.plans import plan
from perfcore.model.llm.models import load_models
from perfcore.model.runs.efficiency import Efficiency, Table
from perfcore.model.runs.sample import Setting

H100 = "NVIDIA H100 SXM"
MODELS = load_models()
L70, L8 = MODELS["Llama-3.1-70B"], MODELS["Llama-3.1-8B"]
# Every regime at half its bound, held-out error 10 % median and 20 % p90: one cell each, so
# every setting falls back to it.
HALF = Table(
    {
        Setting(r): Efficiency(r, 0.5, 10, 3, 0.3, 0.7, 0.1, 0.2, Setting(r))
        for r in ("train", "prefill", "decode")
    }
)
SMALL = plan.TrainSetup(gpus=16, seq=4096, global_batch_tokens=2**21, tokens=1e12)


def small_view(specs) -> plan.TrainView:
    """Llama-3.1-8B on 16 H100s, 512 sequences of 4,096 tokens a step, efficiency 0.5."""
    return plan.train_view(L8, specs[H100], SMALL, HALF)


# Runs no layout consistent with their published cells fits, and why (GiB per GPU).
CANNOT_FIT = {
    "nemo-24.07-h100-llama2-70b-sft": (
        "TP 4 x PP 4 x DP 1 leaves no data-parallel rank to shard Adam over: the fullest stage's "
        "4.3e9 parameters take 64.7 GiB of weights, bf16 gradients and fp32 states, and 4 "
        "micro-batches of 20 layers' activations 21.3 GiB, past 76 of 80 usable; the source "
        "prints no recomputation or optimizer offload, which the run must have used"
    ),
}
