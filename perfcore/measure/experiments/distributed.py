"""The worker processes behind `python -m perfcore collectives` (perfcore.cli.collectives).

launch() spawns N local processes, each joining jax.distributed with a coordinator on 127.0.0.1 at
a free port (process 0 hosts it). Collectives then span every process's devices, as on a
multi-host machine; between CPU processes they go over gloo (jax's
jax_cpu_collectives_implementation). Every process times the same calls; process 0 writes
the results file. The parent imports no JAX.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
from pathlib import Path

from perfcore.measure import results

WORKER = "perfcore.measure.experiments.distributed"
TIMEOUT_S = 600.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker_command(process_id: int, processes: int, port: int, suite: str, out: Path) -> list:
    """The command line of one worker process."""
    return [
        sys.executable,
        "-m",
        WORKER,
        "--process-id",
        str(process_id),
        "--processes",
        str(processes),
        "--port",
        str(port),
        "--suite",
        suite,
        "--out",
        str(out),
    ]


def _wait(workers: list[subprocess.Popen], deadline: float) -> str | None:
    """Wait for every worker; None when all exit 0, else the first failure (or the hang)."""
    while time.monotonic() < deadline:
        codes = [w.poll() for w in workers]
        failed = [(i, c) for i, c in enumerate(codes) if c]
        if failed:
            return f"process {failed[0][0]} exited with status {failed[0][1]}"
        if all(c == 0 for c in codes):
            return None
        time.sleep(0.05)
    return f"the {len(workers)} processes did not finish in time"


def launch(
    processes: int, suite: str, out: Path, timeout_s: float = TIMEOUT_S, env: dict | None = None
) -> str | None:
    """Run the workers (in env, default this one's) to the end; None if all succeeded, else
    why not (a machine that opens no socket, as a TPU host here, cannot run them)."""
    try:
        port = free_port()
    except OSError as error:
        return f"no TCP port on 127.0.0.1 for the coordinator ({error})"
    workers = [
        subprocess.Popen(worker_command(i, processes, port, suite, out), env=env)
        for i in range(processes)
    ]
    try:
        return _wait(workers, time.monotonic() + timeout_s)
    finally:  # one failed or hung process would leave the others waiting on it
        for w in workers:
            if w.poll() is None:
                w.kill()
                w.wait()


def worker(args: argparse.Namespace) -> int:
    """One process: join the group, run the collectives, process 0 writes the file."""
    import jax

    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(
        coordinator_address=f"127.0.0.1:{args.port}",
        num_processes=args.processes,
        process_id=args.process_id,
    )
    from perfcore.measure.experiments import runner

    records = runner.run_suite(args.suite, experiments=("collectives",))
    if args.process_id == 0:
        results.save_results(records, args.out)
    jax.distributed.shutdown()
    return 0


def main(argv: list[str] | None = None) -> int:
    """The worker's entry point (the parent spawns it); the exit status."""
    parser = argparse.ArgumentParser(prog=f"python -m {WORKER}")
    parser.add_argument("--process-id", type=int, required=True)
    parser.add_argument("--processes", type=int, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--suite", required=True)
    parser.add_argument("--out", type=Path, required=True)
    return worker(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
