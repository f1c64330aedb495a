"""Records as a GPU run would write them, with the timing lessons' printed numbers."""

from perfcore.measure.clock.harness import ISOLATED, LOOP, Measurement
from perfcore.measure.results import Record

STAMP = "2025-01-31T12:00:00+00:00"
H100_KIND = "NVIDIA H100 80GB HBM3"
US, MS = 1e-6, 1e-3


def record(experiment: str, label: str, seconds: float, method: str = LOOP, **kw) -> Record:
    """One record whose method's statistic is exactly `seconds` (three equal samples)."""
    calls = kw.pop("calls", 10 if method == LOOP else 1)
    synced = kw.pop("synced", True)
    samples = kw.pop("samples", (seconds,) * 3)
    m = Measurement(samples, calls, method, 3, synced)
    fields = {"spec_name": "NVIDIA H100 SXM", "dtype": "bfloat16", "precision": "bf16"} | kw
    return Record(
        experiment=experiment,
        label=label,
        measurement=m,
        device=H100_KIND,
        backend="gpu",
        jax_version="0.10.2",
        timestamp=STAMP,
        **fields,
    )


def matmul(experiment: str, label: str, n: int, seconds: float, **kw) -> Record:
    """A square bf16 matmul record: 2n³ FLOPs, 3n² x 2 bytes."""
    cost = {"flops": 2.0 * n**3, "bytes": 6.0 * n * n, "shapes": ((n, n), (n, n))}
    cost |= {"size": n, "size_kind": "side"} if experiment in ("sweep", "dispatch") else {}
    return record(experiment, label, seconds, **(cost | kw))


def lesson_records() -> tuple[Record, ...]:
    """Every experiment, timed as the timing lessons print them."""
    no_work = {"precision": "", "dtype": "float32"}
    return (
        matmul("timer", "naive timer", 4096, 0.052 * MS, synced=False),
        matmul("timer", "synchronized", 4096, 0.809 * MS),
        record("barriers", "read every step", 776 * US, calls=1000, **no_work),
        record("barriers", "accumulate, read once", 298 * US, calls=1000, **no_work),
        record("sweep", "empty call", 10 * US, **no_work),
        matmul("sweep", "matmul 256", 256, 12 * US, regime="overhead"),
        matmul("sweep", "matmul 1024", 1024, 82 * US, regime="utilisation"),
        matmul("sweep", "matmul 4096", 4096, 870 * US, regime="compute roof"),
        record("elementwise", "add", 0.20 * MS, bytes=128e6, flops=16e6, **no_work),
        record("elementwise", "mul", 0.27 * MS, bytes=128e6, flops=16e6, **no_work),
        record("elementwise", "sin", 0.16 * MS, bytes=128e6, flops=16e6, **no_work),
        record("elementwise", "sigmoid", 0.16 * MS, bytes=128e6, flops=16e6, **no_work),
        *(
            r
            for n, d, c in ((128, 14.9, 156.4), (512, 18.4, 736.4), (1024, 16.5, 5929.7))
            for r in (
                matmul("dispatch", f"dispatch {n}", n, d * US, method=ISOLATED, synced=False),
                matmul("dispatch", f"compute {n}", n, c * US, method=ISOLATED),
            )
        ),
        record("compile", "first call", 651.6 * MS, method=ISOLATED, **no_work),
        record("compile", "steady step", 5.9 * MS, calls=20, **no_work),
        matmul("blocking", "block at the end", 512, 727 * US, calls=50),
        matmul("blocking", "block every call", 512, 1524 * US, calls=50),
        *(
            matmul(
                "spread",
                f"isolated min, run {i + 1}",
                1024,
                t * US,
                method=ISOLATED,
                samples=(t * US, 1.1 * t * US, 1.3 * t * US),
            )
            for i, t in enumerate((5929.7, 6120.0, 7167.1, 6500.0, 6010.0))
        ),
        matmul("spread", "back-to-back mean", 1024, 6900 * US),
        matmul("ceilings", "best matmul", 4096, 870 * US),
        record("ceilings", "copy", 200 * US, bytes=536870912.0, flops=0.0, **no_work),
    )
