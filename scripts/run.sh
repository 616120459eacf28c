#!/usr/bin/env bash
# Start the app on http://localhost:8501, from the project's virtual environment.
#
#   bash scripts/run.sh [streamlit options, e.g. --server.port 8600]
#
# The first run creates .venv with python3 (installing Debian's python3-venv first if `python3 -m venv` cannot
# work, as root or with sudo) and installs requirements.txt into it; later runs install again only when a
# requirements*.txt file changed. PYTHON=/usr/bin/python3 (say) picks the interpreter, VENV=dir the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh

ensure_venv
install_requirements requirements.txt
use_venv
exec python -m streamlit run app.py --browser.gatherUsageStats false "$@"
