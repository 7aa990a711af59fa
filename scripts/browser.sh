#!/usr/bin/env bash
# Install Debian's headless-capable Chromium (/usr/bin/chromium) when it is absent, so the HTML
# report's browser test (tests/test_html_report.py) can open a report in a real browser.
# Idempotent: exits at once when chromium is already on the PATH. Run as root (no sudo is used)
# or with sudo available. Prints the browser version and how long the install took.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  chromium --version 2>/dev/null || true
  exit 0
fi
SUDO=""
if [[ "$(id -u)" -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "scripts/browser.sh: chromium is not installed and this user cannot install it (not root, no sudo);" \
         "install the Debian package 'chromium' and re-run the tests" >&2
    exit 1
  fi
fi
start=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
# another apt run on a shared machine holds the dpkg lock: wait for it instead of failing
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
echo "chromium installed in $(( $(date +%s) - start )) s: $(chromium --version 2>/dev/null)"
