#!/usr/bin/env bash
# Install everything the tests need (idempotent) and run every test.
# Usage: bash scripts/test.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q --disable-pip-version-check -r requirements-dev.txt
# The browser tests drive Debian's Chromium; the fonts make emoji and CJK legible in their screenshots.
APT_PACKAGES="chromium fonts-noto-color-emoji fonts-noto-cjk fonts-noto-core nginx openssl"
missing=""
for pkg in $APT_PACKAGES; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
  echo "Installing Debian packages for the browser tests:$missing"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
exec python3 -m pytest "$@"
