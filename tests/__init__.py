"""The tests: a package so that tests/support is imported by one name, tests.support, from
the test modules and from bench/ alike (pyproject's pytest `pythonpath` puts the repository
root on sys.path; bench runs as `python -m bench.NAME` from the root)."""
