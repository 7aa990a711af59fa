"""What model calls cost: prices, budgets, and estimates before a run (docs/cost.md).

- :mod:`memlab.cost.prices`: USD per token for a model, from LiteLLM's offline price map (installed
  with DSPy) or a user's table; cached input tokens at the cached rate;
- :mod:`memlab.cost.budget`: ``budget: {max_usd, max_tokens, max_calls}`` enforced at the model layer,
  before the call that would cross a limit;
- :mod:`memlab.harness.estimate`: ``memlab estimate CONFIG --model M``: tokens, cost ranges and wall time
  projected from an offline dry run (or a recorded run).

This package sits beside both pipelines: the analysis side prices recorded calls with
:mod:`memlab.cost.prices`, which imports nothing from memlab.
"""
