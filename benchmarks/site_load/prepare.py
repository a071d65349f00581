"""Prepare a site load test: a fresh PostgreSQL database with N started forum games.

    .venv/bin/python benchmarks/site_load/prepare.py --games 50 --database load_tpl_50

Made through ``games.services`` (as the site makes them), in the database named (created
afresh; its name must start with ``load_``):

* N forum games of 12-15 players from the library's forum setups (``model.forum_setups``:
  Mountainous as it stands, the others padded with vanilla townies), started, their day
  1 long (two days) until ``run.py`` arms the short test phases; a host for every five;
* every player and spectator account with a session (a row in ``django_session``, as a
  log-in leaves) and an API token; one password for all (hashed once), for the Login users;
* ``model.tables(N)`` table games (classic, city, power; turn-based) with all their seats
  taken, a share by people and the rest by agents (``agents.services``, a token
  each), not started: ``run.py`` starts them when the stack runs, so their turn clocks
  start then.

The plan (JSON, ``--plan``; by default beside the database's name in ``var/site_load/``)
lists the games, seats, roles, sessions and tokens the Locust users read. Roles are in the
plan because each simulated player plays their own seat (a person knows their own role).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import support  # noqa: E402
from model import Model, padded_role_list  # noqa: E402

PASSWORD = "load-test-password-1"
PLANS = support.ROOT / "var" / "site_load"


def check_name(database: str) -> None:
    if not database.startswith("load_"):
        raise SystemExit("the load test's databases are named load_...")


def fresh_database(database: str) -> None:
    """Drop and create ``database`` (its name starts with ``load_``), then migrate."""
    import psycopg

    check_name(database)
    admin = "postgres://postgres@127.0.0.1:5432/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{database}"')
    os.environ["DATABASE_URL"] = f"postgres://postgres@127.0.0.1:5432/{database}"
    support.django_setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def sessions_and_tokens(users: list[Any]) -> dict[int, tuple[str, str]]:
    """A logged-in session and an API token for each user (bulk inserts): {pk: (key, token)}."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session
    from django.utils import timezone
    from django.utils.crypto import get_random_string

    from games.api_tokens import hash_key, new_person_key
    from games.models import PersonToken

    store = SessionStore()
    expire = timezone.now() + timedelta(seconds=settings.SESSION_COOKIE_AGE)
    chars = "abcdefghijklmnopqrstuvwxyz0123456789"
    out: dict[int, tuple[str, str]] = {}
    sessions, tokens = [], []
    for user in users:
        key = get_random_string(32, chars)
        data = store.encode(
            {
                SESSION_KEY: str(user.pk),
                BACKEND_SESSION_KEY: "django.contrib.auth.backends.ModelBackend",
                HASH_SESSION_KEY: user.get_session_auth_hash(),
            }
        )
        sessions.append(Session(session_key=key, session_data=data, expire_date=expire))
        token_key = new_person_key()  # only its hash is stored, as the site's own
        tokens.append(PersonToken(user=user, key_hash=hash_key(token_key), prefix=token_key[:10]))
        out[user.pk] = (key, token_key)
    Session.objects.bulk_create(sessions, batch_size=1000)
    PersonToken.objects.bulk_create(tokens, batch_size=1000)
    return out


def slot_rows(game_id: int) -> list[dict[str, Any]]:
    from games.models import Slot

    rows = []
    for slot in Slot.objects.filter(game_id=game_id).select_related("user").order_by("seat"):
        rows.append(
            {
                "slot_id": slot.pk,
                "seat": slot.seat,
                "user_id": slot.user_id,
                "name": slot.user.username,
                "role": slot.role,
                "alignment": slot.alignment,
            }
        )
    return rows


