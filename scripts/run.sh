#!/usr/bin/env bash
# Runs the whole site in one command: http://127.0.0.1:8000 (PORT to change it) with a demo
# game of bots in progress, deadlines and live updates.
#
# On a bare machine: SQLite (db.sqlite3), an in-memory channel layer and an in-process
# deadline scanner, all in one process (manage.py runsite). With REDIS_URL set (and
# DATABASE_URL for PostgreSQL) it uses the real services and starts a Celery worker and
# beat beside the web server, each restarted whenever it exits; Ctrl-C stops everything.
source "$(dirname "$0")/_env.sh"
PORT="${PORT:-8000}"
HOST="${HOST:-127.0.0.1}"
# Mails (digests, unsubscribe links) and webhooks link to SITE_URL: the address served here,
# unless told otherwise (a proxy's public address). Left at its default, every link of a
# run on another port was dead.
# (Bound to every interface, the links name this machine's loopback: set SITE_URL to the
# address others reach.)
case "$HOST" in 0.0.0.0|::|"[::]") link_host=127.0.0.1 ;; *) link_host=$HOST ;; esac
export SITE_URL="${SITE_URL:-http://$link_host:$PORT}"
# The production shape unless told otherwise (DEBUG=true for a development run): DEBUG off,
# so a newcomer sees the site's own error pages, never Django's technical ones. Served over
# plain HTTP here (HTTPS=false); the secret key is made once and kept in SECRET_KEY_FILE
# (var/secret-key) unless SECRET_KEY is given; the static files are collected as in the image.
export DEBUG="${DEBUG:-false}"
export HTTPS="${HTTPS:-false}"
if [ -z "${SECRET_KEY:-}" ] && [ "$DEBUG" != true ]; then
  key_file="${SECRET_KEY_FILE:-var/secret-key}"
  if [ ! -s "$key_file" ]; then
    mkdir -p "$(dirname "$key_file")"
    (umask 077 && python -c 'import secrets; print(secrets.token_hex(32))' > "$key_file")
  fi
  SECRET_KEY="$(cat "$key_file")"
  export SECRET_KEY
fi
# Web Push keys are made once and kept here too (production sets them: docs/operators).
export WEBPUSH_KEY_FILE="${WEBPUSH_KEY_FILE:-var/webpush-vapid.json}"

python manage.py migrate --noinput
python manage.py collectstatic --noinput --verbosity 0
python manage.py demo
# The manual at /help/ is built (when missing or stale) by _env.sh, sourced above.

children=()
stop_children() {
  local pid
  for pid in "${children[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop_children EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Runs "$@" again whenever it exits, waiting 1, 2, 4 ... 30 s between starts; the pause
# resets after a minute up. The second line: the worker and beat ride out a Redis outage
# themselves (tests/live/test_worker_survives_redis.py), but a kill, a crash or a failure
# nobody has seen yet still ends a process.
# On TERM/INT it stops its child and returns.
supervise() {
  local name=$1; shift
  local delay=1 pid rc started ran
  trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; exit 0' TERM INT
  while true; do
    started=$SECONDS
    "$@" &
    pid=$!
    echo "[supervisor] started $name (pid $pid)" >&2
    rc=0; wait "$pid" || rc=$?
    ran=$((SECONDS - started))
    [ "$ran" -ge 60 ] && delay=1
    echo "[supervisor] $name (pid $pid) exited with status $rc after ${ran}s; restarting in ${delay}s" >&2
    sleep "$delay" & wait $! || true
    delay=$((delay * 2 > 30 ? 30 : delay * 2))
  done
}

if [ -n "${REDIS_URL:-}" ]; then
  # Real services: Celery ends the deadlines (beat scans, the worker transitions), each
  # supervised; the web process's watchdog ends any phase they leave overdue.
  supervise "celery worker" celery -A mafia_site worker --loglevel=info --concurrency=2 &
  children+=($!)
  # No pidfile: a beat killed with -9 would leave one behind and refuse to start again.
  supervise "celery beat" celery -A mafia_site beat --loglevel=info --pidfile= \
    --schedule "$ROOT/.venv/celerybeat-schedule" &
  children+=($!)
  scanner=off
else
  scanner=on
fi

python manage.py runsite --host "$HOST" --port "$PORT" --scanner "$scanner" &
children+=($!)
wait "${children[-1]}"
