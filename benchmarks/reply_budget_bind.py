"""How often the offline model's reply budget binds on the shipped suites (issue 29, item 11).

The offline model now keeps every reply within ``request.max_tokens or spec.max_tokens`` (512 by
default), as the openai provider sends it. This plays the seed presets with the budget *not*
applied (the previous behaviour) and counts the replies that would have been longer — the calls
whose results the budget can change. Usage::

    python benchmarks/reply_budget_bind.py [CONFIG] [--limit N]

Prints, per purpose, calls played, replies over the budget and the longest reply in tokens.
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter

import memlab.llm.offline_model as om
from memlab.offline import budget


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("config", nargs="?", default="evals/presets.yaml")
    ap.add_argument("--limit", type=int, default=None)
    args = ap.parse_args()

    calls: Counter = Counter()
    over: Counter = Counter()
    longest: dict[str, int] = {}
    real_fit = budget.fit

    def counting_fit(outputs, tool_calls, fields, max_tokens):
        purpose, spec_budget = _call
        calls[purpose] += 1
        n = budget.reply_tokens(outputs, tool_calls, fields)
        longest[purpose] = max(longest.get(purpose, 0), n)
        if n > (max_tokens or spec_budget or n):
            over[purpose] += 1
        return outputs, tool_calls, False  # the previous behaviour: nothing cut

    _call: list = ["", None]
    real_complete = om.OfflineChatModel.complete

    def complete(self, request):
        # the previous behaviour: the roles see only the request's budget, the spec's is not applied
        _call[:] = [request.purpose or "?", self.max_tokens]
        saved, self.max_tokens = self.max_tokens, None
        try:
            return real_complete(self, request)
        finally:
            self.max_tokens = saved

    budget.fit = counting_fit
    om.OfflineChatModel.complete = complete
    from memlab.harness.config import load_config
    from memlab.harness.runner import Runner

    with tempfile.TemporaryDirectory() as tmp:
        cfg = load_config(args.config, {"output_dir": tmp, "limit_conversations": args.limit,
                                        "embedding_cache": None})
        Runner(cfg, progress=False).run()
    budget.fit = real_fit
    print(f"{'purpose':<12} {'calls':>8} {'over budget':>12} {'longest reply (tokens)':>24}")
    for purpose in sorted(calls):
        print(f"{purpose:<12} {calls[purpose]:>8} {over[purpose]:>12} {longest[purpose]:>24}")
    print(f"total: {sum(over.values())} of {sum(calls.values())} replies longer than their budget")


if __name__ == "__main__":
    main()
