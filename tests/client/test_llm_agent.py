"""``client/examples/llm_agent.py`` against the client's stand-in chat server
(``mafia_client.standin``: the OpenAI chat-completions wire format, here with scripted
answers): it posts the scripted speech, votes and acts at night for the scripted names,
falls back to a legal option when the answer names none it may choose, and is told what a
person in its seat sees (the thread since its last turn, its role PM and results, the vote
count, the table) -- before, it was given the question and its options only."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mafia_client import Seat
from mafia_client.standin import StandInChat

from games.models import NightAction, Post, Thought
from tests.conftest import slot_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]

EXAMPLE = Path(__file__).resolve().parents[2] / "client" / "examples" / "llm_agent.py"


def example() -> Any:
    spec = importlib.util.spec_from_file_location("llm_agent", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["llm_agent"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def chat_env(monkeypatch: Any) -> Iterator[Callable[[Callable[[str], str]], StandInChat]]:
    """``chat_env(script)``: the client's stand-in chat server answering ``script(request)``
    (the prompt's last paragraph: what is asked), and the agent's environment set to it."""
    servers: list[StandInChat] = []

    def start(script: Callable[[str], str]) -> StandInChat:
        server = StandInChat(script=lambda prompt: script(prompt.rsplit("\n\n", 1)[-1]))
        servers.append(server.start())
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
    # Each choice went with the model's answer as its thoughts (read by nobody until the end).
    said = {(t.slot_id, t.act): t.text for t in Thought.objects.filter(game=game)}
    assert said[(cop.pk, "vote")] == f"Hmm. I vote {mafioso.display_name}, final answer."
    assert said[(cop.pk, "night_action")] == f"Let me look at {mafioso.display_name}."
    assert said[(doctor.pk, "night_action")] == "Nobody-At-All, the ghost."
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
    """The agent the manual shows (its "Bots and agents" page, once the README's)."""
    text = (EXAMPLE.parents[2] / "docs" / "agents" / "bots.md").read_text()
    section = text[text.index("# Bots and agents") :]
    code = section[section.index("```python\n") + len("```python\n") :]
    code = code[: code.index("```")]
    namespace: dict[str, Any] = {"__name__": "readme_agent"}
    exec(compile(code, "docs/agents/bots.md: Bots and agents", "exec"), namespace)
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


def test_the_llm_agent_sees_what_a_person_sees(make_game, client_for, host, chat_env):
    """Each prompt carries the thread since the seat's last turn (each post told once),
    its role PM and new results, the vote count and the table; earlier turns stay in the
    conversation."""
    llm = example()
    game = make_game("forum-cop-doctor-nine")
    seats = list(game.slots.select_related("user").order_by("seat"))
    cop = slot_of(game, "cop")
    mafia = [s for s in seats if s.is_mafia]
    town = [s for s in seats if not s.is_mafia and s.pk != cop.pk]
    victim = next(s for s in town if s.role != "doctor")

    def script(request: str) -> str:
        if "Write your" in request:
            return "Quiet people worry me."
        if "target with" in request:
            return mafia[0].display_name
        return town[0].display_name

    chat = chat_env(script)
    agent = llm.LlmAgent(llm.Chat.from_env())
    by = {s.pk: client_for(s.user) for s in seats}
    by[town[0].pk].post(game.pk, "ALPHA-LINE: I have a feeling about seat nine.")
    by[town[1].pk].vote(game.pk, mafia[1].pk)
    assert Seat(by[cop.pk], game.pk, agent).step()  # day 1: a post and a vote
    first = chat.requests[0]["body"]["messages"][-1]["content"]
    assert "ALPHA-LINE" in first and town[0].display_name in first  # the thread, by author
    assert "Vote count" in first and f"{mafia[1].display_name}: 1 ({town[1].display_name})" in first
    assert "Alive:" in first and victim.display_name in first  # the table
    assert "cop" in first.lower() and "Cop" in first  # the role PM, in the site's words
    # The night: the cop checks a mafioso, the mafia kill; day 2 tells the result, once.
    hosting = client_for(host)
    hosting.post_json(f"games/{game.pk}/host/cut/")
    assert Seat(by[cop.pk], game.pk, agent).step()
    kill = next(a for a in by[mafia[0].pk].role(game.pk).abilities if a.factional)
    by[mafia[0].pk].night_action(game.pk, kill.ability, [victim.pk])
    hosting.post_json(f"games/{game.pk}/host/cut/")
    by[town[0].pk].post(game.pk, "BETA-LINE: who did the cop look at?")
    told = len(chat.requests)
    assert Seat(by[cop.pk], game.pk, agent).step()  # day 2
    messages = chat.requests[told]["body"]["messages"]
    day2 = messages[-1]["content"]
    assert "BETA-LINE" in day2 and "ALPHA-LINE" not in day2  # since its last turn only
    assert "Your result" in day2 and mafia[0].display_name in day2
    assert f"Dead: {victim.display_name}" in day2
    assert any("ALPHA-LINE" in m["content"] for m in messages[:-1])  # remembered
    later = chat.requests[told + 1]["body"]["messages"][-1]["content"]
    assert "Your result" not in later  # told once


def test_the_stand_in_answers_in_the_openai_wire_format():
    import json
    import urllib.request

    with StandInChat(seed=3) as chat:

        def ask(prompt: str) -> dict[str, Any]:
            body = {"model": "x", "messages": [{"role": "user", "content": prompt}]}
            request = urllib.request.Request(
                chat.url + "/chat/completions",
                json.dumps(body).encode(),
                {"Content-Type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=10) as response:
                return json.loads(response.read())

        picked = ask("Whom? Answer with one name from: Ann Lee, Bob, skip.")
        assert picked["choices"][0]["message"]["content"] in ("Ann Lee", "Bob", "skip")
        said = ask("Write your speech in at most 4 words.")
        assert len(said["choices"][0]["message"]["content"].split()) <= 4
        used = said["usage"]
        assert used["prompt_tokens"] > 0 and used["completion_tokens"] > 0
        assert used["total_tokens"] == used["prompt_tokens"] + used["completion_tokens"]
        with urllib.request.urlopen(chat.url + "/models", timeout=10) as response:
            assert json.loads(response.read())["data"][0]["id"] == "stand-in"


def test_a_failing_chat_endpoint_falls_back_to_legal_moves(make_game, client_for, monkeypatch):
    """An endpoint that refuses (after its retries) leaves no seat silent: the post says
    little and the vote goes to a legal option."""
    llm = example()
    monkeypatch.setattr(llm, "RETRY_PAUSE", 0.0)
    with StandInChat() as gone:
        url = gone.url  # a port nobody listens on once it is closed
    game = make_game("forum-vanilla")
    seat = game.slots.select_related("user").order_by("seat").first()
    seat_client = client_for(seat.user)
    agent = llm.LlmAgent(llm.Chat(url, "nobody"))
    assert Seat(seat_client, game.pk, agent).step()
    assert Post.objects.filter(game=game, slot=seat, body="I have nothing to add.").exists()
    voters = {v.slot_id for w in seat_client.vote_count(game.pk).wagons for v in w.voters}
    assert seat.pk in voters and agent.chat.usage.calls == 0
