"""Measure the behaviour profile of the model that produced a run (``memlab profile``).

The offline model's knobs (:mod:`memlab.offline.behaviour`) name behaviours any model has: how
much of what is said it extracts, whether it recognises a changed value, what its summaries keep,
what its agent stores, when it abstains. ``items`` reads a run's records and datasets into the
items each knob is measured on; ``estimate`` turns them into a profile with intervals clustered by
user, written as a file the offline model accepts (docs/sensitivity.md).
"""
