"""perfcore dashboard: page config, the shared sidebar, and st.navigation over app_pages/.

The folder is not called pages/: Streamlit auto-discovers a pages/ folder (its v1
multi-page mode), which would bypass this script and its sidebar on a page's first run.
"""

import streamlit as st

import ui

st.set_page_config(page_title="perfcore", page_icon=":material/speed:", layout="wide")

# Each page's help is the question it answers: the landing page lists them from here.
PAGES = [
    st.Page(
        "app_pages/home.py",
        title="The model",
        icon=":material/functions:",
        default=True,
        help="What limits an operation: its FLOPs or its bytes?",
    ),
    st.Page(
        "app_pages/roofline.py",
        title="Roofline",
        icon=":material/show_chart:",
        help="Which roof limits each operation on this device, and how far below it is it?",
    ),
    st.Page(
        "app_pages/hierarchy.py",
        title="Memory hierarchy",
        icon=":material/layers:",
        help="How much arithmetic does one trip to each level of memory cost?",
    ),
    st.Page(
        "app_pages/generations.py",
        title="Generations",
        icon=":material/timeline:",
        help="Has arithmetic outgrown memory bandwidth from one generation to the next?",
    ),
    st.Page(
        "app_pages/precision.py",
        title="Precision",
        icon=":material/tune:",
        help="What do fewer bytes per element buy: a higher roof, a higher intensity?",
    ),
    st.Page(
        "app_pages/occupancy.py",
        title="Occupancy",
        icon=":material/grid_view:",
        help="Does the batch keep every compute unit busy, or does the last wave idle?",
    ),
    st.Page(
        "app_pages/scale_out.py",
        title="Scale-out",
        icon=":material/hub:",
        help="How long does a gradient all-reduce take inside a node and across nodes?",
    ),
    st.Page(
        "app_pages/workloads.py",
        title="Workloads",
        icon=":material/model_training:",
        help="A whole LLM: how fast, which bound, does it fit, on how many GPUs?",
    ),
    st.Page(
        "app_pages/plan.py",
        title="Plan",
        icon=":material/account_tree:",
        help="Which TP × PP × DP trains a model fastest on N GPUs; which plan serves it best?",
    ),
    st.Page(
        "app_pages/pitfalls.py",
        title="Pitfalls",
        icon=":material/report:",
        help="What do five beliefs that feel true cost on this device?",
    ),
    st.Page(
        "app_pages/measure.py",
        title="Measure",
        icon=":material/timer:",
        help="What does this machine really reach, timed with JAX?",
    ),
    st.Page(
        "app_pages/profile.py",
        title="Profile",
        icon=":material/troubleshoot:",
        help="Which ops of my program take the time, and what bounds each?",
    ),
]

page = st.navigation(PAGES)
ui.remember_pages(PAGES)
ui.reset_notices()
notices = st.container()
ui.sidebar()
page.run()
with notices:
    ui.show_notices()
ui.freeze_heap(page.url_path)
