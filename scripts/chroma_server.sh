#!/usr/bin/env bash
# A local Chroma server for ChromaStore(host=..., port=...) (chromadb's own `chroma run`).
# The server is detached (setsid) and keeps running after this script exits.
#
#   scripts/chroma_server.sh start    # idempotent; waits for the heartbeat, prints host:port
#   scripts/chroma_server.sh status   # rc 0 when running, 3 when not
#   scripts/chroma_server.sh stop
#
# Environment: MEMLAB_CHROMA_HOST (127.0.0.1), MEMLAB_CHROMA_PORT (8765),
# MEMLAB_CHROMA_DIR (data directory, default <repo>/.memlab/chroma-server; the pid file and
# log are written beside it as <dir>.pid and <dir>.log), MEMLAB_CHROMA_BIN (default
# <repo>/.venv/bin/chroma, else `chroma` on PATH).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HOST="${MEMLAB_CHROMA_HOST:-127.0.0.1}"
PORT="${MEMLAB_CHROMA_PORT:-8765}"
DIR="${MEMLAB_CHROMA_DIR:-$ROOT/.memlab/chroma-server}"
DIR="${DIR%/}"
PIDFILE="$DIR.pid"
LOG="$DIR.log"
BIN="${MEMLAB_CHROMA_BIN:-}"
if [[ -z "$BIN" ]]; then
  if [[ -x "$ROOT/.venv/bin/chroma" ]]; then BIN="$ROOT/.venv/bin/chroma"; else BIN="$(command -v chroma || true)"; fi
fi

heartbeat() {
  curl -fsS --max-time 2 "http://$HOST:$PORT/api/v2/heartbeat" >/dev/null 2>&1
}

# The pid file can outlive its server (crash, reboot, container restart) and the pid be reused
# by an unrelated process, which `stop` would then signal. So a pid counts only if that process
# is a chroma server run on this very data directory: its arguments include the chroma CLI and
# "$DIR" (we start it as `chroma run --path "$DIR" ...`).
is_our_server() {
  local pid="$1" args
  if [[ -r "/proc/$pid/cmdline" ]]; then
    args="$(tr '\0' '\n' <"/proc/$pid/cmdline")"
  else  # no /proc (macOS): ps gives the arguments joined by spaces
    args="$(ps -o args= -p "$pid" 2>/dev/null | tr ' ' '\n')" || return 1
  fi
  grep -qE '(^|/)chroma$' <<<"$args" && grep -qxF -- "$DIR" <<<"$args"
}

running_pid() {
  [[ -f "$PIDFILE" ]] || return 1
  local pid
  pid="$(cat "$PIDFILE" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  is_our_server "$pid" || return 1
  echo "$pid"
}

port_busy() {
  (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null
}

cmd="${1:-}"
case "$cmd" in
  start)
    if pid="$(running_pid)"; then
      for _ in $(seq 1 100); do heartbeat && break; sleep 0.1; done
      if heartbeat; then
        echo "chroma server already running (pid $pid, data $DIR)" >&2
        echo "$HOST:$PORT"
        exit 0
      fi
      echo "chroma server pid $pid exists but does not answer on $HOST:$PORT; stop it first (log: $LOG)" >&2
      exit 1
    fi
    if [[ -z "$BIN" ]]; then
      echo "chroma CLI not found; pip install 'memlab[chroma]'" >&2
      exit 1
    fi
    if port_busy; then
      echo "port $HOST:$PORT is already in use by another process; set MEMLAB_CHROMA_PORT" >&2
      exit 1
    fi
    mkdir -p "$DIR"
    setsid nohup "$BIN" run --path "$DIR" --host "$HOST" --port "$PORT" >"$LOG" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$PIDFILE"
    for _ in $(seq 1 300); do
      if heartbeat; then
        echo "chroma server started (pid $pid, data $DIR, log $LOG)" >&2
        echo "$HOST:$PORT"
        exit 0
      fi
      if ! kill -0 "$pid" 2>/dev/null; then break; fi
      sleep 0.1
    done
    echo "chroma server did not answer on $HOST:$PORT within 30 s; log $LOG:" >&2
    tail -n 30 "$LOG" >&2 || true
    kill "$pid" 2>/dev/null || true
    rm -f "$PIDFILE"
    exit 1
    ;;
  stop)
    if pid="$(running_pid)"; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      if kill -0 "$pid" 2>/dev/null && is_our_server "$pid"; then kill -9 "$pid" 2>/dev/null || true; fi
      echo "chroma server stopped (pid $pid)" >&2
    else
      echo "chroma server was not running (no live chroma process for $DIR in $PIDFILE)" >&2
    fi
    rm -f "$PIDFILE"
    ;;
  status)
    if pid="$(running_pid)" && heartbeat; then
      echo "running pid=$pid address=$HOST:$PORT data=$DIR"
      exit 0
    fi
    echo "not running (data $DIR)"
    exit 3
    ;;
  *)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
