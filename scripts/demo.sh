#!/usr/bin/env bash
# Install memlab and run the default comparison (offline, offline stand-in model, embedded Chroma).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
export LITELLM_LOCAL_MODEL_COST_MAP=True
exec .venv/bin/memlab run "${1:-evals/default.yaml}"
