"""The fresh-page experiment: every page of a fresh mapping written once, each thread writing
its own part."""

from __future__ import annotations

import resource

import pytest

from perfcore.measure.experiments import pages


@pytest.mark.parametrize("threads", [1, 3])
def test_every_page_of_the_fresh_map_faults_once_whatever_the_threads(threads):
    n_pages = 2048  # 8 MiB, parts of 682, 683 and 683 pages over 3 threads: none left out
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    pages.touch_fresh(n_pages * pages.PAGE, threads)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    assert n_pages <= faults < n_pages * 1.25
