"""The clock: timing samples and their statistics, the harness, device facts, the lock.

stats (quantiles, median, IQR, spreads), harness (warm up outside the clock, then sync, time,
sync: Measurement), schema (the results file's fields kept on the dataclasses they describe),
devices (what JAX reports about a device, read without importing JAX), lock (one
measurement at a time per process), faults (the minor page faults a call takes) and host (the
cores this process may run on and the host's last-level cache). May
import perfcore.model.chip, perfcore.format and perfcore.errors; nothing else of
perfcore.measure.
"""
