#!/usr/bin/env bash
# Runs the whole site in one command: http://127.0.0.1:8000 (PORT to change it) with a demo
# game of bots in progress, deadlines and live updates.
#
# On a bare machine: SQLite (db.sqlite3), an in-memory channel layer and an in-process
# deadline scanner, all in one process (manage.py runsite). With REDIS_URL set (and
# DATABASE_URL for PostgreSQL) it uses the real services and starts a Celery worker with
# beat beside the web server; Ctrl-C stops everything.
source "$(dirname "$0")/_env.sh"
PORT="${PORT:-8000}"
HOST="${HOST:-127.0.0.1}"

python manage.py migrate --noinput
python manage.py demo

children=()
stop_children() {
  local pid
  for pid in "${children[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop_children EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ -n "${REDIS_URL:-}" ]; then
  # Real services: Celery ends the deadlines (beat scans, the worker transitions).
  celery -A mafia_site worker --beat --loglevel=info --concurrency=2 \
    --schedule "$ROOT/.venv/celerybeat-schedule" &
  children+=($!)
  scanner=off
else
  scanner=on
fi

python manage.py runsite --host "$HOST" --port "$PORT" --scanner "$scanner" &
children+=($!)
wait "${children[-1]}"
