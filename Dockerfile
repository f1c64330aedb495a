# perfcore dashboard with JAX on the GPU.
#   docker build -t perfcore .                      # JAX with CUDA 12 (the `cuda` extra)
#   docker build --build-arg EXTRA= -t perfcore .   # CPU-only JAX
#   docker run --gpus all -p 8501:8501 perfcore     # needs the NVIDIA Container Toolkit
# CUDA comes from the jax[cuda12] wheels (nvidia-* on PyPI); the host provides only the driver.
FROM python:3.11-slim

# Which extra of pyproject.toml to install: "cuda" (jax[cuda12]) or empty for CPU only.
ARG EXTRA=cuda

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    XLA_PYTHON_CLIENT_PREALLOCATE=false \
    NVIDIA_VISIBLE_DEVICES=all \
    NVIDIA_DRIVER_CAPABILITIES=compute,utility

RUN groupadd --gid 10001 perfcore \
    && useradd --create-home --uid 10001 --gid 10001 --shell /usr/sbin/nologin perfcore

WORKDIR /app

# Dependencies first, from pyproject.toml alone (the only list), with an empty package in place
# of perfcore/: this multi-GB layer then survives every edit to the code. Editable, so perfcore
# is imported from /app/perfcore once COPY . . brings it, and finds /app/data/specs.csv beside it.
COPY pyproject.toml README.md ./
RUN mkdir perfcore && touch perfcore/__init__.py \
    && pip install --no-cache-dir -e ".${EXTRA:+[$EXTRA]}"

COPY . .

USER 10001:10001

EXPOSE 8501

HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request as u; u.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4)"]

# Port, headless, upload limit, XSRF and the rest come from .streamlit/config.toml.
CMD ["streamlit", "run", "app.py"]
