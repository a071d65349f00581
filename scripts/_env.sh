# Sourced by scripts/run.sh and scripts/test.sh: finds a Python >= 3.12 and prepares .venv.
# Django 6 needs 3.12+; the machine's default python3 may be older, so look further.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

python_ok() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; }

find_python() {
  local c
  for c in "${PYTHON:-}" python3.14 python3.13 python3.12 python3; do
    [ -n "$c" ] && command -v "$c" >/dev/null 2>&1 && python_ok "$c" && { command -v "$c"; return; }
  done
  # pyenv and hand-built installs keep extra versions out of PATH.
  for c in "$HOME"/.pyenv/versions/3.1[2-9]*/bin/python3 /usr/local/bin/python3.1[2-9] /usr/bin/python3.1[2-9] /opt/python*/bin/python3; do
    [ -x "$c" ] && python_ok "$c" && { echo "$c"; return; }
  done
  echo "No Python 3.12 or newer found: install one (e.g. apt-get install python3.12) or set PYTHON=/path/to/python3.12" >&2
  exit 1
}

if [ ! -x .venv/bin/python ] || ! python_ok .venv/bin/python; then
  rm -rf .venv
  "$(find_python)" -m venv .venv
fi
# Reinstall only when pyproject.toml (the site's or the client library's) changed since the
# last install. The client library (client/, mafia_client) is its own package: the reference
# bot and tests/client use it.
stamp=.venv/.installed-$(cat pyproject.toml client/pyproject.toml | sha1sum | cut -c1-12)
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".[dev]" -e ./client
  rm -f .venv/.installed-*; touch "$stamp"
fi
export PATH="$ROOT/.venv/bin:$PATH"

# The manual (docs/, mkdocs.yml), served at /help/ (mafia_site/help.py): built into var/help
# when missing or older than any of its sources, for run.sh's site and the browser tests'
# (their accessibility audit reads it). Built aside, then swapped in: a running site never
# sees half of it. A failed build keeps the last one (or /help/ says how to build it).
if [ ! -f var/help/index.html ] || [ -n "$(find docs mkdocs.yml BENCHMARKS.md client/README.md \
    client/mafia_client -newer var/help/index.html -print -quit 2>/dev/null)" ]; then
  if NO_MKDOCS_2_WARNING=1 mkdocs build --quiet --site-dir "var/help.$$"; then
    rm -rf var/help && mv "var/help.$$" var/help
  else
    rm -rf "var/help.$$"
    echo "The manual did not build: /help/ says how to build it." >&2
  fi
fi
