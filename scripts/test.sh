#!/usr/bin/env bash
# Install memlab (and chromium when absent), start the project's PostgreSQL (+pgvector) on 127.0.0.1,
# run the test suite and, beside it, the regression gates (memlab check evals/ci.yaml, evals/dev.yaml) and the
# suite-validity checks (every shipped evaluation dataset still detects the planted contrasts datasets/suite_check.json
# documents); non-zero if any fails.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian chromium for the design report's browser test (no-op when present), installed by apt while uv (or pip) installs
# memlab: the two download and unpack at once (neither uses the other's files).
browser_log=$(mktemp)
bash scripts/browser.sh > "$browser_log" 2>&1 &
browser_pid=$!
# Python writes each module's .pyc the first time a process imports it, here even where PYTHONDONTWRITEBYTECODE is set
# (as on the CI machines; the .pyc files land in .venv and in git-ignored __pycache__ folders). So the install skips
# byte-compiling every installed module (MEMLAB_BYTECODE=lazy: 45 s of a 58 s install on 2 cores, for 28,000 files
# of which the suite imports about 7,900), and no process compiles a module another one already has.
unset PYTHONDONTWRITEBYTECODE
MEMLAB_BYTECODE=lazy bash scripts/install.sh
browser=0
wait "$browser_pid" || browser=$?
cat "$browser_log"
rm -f "$browser_log"
if [ "$browser" -ne 0 ]; then echo "scripts/browser.sh failed (exit $browser)" >&2; exit "$browser"; fi
export LITELLM_LOCAL_MODEL_COST_MAP=True RAGAS_DO_NOT_TRACK=true
bash scripts/pg.sh start
export MEMLAB_REQUIRE_POSTGRES=1  # the server is up: a test that needs it fails rather than skips (tests/conftest.py)
# The regression gates and the suite-validity checks are separate `memlab` commands that read nothing the tests write:
# they run beside pytest, not after it, on the CPU time pytest leaves idle (browser and server waits, the last file's
# tail). The suite is CPU-bound, so this saves little on its own (docs/ci_time.md: 1,027 s → 948 s with uv as well). Their output is printed after pytest's, and each keeps its own exit
# status.
checks_dir=$(mktemp -d)
checks() {
  local gate=0 devgate=0
  # The regression gate (docs/gate.md): the small offline eval against its committed baseline.
  .venv/bin/python -m memlab.cli check evals/ci.yaml --baseline evals/baselines/ci.json --no-progress \
    --markdown results/ci-gate.md > "$checks_dir/1-gate.log" 2>&1 || gate=$?
  echo "$gate" > "$checks_dir/gate.rc"
  # The offline model's own gate (docs/offline-model.md, "The evaluation firewall"): judged on its development
  # set only; the gate above refuses a change of the model on evaluation data.
  .venv/bin/python -m memlab.cli check evals/dev.yaml --baseline evals/baselines/dev.json --allow-model-change \
    --no-progress --markdown results/dev-gate.md > "$checks_dir/2-devgate.log" 2>&1 || devgate=$?
  echo "$devgate" > "$checks_dir/devgate.rc"
  # Suite validity (datasets/README.md, "Suite validity"): a shipped suite that stops detecting a contrast it is
  # documented to detect fails CI.
  # One worker each: pytest keeps both cores busy, so a second worker process would only add its own start-up and
  # embed again texts the first one already has (docs/ci_time.md); the checks still end long before pytest.
  local suites=0 short_suites
  short_suites=$(ls datasets/suites/*.yaml | grep -v long_horizon)
  .venv/bin/python -m memlab.cli suite-check datasets/starter.yaml $short_suites datasets/time_tracking.yaml \
    --expect datasets/suite_check.json --workers 1 --no-progress --output-dir results/suite-check \
    > "$checks_dir/3-suites.log" 2>&1 || suites=$?
  # The long-horizon suites on a slice of users (their first 3: each user is generated on its own, so a slice is the
  # same users): S on every documented contrast, M on the capacity contrast (the one only its length shows; its other
  # contrasts are the S ones at four times the cost); the full-size figures are in datasets/README.md.
  .venv/bin/python -m memlab.cli suite-check datasets/suites/long_horizon_s.yaml \
    --limit 3 --expect datasets/suite_check_long.json --workers 1 --no-progress --output-dir results/suite-check-long \
    > "$checks_dir/4-long-s.log" 2>&1 || suites=$?
  .venv/bin/python -m memlab.cli suite-check datasets/suites/long_horizon_m.yaml --contrast capacity \
    --limit 3 --expect datasets/suite_check_long.json --workers 1 --no-progress --output-dir results/suite-check-long \
    > "$checks_dir/5-long-m.log" 2>&1 || suites=$?
  echo "$suites" > "$checks_dir/suites.rc"
}
checks &
checks_pid=$!
# bash starts a background job of a script with SIGINT ignored: on Ctrl-C or a CI cancel, stop the whole group
# (pytest, the checks and their children) rather than leave the checks running.
trap 'trap - INT TERM; kill 0' INT TERM
status=0
# Two workers (pytest-xdist), a test file per worker at a time: module fixtures are built once, a notebook's cells stay
# in one kernel. xdist hands the files out in its own order (most tests first): handing the longest first was slower
# (tests/conftest.py, docs/ci_time.md).
.venv/bin/python -m pytest -q --nbval-lax -n 2 --dist loadfile tests notebooks "$@" || status=$?
wait "$checks_pid" || true
for log in "$checks_dir"/*.log; do echo "== ${log##*/}"; cat "$log"; done
rc() { cat "$checks_dir/$1.rc" 2>/dev/null || echo 1; }
gate=$(rc gate) devgate=$(rc devgate) suites=$(rc suites)
rm -rf "$checks_dir"
if [ "$status" -ne 0 ]; then exit "$status"; fi
if [ "$gate" -ne 0 ]; then exit "$gate"; fi
if [ "$devgate" -ne 0 ]; then exit "$devgate"; fi
exit "$suites"
