"""The Plan page in AppTest: its defaults, links that restore train and serve views, hostile
links, a layout that cannot exist, a model that fits nowhere, and the takeaway's numbers."""

from tests.support.pages import notices, run_page

H100 = {"device": "NVIDIA H100 SXM"}


def metric(at, label: str) -> str:
    """The displayed value of the metric called `label`."""
    return next(m.value for m in at.metric if m.label == label)


def test_the_page_opens_at_its_defaults_with_no_exception_error_or_notice():
    at = run_page("plan")
    assert not at.exception and not at.error and not notices(at)
    labels = [m.label for m in at.metric]
    assert labels[:3] == ["Step (bound)", "Step (expected)", "MFU (bound)"]
    assert at.subheader[0].value == "Held against published runs"
    assert len(at.get("plotly_chart")) == 3 and len(at.dataframe) == 2


def test_the_takeaway_names_the_best_layouts_numbers():
    at = run_page("plan", H100)
    best = at.dataframe[0].value.iloc[0]  # the table's first row: the fastest layout
    shape = best["layout"].split(",")[0]
    text = at.info[0].value
    assert f"{shape} wins" in text
    assert f"step {metric(at, 'Step (bound)')} and MFU {metric(at, 'MFU (bound)')}" in text
    assert f"expect a {metric(at, 'Step (expected)')} step" in text


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
    table = at.dataframe[0].value
    assert set(table["tp"]) == {2} and set(table["recompute"]) == {"selective"}
    assert "for 64 GPUs" in at.info[0].value


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


def test_a_hostile_link_falls_back_with_a_notice_naming_each_key():
    query = {
        **H100,
        "plan_model": "<script>",
        "plan_mode": "pie",
        "plan_gpus": "-3",
        "plan_zero": "7",
        "plan_recompute": "rm -rf",
        "plan_tokens": "1e999",
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
        "plan_tokens",
        "plan_tp",
    ):
        assert f"`{key}=" in said, key
    assert at.selectbox(key="plan_model").value == "Llama-3.1-70B"
    assert at.radio(key="plan_mode").value == "train"
    assert at.number_input(key="plan_gpus").value == 1024


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
    at.number_input(key="plan_global_batch_tokens").set_value(8388608).run()
    assert not at.exception and not at.error
    assert float(metric(at, "Tokens/s (bound)").replace(",", "")) >= before


def test_a_what_if_device_is_held_against_runs_on_its_published_row():
    at = run_page("plan", {**H100, "what_if": "memory_bw_tbs=6.7"})
    assert not at.exception and not at.error and not notices(at)
    assert "memory 2× → 6.7 TB/s" in at.caption[0].value
    runs = at.dataframe[1].value
    assert list(runs["device"][:2]) == ["NVIDIA H100 SXM"] * 2  # same model and device first
