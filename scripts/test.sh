#!/usr/bin/env bash
# Installs what the project needs into .venv and runs the whole test suite:
# lint, the resolver, the site against the real PostgreSQL and Redis, and the browser tests.
source "$(dirname "$0")/_env.sh"
# Tests use the machine's real services unless told otherwise.
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/mafia}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/0}"
ruff check .
exec python -m pytest "$@"
