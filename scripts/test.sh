#!/usr/bin/env bash
# Run the tests (every one by default) from the project's virtual environment.
#
#   bash scripts/test.sh [pytest arguments, e.g. tests/test_seeds.py -x]
#
# Installs what the tests need, each step only when it is missing or changed:
#   * the Debian packages in APT_PACKAGES below (as root, or with sudo);
#   * .venv, created with python3 (Debian's python3-venv is installed first if `python3 -m venv` cannot work);
#   * requirements-dev.txt into .venv (again only when a requirements*.txt file changed).
# PYTHON=/usr/bin/python3 (say) picks the interpreter, VENV=dir the environment. CI runs this script (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests need. The browser tests drive Debian's Chromium (Playwright cannot download its
# own browser here); the fonts make emoji and CJK legible in their screenshots (tests/artifacts/); nginx and
# openssl serve the lecture-hall deployment test (deploy/, over HTTP and HTTPS).
APT_PACKAGES="chromium fonts-noto-color-emoji fonts-noto-cjk fonts-noto-core nginx openssl"

. scripts/venv.sh

# shellcheck disable=SC2086  # one word per package
apt_install $APT_PACKAGES
ensure_venv
install_requirements requirements-dev.txt
use_venv
exec python -m pytest "$@"
