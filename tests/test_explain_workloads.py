"""The workloads page's tables and takeaway: SI numbers with units, computed sentences."""

import pytest

from perfcore.explain.llm import workloads as view
from perfcore.model.llm.models import load_models

H100, A100 = "NVIDIA H100 SXM", "NVIDIA A100 SXM4 80GB"


@pytest.fixture(scope="module")
def models():
    return load_models()


def test_ops_table_is_numeric_with_units_and_times_add_up(specs, models):
    v = view.view(models["Llama-3.1-8B"], specs[H100], view.Setup())
    df = view.ops_table(v)
    assert df["time"].sum() == pytest.approx(v.phase.compute_s)
    assert df["share of time"].sum() == pytest.approx(1.0)
    assert df.attrs["units"]["bytes"] == "traffic" and df.attrs["units"]["time"] == "seconds"
    assert set(df["bound"]) <= {"compute", "memory"}
    assert df["FLOPs"].dtype.kind == "f"


def test_summary_has_one_row_per_device_with_capacity_in_binary_bytes(specs, models):
    m, s = models["Llama-2-70B"], view.Setup()
    views = [view.view(m, specs[d], s) for d in (H100, A100)]
    df = view.summary_table(views)
    assert list(df["device"]) == [H100, A100]
    assert df.attrs["units"]["memory per GPU"] == "capacity"
    assert list(df["GPUs needed"]) == [2, 2]


def test_time_by_kind_covers_the_phase_and_communication(specs, models):
    v = view.view(models["Llama-3.1-70B"], specs[H100], view.Setup(tp=4))
    kinds = view.time_by_kind(v)
    assert kinds["communication"] > 0
    assert sum(kinds.values()) == pytest.approx(v.phase.time_s)


def test_crossover_table_says_never_as_missing_and_narrower_kv_crosses_sooner(specs, models):
    df = view.crossover_table(models["Llama-3.1-8B"], specs[H100], view.Setup())
    first = df.iloc[0]
    assert first["KV 4-bit"] < first["KV 16-bit"]
    assert df["KV 16-bit"].isna().iloc[-1]


def test_layer_points_are_one_layer_per_phase(specs, models):
    m = models["Llama-3.1-8B"]
    pre = view.layer_points(m, specs[H100], view.Setup(), "prefill")
    dec = view.layer_points(m, specs[H100], view.Setup(), "decode")
    assert [k for k, _ in pre] == [k for k, _ in dec]
    proj = [e for k, e in pre if k == "projection"]
    assert all(e.limiter == "compute" for e in proj)
    assert all(e.limiter == "memory" for k, e in dec if k == "projection")


def test_the_roofline_catalogs_model_layer_is_the_workloads_layer(specs, models):
    from perfcore.explain.chip import roofline

    m, d = models["Mixtral-8x7B"], specs[H100]
    here = view.layer_points(m, d, view.Setup(batch=8, context=2048), "decode")
    there = roofline.layer_points(d, "bf16", m, "decode", 8, 2048)
    assert [(e.cost.flops, e.cost.bytes) for _, e in here] == [
        (e.cost.flops, e.cost.bytes) for e in there
    ]
    assert there[1].cost.name == "Mixtral-8x7B decode: q proj"


def test_a_compare_device_without_a_peak_is_left_out_naming_the_figure(specs, models):
    """V100 (2017) publishes no 8-bit peak: 8-bit weights and activations cannot be priced."""
    s = view.Setup(precisions=view.Precisions(8, 8, 8))
    page = view.page(models["Llama-3.1-8B"], specs[H100], specs["NVIDIA V100 SXM2"], s)
    assert len(page.views) == 1
    assert page.left_out.startswith("NVIDIA V100 SXM2 is left out: NVIDIA V100 SXM2 publishes no ")
    assert "fp8 or int8 peak" in page.left_out


def test_a_bug_while_pricing_the_compare_device_is_not_dressed_up_as_a_missing_figure(
    specs, models, monkeypatch
):
    """The old page caught every ValueError, so a bug read 'A100 is left out: ...'."""
    priced = view.view

    def buggy(model, device, s):
        if device.name == A100:
            raise ValueError("a bug: shapes do not line up")
        return priced(model, device, s)

    monkeypatch.setattr(view, "view", buggy)
    with pytest.raises(ValueError, match="a bug"):
        view.page(models["Llama-3.1-8B"], specs[H100], specs[A100], view.Setup())
