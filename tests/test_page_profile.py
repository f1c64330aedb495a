"""The Profile page: it opens on the bundled example fully judged and predicted, reads a
results file or a capture, judges the ops against the roofs picked (the diagnoses follow the
pick), compares before and after, refuses a bad capture in one line, and opens from a link."""

import dataclasses
import gzip
import io
import json
import zipfile
from pathlib import Path

import pytest

from perfcore.explain.measure import profile_example
from perfcore.measure import results
from perfcore.measure.clock.harness import Measurement
from perfcore.measure.profile.hlo import xla_private
from perfcore.measure.profile.read import write, xspace
from tests.support.pages import notices, run_page

DATA = Path(__file__).parent / "data" / "profile"
MLP = (DATA / "mlp_profile.json").read_bytes()
H100 = "NVIDIA H100 SXM"
OPS = {"pr_tab": "Ops"}
CHANGES = {"pr_tab": "Time by category, what to change"}
PREDICTED = {"pr_tab": "Predicted before it ran, against measured"}


def titles(at) -> list[str]:
    return [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]


def upload(at, key: str, name: str, data: bytes):
    at.session_state[f"{key}_open"] = True  # its uploader is drawn while its expander is open
    at.run()
    return at.file_uploader(key=key).upload(name, data, "application/octet-stream").run()


def _halved() -> bytes:
    """The MLP profile with every op's time halved: the 'after' of a change."""
    records = results.load_results_bytes(MLP, "mlp.json")
    faster = [
        dataclasses.replace(
            r, measurement=Measurement(samples=tuple(s / 2 for s in r.measurement.samples))
        )
        for r in records
    ]
    return results.to_json(tuple(faster)).encode()


def _bundled(at) -> bool:
    return any(i.value.startswith("Bundled example") for i in at.info)


def _step_line(at) -> bool:
    """The step predicted against its untraced wall is said."""
    lines = [c.value for c in at.caption]
    return any(t.startswith("Step: predicted") and "untraced wall" in t for t in lines)


def _texts(at) -> list[str]:
    return [e.value for kind in ("info", "caption", "markdown") for e in getattr(at, kind)]


def test_the_page_opens_on_the_bundled_example_every_op_judged_and_predicted():
    """No upload: the bundled transformer block, labelled with its device and date, every op
    on the measured roofline in its file, each diagnosis and "What to change" line a fraction
    of a roof, a predicted column beside measured and the prediction's chart and totals."""
    at = run_page("profile")
    assert not at.exception and _bundled(at)
    first = profile_example.bundled()[0]
    label = next(i.value for i in at.info if i.value.startswith("Bundled example"))
    assert first.device in label and first.timestamp[:10] in label
    texts = _texts(at)
    assert not any("no roof" in t.lower() for t in texts)
    assert any("measured roofline where it ran (cpu)" in t for t in texts)
    assert titles(at) == ["Each op on the roofline"] and _step_line(at)  # the first tab
    table = run_page("profile", OPS).dataframe[0].value
    assert table["bound by"].isin(["compute", "memory"]).all()
    assert not table["diagnosis"].str.contains("no roof").any()
    assert table["predicted / step"].notna().any()
    changed = run_page("profile", CHANGES)
    changes = [m for m in changed.markdown if m.value.startswith("- ")]
    assert changes and all("%" in m.value or "overhead-bound" in m.value for m in changes)
    assert titles(changed) == ["Time by category"]
    assert titles(run_page("profile", PREDICTED)) == ["Predicted against measured, per op"]


def test_the_tpu_example_opens_from_its_link_judged_against_the_tpus_spec_row():
    """?pr_bundled=TPU v5e: the block as a TPU v5e ran it, held to that chip's published roofs
    (the default for its device), predicted from the kernels measured there."""
    at = run_page("profile", query={"pr_bundled": "TPU v5e", **OPS})
    assert not at.exception and _bundled(at) and _step_line(at)
    first = profile_example.bundled("TPU v5e")[0]
    label = next(i.value for i in at.info if i.value.startswith("Bundled example"))
    assert first.backend == "tpu" and first.device in label
    assert at.selectbox(key="pr_roofs").value == "Google TPU v5e"
    assert any("TPU v5 lite" in t and "measured kernels" in t for t in _texts(at))
    table = at.dataframe[0].value
    assert (table["XLA name"] == "fusion.15").any()


def test_a_hosted_instance_opens_on_the_same_example_with_no_run_button(monkeypatch):
    """What a visitor to a hosted instance sees first: the example, judged and predicted."""
    monkeypatch.setenv("PERFCORE_HOSTED", "1")
    at = run_page("profile")
    assert not at.exception and _bundled(at) and _step_line(at)
    assert not [b for b in at.button if b.key == "pr_run"]


def test_a_results_file_shows_every_op_on_the_roofline_and_in_the_table():
    at = upload(run_page("profile"), "pr_before", "mlp.json", MLP)
    assert not at.exception and titles(at) == ["Each op on the roofline"]
    assert [t.label for t in at.tabs] == ["Roofline", "Ops", CHANGES["pr_tab"]]  # none predicted
    at = upload(run_page("profile", OPS), "pr_before", "mlp.json", MLP)
    assert not _bundled(at)
    table = at.dataframe[0].value
    assert "predicted / step" not in table  # the file predicted nothing
    assert len(table) == 6 and list(table["op"])[0] == "ynn_fusion.1"
    assert "ynn_fusion.1" in at.info[0].value  # the takeaway names the slowest op


