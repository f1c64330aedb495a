"""A profiler capture read: the XSpace wire format walked, its op events read into columns.

xspace (the capture's wire format walked with the stdlib, so a bad file is refused in one
line), wire (protobuf messages read many at a time into numpy), planes (one plane's events
and stats), events (a capture's XLA op events and the HLO modules it embeds), capture (a file,
folder or upload read) and write (a capture built, for tests and benches). Imports nothing
else of perfcore but perfcore.errors; no JAX.
"""
