"""Load: N concurrent sessions on one `streamlit run app.py`, each opening pages by link.

    .venv/bin/python -m bench.load [--sessions 1,5,20,50] [--seconds 60] [--total 10000]

Each session is a websocket client (reruns.Session over live.open_stream: no browser) that
sends, back to back with no think time, the rerun message the front end sends when a link is
opened: a page of app.py with a query string that changes the sidebar's device and precision.
Every run is timed from sending it to its script_finished; a run that shows an exception,
finishes badly or breaks the connection is an error. Phases run in turn on one server, N
sessions for --seconds each; then one phase of 20 sessions runs until --total runs have been
served since start, to show whether the server's memory (RSS, from /proc) stays within the
caches' bounds. Prints one row per phase: runs/s, p50/p95/max latency, errors, RSS at its end.

Absolute runs/s differ two-fold between machines of the same kind, so each phase is paired
with the same N sessions on the one-chart reference app (reruns.REFERENCE, the page that
bench/pages.py measures every page against), served beside app.py in the same run: each
reference phase runs right after its app phase (the last one for --seconds), opening the
reference by its link, and the row gives app runs/s and p95 as a ratio to the reference's.
A ratio that grows between runs is the app getting slower; one that holds while runs/s
falls is the machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from urllib.parse import urlencode

from bench.reruns import REFERENCE, Session, app_pages, open_stream, serve

DEVICES = ("NVIDIA H100 SXM", "AMD Instinct MI300X", "Google TPU v5p", "NVIDIA A100 SXM4 80GB")
PRECISIONS = ("bf16", "fp16", "fp8", "fp32")
LONG_PHASE_SESSIONS = 20


@dataclass
class Phase:
    """What N sessions got from the server in one phase; `reference`, the same N sessions'
    phase on the reference app right after it."""

    sessions: int
    seconds: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    rss_bytes: float = float("nan")
    reference: Phase | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def rate(self) -> float:
        """Runs served per second."""
        return len(self.latencies_ms) / self.seconds if self.seconds else float("nan")

    def p95(self) -> float:
        """The 95th percentile latency in ms (nearest rank), NaN with no run."""
        ms = sorted(self.latencies_ms)
        return ms[min(int(0.95 * len(ms)), len(ms) - 1)] if ms else float("nan")

    def row(self) -> str:
        """One line of the report."""
        ms = sorted(self.latencies_ms) or [float("nan")]
        ref = self.reference or Phase(self.sessions)
        return (
            f"{self.sessions:>8} {len(self.latencies_ms):>7} {self.rate():>7.1f} "
            f"{self.rate() / ref.rate():>7.2f}x {statistics.median(ms):>8.0f} {self.p95():>8.0f} "
            f"{self.p95() / ref.p95():>7.2f}x {ms[-1]:>8.0f} {len(self.errors):>6} "
            f"{self.rss_bytes / 2**20:>8.0f}   {ref.rate():>7.1f} {ref.p95():>8.0f}"
        )


COLUMNS = (
    ("sessions", 8),
    ("runs", 7),
    ("runs/s", 7),
    ("x ref", 8),
    ("p50 ms", 8),
    ("p95 ms", 8),
    ("x ref", 8),
    ("max ms", 8),
    ("errors", 6),
    ("RSS MiB", 8),
    ("  ref runs/s", 10),
    ("ref p95", 8),
)
HEADER = " ".join(f"{name:>{width}}" for name, width in COLUMNS)


def links() -> list[bytes]:
    """The rerun messages of opening every page of app.py by a link, for each device and
    precision in turn: the page changes every run, the controls every few."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    pages = [path.strip("/") for _, path in app_pages()]
    messages = []
    for (device, precision), page in product(zip(DEVICES, PRECISIONS, strict=True), pages):
        query = urlencode({"device": device, "precision": precision})
        rerun = {"query_string": query, "page_name": page}
        messages.append(BackMsg(rerun_script=rerun).SerializeToString())
    return messages


