"""``client/examples/llm_agent.py`` against a stand-in chat server (the OpenAI
chat-completions wire format, scripted answers): it posts the scripted speech, votes and
acts at night for the scripted names, and falls back to a legal option when the answer
names none it may choose."""

from __future__ import annotations

import importlib.util
import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from mafia_client import Seat

from games.models import NightAction, Post
from tests.conftest import slot_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]

EXAMPLE = Path(__file__).resolve().parents[2] / "client" / "examples" / "llm_agent.py"


def example() -> Any:
    spec = importlib.util.spec_from_file_location("llm_agent", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ChatServer:
    """``POST /v1/chat/completions``: ``script(prompt)`` answers; every request is kept."""

    def __init__(self, script: Callable[[str], str]) -> None:
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                auth = self.headers.get("Authorization")
                outer.requests.append({"path": self.path, "body": body, "auth": auth})
                prompt = body["messages"][-1]["content"]
                data = json.dumps(
                    {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": script(prompt)},
                                "finish_reason": "stop",
                            }
                        ],
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()


@pytest.fixture
def chat_env(monkeypatch: Any) -> Iterator[Callable[[Callable[[str], str]], ChatServer]]:
    servers: list[ChatServer] = []

    def start(script: Callable[[str], str]) -> ChatServer:
        server = ChatServer(script)
        servers.append(server)
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_MODEL", "scripted-1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        return server

    yield start
    for server in servers:
        server.close()


def test_the_llm_agent_speaks_and_chooses_as_scripted(make_game, client_for, host, chat_env):
    llm = example()
    game = make_game("forum-cop-doctor-nine")
    cop, doctor = slot_of(game, "cop"), slot_of(game, "doctor")
    mafioso = next(s for s in game.slots.select_related("user") if s.is_mafia)
    speech = "I have a feeling about the quiet ones today."

    def script(prompt: str) -> str:
        if "Write your" in prompt:
            return speech
        if "vote" in prompt:
            return f"Hmm. I vote {mafioso.display_name}, final answer."
        if "investigate" in prompt or "check" in prompt:
            return f"Let me look at {mafioso.display_name}."
        return "Nobody-At-All, the ghost."  # names no one: the doctor falls back

    chat = chat_env(script)
    agent = llm.LlmAgent(llm.Chat.from_env())
    cop_client = client_for(cop.user)
    # Day 1, a forum day: one post with the speech, then a vote for the scripted name.
    assert Seat(cop_client, game.pk, agent).step()
    bodies = list(
        Post.objects.filter(game=game, slot=cop).order_by("number").values_list("body", flat=True)
    )
    assert bodies[0] == speech  # then the vote's own post
    wagons = cop_client.vote_count(game.pk).wagons
    assert [w.target.slot_id for w in wagons if cop.pk in {v.slot_id for v in w.voters}] == [
        mafioso.pk
    ]
    # The night: the cop checks the scripted name; the doctor's answer names nobody.
    client_for(host).post_json(f"games/{game.pk}/host/cut/")
    assert Seat(cop_client, game.pk, agent).step()
    doctor_client = client_for(doctor.user)
    legal = {c.slot_id for a in doctor_client.role(game.pk).abilities for c in a.choices}
    assert Seat(doctor_client, game.pk, agent).step()
    checked = NightAction.objects.get(actor=cop, phase__number=2)
    assert checked.targets == [mafioso.pk]
    protected = NightAction.objects.get(actor=doctor, phase__number=2)
    assert len(protected.targets) == 1 and protected.targets[0] in legal
    # The wire: chat-completions with the model, the key, and the options named.
    assert {r["path"] for r in chat.requests} == {"/v1/chat/completions"}
    assert {r["body"]["model"] for r in chat.requests} == {"scripted-1"}
    assert {r["auth"] for r in chat.requests} == {"Bearer sk-test"}
    asked = [r["body"]["messages"][-1]["content"] for r in chat.requests]
    assert any(mafioso.display_name in a and "Answer with one name" in a for a in asked)


def test_pick_name_takes_the_first_legal_name_named():
    llm = example()
    names = ["Ann", "Ann Lee", "Bob"]
    assert llm.pick_name("I think ann lee, then Bob", names) == "Ann Lee"
    assert llm.pick_name("Bob, surely. Not Ann.", names) == "Bob"
    assert llm.pick_name("Bobby and Annie", names) is None


def test_the_llm_agent_refuses_to_start_without_its_environment(monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert example().main(["--game", "1", "--token", "x"]) == 2
    assert "OPENAI_BASE_URL" in capsys.readouterr().err


def readme_agent() -> tuple[str, dict[str, Any]]:
    text = (EXAMPLE.parents[2] / "README.md").read_text()
    section = text[text.index("## Bots and agents") :]
    code = section[section.index("```python\n") + len("```python\n") :]
    code = code[: code.index("```")]
    namespace: dict[str, Any] = {"__name__": "readme_agent"}
    exec(compile(code, "README.md: Bots and agents", "exec"), namespace)
    return code, namespace


def test_the_readmes_agent_is_complete_and_plays(make_game, client_for, host):
    code, namespace = readme_agent()
    assert len(code.splitlines()) < 40
    agent = namespace["Suspicious"]()
    game = make_game("forum-cop-doctor-nine")
    cop = slot_of(game, "cop")
    cop_client = client_for(cop.user)
    assert Seat(cop_client, game.pk, agent).step()  # a forum day: a post and a vote
    assert Post.objects.filter(game=game, slot=cop, body__startswith="Someone here").exists()
    voters = {v.slot_id for w in cop_client.vote_count(game.pk).wagons for v in w.voters}
    assert cop.pk in voters
    client_for(host).post_json(f"games/{game.pk}/host/cut/")
    assert Seat(cop_client, game.pk, agent).step()  # the night: its ability, a legal target
    assert NightAction.objects.filter(actor=cop, phase__number=2).count() == 1
