"""Registers the public-benchmark loaders (LoCoMo, LongMemEval) in ``loaders.FORMATS``.

Importing this module is enough; ``load_dataset`` then converts those files transparently.
"""

from memlab.datasets import locomo, longmemeval  # noqa: F401  (each registers itself on import)

__all__ = ["locomo", "longmemeval"]
