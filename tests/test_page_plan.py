"""The Plan page in AppTest: its defaults, links that restore train and serve views, hostile
links, a layout that cannot exist, a model that fits nowhere, and the takeaway's numbers."""

import pytest

from tests.support.pages import notices, run_page

H100 = {"device": "NVIDIA H100 SXM"}


def metric(at, label: str) -> str:
    """The displayed value of the metric called `label`."""
    return next(m.value for m in at.metric if m.label == label)


def seconds(text: str) -> float:
    """'13.4 s' or '27.2 ms' as seconds."""
    number, unit = text.split()
    return float(number) * {"s": 1, "ms": 1e-3, "µs": 1e-6}[unit]


def band(at, label: str) -> tuple[float, float]:
    """The (low, high) seconds of the band shown under the metric called `label`."""
    shown = next(m.delta for m in at.metric if m.label == label)
    low, high = shown.split(", p90 of held-out frameworks")[0].split("–")
    return seconds(low), seconds(high)


def test_the_page_opens_at_its_defaults_with_no_exception_error_or_notice():
    at = run_page("plan")
    assert not at.exception and not at.error and not notices(at)
    labels = [m.label for m in at.metric]
    assert labels[:4] == ["Step (expected)", "Step (bound)", "MFU (expected)", "MFU (bound)"]
    assert [t.label for t in at.tabs] == ["Ranked plans", "Charts", "Held against published runs"]
    assert not at.get("plotly_chart") and len(at.dataframe) == 1  # the open tab's table alone
    charts = run_page("plan", {"plan_tab": "Charts"})
    assert len(charts.get("plotly_chart")) == 2 and not charts.dataframe
    held = run_page("plan", {"plan_tab": "Held against published runs"})
    assert len(held.get("plotly_chart")) == 1 and len(held.dataframe) == 1


def test_the_takeaway_names_the_best_layouts_numbers():
    at = run_page("plan", H100)
    best = at.dataframe[0].value.iloc[0]  # the table's first row: the fastest layout
    shape = best["layout"].split(",")[0]
    text = at.info[0].value
    assert f"{shape} wins" in text
    assert f"step {metric(at, 'Step (bound)')} and MFU {metric(at, 'MFU (bound)')}" in text
    assert f"a {metric(at, 'Step (expected)')} step" in text


def test_the_headline_leads_with_the_expected_step_and_its_band_then_the_bound():
    at = run_page("plan", H100)
    first, second = at.metric[0], at.metric[1]
    assert "expected" in first.label and "bound" in second.label
    low, high = band(at, first.label)
    expected, bound = seconds(first.value), seconds(second.value)
    # the band holds the expected step, and never reaches below the bound
    assert bound <= low < expected < high
    assert "leave-one-framework-out error" in first.help


def test_the_batch_and_token_inputs_read_as_counts_and_a_typed_count_prices():
    at = run_page("plan", H100)
    batch, tokens = (at.text_input(key=k) for k in ("plan_global_batch_tokens", "plan_tokens"))
    assert (batch.value, tokens.value) == ("16Mi", "15T")  # 2²⁴ and 15×10¹²
    days = float(metric(at, "Days (expected)").replace(",", ""))
    tokens.set_value("30T").run()
    assert not at.exception and not at.error
    # twice the tokens, twice the days: the step is the same, each figure shown to 0.1 day
    assert abs(float(metric(at, "Days (expected)").replace(",", "")) - 2 * days) <= 0.15


def test_a_typed_value_that_is_not_a_count_says_the_field_and_what_was_expected():
    at = run_page("plan", H100)
    at.text_input(key="plan_global_batch_tokens").set_value("lots").run()
    assert not at.exception
    (said,) = [e.value for e in at.error]
    assert said.startswith("Batch (tokens) = 'lots' is not usable: expected a whole number")
    assert "from 1 to 1Ti" in said and said.endswith("showing 16Mi.")
    assert metric(at, "Step (expected)")  # the default batch is priced meanwhile


def test_a_link_restores_a_training_view():
    query = {
        **H100,
        "plan_model": "Llama-3.1-8B",
        "plan_gpus": "64",
        "plan_seq": "4096",
        "plan_global_batch_tokens": "4194304",
        "plan_precision": "fp8",
        "plan_tp": "2",
        "plan_recompute": "selective",
    }
    at = run_page("plan", query)
    assert not at.exception and not at.error and not notices(at)
    assert at.selectbox(key="plan_model").value == "Llama-3.1-8B"
    assert at.selectbox(key="plan_precision").value == "fp8"
    numbers = [at.number_input(key=f"plan_{k}").value for k in ("gpus", "seq", "tp")]
    assert numbers == [64, 4096, 2]
    assert at.text_input(key="plan_global_batch_tokens").value == "4194304"  # an old link's
    table = at.dataframe[0].value
    assert set(table["tp"]) == {2} and set(table["recompute"]) == {"selective"}
    assert "for 64 GPUs" in at.info[0].value


