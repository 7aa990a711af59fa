"""Recall and cost against history length: one dataset, lengthened to several lengths two ways, several strategies.

Answers "how does memory strategy X hold up as the history grows?" with numbers. The dataset is lengthened by
the deterministic scaler (``memlab datasets scale``; probes and evidence stay valid) in two modes: **filler**
(impersonal chit-chat: longer, not harder) and **informative** (sessions of new people, their updates and
distractors: what real chat adds — a memory that must choose what to keep shows it here, not on filler). Every
length of both modes is played through every strategy in one run, and the run folder gets, besides the usual
report, ``length_sweep.csv`` (per mode × length × strategy: evidence recall with CI, answer accuracy, memory
tokens per probe, model tokens per conversation) and ``recall_vs_length.png`` (informative solid, filler dashed).

    .venv/bin/python evals/length_sweep.py                       # recall suite, both modes, two lengths
    .venv/bin/python evals/length_sweep.py --mode informative --dataset datasets/starter.yaml --targets 20k 60k --limit 2
    .venv/bin/python evals/length_sweep.py --strategies full_context agent_chat react_mem supervisor --workers 2
    .venv/bin/python evals/length_sweep.py --strategies full_context fact_rag --model-base-url http://localhost:8000/v1 --model gpt-4o-mini

Scaled files are written to ``results/length_sweep/`` (git-ignored) and reused by name.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from memlab.harness.config import RunConfig  # noqa: E402
from memlab.datasets.scale import format_tokens, parse_tokens, scale_file  # noqa: E402
from memlab.analysis.report import length_table, plot_recall_vs_length, write_report  # noqa: E402
from memlab.harness.runner import Runner  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", default="datasets/suites/recall.yaml")
    ap.add_argument("--targets", nargs="+", default=["35k", "105k"],
                    help="total dataset tokens per scaled copy (the unscaled dataset is always included)")
    ap.add_argument("--strategies", nargs="+", default=["full_context", "recent_window", "fact_rag", "message_rag"])
    ap.add_argument("--mode", choices=["both", "filler", "informative"], default="both",
                    help="how the history is lengthened (both: every target in each mode)")
    ap.add_argument("--workers", type=int, default=1, help="units played at once")
    ap.add_argument("--limit", type=int, default=None, help="first N conversations only")
    ap.add_argument("--model", default=None, help="OpenAI-compatible model name (default: the offline stand-in model)")
    ap.add_argument("--model-base-url", default=None)
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)

    out_dir = ROOT / "results" / "length_sweep"
    out_dir.mkdir(parents=True, exist_ok=True)
    datasets = [args.dataset]
    modes = ["filler", "informative"] if args.mode == "both" else [args.mode]
    for mode in modes:
        for target in args.targets:
            n = parse_tokens(target)
            path = out_dir / f"{Path(args.dataset).stem}-{format_tokens(n)}{'' if mode == 'filler' else '-' + mode}.yaml"
            if not path.exists():
                t0 = time.perf_counter()
                scale_file(args.dataset, n, path, mode=mode)
                print(f"scaled {args.dataset} ({mode}) → {path} ({time.perf_counter() - t0:.1f} s)")
            datasets.append(str(path))
    model = {"provider": "offline"}
    if args.model or args.model_base_url:
        model = {"provider": "openai", "model": args.model or "gpt-4o-mini", "base_url": args.model_base_url}
    config = RunConfig.model_validate({
        "name": "length-sweep", "description": f"{args.dataset} at {len(datasets)} lengths",
        "datasets": datasets, "strategies": [{"name": s} for s in args.strategies], "model": model,
        "limit_conversations": args.limit, "executor": {"type": "auto", "workers": args.workers},
    })
    t0 = time.perf_counter()
    run_dir = Runner(config, progress=not args.no_progress).run()
    write_report(run_dir, quiet=True)
    from memlab.analysis.results import load_run

    res = load_run(run_dir)
    table = length_table(res)
    table.to_csv(run_dir / "length_sweep.csv", index=False)
    plot_recall_vs_length(res, table, run_dir / "recall_vs_length.png")
    cols = ["strategy", "mode", "history_tokens_per_user", "evidence_recall", "ci_low", "ci_high", "answer_correct",
            "context_tokens_per_probe", "model_tokens_per_conv"]
    print(table[cols].round(3).to_string(index=False))
    print(f"model: {res.model_label} · wall {time.perf_counter() - t0:.0f} s · {run_dir}/length_sweep.csv, recall_vs_length.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
