#!/usr/bin/env bash
# tiktoken's own tests, run against bpe.tiktoken (issue 33): `import tiktoken` is bpe's surface
# (scripts/tiktoken_shim), nothing of tiktoken's code runs.
#
#   bash scripts/tiktoken_suite.sh [pytest arguments]
#
# Downloads tiktoken's sdist at the pinned version (requirements-dev.txt) from PyPI into .cache/ only when it
# is missing; the tests then run offline. Tests that need the network: none (bpe.tiktoken reads OpenAI's
# published files from the registry's packages), so TIKTOKEN_NETWORK_TESTS below is empty.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON_BIN:-python}"
version=$(sed -n 's/^tiktoken==//p' requirements-dev.txt)
cache=".cache/tiktoken-sdist"
src="$cache/tiktoken-$version"
if [ ! -d "$src/tests" ]; then
  mkdir -p "$cache"
  "$PY" -m pip download --quiet --no-deps --no-binary :all: "tiktoken==$version" -d "$cache"
  tar -xzf "$cache/tiktoken-$version.tar.gz" -C "$cache"
fi
TIKTOKEN_NETWORK_TESTS=""   # pytest -k expression of tests needing the network, by name (none today)
deselect=()
[ -n "$TIKTOKEN_NETWORK_TESTS" ] && deselect=(-k "not ($TIKTOKEN_NETWORK_TESTS)")
export PYTHONPATH="$PWD/scripts/tiktoken_shim:$PWD${PYTHONPATH:+:$PYTHONPATH}"
"$PY" -c 'import tiktoken; assert tiktoken.__name__ == "bpe.tiktoken", tiktoken.__file__'
# PYTHONPATH: the shim first (also for the subprocess of test_optional_blobfile_dependency), then bpe;
# bpe_not_local keeps hypothesis from drawing bpe's own string constants (its special tokens).
"$PY" -m pytest -p no:xdist -p no:cacheprovider -p bpe_not_local -c /dev/null --rootdir "$src" --import-mode=append -q \
  "${deselect[@]}" "$src/tests" "$@"
