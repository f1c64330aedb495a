"""perfcore dashboard: page config, the shared sidebar, and st.navigation over app_pages/.

The folder is not called pages/: Streamlit auto-discovers a pages/ folder (its v1
multi-page mode), which would bypass this script and its sidebar on a page's first run.
"""

import gc

import streamlit as st

import ui

st.set_page_config(page_title="perfcore", page_icon=":material/speed:", layout="wide")

PAGES = [
    st.Page("app_pages/home.py", title="The model", icon=":material/functions:", default=True),
    st.Page("app_pages/roofline.py", title="Roofline", icon=":material/show_chart:"),
    st.Page("app_pages/hierarchy.py", title="Memory hierarchy", icon=":material/layers:"),
    st.Page("app_pages/generations.py", title="Generations", icon=":material/timeline:"),
    st.Page("app_pages/precision.py", title="Precision", icon=":material/tune:"),
    st.Page("app_pages/occupancy.py", title="Occupancy", icon=":material/grid_view:"),
    st.Page("app_pages/scale_out.py", title="Scale-out", icon=":material/hub:"),
    st.Page("app_pages/workloads.py", title="Workloads", icon=":material/model_training:"),
    st.Page("app_pages/pitfalls.py", title="Pitfalls", icon=":material/report:"),
    st.Page("app_pages/measure.py", title="Measure", icon=":material/timer:"),
]

page = st.navigation(PAGES)
ui.reset_notices()
notices = st.container()
ui.sidebar()
page.run()
with notices:
    ui.show_notices()

# Once per process, after the first run has imported the heavy modules (pandas, plotly, the
# page's perfcore): move them out of the collector's sight. The live server collects garbage
# after every run; with them frozen that walk is short (PERFORMANCE.md).
if gc.get_freeze_count() == 0:
    gc.freeze()
