# Shared by scripts/run.sh and scripts/test.sh (sourced from the repository root, not run on its own):
# Debian packages, the project's virtual environment, and an install into it that happens only when the
# requirements changed.
#
#   PYTHON  the interpreter that creates the environment (default: python3 on the PATH; 3.11 or newer)
#   VENV    where the environment lives (default: .venv in the repository, git-ignored)
#
# Debian 12 / Ubuntu 23.04+ forbid `pip install` into the system Python (PEP 668, "externally managed"), so
# nothing is ever installed outside $VENV except Debian packages, through apt.

PYTHON_CHOSEN="${PYTHON:+yes}"
PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"
STAMP_NAME=".bpe-lab-requirements"   # inside $VENV: "<hash of requirements*.txt> <file>" per installed file
_apt_updated=""

say() { echo "[$(basename "$0")] $*"; }
die() { echo "[$(basename "$0")] error: $*" >&2; exit 1; }

# apt_install PACKAGE...: install the Debian packages that are not installed yet (as root, or with sudo).
apt_install() {
  local missing="" pkg sudo=""
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing="$missing $pkg"
  done
  [ -z "$missing" ] && return 0
  command -v apt-get >/dev/null || die "these Debian packages are needed:$missing, and there is no apt-get here"
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || die "installing$missing needs root: run as root, or install sudo"
    sudo="sudo"
  fi
  say "installing Debian packages:$missing"
  # another apt (unattended upgrades, a second run of this script) may hold the dpkg lock: wait for it (10 min)
  # rather than fail at once
  if [ -z "$_apt_updated" ]; then
    $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
    _apt_updated=yes
  fi
  # shellcheck disable=SC2086  # one word per package
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq $missing >/dev/null   # env: sudo resets it
}

_python_version() { "$1" -c 'import sys; print(sys.version)' 2>/dev/null; }

# ensure_venv: create $VENV with $PYTHON unless a working one is there (re-created when PYTHON names another
# interpreter than the one it was made with). Installs Debian's python3-venv when `python3 -m venv` cannot work.
ensure_venv() {
  local py="$VENV/bin/python"
  # (a venv with our install stamp was working when the stamp was written: pip, ~1 s to start, is not asked)
  if [ -x "$py" ] && { [ -f "$VENV/$STAMP_NAME" ] || "$py" -m pip --version >/dev/null 2>&1; }; then
    if [ -z "$PYTHON_CHOSEN" ] || [ "$(_python_version "$py")" = "$(_python_version "$PYTHON")" ]; then
      return 0
    fi
    say "$VENV was made with another Python than PYTHON=$PYTHON: re-creating it"
  fi
  command -v "$PYTHON" >/dev/null || die "no '$PYTHON' found: install Python 3.11+ or set PYTHON=/path/to/python3"
  "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || die "$PYTHON is Python $("$PYTHON" -c 'import platform; print(platform.python_version())'); 3.11+ is needed"
  if ! "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    # Debian and Ubuntu ship venv's pip bootstrap separately, in python3-venv.
    say "'$PYTHON -m venv' cannot create environments here (no ensurepip): installing python3-venv"
    apt_install python3-venv
    "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1 || die "'$PYTHON -m venv' still cannot work: install \
the venv package of this interpreter (e.g. python3.$("$PYTHON" -c 'import sys; print(sys.version_info[1])')-venv)"
  fi
  say "creating the virtual environment $VENV with $("$PYTHON" -c 'import sys; print(sys.executable)')"
  "$PYTHON" -m venv --clear "$VENV"
  rm -f "$VENV/$STAMP_NAME"
}

_requirements_hash() { cat requirements*.txt | sha256sum | cut -c1-64; }

# install_requirements FILE: pip-install FILE into $VENV unless it was installed with the same requirements*.txt
# (a hash of all of them is kept in $VENV). A file pulled in with `-r other.txt` counts as installed too.
install_requirements() {
  local file="$1" stamp="$VENV/$STAMP_NAME" hash
  hash="$(_requirements_hash)"
  if [ -f "$stamp" ] && grep -qxF "$hash $file" "$stamp"; then
    return 0
  fi
  say "installing $file into $VENV (again only when a requirements*.txt file changes)"
  PIP_DISABLE_PIP_VERSION_CHECK=1 "$VENV/bin/python" -m pip install -q -r "$file"
  {
    grep -F "$hash " "$stamp" 2>/dev/null || true
    echo "$hash $file"
    sed -n 's/^-r[[:space:]]*//p' "$file" | while read -r included; do echo "$hash $included"; done
  } | sort -u >"$stamp.tmp"
  mv "$stamp.tmp" "$stamp"
}

# use_venv: put $VENV first on the PATH for whatever the caller runs next (as `source .venv/bin/activate`).
use_venv() {
  VIRTUAL_ENV="$(cd "$VENV" && pwd)"
  export VIRTUAL_ENV PATH="$VIRTUAL_ENV/bin:$PATH"
  unset PYTHONHOME
}
