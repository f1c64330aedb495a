"""The arithmetic of accelerator performance: specs, roofline, ops, precision, memory
hierarchy, occupancy, communication, generations and pitfalls. Standard library only:
nothing here imports perfcore.measure, numpy, jax, plotly or streamlit.
"""
