"""The generations page: the printed growth on screen, inputs move numbers, links restore it."""

from tests.support.pages import ROUND_H100, notices, run_page

FP16 = {"precision": "fp16"}


def _metrics(at) -> list[str]:
    return [m.value for m in at.metric]


def test_at_fp16_v100_to_the_round_h100_grows_as_printed():
    at = run_page("generations", {**FP16, "ge_new": ROUND_H100})
    assert _metrics(at)[:3] == ["7.9x", "3.7x", "2.1x"]


def test_a_newer_device_with_a_higher_ridge_raises_the_ridge_growth():
    at = run_page("generations", FP16)
    assert _metrics(at)[2] == "2.1x"
    at.selectbox(key="ge_new").set_value("NVIDIA L40S").run()
    assert _metrics(at)[2] == "3.0x"


def test_a_longer_sequence_leaves_fewer_devices_memory_bound():
    at = run_page("generations", FP16)
    assert _metrics(at)[3] == "7 of 21"
    at.number_input(key="ge_attention_seq").set_value(8192).run()
    assert _metrics(at)[3] == "0 of 21"


def test_the_vendor_filter_keeps_only_that_vendors_devices():
    at = run_page("generations", {**FP16, "ge_view": "Table"})
    at.multiselect(key="ge_vendors").set_value(["AMD"]).run()
    assert set(at.dataframe[0].value["vendor"]) == {"AMD"}


def test_the_default_view_opens_on_fp16_with_its_growth_and_a_title_from_the_data():
    at = run_page("generations")
    assert _metrics(at) == ["7.9x", "3.7x", "2.1x", "7 of 21"]
    assert at.title[0].value == ("The fp16 ridge point rose 2.1x from V100 SXM2 to H100 SXM")
    assert any("V100 SXM2 publishes no bf16 peak" in i.value for i in at.info)


def test_a_precision_the_old_device_lacks_names_it_and_shows_the_nearest_shared_one():
    at = run_page("generations", {"precision": "fp8"})
    assert not at.exception
    note = next(i.value for i in at.info if "publishes no fp8" in i.value)
    assert note.startswith("The NVIDIA V100 SXM2 publishes no fp8 peak") and "fp16" in note
    assert _metrics(at)[:3] == ["7.9x", "3.7x", "2.1x"]


def test_at_bf16_a_pair_whose_ridge_fell_says_so_in_the_title():
    at = run_page("generations", {"ge_old": "NVIDIA H100 SXM", "ge_new": "NVIDIA H200 SXM"})
    assert not [i for i in at.info if "publishes no" in i.value]
    assert at.title[0].value == "The bf16 ridge point fell 1.4x from H100 SXM to H200 SXM"


def test_a_link_opens_the_page_with_its_values():
    query = {
        **FP16,
        "ge_old": "NVIDIA A100 SXM4 80GB",
        "ge_new": "NVIDIA B200",
        "ge_op": "matmul",
        "ge_matmul_k": "64",
        "ge_vendors": ["NVIDIA", "AMD"],
    }
    at = run_page("generations", query)
    assert at.selectbox(key="ge_old").value == "NVIDIA A100 SXM4 80GB"
    assert at.selectbox(key="ge_new").value == "NVIDIA B200"
    assert at.selectbox(key="ge_op").value == "matmul"
    assert at.number_input(key="ge_matmul_k").value == 64
    assert at.multiselect(key="ge_vendors").value == ["NVIDIA", "AMD"]
    assert not notices(at)


def test_garbage_link_values_fall_back_with_notices():
    query = {"ge_old": "<b>x</b>", "ge_op": "fft", "ge_attention_seq": "-3", "ge_vendors": "Acme"}
    at = run_page("generations", query)
    assert not at.exception
    assert at.selectbox(key="ge_old").value == "NVIDIA V100 SXM2"
    assert at.number_input(key="ge_attention_seq").value == 512
    texts = " ".join(notices(at))
    assert all(f"`{k}=" in texts for k in query)


def test_the_chart_growth_and_table_are_tabs_drawn_one_at_a_time():
    at = run_page("generations", FP16)
    assert [c.key for c in at.get("plotly_chart")] == ["ge_chart"] and not at.dataframe
    growth = run_page("generations", {**FP16, "ge_view": "Growth, old to new"})
    assert [c.key for c in growth.get("plotly_chart")] == ["ge_growth_chart"]
    old_link = run_page("generations", {**FP16, "ge_growth": "true"})  # the toggle's, before
    assert [c.key for c in old_link.get("plotly_chart")] == ["ge_growth_chart"]
    assert _metrics(growth) == _metrics(at) == _metrics(old_link)
