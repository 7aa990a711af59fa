"""``memlab view`` on a LoCoMo-sized run: how long the index takes, how fast pages open, how much
memory the server holds (issue 27; figures in docs/view.md).

The run: 12 strategies (every preset and bound but ``all_threads``) × the LoCoMo-shaped generator's
10 conversations with 200 questions each (:mod:`locomo_like` — ``write(path, conversations=…,
sessions=…, probes=…, seed=…)``), 24,000 probe records, ``probes.jsonl`` about a gigabyte. Then, each
in a fresh process as a user meets it:

1. **index** — ``python -m memlab.view.index RUN`` from a cold start (the cached index removed): wall
   and CPU seconds, the child's peak memory;
   — twice: with the run's embedding cache moved aside (every answer embedded: the worst case),
   then with the cache the first build filled;
2. **server** — ``memlab view RUN --no-browser``: seconds until it prints its URL (the index fresh);
3. **overview** — the runs page in headless Chromium (Playwright) until rendered, cold and warm, and
   ``GET /api/runs``;
4. **probe pages** — ``--probes`` random probes (every strategy's context, explanations and calls on
   one page): the API call and, for a few, the page rendered in Chromium; median, p95, max;
5. **other pages** — the probe list filtered to one strategy's misses, a comparison, a timeline;
6. **memory** — the server's resident memory after all of it (``VmRSS``) and its peak (``VmHWM``).

Usage::

    .venv/bin/python -m benchmarks.view_bench --out results/view-bench            # run + measure
    .venv/bin/python -m benchmarks.view_bench --run-dir RUN --parts view          # measure only

The run needs the project's PostgreSQL for ``agent_memory_pg`` (``MEMLAB_PG_DSN`` or scripts/pg.sh).
Load averages are printed with every figure: on a shared machine wall times say as much about the load.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if not __package__:  # run as `python benchmarks/view_bench.py`: memlab and benchmarks.* from this checkout
    sys.path.insert(0, str(ROOT))

from benchmarks import locomo_like  # noqa: E402  (the LoCoMo-shaped generator: write()/generate() only)

STRATEGIES = ["agent_chat", "agent_memory_pg", "fact_rag", "full_context", "message_rag", "no_memory", "oracle", "react",
              "react_mem", "recent_window", "son_of_andrew", "supervisor"]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def make_run(out: Path, args: argparse.Namespace) -> Path:
    from memlab.harness.config import RunConfig, load_config
    from memlab.harness.runner import Runner

    dataset = locomo_like.write(out / "locomo_like.json", conversations=args.conversations, sessions=args.sessions,
                                probes=args.probes_per_conversation, seed=args.seed)
    default = load_config(str(ROOT / "evals" / "default.yaml"))
    cfg = RunConfig.model_validate({
        "name": "view-bench", "datasets": [str(dataset)], "output_dir": str(out / "runs"),
        "embedding_cache": str(out / "embeddings.npz"), "model": default.model.model_dump(mode="json"),
        "strategies": [{"name": s} for s in args.strategies.split(",")],
        "executor": {"type": "processes", "workers": args.workers}})
    t0 = time.perf_counter()
    print(f"== run: {len(cfg.strategies)} strategies × {args.conversations} conversations, load {load()}", flush=True)
    run_dir = Runner(cfg, progress=False).run()
    print(f"   {run_dir} in {time.perf_counter() - t0:.0f} s, load {load()}", flush=True)
    return run_dir


def measure_index(run: Path, without_vectors: bool = False) -> dict:
    """One cold build (the cached index removed); ``without_vectors``: the run's embedding cache moved
    aside meanwhile, so the answers and gold answers the semantic-similarity metric compares are
    embedded too (the worst case: a run whose cache was deleted)."""
    shutil.rmtree(run / ".view", ignore_errors=True)
    cache = Path((json.loads((run / "manifest.json").read_text()).get("config") or {}).get("embedding_cache") or "")
    aside = cache.with_name(cache.name + ".aside") if without_vectors and cache.is_file() else None
    if aside is not None:
        cache.rename(aside)
    try:
        return _build(run, "no embedding vectors" if aside is not None else "embedding cache as found")
    finally:
        if aside is not None:
            aside.replace(cache)


def _build(run: Path, what: str) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    l0, t0 = load(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "memlab.view.index", str(run)], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"index failed: {proc.stderr[-2000:]}")
    size = sum(p.stat().st_size for p in run.glob("*.jsonl"))
    out = {"wall_s": round(wall, 1), "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1),
           "peak_rss_mb": round(after.ru_maxrss / 1024), "run_mb": round(size / 2**20),
           "index_mb": round((run / ".view" / "index.json").stat().st_size / 2**20, 1), "load": [l0, load()],
           "last_lines": proc.stderr.strip().splitlines()[-4:], "what": what}
    print(f"== index (cold, {what}): {out['wall_s']} s wall, {out['cpu_s']} CPU s, child peak {out['peak_rss_mb']} MB; run streams "
          f"{out['run_mb']} MB, index {out['index_mb']} MB; load {l0} → {load()}", flush=True)
    return out


class Server:
    def __init__(self, run: Path) -> None:
        t0 = time.perf_counter()
        self.proc = subprocess.Popen([sys.executable, "-m", "memlab.cli", "view", str(run), "--no-browser"], cwd=ROOT,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     env=dict(os.environ, PYTHONPATH=str(ROOT)))
        self.url = ""
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("memlab view: http"):
                self.url = line.split(": ", 1)[1].strip()
                break
        if not self.url:
            raise SystemExit("memlab view did not start")
        self.start_s = time.perf_counter() - t0
        threading.Thread(target=lambda: [None for _ in self.proc.stdout], daemon=True).start()
        self.base = self.url.split("?", 1)[0]
        self.token = self.url.split("token=", 1)[1].split("#", 1)[0]

    def get(self, path: str, **params: object) -> tuple[float, dict]:
        from urllib.parse import urlencode

        req = urllib.request.Request(self.base + path + "?" + urlencode(params), headers={"X-Memlab-Token": self.token})
        t0 = time.perf_counter()
        with urllib.request.urlopen(req, timeout=600) as r:
            data = json.loads(r.read())
        return time.perf_counter() - t0, data

    def memory(self) -> dict:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        val = {k: int(line.split()[1]) // 1024 for line in status.splitlines() for k in ("VmRSS", "VmHWM") if line.startswith(k + ":")}
        return {"rss_mb": val.get("VmRSS"), "peak_mb": val.get("VmHWM")}

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


def stats(xs: list[float]) -> dict:
    xs = sorted(xs)
    return {"n": len(xs), "median_s": round(statistics.median(xs), 3), "p95_s": round(xs[max(0, int(0.95 * len(xs)) - 1)], 3),
            "max_s": round(xs[-1], 3)}


def browser_times(server: Server, routes: list[str]) -> list[float]:
    """Seconds from navigation to the page rendered (body[data-ready=1]) in headless Chromium."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("   (playwright not installed: no browser timings)")
        return []
    out = []
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
        page = b.new_page(viewport={"width": 1400, "height": 1000})
        for route in routes:
            page.goto("about:blank")
            t0 = time.perf_counter()
            page.goto(server.base + "?token=" + server.token + "#" + route)
            page.wait_for_selector("body[data-ready='1']", timeout=600_000)
            out.append(time.perf_counter() - t0)
            err = page.evaluate("document.body.getAttribute('data-error')")
            if err:
                raise SystemExit(f"{route}: {err}")
        b.close()
    return out


