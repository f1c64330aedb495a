"""Times the full training-layout search (perfcore.model.plans.search) at 1,024 and 16,384 GPUs.

Method: each search runs REPEATS times in this process, each on a new Training (so a cold
memo: nothing priced before), timed with time.perf_counter; the table gives the min
and the median, the layouts priced and the layouts that fit. Goal: under 1 s at 1,024 GPUs
and under 5 s at 16,384. The last line times what a `plan` command adds once: pricing the
published runs of data/runs.csv and their efficiency table (perfcore.model.runs.published).
Run: `.venv/bin/python -m bench.plan`.
"""

from __future__ import annotations

import dataclasses
import statistics
import time

from perfcore.model.chip.specs import load_specs
from perfcore.model.llm.models import load_models
from perfcore.model.plans.search import search
from perfcore.model.plans.train_plan import Training
from perfcore.model.runs.published import priced_runs, table

REPEATS = 5
CASES = (  # (model, GPUs, sequence, global batch tokens): the 16M-token batches of Llama 3
    ("Llama-3.1-70B", 1024, 8192, 16 * 2**20),
    ("Llama-3.1-405B", 16384, 8192, 16 * 2**20),
    ("Llama-3.1-70B", 16384, 8192, 64 * 2**20),
    ("Mixtral-8x22B", 1024, 4096, 8 * 2**20),
)
DEVICE = "NVIDIA H100 SXM"


def time_search(t: Training) -> tuple[list[float], object]:
    """REPEATS cold timings of search(t), seconds, and the last result."""
    times, found = [], None
    for _ in range(REPEATS):
        t = dataclasses.replace(t, memo={})
        start = time.perf_counter()
        found = search(t)
        times.append(time.perf_counter() - start)
    return times, found


def main() -> None:
    """Print one line per case: min and median seconds, layouts priced and fitting, the best."""
    models, device = load_models(), load_specs()[DEVICE]
    print(f"{'model':<16} {'GPUs':>6} {'min s':>7} {'median s':>9} {'priced':>7} {'fit':>6}  best")
    for name, gpus, seq, batch in CASES:
        times, found = time_search(Training(models[name], device, gpus, seq, batch))
        best = found.best.layout.label() if found.best else "none fits"
        print(
            f"{name:<16} {gpus:>6,} {min(times):>7.3f} {statistics.median(times):>9.3f} "
            f"{found.considered:>7,} {len(found.candidates):>6,}  {best}"
        )
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        priced = priced_runs()
        table(priced.samples)
        times.append(time.perf_counter() - start)
    print(
        f"{'published runs':<23} {min(times):>7.3f} {statistics.median(times):>9.3f} "
        f"{len(priced.samples):>7,}  (priced and tabled, files read each time)"
    )


if __name__ == "__main__":
    main()
