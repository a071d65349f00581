"""An agent that lets a language model speak and choose, through any OpenAI-compatible chat
endpoint (OpenAI, a local llama.cpp / vLLM / Ollama server...).

    OPENAI_BASE_URL=http://127.0.0.1:8080/v1 OPENAI_MODEL=llama-3 [OPENAI_API_KEY=...] \\
        python client/examples/llm_agent.py --url https://mafia.example --game 12 --token agt_...

Each decision is one ``POST {OPENAI_BASE_URL}/chat/completions``: the model is told its role
and the legal options by name; the first option named in its answer is taken, and an
answer that names none (or names someone it may not choose) falls back to a legal option.
It sees only what its seat sees: the role PM, the table and the thread, as a person would.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import urllib.request
from collections.abc import Sequence
from typing import Any

from mafia_client import Ability, ApiError, Client, Context, Strategy, TurnOptions, VoteOptions
from mafia_client import play as play_game

SKIP = "skip"


class Chat:
    """``POST {base}/chat/completions`` with ``model`` (the OpenAI wire format)."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key

    @classmethod
    def from_env(cls) -> Chat:
        return cls(
            os.environ["OPENAI_BASE_URL"],
            os.environ["OPENAI_MODEL"],
            os.environ.get("OPENAI_API_KEY") or None,
        )

    def ask(self, system: str, prompt: str) -> str:
        body = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": prompt},
            ],
        }
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            f"{self.base_url}/chat/completions", json.dumps(body).encode(), headers
        )
        with urllib.request.urlopen(request, timeout=120) as response:
            answer = json.loads(response.read())
        return str(answer["choices"][0]["message"]["content"] or "").strip()


def pick_name(answer: str, names: Sequence[str]) -> str | None:
    """The option the answer names first (whole words, any case; longer names first, so
    "Ann Lee" wins over "Ann"); None if it names none."""
    found: list[tuple[int, int, str]] = []
    for name in names:
        match = re.search(rf"(?<!\w){re.escape(name)}(?!\w)", answer, re.IGNORECASE)
        if match:
            found.append((match.start(), -len(name), name))
    return min(found)[2] if found else None


class LlmAgent(Strategy):
    def __init__(self, chat: Chat) -> None:
        self.chat = chat

    def system(self, ctx: Context) -> str:
        role = ctx.role
        who = f"You are {role.name}, a {role.role} ({role.alignment})." if role else ""
        partners = ", ".join(p.name for p in role.partners) if role else ""
        team = f" Your partners: {partners}." if partners else ""
        return f"You play a game of Mafia. {who}{team} Answer briefly."

    def choose(self, ctx: Context, question: str, options: dict[str, Any]) -> Any:
        """Ask the model to name one of ``options`` (name -> value); a legal one always."""
        prompt = f"{question} Answer with one name from: {', '.join(options)}."
        name = pick_name(self.chat.ask(self.system(ctx), prompt), list(options))
        return options[name] if name is not None else next(iter(options.values()))

    def speak(self, ctx: Context, occasion: str, limit: int | None) -> str:
        words = f" in at most {limit} words" if limit else ""
        text = self.chat.ask(self.system(ctx), f"Write your {occasion}{words}.")
        return " ".join(text.split()[: limit or None]) or "I have nothing to add."

    def on_day(self, ctx: Context) -> None:
        ctx.post(self.speak(ctx, "post for today's discussion", 80))
        others = {p.name: p.slot_id for p in ctx.others()}
        if others:
            ctx.vote(self.choose(ctx, "Whom do you vote to eliminate today?", others))

    def on_turn(self, ctx: Context, options: TurnOptions) -> None:
        if "post" in options.may:
            to = None
            if options.ask:
                ask = {o.name: o.slot_id for o in options.ask}
                to = self.choose(ctx, "Whom do you put your question to?", ask)
            ctx.post(self.speak(ctx, f"{options.step} at the table", options.word_limit), to=to)
        elif "nominate" in options.may:
            names = {o.name: o.slot_id for o in options.nominate}
            if options.skip_allowed:
                names[SKIP] = None
            ctx.nominate(self.choose(ctx, "Whom do you nominate for elimination?", names))
        elif "pass" in options.may:
            ctx.pass_turn()

    def on_vote(self, ctx: Context, options: VoteOptions) -> None:
        names: dict[str, int | None] = {o.name: o.slot_id for o in options.players}
        if options.skip_allowed or not names:
            names[SKIP] = None
        ctx.vote(self.choose(ctx, "The table votes. Whom do you vote out?", names))

    def on_night(self, ctx: Context, options: list[Ability]) -> None:
        for ability in options:
            names = {c.name: c.slot_id for c in ability.choices}
            target = self.choose(ctx, f"Night: whom do you target with {ability.ability}?", names)
            extra = {key: "x" for key in ability.extra}
            try:
                ctx.night_action(ability.ability, [target] * ability.targets, extra)
            except ApiError as error:
                print(f"{ability.ability} refused: {error}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--game", type=int, required=True)
    parser.add_argument("--token", default=os.environ.get("MAFIA_TOKEN"))
    parser.add_argument("--user")
    parser.add_argument("--password")
    args = parser.parse_args(argv)
    if not (os.environ.get("OPENAI_BASE_URL") and os.environ.get("OPENAI_MODEL")):
        print("Set OPENAI_BASE_URL and OPENAI_MODEL (and OPENAI_API_KEY).", file=sys.stderr)
        return 2
    if args.token:
        client = Client(args.url, args.token)
    elif args.user and args.password:
        client = Client.login(args.url, args.user, args.password)
    else:
        print("Give --token (or MAFIA_TOKEN), or --user and --password.", file=sys.stderr)
        return 2
    game = play_game(client, args.game, LlmAgent(Chat.from_env()))
    print(f"Game over: {game.winner} ({game.win_reason})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
