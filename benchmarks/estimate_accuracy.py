"""How good is ``memlab estimate``? The estimate against an actual run through the fake endpoint.

The actual run plays a config with every role, the judge and ragas's LLM metrics on an
OpenAI-compatible endpoint: the project's fake server (tests/support/fake_openai_server.py),
which answers each request as the offline stand-ins would (so replies have the stand-in's
lengths) and reports usage counted with o200k, like a gpt-4o-mini endpoint. The estimate is made
for gpt-4o-mini from a dry run of the first ``--limit`` users of each dataset (0: all of them),
scaled to the whole config. Printed per purpose: calls, input and output tokens, estimate vs actual
and the relative error; then the totals and USD. What this does not measure — a real model whose
replies differ in length or lead the strategies elsewhere — is discussed in docs/cost.md.

    .venv/bin/python benchmarks/estimate_accuracy.py --limit 5            # datasets/dev/dev.yaml, 10 users
    .venv/bin/python benchmarks/estimate_accuracy.py --limit 0 --strategies full_context fact_rag
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if not __package__:  # run as `python benchmarks/estimate_accuracy.py`: memlab and benchmarks.* from this checkout
    sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default=str(ROOT / "datasets" / "dev" / "dev.yaml"))
    parser.add_argument("--limit", type=int, default=5, help="users dry-run per dataset (0: all)")
    parser.add_argument("--strategies", nargs="+", default=["full_context", "fact_rag", "recent_window"])
    args = parser.parse_args()

    from memlab.analysis.results import load_run
    from memlab.harness.estimate import estimate
    from memlab.harness.config import RunConfig
    from memlab.harness.runner import Runner
    from tests.support.fake_openai_server import FakeOpenAIServer
    from tests.test_cost_estimate import standin_responder

    work = Path(tempfile.mkdtemp(prefix="memlab-estimate-bench-"))
    with FakeOpenAIServer() as server:
        server.responder = standin_responder()
        endpoint = {"provider": "openai", "model": "gpt-4o-mini", "base_url": server.base_url, "max_attempts": 2}
        strategies = [{"name": s, **({"store": {"type": "in_memory"}} if s == "fact_rag" else {})} for s in args.strategies]
        config = RunConfig.model_validate({
            "name": "actual", "datasets": [args.dataset], "output_dir": str(work),
            "embedding_cache": None, "model": endpoint, "judge": endpoint,
            "metrics": ["evidence_recall", "answer_correct", "ragas_faithfulness"], "strategies": strategies})
        actual = load_run(Runner(config, progress=False).run())
        est = estimate(config, ["gpt-4o-mini"], limit=args.limit or None, output_dir=work / "dry", progress=False)
    calls = actual.calls
    print(f"dataset {Path(args.dataset).name} · strategies {', '.join(args.strategies)} · dry run of "
          f"{args.limit or 'all'} user(s) per dataset · {'; '.join(est.notes) or 'no scaling'}")
    print(f"{'purpose':<12}{'calls est/act':>18}{'input est/act':>22}{'err':>8}{'output est/act':>20}{'err':>8}")
    rows = est.rows
    for purpose, got in calls.groupby("purpose"):
        mine = rows[rows["purpose"] == purpose]
        ci, ai = mine["input_tokens"].sum(), got["prompt_tokens"].sum()
        co, ao = mine["output_tokens"].sum(), got["completion_tokens"].sum()
        print(f"{purpose:<12}{mine['calls'].sum():>9.0f}/{len(got):<8}{ci:>12,.0f}/{ai:<9,}{(ci - ai) / ai:>+8.1%}"
              f"{co:>10,.0f}/{ao:<9,}{(co - ao) / ao:>+8.1%}")
    ci, ai = rows["input_tokens"].sum(), calls["prompt_tokens"].sum()
    co, ao = rows["output_tokens"].sum(), calls["completion_tokens"].sum()
    print(f"{'total':<12}{rows['calls'].sum():>9.0f}/{len(calls):<8}{ci:>12,.0f}/{ai:<9,}{(ci - ai) / ai:>+8.1%}"
          f"{co:>10,.0f}/{ao:<9,}{(co - ao) / ao:>+8.1%}")
    spent = actual.cost()["usd_per_conv"].mul(actual.conversations_per_strategy()).sum()
    total = est.totals().iloc[0]
    print(f"USD: estimate {total['usd']:.4f} (max {total['usd_max']:.4f}) vs actual {spent:.4f} "
          f"({(total['usd'] - spent) / spent:+.1%}) · code {actual.manifest.get('code_version')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
