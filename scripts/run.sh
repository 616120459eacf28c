#!/usr/bin/env bash
# Install the runtime requirements (idempotent) and start the app on http://localhost:8501
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q --disable-pip-version-check -r requirements.txt
exec python3 -m streamlit run app.py --browser.gatherUsageStats false "$@"
