"""plan train|serve: the expected figures published runs give, in the JSON and in words, each
saying what it rests on."""

import json

import pytest

from perfcore.cli import main
from perfcore.model.chip.specs import load_specs
from perfcore.model.llm.models import load_models
from perfcore.model.plans.train_plan import Training
from perfcore.model.runs.published import table, train_setting
from perfcore.model.runs.sample import EXPOSURE

H100 = "NVIDIA H100 SXM"


def run_json(capsys, argv) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_plans_expected_figures_are_filled_for_70b_on_1024_h100s(capsys):
    """Llama-3.1-70B on 1,024 H100s: every `_expected` figure is (the bound + the critical
    path's communication it hides + a quarter of the rest + FP8's BF16 seconds, none at BF16 +
    the memory-bound math + the attention core once more) / its cell's efficiency, and says
    what it was derived from."""
    train = run_json(
        capsys,
        [
            "plan",
            "train",
            "--model",
            "Llama-3.1-70B",
            "--device",
            H100,
            "--gpus",
            "1024",
            "--seq",
            "8192",
            "--global-batch-tokens",
            str(2**24),
            "--tokens",
            "15e12",
            "--top",
            "1",
        ],
    )
    best = train["best"]
    t = Training(load_models()["Llama-3.1-70B"], load_specs()[H100], 1024, 8192, 2**24)
    eff = table().of(train_setting(t))
    assert best["bf16_s"] == 0.0
    hidden = best["hidden_s_by"]
    critical = sum(hidden[k] for k in hidden if k in EXPOSURE.parts)
    contended = EXPOSURE.contention * sum(hidden[k] for k in hidden if k not in EXPOSURE.parts)
    added = best["elementwise_s"] + EXPOSURE.attention * best["attention_s"] + contended
    basis = best["step_s"] + critical + added
    assert best["elementwise_s"] > 0 and best["attention_s"] > 0
    assert best["step_expected_s"] == pytest.approx(basis / eff.value)
    assert best["mfu_expected"] == pytest.approx(best["mfu"] * best["step_s"] * eff.value / basis)
    assert best["expected_error"] == {"median": eff.error_median, "p90": eff.error_p90}
    assert "published train runs" in best["expected_from"]
    serve = run_json(
        capsys,
        [
            "plan",
            "serve",
            "--model",
            "Llama-3.1-70B",
            "--device",
            H100,
            "--gpus",
            "1024",
            "--input-tokens",
            "1024",
            "--output-tokens",
            "256",
            "--tpot-ms",
            "50",
            "--tp",
            "8",
        ],
    )
    keys = (
        "ttft_s_expected",
        "tpot_s_expected",
        "output_tokens_per_s_expected",
        "per_gpu_expected",
    )
    assert all(serve[k] is not None and serve[k] > 0 for k in keys)
    assert set(serve["expected_error"]) == {"ttft", "tpot"}
    assert serve["expected_error"]["tpot"]["p90"] >= serve["expected_error"]["tpot"]["median"]
    assert serve["tpot_s_expected"] > serve["tpot_s"] and "decode" in serve["expected_from"]["tpot"]


def test_the_human_output_says_what_each_expected_figure_rests_on(capsys):
    """`plan train` and `plan serve` without --json: an `expected` line, then what it is from."""
    train = [
        "plan",
        "train",
        "--model",
        "Llama-3.1-8B",
        "--device",
        H100,
        "--gpus",
        "8",
        "--seq",
        "4096",
        "--global-batch-tokens",
        str(64 * 4096),
        "--dp",
        "8",
    ]
    assert main(train) == 0
    out = capsys.readouterr().out
    assert out.index("expected   step") < out.index("bound      step")
    assert "p90 of held-out frameworks" in out and "published train runs" in out
    serve = [
        "plan",
        "serve",
        "--model",
        "Llama-3.1-8B",
        "--device",
        H100,
        "--gpus",
        "8",
        "--input-tokens",
        "512",
        "--output-tokens",
        "128",
        "--tpot-ms",
        "50",
    ]
    assert main(serve) == 0
    out = capsys.readouterr().out
    assert "published prefill runs" in out and "published decode runs" in out
