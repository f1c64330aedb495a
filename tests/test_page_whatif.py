"""The sidebar's what-if: a link restores the changed device on every page, named as changed;
its fields write the link's text; a hostile text falls back with a notice; measurements meet
only the published row of the device they ran on."""

import json

import pytest

from perfcore.measure import results
from tests.support.measured import lesson_records
from tests.support.pages import notices, run_page, upload_folded
from ui import whatif

PAGES = [
    "home",
    "roofline",
    "hierarchy",
    "generations",
    "precision",
    "occupancy",
    "scale_out",
    "workloads",
    "pitfalls",
    "measure",
    "profile",
]
H100 = "NVIDIA H100 SXM"
CHANGE = "memory_bw_tbs=6.7,scaleup_domain=72"
NAMED = "NVIDIA H100 SXM, memory 2× → 6.7 TB/s; scale-up domain 8 → 72 GPUs"


def charts(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def names(at) -> list[str]:
    """The trace names of the page's first chart."""
    return [str(t.get("name", "")) for t in charts(at)[0]["data"]]


def texts(at, kind: str) -> list[str]:
    return [str(e.value) for e in at.get(kind)]


def upload(at, key: str):
    """Upload the timing lessons' GPU records (measured on an H100 SXM) to the uploader `key`."""
    data = results.to_json(lesson_records()).encode()
    if key == "rf_results":  # in the roofline's expander, drawn while it is open
        return upload_folded(at, key, "results.json", data)
    uploader = next(u for u in at.file_uploader if u.key == key)
    return uploader.set_value(("results.json", data, "application/json")).run()


@pytest.mark.parametrize("page", ["home", "roofline", "workloads"])
def test_a_link_restores_the_changed_device_named_as_changed(page):
    at = run_page(page, {"device": H100, "what_if": CHANGE})
    assert not at.exception and not notices(at)
    assert at.text_input(key="what_if").value == CHANGE
    assert at.get("popover")[0].proto.popover.label == "What-if: 2 figures changed"
    assert any(t.startswith(f"What-if — {NAMED}: ") for t in texts(at, "caption"))
    assert not any(t.startswith(f"Published spec — {H100}:") for t in texts(at, "caption"))


def test_home_calculates_on_the_changed_device():
    """137.4 GFLOP over 100.7 MB: 1,364 FLOP/byte, compute-bound on the H100 SXM (BF16 989.4
    TFLOP/s dense): 137.4e9 / 989.4e12 = 139 µs; with every peak twice, 69.4 µs."""
    at = run_page("home", {"device": H100, "what_if": "peak_x=2"})
    assert at.subheader[0].value == f"Quick calculator: {H100}, every peak 2× at bf16"
    assert [m.value for m in at.metric][1:] == ["compute", "1.98 PFLOP/s", "69.4 µs"]


def test_the_roofline_draws_the_changed_memory_roof():
    at = run_page("roofline", {"device": H100, "what_if": CHANGE})
    spec = charts(at)[0]
    assert spec["layout"]["title"]["text"] == f"Roofline — {NAMED}"
    assert "device memory 6.70 TB/s" in [t.get("name") for t in spec["data"]]


def test_workloads_decode_halves_with_twice_the_memory_bandwidth():
    """Llama-3.1-8B decode, batch 16, 4k context: 11.1 FLOP/byte, far under the H100's ridge
    (~295 at bf16 with 3.35 TB/s, ~148 at 6.7), so every op is memory-bound and the time
    halves: 7.41 ms published, 7.41 / 2 = 3.71 ms at 6.7 TB/s. The expected time (the
    published decode runs' efficiency, which a what-if keeps) halves with it."""
    plain = run_page("workloads", {"device": H100})
    changed = run_page("workloads", {"device": H100, "what_if": "memory_bw_tbs=6.7"})

    def shown(at, label: str) -> str:
        return next(m.value for m in at.metric if m.label == label)

    bound = "Time (bound, sum of ops)"
    assert (shown(plain, bound), shown(changed, bound)) == ("7.41 ms", "3.71 ms")
    expected = [float(shown(at, "Time (expected)").split()[0]) for at in (plain, changed)]
    assert expected[1] == pytest.approx(expected[0] / 2, rel=0.01)
    legend = " ".join(
        str(t.get("name", "")) + str(s["layout"]) for s in charts(changed) for t in s["data"]
    )
    assert "NVIDIA H100 SXM, memory 2× → 6.7 TB/s" in legend


def test_generations_lists_the_changed_device_beside_the_published_rows():
    at = run_page("generations", {"device": H100, "what_if": CHANGE, "ge_view": "Table"})
    devices = list(at.dataframe[0].value["device"])
    assert NAMED in devices and H100 in devices


@pytest.mark.parametrize(
    "text",
    [
        "<script>alert(1)</script>",
        "memory_bw_tbs=fast",
        "scaleup_domain=7.5",
        "memory_bw_tbs=-1",
        "memory_bw_tbs=1e999",
    ],
)
def test_a_hostile_what_if_falls_back_to_the_published_row_with_a_notice(text):
    at = run_page("home", {"device": H100, "what_if": text})
    assert not at.exception
    said = [n for n in notices(at) if "`what_if=" in n]
    assert len(said) == 1 and said[0].endswith(f"showing {H100} as published.")
    assert at.subheader[0].value == f"Quick calculator: {H100} at bf16"


def test_the_fields_run_only_while_the_popover_is_open_and_refill_when_it_reopens():
    """Closed, the popover runs no number field (the text alone binds the link); opened, its
    fields hold the link's changes; closed and opened again (Streamlit dropped their state
    meanwhile), they hold them still."""
    at = run_page("home", {"device": H100, "what_if": CHANGE})
    assert not [f for f in at.number_input if f.key.startswith("_wi_field_")]
    assert at.text_input(key="what_if").value == CHANGE
    for is_open in (True, False, True):
        at.session_state[whatif.OPEN] = is_open
        at.run()
        fields = {f.key: f.value for f in at.number_input if f.key.startswith("_wi_field_")}
        assert fields.get("_wi_field_memory_bw_tbs") == (6.7 if is_open else None)
    assert at.subheader[0].value.startswith(f"Quick calculator: {H100}, memory 2×")


def opened(at):
    """Run `at`'s change, then again with the popover open: AppTest sends a widget's run the
    popover closed, where a browser keeps it open while its fields are used
    (tests/test_browser_whatif.py types in one)."""
    at.run()
    at.session_state[whatif.OPEN] = True
    return at.run()


def test_a_field_writes_the_links_text_and_the_text_refills_the_fields():
    at = opened(run_page("home", {"device": H100, "what_if": CHANGE}))
    assert at.number_input(key="_wi_field_memory_bw_tbs").value == 6.7
    at.number_input(key="_wi_field_memory_gib").set_value(160)
    opened(at)
    assert at.query_params["what_if"] == f"{CHANGE},memory_gib=160"
    assert "capacity 2× → 160 GiB" in at.subheader[0].value
    at.text_input(key="what_if").set_value("peak_x=2")
    opened(at)
    assert at.number_input(key="_wi_field_memory_bw_tbs").value is None
    assert at.number_input(key="_wi_field_peak_x").value == 2
    assert at.subheader[0].value == f"Quick calculator: {H100}, every peak 2× at bf16"
    at.button(key="_wi_clear").click()
    opened(at)
    assert at.subheader[0].value == f"Quick calculator: {H100} at bf16"
    assert at.number_input(key="_wi_field_peak_x").value is None


def test_the_profile_page_says_it_judges_against_the_published_rows():
    at = run_page("profile", {"device": H100, "what_if": CHANGE})
    assert not at.exception and any(f"here {H100})" in t for t in texts(at, "info"))


def test_the_measure_page_keeps_the_published_spec_and_says_so():
    at = upload(run_page("measure", {"device": H100, "what_if": CHANGE}), "me_results")
    assert not at.exception
    assert any(f"here {H100})" in t for t in texts(at, "info"))
    assert any(
        t == f"Spec figures: **{H100}** (its own row, matched to the device it ran on)."
        for t in texts(at, "caption")
    )
    assert not any(NAMED in json.dumps(s) for s in charts(at))
    assert not any("What-if" in t for t in texts(at, "caption"))


def test_roofline_measured_points_meet_the_published_roofs_not_the_what_ifs():
    at = upload(run_page("roofline", {"device": H100, "what_if": CHANGE}), "rf_results")
    assert not at.exception
    names = [str(t.get("name", "")) for t in charts(at)[0]["data"]]
    assert any(n.startswith("measured") for n in names)
    assert any(n.startswith(f"{H100}: ") for n in names)  # the published row's roofs, dashed
    assert any(
        t.startswith(f"The measured points ran on {H100}, not") for t in texts(at, "caption")
    )


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_on_a_device_with_every_field_changed(page):
    query = {
        "device": H100,
        "precision": "fp8",
        "compare": H100,
        "what_if": "peak_x=1.5,fp8_tflops=4000,memory_bw_tbs=8,memory_gib=192,"
        "scaleup_gbs=1800,scaleup_domain=72,scaleout_gbs=100",
    }
    at = run_page(page, query)
    assert not at.exception and not notices(at)
    captions = texts(at, "caption")
    if page not in ("generations", "measure", "profile"):  # these show the published rows
        assert any(t.startswith(f"What-if — {H100}, every peak 1.5×; FP8 peak") for t in captions)
    if page in ("roofline", "hierarchy", "occupancy", "scale_out", "workloads"):
        assert any(t.startswith(f"Published spec — {H100}: ") for t in captions)  # compared


def test_the_published_row_is_compared_with_its_own_what_if_not_with_itself():
    at = run_page("roofline", {"device": H100, "compare": H100})
    assert not any(n.startswith(f"{H100}: ") for n in names(at))
    at = run_page("roofline", {"device": H100, "compare": H100, "what_if": CHANGE})
    assert any(n.startswith(f"{H100}: ") for n in names(at))