def test_a_link_restores_the_attention_kernel_which_moves_the_expected_step_not_the_bound():
    """Llama-3.1-8B at 32K tokens on 8 H100s: FlashAttention-2 prices the attention core
    slower (sample.FLASH2_ON_HOPPER), so the expected step grows; the bound is the same."""
    query = {
        **H100,
        "plan_model": "Llama-3.1-8B",
        "plan_gpus": "8",
        "plan_seq": "32768",
        "plan_global_batch_tokens": "262144",
    }
    fused, flash2 = (run_page("plan", {**query, **k}) for k in ({}, {"plan_attention": "flash2"}))
    assert not flash2.exception and not flash2.error and not notices(flash2)
    assert flash2.selectbox(key="plan_attention").value == "flash2"
    assert metric(flash2, "Step (bound)") == metric(fused, "Step (bound)")
    grown = seconds(metric(flash2, "Step (expected)")) / seconds(metric(fused, "Step (expected)"))
    assert grown > 1.2


def test_the_layout_fields_are_drawn_only_when_fixing_and_a_link_that_fixes_one_opens_them():
    """Off by default: none of the nine field inputs is drawn and the search chooses every
    field. Toggled on: drawn, at 0 / 'search'. A link that fixes one (?plan_tp=2) opens them
    with no ?plan_fix; ?plan_fix=false on such a link leaves the search free."""
    at = run_page("plan", H100)
    keys = {w.key for w in (*at.number_input, *at.selectbox)}
    assert at.toggle(key="plan_fix").value is False and "plan_tp" not in keys
    at.toggle(key="plan_fix").set_value(True).run()
    assert at.number_input(key="plan_tp").value == 0
    assert at.selectbox(key="plan_recompute").value == "search"
    fixed = run_page("plan", {**H100, "plan_tp": "2"})
    assert fixed.toggle(key="plan_fix").value is True
    assert set(fixed.dataframe[0].value["tp"]) == {2}
    free = run_page("plan", {**H100, "plan_tp": "2", "plan_fix": "false"})
    assert len(set(free.dataframe[0].value["tp"])) > 1


def test_a_link_restores_a_serving_view():
    query = {
        **H100,
        "plan_mode": "serve",
        "plan_serve_gpus": "16",
        "plan_serve_tpot_ms": "30",
        "plan_kv_bits": "16",
        "plan_serve_input_tokens": "2048",
    }
    at = run_page("plan", query)
    assert not at.exception and not at.error and not notices(at)
    assert at.radio(key="plan_mode").value == "serve"
    assert at.number_input(key="plan_serve_gpus").value == 16
    assert at.number_input(key="plan_serve_tpot_ms").value == 30
    assert at.selectbox(key="plan_kv_bits").value == 16
    tpot = metric(at, "TPOT (bound)")
    assert tpot.endswith(" ms") and float(tpot.split()[0]) <= 30
    plans = at.dataframe[0].value
    assert plans["within limits (expected)"].iloc[0] and set(16 % plans["TP"]) == {0}
    tpot_expected = float(metric(at, "TPOT (expected)").split()[0])
    assert tpot_expected <= 30  # the limit judges the expected TPOT


def test_a_serving_headline_leads_with_expected_latencies_and_their_bands_then_bounds():
    at = run_page("plan", {**H100, "plan_mode": "serve"})
    assert not at.exception and not at.error
    labels = [m.label for m in at.metric]
    assert labels[:4] == ["TPOT (expected)", "TPOT (bound)", "TTFT (expected)", "TTFT (bound)"]
    for name in ("TPOT", "TTFT"):
        low, high = band(at, f"{name} (expected)")
        assert seconds(metric(at, f"{name} (bound)")) <= low
        assert low < seconds(metric(at, f"{name} (expected)")) < high


