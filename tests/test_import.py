"""`import perfcore` stays light: none of streamlit, plotly or jax."""

import subprocess
import sys

HEAVY = ("streamlit", "plotly", "jax")


def test_import_perfcore_imports_no_ui_plotting_or_jax():
    code = (
        "import sys, perfcore, perfcore.cli, perfcore.explain.roofline, perfcore.results;"
        f"print([m for m in sys.modules if m.split('.')[0] in {HEAVY!r}])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
