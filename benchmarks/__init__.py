"""memlab's benchmarks: scripts that measure speed, cost and interval coverage (benchmarks/README.md).

A package so that a benchmark imports another one (``from benchmarks.store_bench import make_items``)
and the tests import a benchmark's helpers as ``benchmarks.<module>``, never through ``sys.path``.
Run one as ``python -m benchmarks.<name>`` from the repository root (or ``python benchmarks/<name>.py``:
each puts the checkout on the path when run as a file). Nothing in ``memlab`` imports this package.
"""
