#!/usr/bin/env bash
# Installs what the project needs into .venv and runs the whole test suite:
# lint, the resolver, the site against the real PostgreSQL and Redis, and the browser tests.
source "$(dirname "$0")/_env.sh"
# Python keeps what it compiles: a machine whose environment says not to
# (PYTHONDONTWRITEBYTECODE) had every pytest worker rewrite and compile the test modules
# again, about 6 s of CPU each (9.7 s to start pytest on one module, 3.7 s once kept).
unset PYTHONDONTWRITEBYTECODE
# Tests use the machine's real services unless told otherwise.
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/mafia}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/0}"
ruff check .
# The browser tests (tests/e2e) drive Debian's Chromium; browsers cannot be downloaded by
# Playwright here. Install it when missing and we may; otherwise those tests fail saying so.
if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive  # CI has no terminal to answer prompts
        echo "Installing Chromium for the browser tests (apt-get install -y chromium)..."
        apt-get install -y chromium >/dev/null || { apt-get update >/dev/null && apt-get install -y chromium >/dev/null; } \
            || echo "Could not install Chromium: the browser tests will fail." >&2
    else
        echo "Chromium is missing (/usr/bin/chromium) and cannot be installed here (needs root and apt-get): the browser tests will fail." >&2
    fi
fi
# The proxy test (tests/live/test_proxy.py) runs Debian's nginx on the compose proxy's own
# config (deploy/nginx/): installed the same way when missing (only the binary is used; the
# test starts its own nginx on a spare port).
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive
        echo "Installing nginx for the proxy test (apt-get install -y nginx)..."
        apt-get install -y nginx >/dev/null || { apt-get update >/dev/null && apt-get install -y nginx >/dev/null; } \
            || echo "Could not install nginx: the proxy test will fail." >&2
    else
        echo "nginx is missing and cannot be installed here (needs root and apt-get): the proxy test will fail." >&2
    fi
fi
# The TypeScript check of the API document (tests/site/test_generated_clients.py: its own
# packages from tests/typescript's lockfile by npm ci) needs Node.js and npm: Debian's when
# missing, the same way (the test skips, saying why, without them).
if ! command -v npm >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive
        echo "Installing Node.js for the TypeScript check (apt-get install -y nodejs npm)..."
        apt-get install -y nodejs npm >/dev/null || { apt-get update >/dev/null && apt-get install -y nodejs npm >/dev/null; } \
            || echo "Could not install Node.js: the TypeScript check will be skipped." >&2
    else
        echo "Node.js and npm are missing and cannot be installed here (needs root and apt-get): the TypeScript check will be skipped." >&2
    fi
fi
# In parallel: TEST_WORKERS processes (pytest-xdist; TEST_WORKERS=0 runs in this process).
# Most tests wait on servers, sockets and browsers rather than compute, so more workers
# than cores pays. Each worker has its own test database (test_mafia_gw0, ...), Celery
# queue, ports and Redis servers; tests/conftest.py schedules (browser modules in lanes).
workers="${TEST_WORKERS:-4}"
started=$SECONDS
status=0
python -m pytest -n "$workers" --durations=15 "$@" || status=$?
echo "The test run took $((SECONDS - started)) s with TEST_WORKERS=$workers (exit status $status)."
# The second lane: the embedded default the README's first command runs (SQLite, the
# in-process channel layer and deadlines: no REDIS_URL), with the site's tests that need
# neither PostgreSQL nor Redis themselves (the quick ones: -m "not slow"). TEST_LANES=main
# skips it (arguments given to this script select tests for the first lane only).
if [ "${TEST_LANES:-all}" = all ] && [ "$#" -eq 0 ]; then
    lane_started=$SECONDS
    embedded_db="$(mktemp -d)"
    lane=0
    env -u REDIS_URL -u CELERY_TEST_BROKER_URL DATABASE_URL="sqlite:///$embedded_db/embedded.sqlite3" \
        python -m pytest -n "$workers" -p no:cacheprovider -m "not slow" \
        tests/site tests/notifications || lane=$?
    rm -rf "$embedded_db"
    echo "The embedded lane (SQLite, in-process layer) took $((SECONDS - lane_started)) s (exit status $lane)."
    [ "$status" -eq 0 ] && status=$lane
fi
exit "$status"