def test_a_link_restores_a_static_batch_whose_ttft_is_the_batchs_prefill():
    """?plan_serve_static=true at batch 16 on one GPU: the toggle is on, TTFT is the 16
    prompts' one pass (over ten times the continuous view's one prompt) and says so."""
    query = {**H100, "plan_mode": "serve", "plan_serve_gpus": "1", "plan_serve_batch": "16"}
    query["plan_serve_ttft_ms"] = "0"  # none: the 16 prompts of Llama-3.1-70B take over 1 s
    continuous = run_page("plan", query)
    at = run_page("plan", {**query, "plan_serve_static": "true"})
    assert not at.exception and not at.error and not notices(at)
    assert at.toggle(key="plan_serve_static").value
    assert not continuous.toggle(key="plan_serve_static").value
    ttft = seconds(metric(at, "TTFT (bound)"))
    assert ttft > 10 * seconds(metric(continuous, "TTFT (bound)"))
    help_of = {m.label: m.help for m in at.metric}
    assert "the batch's prompts prefilled in one pass" in help_of["TTFT (bound)"]
    labels = [m.label for m in at.metric]
    assert labels[4:6] == ["Batch latency (expected)", "Batch latency (bound)"]
    assert "Batch latency (bound)" not in [m.label for m in continuous.metric]
    whole = ttft + 255 * seconds(metric(at, "TPOT (bound)"))  # 256 output tokens by default
    assert seconds(metric(at, "Batch latency (bound)")) == pytest.approx(whole, rel=0.01)


def test_a_hostile_link_falls_back_with_a_notice_naming_each_key():
    query = {
        **H100,
        "plan_model": "<script>",
        "plan_mode": "pie",
        "plan_gpus": "-3",
        "plan_zero": "7",
        "plan_recompute": "rm -rf",
        "plan_tp": "nan",
    }
    at = run_page("plan", query)
    assert not at.exception and not at.error
    said = " ".join(notices(at))
    for key in (
        "plan_model",
        "plan_mode",
        "plan_gpus",
        "plan_zero",
        "plan_recompute",
        "plan_tp",
    ):
        assert f"`{key}=" in said, key
    assert at.selectbox(key="plan_model").value == "Llama-3.1-70B"
    assert at.radio(key="plan_mode").value == "train"
    assert at.number_input(key="plan_gpus").value == 1024


def test_a_link_with_a_count_out_of_range_says_the_field_and_prices_the_default():
    at = run_page("plan", {**H100, "plan_tokens": "1e999"})
    assert not at.exception
    (said,) = [e.value for e in at.error]
    assert said.startswith("Training tokens = '1e999' is not usable: expected a number from 1M")
    assert metric(at, "Days (expected)")


def test_a_hostile_serving_link_falls_back_with_notices():
    query = {
        **H100,
        "plan_mode": "serve",
        "plan_serve_tpot_ms": "-1",
        "plan_kv_bits": "3",
        "plan_serve_batch": "1e999",
    }
    at = run_page("plan", query)
    assert not at.exception and not at.error
    said = " ".join(notices(at))
    for key in ("plan_serve_tpot_ms", "plan_kv_bits", "plan_serve_batch"):
        assert f"`{key}=" in said, key
    assert at.number_input(key="plan_serve_tpot_ms").value == 50


def test_a_layout_that_cannot_exist_shows_the_control_and_the_reason():
    at = run_page("plan", {**H100, "plan_tp": "3"})
    assert not at.exception
    assert at.error[0].value == "**TP** = 3 does not divide the 64 attention heads."
    at = run_page("plan", {**H100, "plan_mode": "serve", "plan_serve_tp": "3"})
    assert at.error[0].value == "**TP** = 3 does not divide the 64 attention heads."


def test_a_model_that_fits_nowhere_says_what_the_leanest_layout_needs():
    at = run_page(
        "plan",
        {
            **H100,
            "plan_model": "Llama-3.1-405B",
            "plan_gpus": "8",
            "plan_global_batch_tokens": "1048576",
        },
    )
    assert not at.exception
    assert at.error[0].value.startswith("No layout fits")


def test_twice_the_gpus_and_twice_the_batch_never_lower_the_tokens_per_s():
    at = run_page(
        "plan",
        {
            **H100,
            "plan_model": "Llama-3.1-8B",
            "plan_gpus": "64",
            "plan_global_batch_tokens": "4194304",
        },
    )
    before = float(metric(at, "Tokens/s (bound)").replace(",", ""))
    at.number_input(key="plan_gpus").set_value(128)
    at.text_input(key="plan_global_batch_tokens").set_value("8Mi").run()
    assert not at.exception and not at.error
    assert float(metric(at, "Tokens/s (bound)").replace(",", "")) >= before


def test_a_what_if_device_is_held_against_runs_on_its_published_row():
    query = {**H100, "what_if": "memory_bw_tbs=6.7", "plan_tab": "Held against published runs"}
    at = run_page("plan", query)
    assert not at.exception and not at.error and not notices(at)
    assert "memory 2× → 6.7 TB/s" in at.caption[0].value
    runs = at.dataframe[0].value
    assert list(runs["device"][:2]) == ["NVIDIA H100 SXM"] * 2  # same model and device first
