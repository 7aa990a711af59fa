"""Take the README's screenshots of ``memlab view`` (docs/view_probe.png, docs/view_compare.png).

Plays the default comparison's strategies on the first users of the starter dataset with the
offline model, serves the run with ``memlab view``, and photographs, in headless Chromium
(Debian's package, driven by Playwright), the first probe that ``full_context`` recalled and
``recent_window`` missed: its probe page and the two contexts side by side.

    PYTHONPATH=$PWD .venv/bin/python scripts/view_screenshots.py [--limit 3] [--out docs]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=3, help="users of the starter dataset to play")
    ap.add_argument("--out", type=Path, default=ROOT / "docs")
    ap.add_argument("--run-dir", type=Path, help="photograph this run instead of playing one")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
    run = args.run_dir
    if run is None:
        from memlab.harness.config import load_config
        from memlab.harness.runner import Runner

        tmp = Path(tempfile.mkdtemp(prefix="memlab-view-shots-"))
        cfg = load_config(str(ROOT / "evals" / "default.yaml"), {"limit_conversations": args.limit, "output_dir": str(tmp),
                                                                 "bootstrap": 200})
        run = Runner(cfg, progress=False).run()
    proc = subprocess.Popen([sys.executable, "-m", "memlab.cli", "view", str(run), "--no-browser"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        url = ""
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("memlab view: http"):
                url = line.split(": ", 1)[1].strip()
                break
        base, token = url.split("?", 1)[0], url.split("token=", 1)[1].split("#", 1)[0]

        def api(path: str, **params: object) -> dict:
            req = urllib.request.Request(f"{base}api/{path}?{urlencode(params)}", headers={"X-Memlab-Token": token})
            with urllib.request.urlopen(req, timeout=600) as r:
                return json.loads(r.read())

        cmp = api("compare", run=0, a="full_context", b="recent_window", metric="evidence_recall")
        p = cmp["rows"][0]
        if (p["a"], p["b"]) != ("hit", "miss"):
            raise SystemExit("no probe that full_context recalled and recent_window missed: play more users (--limit)")
        where = {"dataset": p["dataset"], "conversation": p["conversation_id"], "probe": p["probe_id"]}
        from playwright.sync_api import sync_playwright

        args.out.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 1050}, device_scale_factor=1)
            page.goto(f"{base}?token={token}#/probe?{urlencode({'run': 0, **where, 'strategy': 'full_context'})}")
            page.wait_for_selector("body[data-ready='1']")
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(args.out / "view_probe.png"))
            page.goto("about:blank")
            page.goto(f"{base}?token={token}#/compare?"
                      + urlencode({"run": 0, "a": "full_context", "b": "recent_window", "metric": "evidence_recall", **where}))
            page.wait_for_selector("body[data-ready='1']")
            page.evaluate("document.getElementById('pair').scrollIntoView()")
            page.screenshot(path=str(args.out / "view_compare.png"))
            browser.close()
        print(f"wrote {args.out / 'view_probe.png'} and {args.out / 'view_compare.png'} "
              f"({p['dataset']}/{p['conversation_id']}/{p['probe_id']}, run {run})")
    finally:
        proc.terminate()
        proc.wait(30)


if __name__ == "__main__":
    main()
