"""Real memory systems as strategies: strategy types other than memlab's composed one.

``type: mem0`` and ``type: langmem`` in a run config play the real libraries through adapters
(:mod:`memlab.external.mem0_adapter`, :mod:`memlab.external.langmem_adapter`); a user's own
class registered with :func:`memlab.strategies.types.strategy_type` plugs in the same way. Their model calls go through
memlab's local endpoint (:mod:`memlab.external.ledger`), so every system is measured with one
token ledger, one embedder, one answerer and one set of metrics. docs/external.md is the guide.
"""

from memlab.external.base import (
    AdapterEnv,
    ExternalParams,
    ExternalStrategy,
    ExternalSystemError,
    Hit,
    Message,
)

__all__ = ["AdapterEnv", "ExternalParams", "ExternalStrategy", "ExternalSystemError", "Hit", "Message"]
