"""One accelerator and its links, priced by hand: the spec database and the models it feeds.

specs (Device, load_specs, what-if changes), csvrows and sanity (reading a typed CSV, every
problem reported), validate (one check for every number a user gives), ops (FLOPs and bytes
per operation), roofline, precision, hierarchy, occupancy, comm (collectives: bytes each GPU
sends and the link time), generations and pitfalls; kernel_kinds and kernels (a device's
measured kernel curves and the one kernel model), cold (what an operand read cold adds) and
concurrency. Imports nothing else of
perfcore but perfcore.format and perfcore.errors.
"""
