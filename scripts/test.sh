#!/usr/bin/env bash
# Install memlab (and chromium when absent), start the project's PostgreSQL (+pgvector) on 127.0.0.1,
# run the test suite, then the regression gate (memlab check evals/ci.yaml); non-zero if either fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/browser.sh   # Debian chromium for the design report's browser test (no-op when present)
export LITELLM_LOCAL_MODEL_COST_MAP=True RAGAS_DO_NOT_TRACK=true
bash scripts/pg.sh start
status=0
.venv/bin/python -m pytest -q --nbval-lax tests notebooks "$@" || status=$?
# The regression gate (docs/gate.md): the small offline eval against its committed baseline.
gate=0
.venv/bin/python -m memlab.cli check evals/ci.yaml --baseline evals/baselines/ci.json --no-progress \
  --markdown results/ci-gate.md || gate=$?
if [ "$status" -ne 0 ]; then exit "$status"; fi
exit $gate