def make_forum_games(model: Model, n: int, seed: int, jobs: int) -> list[dict[str, Any]]:
    """N started forum games, made by ``jobs`` processes at once (each game through the
    services, one transaction per sign-up: the time goes to PostgreSQL's round trips)."""
    import multiprocessing

    from django.db import connection

    hosts = support.make_users("lhost", max(1, (n + 4) // 5), PASSWORD)
    host_ids = [h.pk for h in hosts]
    connection.close()
    began = time.monotonic()
    if jobs <= 1:
        made = [_make_slice(model, n, seed, host_ids, 0, 1)]
    else:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            made = pool.starmap(
                _make_slice, [(model, n, seed, host_ids, k, jobs) for k in range(jobs)]
            )
    games = sorted((g for part in made for g in part), key=lambda g: g["index"])
    print(f"  {n} forum games in {time.monotonic() - began:.0f} s", flush=True)
    return games


def _make_slice(
    model: Model, n: int, seed: int, host_ids: list[int], k: int, jobs: int
) -> list[dict[str, Any]]:
    from django.contrib.auth import get_user_model
    from django.db import connection

    from games import services
    from games.setups import SETUPS

    hosts = get_user_model().objects.in_bulk(host_ids)
    games = []
    for g in range(k, n, jobs):
        slug, seats = model.forum_setups[g % len(model.forum_setups)]
        kwargs = SETUPS[slug].game_kwargs()
        kwargs.pop("player_cap", None)
        kwargs["role_list"] = padded_role_list(slug, seats)
        kwargs.update(day_length=timedelta(days=2), night_length=timedelta(days=1))
        users = support.make_users(f"p{g}", seats, PASSWORD)
        host = hosts[host_ids[g // 5]]
        game_seed = random.Random(seed * 100_003 + g).randrange(2**31)
        game = services.create_game(host, title=f"Load {slug} #{g}", seed=game_seed, **kwargs)
        for user in users:
            services.join_game(user, game.pk)
        services.start_game(host, game.pk)
        games.append(
            {
                "index": g,
                "id": game.pk,
                "setup": slug,
                "players": seats,
                "slots": slot_rows(game.pk),
            }
        )
        if k == 0 and len(games) % 25 == 0:
            print(f"  about {len(games) * jobs}/{n} forum games", flush=True)
    connection.close()
    return games


def make_tables(model: Model, n: int, rng: random.Random) -> list[dict[str, Any]]:
    """Table games with every seat taken (people and agents), not started."""
    from django.contrib.auth import get_user_model

    from agents import services as agent_services
    from games import services
    from games.setups import SETUPS

    tables = []
    owner_count = 0
    agents_of_owner = 20
    owner = None
    host = support.make_users("thost", 1, PASSWORD)[0]
    for t in range(model.tables(n)):
        slug = model.table_setups[t % len(model.table_setups)]
        setup = SETUPS[slug]
        seats = setup.player_count
        people = max(1, round(model.table_people_share * seats))
        kwargs = setup.game_kwargs()
        kwargs.update(
            turn_length=timedelta(seconds=model.turn_seconds),
            vote_length=timedelta(seconds=model.vote_seconds),
            night_length=timedelta(seconds=model.night_seconds),
            day_length=timedelta(days=1),
        )
        game = services.create_game(
            host, title=f"Load table {slug} #{t}", seed=rng.randrange(2**31), **kwargs
        )
        humans = support.make_users(f"t{t}", people, PASSWORD)
        bots = []
        for b in range(seats - people):
            if owner is None or agents_of_owner >= 20:
                owner = get_user_model().objects.create_user(f"towner{owner_count}", None, None)
                owner_count += 1
                agents_of_owner = 0
            name = f"t{t}bot{b}"
            agent = agent_services.register_agent(owner, name, description="Load test bot")
            key = agent_services.create_token(owner, name, token_name="load").key
            bots.append((agent.user, key))
            agents_of_owner += 1
        members = [(u, None) for u in humans] + bots
        rng.shuffle(members)
        for user, _key in members:
            services.join_game(user, game.pk)
        keys = {user.pk: key for user, key in bots}
        tables.append(
            {
                "id": game.pk,
                "setup": slug,
                "host_id": host.pk,
                "seats": [
                    {"user_id": user.pk, "name": user.username, "bot": key is not None}
                    for user, key in members
                ],
                "bot_keys": {str(pk): key for pk, key in keys.items()},
            }
        )
    return tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--database", help="default: load_tpl_<games>")
    parser.add_argument("--plan", type=Path, help="default: var/site_load/<database>.json")
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--jobs", type=int, default=4, help="processes making the games")
    args = parser.parse_args()
    database = args.database or f"load_tpl_{args.games}"
    plan_path = args.plan or PLANS / f"{database}.json"
    write_plan(args.games, database, plan_path, args.seed, args.jobs)


def write_plan(
    games: int, database: str, plan_path: Path, seed: int = 22, jobs: int = 4
) -> dict[str, Any]:
    # Sessions are signed with the key (and a session's user hash too): the run serves the
    # plan's sessions with this same key.
    os.environ["SECRET_KEY"] = secrets.token_urlsafe(64)
    support.default_env(database)
    os.environ["RATE_LIMITS"] = ""  # the site's own defaults: nothing here is limited
    # No Redis while preparing: events are published by nobody (no socket is open yet),
    # and nothing must reach the run's Redis database.
    os.environ.pop("REDIS_URL", None)
    model = Model()
    rng = random.Random(seed)
    t0 = time.monotonic()
    fresh_database(database)
    print(f"preparing {games} forum games in {database}", flush=True)
    forum = make_forum_games(model, games, seed, jobs)
    tables = make_tables(model, games, rng)
    made = time.monotonic() - t0
    from django.contrib.auth import get_user_model

    spectators = support.make_users(
        "spec", max(1, round(model.spectators_per_game * games)), PASSWORD
    )
    people = (
        [s["user_id"] for g in forum for s in g["slots"]]
        + [s["user_id"] for t in tables for s in t["seats"] if not s["bot"]]
        + [u.pk for u in spectators]
    )
    users = list(get_user_model().objects.filter(pk__in=people))
    creds = sessions_and_tokens(users)
    for g in forum:
        for s in g["slots"]:
            s["session"], s["token"] = creds[s["user_id"]]
    for t in tables:
        for s in t["seats"]:
            if s["bot"]:
                s["token"] = t["bot_keys"][str(s["user_id"])]
            else:
                s["session"], s["token"] = creds[s["user_id"]]
        del t["bot_keys"]
    plan = {
        "database": database,
        "games": forum,
        "tables": tables,
        "spectators": [
            {"name": u.username, "session": creds[u.pk][0], "token": creds[u.pk][1]}
            for u in spectators
        ],
        "password": PASSWORD,
        "secret_key": os.environ["SECRET_KEY"],
        "model": model.as_dict(),
        "prepare_seconds": round(time.monotonic() - t0, 1),
        "make_games_seconds": round(made, 1),
    }
    plan_path.parent.mkdir(parents=True, exist_ok=True)
    plan_path.write_text(json.dumps(plan))
    from django.db import connection

    connection.close()
    print(
        f"{games} forum games, {len(tables)} tables, {len(users)} people in "
        f"{plan['prepare_seconds']} s; plan {plan_path}",
        flush=True,
    )
    return plan


if __name__ == "__main__":
    main()