def rss_bytes(pid: int) -> float:
    """The resident memory of process `pid` in bytes (Linux /proc); NaN where unknown."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return float("nan")
    kb = next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS"))
    return float(kb) * 1024


def reference_links() -> list[bytes]:
    """The rerun message of opening the reference app by its link (the whole page, run)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    return [BackMsg(rerun_script={"query_string": ""}).SerializeToString()]


def session(url: str, start: int, phase: Phase, until, messages: list[bytes]) -> None:
    """One client: open a session and replay `messages` from `start` until `until()` is
    true; a broken connection is an error and a new session."""
    while not until():
        try:
            with open_stream(url) as ws:
                client = Session(ws, messages)
                client.i = start
                while not until():
                    try:
                        ms = client.rerun()
                    except RuntimeError as e:  # the run finished, but badly: go on
                        with phase.lock:
                            phase.errors.append(str(e))
                        continue
                    with phase.lock:
                        phase.latencies_ms.append(ms)
        except Exception as e:  # the connection broke or timed out
            with phase.lock:
                phase.errors.append(f"{type(e).__name__}: {e}")
            time.sleep(0.5)


def run_phase(server, n: int, until, messages: list[bytes] | None = None) -> Phase:
    """n concurrent sessions replaying `messages` (default: links()) until `until(phase)` is
    true; the server's RSS at the end."""
    phase, messages = Phase(n), messages or links()
    start = time.perf_counter()
    args = [(server.url, 7 * i, phase, lambda: until(phase), messages) for i in range(n)]
    threads = [threading.Thread(target=session, args=a) for a in args]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    phase.seconds = time.perf_counter() - start
    phase.rss_bytes = rss_bytes(server.pid)
    return phase


def for_seconds(seconds: float):
    """An `until` for run_phase: true once `seconds` have passed from now."""
    deadline = time.monotonic() + seconds
    return lambda phase: time.monotonic() > deadline


def measure(server, reference, sessions: list[int], seconds: float, total: int) -> list[Phase]:
    """The timed phases, each followed by its reference phase, then the long one up to
    `total` runs since start (its reference for `seconds`); printed as they end."""
    phases: list[Phase] = []
    print(HEADER, flush=True)
    for n in sessions:
        phases.append(run_phase(server, n, for_seconds(seconds)))
        phases[-1].reference = run_phase(reference, n, for_seconds(seconds), reference_links())
        print(phases[-1].row(), flush=True)
    done = sum(len(p.latencies_ms) for p in phases)
    if total > done:
        enough = lambda p: len(p.latencies_ms) >= total - done  # noqa: E731
        phases.append(run_phase(server, LONG_PHASE_SESSIONS, enough))
        phases[-1].reference = run_phase(
            reference, LONG_PHASE_SESSIONS, for_seconds(seconds), reference_links()
        )
        print(phases[-1].row(), f"(until {total} runs in all)", flush=True)
    return phases


def main(argv: list[str] | None = None) -> int:
    """Serve app.py, run the phases, print the table; exit 1 on any error."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sessions", default="1,5,20,50", help="comma-separated N per phase")
    p.add_argument("--seconds", type=float, default=60, help="length of each phase")
    p.add_argument("--total", type=int, default=10_000, help="runs before the last RSS")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "reference.py"
        script.write_text(REFERENCE)
        with serve("app.py") as server, serve(script) as reference:
            print(f"server RSS at start: {rss_bytes(server.pid) / 2**20:.0f} MiB", flush=True)
            sessions = [int(n) for n in args.sessions.split(",")]
            phases = measure(server, reference, sessions, args.seconds, args.total)
    print(
        "(x ref: app / the reference app under the same sessions just after; runs/s under "
        "1x and p95 over 1x say the app costs more than one chart)"
    )
    errors = [e for p in phases for e in p.errors + (p.reference.errors if p.reference else [])]
    for e in sorted(set(errors))[:10]:
        print("error:", e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
