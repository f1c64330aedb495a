"""Benchmarks of the product itself. Run each from the repository root as a module,
`.venv/bin/python -m bench.pages`, so that it imports perfcore and tests.support by name."""
