#!/usr/bin/env bash
# Run the tests (every one by default) from the project's virtual environment.
#
#   bash scripts/test.sh                         # everything (CI): every check, the whole suite, 2 workers
#   bash scripts/test.sh tests/test_seeds.py -x  # the quick loop: those tests in one process
#
# With arguments (the quick loop), the checks that do not concern what changed are skipped: lint-imports
# runs only when a Python file or .importlinter changed since its last pass, tsc/eslint/node --test only when
# components/ or their configuration did (a hash of them is kept in .cache/ after each pass); pytest runs the
# given tests in one process (no xdist workers to start, no hypothesis plugin to import). ruff always runs
# (it takes a fraction of a second). Without arguments, or with CI set, everything runs.
#
# Installs what the tests need, each step only when it is missing or changed:
#   * the Debian packages in APT_PACKAGES below (as root, or with sudo);
#   * the JavaScript tools of package-lock.json (typescript, eslint, esbuild) into node_modules/ (npm ci), which
#     then check the browser modules in components/: types (tsc), lint (eslint), unit tests (node --test), and
#     that each committed bundle (components/*/dist/, `npm run build`) is what its modules build to;
#   * .venv, created with python3 (Debian's python3-venv is installed first if `python3 -m venv` cannot work);
#   * requirements-dev.txt into .venv (again only when a requirements*.txt file changed), whose ruff and
#     import-linter then check the Python (ruff.toml, .importlinter) before pytest runs.
# PYTHON=/usr/bin/python3 (say) picks the interpreter, VENV=dir the environment. CI runs this script (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests need. The browser tests drive Debian's Chromium (Playwright cannot download its
# own browser here); the fonts make emoji and CJK legible in their screenshots (tests/artifacts/); nginx and
# openssl serve the lecture-hall deployment test (deploy/, over HTTP and HTTPS); redis-server holds the live
# rooms of a deployment with several processes (tests/test_rooms.py starts a private one).
APT_PACKAGES="chromium fonts-noto-color-emoji fonts-noto-cjk fonts-noto-core nginx openssl redis-server"

. scripts/venv.sh

# shellcheck disable=SC2086  # one word per package
apt_install $APT_PACKAGES
ensure_venv
install_requirements requirements-dev.txt
use_venv

# The quick loop (arguments given, not CI): a check runs only when what it checks changed since it last passed.
QUICK=""
[ $# -gt 0 ] && [ -z "${CI:-}" ] && QUICK=yes
STAMPS=".cache/test-stamps"
mkdir -p "$STAMPS"
# files_hash PATH...: one hash of the content (and names) of the files tracked or new under PATH...
files_hash() {
  git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { date +%s%N; return; }   # no git: never "unchanged"
  git ls-files -z --cached --others --exclude-standard -- "$@" | sort -z | xargs -0 sha256sum 2>/dev/null | sha256sum | cut -c1-64
}
# unchanged NAME HASH: whether check NAME last passed on HASH (only in the quick loop)
unchanged() { [ -n "$QUICK" ] && [ -f "$STAMPS/$1" ] && [ "$(cat "$STAMPS/$1")" = "$2" ]; }

# The Python checks that tools do, pinned in requirements-dev.txt: lint and format (ruff.toml) and the import
# contracts (.importlinter: the layers, the library's independence, no cycles).
say "checking the Python: ruff (lint and format), lint-imports, mypy"
ruff check --quiet .
ruff format --check --quiet . || { echo "ruff format: the files above are not formatted; run: ruff format ."; exit 1; }
py_hash=$(files_hash '*.py' .importlinter)
if unchanged lint-imports "$py_hash"; then
  echo "lint-imports: skipped (no Python file changed since it passed)"
else
  lint_out=$(lint-imports 2>&1) || { echo "$lint_out"; exit 1; }
  echo "lint-imports: $(echo "$lint_out" | grep -E '^Contracts: ')"
  echo "$py_hash" > "$STAMPS/lint-imports"
fi
# The library's types (pyproject.toml [tool.mypy]; bpe/py.typed ships them to users' type checkers).
if unchanged mypy "$py_hash"; then
  echo "mypy: skipped (no Python file changed since it passed)"
else
  mypy_out=$(mypy 2>&1) || { echo "$mypy_out"; exit 1; }
  echo "mypy: $(echo "$mypy_out" | tail -1)"
  echo "$py_hash" > "$STAMPS/mypy"
fi

# The browser modules (components/): types, lint, unit tests. Tools pinned in package-lock.json.
command -v npm >/dev/null || apt_install nodejs npm
stamp="node_modules/.package-lock.sha256"
if [ ! -f "$stamp" ] || [ "$(sha256sum package-lock.json)" != "$(cat "$stamp")" ]; then
  say "installing the JavaScript checkers (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
  sha256sum package-lock.json > "$stamp"
fi
js_hash=$(files_hash components scripts/bundle.mjs tsconfig.json eslint.config.js package.json package-lock.json)
if unchanged js-checks "$js_hash"; then
  say "the browser modules: skipped (components/ and their configuration unchanged since they passed)"
else
  say "checking the browser modules: tsc, eslint, node --test, the bundles"
  npx --no-install tsc -p tsconfig.json
  npx --no-install eslint components scripts/bundle.mjs
  node_out=$(node --test components/ 2>&1) || { echo "$node_out"; exit 1; }
  echo "node --test: $(echo "$node_out" | grep -E '^# (pass|fail) ' | tr '\n' ' ')"
  node scripts/bundle.mjs --check
  echo "$js_hash" > "$STAMPS/js-checks"
fi

if [ -n "$QUICK" ]; then
  # the quick loop: the given tests in this one process (no workers to start); the hypothesis plugin only
  # adds options (tests that use hypothesis import it themselves), anyio's runs only tests marked anyio (none
  # are: a coroutine runs through testkit.aio.run) and imports anyio and asyncio, a third of the start's CPU
  exec python -m pytest -p no:xdist -p no:hypothesispytest -p no:anyio "$@"
fi

# tiktoken's own test suite against bpe.tiktoken (issue 33), on a full run (no pytest arguments) or with
# TIKTOKEN_SUITE=1: its sdist is downloaded once into .cache/, the tests run offline.
if [ $# -eq 0 ] || [ -n "${TIKTOKEN_SUITE:-}" ]; then
  say "tiktoken's own tests against bpe.tiktoken"
  PYTHON_BIN=python bash scripts/tiktoken_suite.sh
fi

# Two pytest workers (pytest-xdist): a browser test file's tests in one worker, one after the other
# (tests/conftest.py groups them: they share that worker's server and Chromium), each file to whichever
# worker is free, the largest first, then the rest of the suite over both. PYTEST_WORKERS=0 runs
# everything in one process. In CI the slowest tests are listed too (the suite's time is watched: <= 10
# minutes is the aim).
exec python -m pytest -n "${PYTEST_WORKERS:-2}" --dist loadgroup ${CI:+--durations=30} "$@"