def measure_view(run: Path, n_probes: int, seed: int) -> dict:
    res: dict = {}
    server = Server(run)
    try:
        res["server_start_s"] = round(server.start_s, 2)
        print(f"== server: URL after {server.start_s:.1f} s (index fresh), load {load()}", flush=True)
        t_api, runs = server.get("api/runs")
        res["api_runs_s"] = round(t_api, 3)
        pages = browser_times(server, ["/runs", "/runs"])
        if pages:
            res["overview_page_s"] = {"cold": round(pages[0], 3), "warm": round(pages[1], 3)}
        print(f"== overview: API {t_api:.2f} s; page {res.get('overview_page_s')}; load {load()}", flush=True)
        _, facets = server.get("api/facets", run=0)
        _, listing = server.get("api/probes", run=0, per_page=500, strategy=facets["strategy"][0])
        rng = random.Random(seed)
        keys = sorted({(r["dataset"], r["conversation_id"], r["probe_id"]) for r in listing["rows"]})
        for page in range(1, listing["pages"]):
            _, more = server.get("api/probes", run=0, per_page=500, strategy=facets["strategy"][0], page=page)
            keys += [(r["dataset"], r["conversation_id"], r["probe_id"]) for r in more["rows"]]
        sample = rng.sample(sorted(set(keys)), min(n_probes, len(set(keys))))
        api_times, sizes, sides, whole = [], [], [], []
        for k, (ds, conv, probe) in enumerate(sample):
            t, d = server.get("api/probe", run=0, dataset=ds, conversation=conv, probe=probe)
            api_times.append(t)
            sizes.append(sum(s["total_lines"] or 0 for s in d["strategies"]))
            if k < 10:  # every strategy opened: each context, explanations and calls on their own
                each = [server.get("api/probe", run=0, dataset=ds, conversation=conv, probe=probe, strategy=s["strategy"])[0]
                        for s in d["strategies"]]
                sides += each
                whole.append(sum(each))
        res["probe_api"] = stats(api_times)
        res["probe_side_api"] = stats(sides)
        res["probe_all_sides_api"] = stats(whole)
        res["probe_context_lines"] = {"median": statistics.median(sizes), "max": max(sizes)}
        shown = browser_times(server, [f"/probe?run=0&dataset={ds}&conversation={conv}&probe={probe}"
                                       for ds, conv, probe in sample[:5]])
        if shown:
            res["probe_page"] = stats(shown)
        print(f"== probe pages ({len(sample)} probes × {len(facets['strategy'])} strategies, median "
              f"{res['probe_context_lines']['median']} context lines a probe): as opened (one context whole, the "
              f"others summarised) API {res['probe_api']}, in Chromium {res.get('probe_page')}; one strategy opened "
              f"{res['probe_side_api']}; all {len(facets['strategy'])} opened, summed {res['probe_all_sides_api']}; "
              f"load {load()}", flush=True)
        others = {}
        s = facets["strategy"]
        for name, path, params in [
                ("misses of one strategy", "api/probes", {"run": 0, "strategy": s[0], "metric": "evidence_recall", "outcome": "miss"}),
                ("text search", "api/probes", {"run": 0, "q": "birthday"}),
                ("compare", "api/compare", {"run": 0, "a": s[0], "b": s[-1]}),
                ("compare probe", "api/compare/probe", {"run": 0, "a": s[0], "b": s[-1], "dataset": sample[0][0],
                                                        "conversation": sample[0][1], "probe": sample[0][2]}),
                ("timeline", "api/timeline", {"run": 0, "strategy": s[0], "dataset": sample[0][0], "user": facets["user"][0],
                                              "probe": sample[0][2], "conversation": sample[0][1]})]:
            t, _ = server.get(path, **params)
            others[name] = round(t, 3)
        res["other_api_s"] = others
        res["server_memory"] = server.memory()
        print(f"== other pages (API s): {others}", flush=True)
        print(f"== server memory: {res['server_memory']} (VmRSS now, VmHWM peak); load {load()}", flush=True)
    finally:
        server.stop()
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="folder for the dataset, the run and results.json")
    ap.add_argument("--run-dir", type=Path, help="measure this run instead of making one")
    ap.add_argument("--parts", default="run,index,view", help="comma-separated: run, index, view")
    ap.add_argument("--strategies", default=",".join(STRATEGIES))
    ap.add_argument("--conversations", type=int, default=10)
    ap.add_argument("--sessions", type=int, default=27)
    ap.add_argument("--probes-per-conversation", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--probes", type=int, default=30, help="probe pages to time")
    args = ap.parse_args()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
    parts = {p.strip() for p in args.parts.split(",") if p.strip()}
    out = args.out or (args.run_dir.parent if args.run_dir else Path("results/view-bench"))
    out.mkdir(parents=True, exist_ok=True)
    results: dict = {"cores": os.cpu_count(), "load_start": load()}
    run = args.run_dir
    if "run" in parts and run is None:
        run = make_run(out, args)
    if run is None:
        raise SystemExit("give --run-dir, or include 'run' in --parts")
    results["run_dir"] = str(run)
    if "index" in parts:
        results["index_no_vectors"] = measure_index(run, without_vectors=True)
        results["index"] = measure_index(run)
    if "view" in parts:
        results["view"] = measure_view(run, args.probes, args.seed)
    results["load_end"] = load()
    (out / "view_bench.json").write_text(json.dumps(results, indent=1))
    print(f"figures in {out / 'view_bench.json'}")


if __name__ == "__main__":
    main()
