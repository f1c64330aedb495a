"""The hand calculation's printed tables (round H100 figures), copied verbatim from its output.

Shared by the golden tests and the page tests that show the same rows.
"""

# Table 4: precision, bytes/element, peak TF/s, ridge FLOP/byte, intensity FLOP/byte.
PRECISION_ROWS = [
    ("fp32", 4, "67", "20", "683"),
    ("tf32", 4, "495", "148", "683"),
    ("fp16", 2, "990", "296", "1365"),
    ("fp8", 1, "1979", "591", "2731"),
]

# Table 5: batch (= blocks), waves, utilisation %, SMs idle, on 132 SMs.
WAVE_ROWS = [
    (1, 1, "0.8", 131),
    (8, 1, "6.1", 124),
    (32, 1, "24.2", 100),
    (64, 1, "48.5", 68),
    (132, 1, "100.0", 0),
    (133, 2, "50.4", 131),
    (264, 2, "100.0", 0),
    (512, 4, "97.0", 16),
]