def test_the_diagnoses_follow_the_roofs_picked():
    at = upload(run_page("profile", OPS), "pr_before", "mlp.json", MLP)
    unjudged = at.dataframe[0].value["diagnosis"].iloc[0]
    at.selectbox(key="pr_roofs").set_value(H100).run()
    judged = at.dataframe[0].value["diagnosis"].iloc[0]
    assert "no roof" in unjudged and "%" in judged and judged != unjudged
    assert any(H100 in c.value for c in at.caption)


def test_before_and_after_compare_op_by_op():
    """Every op's time halved: the total falls by 50 %, each op by half its time."""
    at = upload(run_page("profile"), "pr_before", "mlp.json", MLP)
    at = upload(at, "pr_after", "after.json", _halved())
    assert not at.exception and at.tabs[-1].label == "Before and after"
    assert any("(-50.0 %)" in i.value for i in at.info)  # said above the tabs
    at.session_state["pr_tab"] = "Before and after"
    at.run()
    assert titles(at) == ["Change per op, after - before"]
    compare = at.dataframe[0].value
    assert (compare["change %"].dropna().round(9) == -50.0).all()  # shown in %


def test_a_gpu_capture_is_judged_against_its_spec_row():
    """A capture of one cuBLAS gemm on an H100: matched to its specs row by device_name."""
    proto = xla_private.module_proto((DATA / "gpu_step.hlo").read_text())
    events = [
        write.OpEvent(op, "jit_step", 7, run, 100_000 * run + t, d)
        for run in range(3)
        for op, t, d in (
            ("custom-call.1", 0, 50_000),
            ("pallas.1", 52_000, 20_000),
            ("loop_tanh_fusion", 74_000, 10_000),
        )
    ]
    data = write.xspace(
        {("jit_step", 7): proto}, events, device_stats={"device_name": "NVIDIA H100 80GB HBM3"}
    )
    at = upload(run_page("profile", OPS), "pr_before", "gpu.xplane.pb", data)
    assert not at.exception
    assert at.selectbox(key="pr_roofs").value == H100
    table = at.dataframe[0].value
    assert list(table["XLA name"]) == ["custom-call.1", "pallas.1", "loop_tanh_fusion"]
    assert table["op"].iloc[0].startswith("cublas$gemm")  # named by what it does
    assert "no cost model" in table["diagnosis"].iloc[1]


def _zip(name: str, data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, data)
    return out.getvalue()


BAD = {
    "empty": ("bad.xplane.pb", b"", "empty file"),
    "truncated": ("bad.xplane.pb", write.xspace({("m", 1): b"\x0a\x01m"}, [])[:-3], "truncated"),
    "not protobuf": ("bad.xplane.pb", b"not a capture", "not a profiler capture"),
    "wrong type": ("renamed.xplane.pb", gzip.compress(b"{}"), "gzip"),  # the uploader filters .gz
    "zip bomb": ("trace.zip", _zip("t/h.xplane.pb", bytes(2 * 2**20)), "zip bomb"),
    "over the limit": (
        "big.xplane.pb",
        b"\x0a" * (xspace.UPLOAD_LIMIT_BYTES + 1),
        "over the limit",
    ),
}


@pytest.mark.parametrize("case", BAD)
def test_a_bad_capture_is_one_line_and_the_page_goes_on(case):
    name, data, match = BAD[case]
    at = upload(run_page("profile"), "pr_before", name, data)
    assert not at.exception
    (error,) = at.error
    assert error.value.startswith(name) and match in error.value and "\n" not in error.value
    assert _bundled(at)


def test_a_link_opens_the_same_view_and_a_stale_value_falls_back():
    at = upload(
        run_page("profile", {"pr_named": "2", "pr_roofs": H100}), "pr_before", "m.json", MLP
    )
    assert at.number_input(key="pr_named").value == 2
    assert at.selectbox(key="pr_roofs").value == H100
    at = run_page("profile", {"pr_named": "lots"})  # said on the first view, the example's
    assert notices(at) and at.number_input(key="pr_named").value == 6


def test_a_local_instance_profiles_a_built_in_program():
    """The scan example, profiled here: its matmul runs 8 times a step; with no specs row for
    this CPU and no roofline measured, it is judged against the quick roofline measured here."""
    at = run_page("profile", {"pr_example": "scan", **OPS}, timeout=180)
    at.button(key="pr_run").click().run()
    assert not at.exception and not _bundled(at)
    table = at.dataframe[0].value
    matmul = table[table["category"] == "matmul/conv"].iloc[0]
    assert matmul["runs / step"] == 8
    assert any("measured roofline of this machine (quick," in c.value for c in at.caption)
    assert not any("no roof" in t.lower() for t in _texts(at))


def test_a_program_profiled_here_is_predicted_from_this_sessions_kernel_curves():
    """With kernel curves measured in this session (the bundled example's, on this CPU), the
    program profiled here shows predicted beside measured and the step against its wall."""
    from perfcore.explain.measure import measure as measure_view

    kernels = tuple(r for r in profile_example.bundled() if r.experiment == "kernels")
    at = run_page("profile", {"pr_example": "mlp", **OPS}, timeout=180)
    at.session_state[measure_view.STATE] = kernels
    at.button(key="pr_run").click().run()
    assert not at.exception and not _bundled(at)
    assert at.dataframe[0].value["predicted / step"].notna().any()
    assert PREDICTED["pr_tab"] in [t.label for t in at.tabs]
    assert _step_line(at)
