"""Benchmark 2 (issue 12): endpoint throughput at 1, 4, 16, 64 units in flight.

A local OpenAI-compatible test server (``tests/support/fake_openai_server.py``) answers every
call after ``--latency`` (0.3 s) and refuses calls over ``--server-rps`` with HTTP 429 and a
``Retry-After``. memlab runs units in threads (``executor: threads``, ``workers`` = the level),
with the client-side limiter set just under the server's limit (``--client-rps``) and
``max_in_flight`` = the level. Each conversation is one unit with two probes' worth of answer
calls (strategies ``no_memory`` and ``recent_window``: no embeddings, so the endpoint is the only
cost). Printed per level: calls, wall time between the first request and the last reply,
throughput, speed-up over 1 in flight, 429s the server sent (each retried by the client after
its Retry-After), and lost/duplicated calls (probes without exactly one successful call, and
server replies without exactly one recorded call). One command::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/endpoint_scaling_bench.py [--levels 1 4 16 64]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if not __package__:  # run as `python benchmarks/endpoint_scaling_bench.py`: memlab and benchmarks.* from this checkout
    sys.path.insert(0, str(ROOT))


def dataset(path: Path, n: int) -> Path:
    convs = [{"id": f"c{i}", "namespace": f"c{i}", "sessions": [{"id": "s1", "timestamp": "2024-01-01T10:00:00", "turns": [
        {"id": "t1", "role": "user", "text": f"My locker code is {1000 + i}."},
        {"id": "t2", "role": "assistant", "text": "Noted."}]}],
        "probes": [{"id": f"c{i}-q", "after_turn": "t2", "question": "What is my locker code?", "category": "single_hop",
                    "gold": str(1000 + i), "evidence": ["t1"]}]} for i in range(n)]
    path.write_text(json.dumps({"name": "endpoint-bench", "conversations": convs}))
    return path


def level(work: Path, server, inflight: int, convs: int, client_rps: float) -> dict:
    from memlab.harness.config import RunConfig
    from memlab.runfolder.recorder import read_jsonl
    from memlab.harness.runner import Runner

    ds = dataset(work / f"d{inflight}.json", convs)
    before = (server.received, server.served, server.rate_limited, len(server.requests))
    cfg = RunConfig.model_validate({
        "name": f"inflight{inflight}", "datasets": [str(ds)], "output_dir": str(work / "runs"),
        "embedding_cache": None, "strategies": [{"name": "no_memory"}, {"name": "recent_window"}],
        "model": {"provider": "openai", "model": f"bench-{inflight}", "base_url": server.base_url, "api_key_env": "BENCH_KEY",
                  "max_attempts": 8, "retry_base_delay_s": 0.2,
                  "rate_limit": {"requests_per_minute": client_rps * 60, "max_in_flight": inflight}},
        "executor": {"type": "threads", "workers": inflight}})
    run_dir = Runner(cfg, progress=False).run()
    reqs = server.requests[before[3]:]
    served = server.served - before[1]
    wall = max(r["t_done"] or 0 for r in reqs) - min(r["t_received"] for r in reqs)
    calls = [c for c in read_jsonl(run_dir / "calls.jsonl")]
    ok_per_probe = Counter((c["strategy"], c["conversation_id"], c["probe_id"]) for c in calls if c.get("ok", True) and c.get("probe_id"))
    probes = [(p["strategy"], p["conversation_id"], p["probe_id"]) for p in read_jsonl(run_dir / "probes.jsonl")]
    lost = sum(1 for p in probes if ok_per_probe[p] == 0)
    duplicated = sum(1 for p in probes if ok_per_probe[p] > 1) + abs(served - sum(ok_per_probe.values()))
    return {"inflight": inflight, "calls": served, "wall_s": wall, "per_s": served / wall, "429s": server.rate_limited - before[2],
            "lost": lost, "duplicated": duplicated, "failed_calls": sum(1 for c in calls if not c.get("ok", True)),
            "server_max_in_flight": max(server.max_in_flight, 0)}


def main() -> None:
    from tests.support.fake_openai_server import FakeOpenAIServer

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", type=int, nargs="+", default=[1, 4, 16, 64])
    ap.add_argument("--latency", type=float, default=0.3)
    ap.add_argument("--server-rps", type=float, default=100.0)
    ap.add_argument("--client-rps", type=float, default=90.0)
    args = ap.parse_args()
    os.environ["BENCH_KEY"] = "sk-bench"
    work = Path(tempfile.mkdtemp(prefix="memlab-bench2-"))
    rows = []
    try:
        with FakeOpenAIServer(latency_s=args.latency, rate_limit_rps=args.server_rps) as server:
            for n in args.levels:
                rows.append(level(work, server, n, convs=max(8, 2 * n), client_rps=args.client_rps))
                r = rows[-1]
                print(f"{n:>3} in flight: {r['calls']:>4} calls in {r['wall_s']:6.2f} s = {r['per_s']:6.1f}/s "
                      f"(x{r['per_s'] / rows[0]['per_s']:.1f})  429s {r['429s']}  lost {r['lost']}  duplicated {r['duplicated']}  "
                      f"failed {r['failed_calls']}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
