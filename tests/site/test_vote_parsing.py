"""Reading votes from posts as the forum rules say (rule 6): bold, whole words, not quoted."""

from __future__ import annotations

import pytest

from games.bold_votes import VoteIntent, find_vote, match_name
from games.markup import render_post


def vote_in(body: str) -> VoteIntent | None:
    return find_vote(render_post(body))


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("**Vote: Dredd**", VoteIntent("vote", "Dredd")),
        ("**vote dredd**", VoteIntent("vote", "dredd")),
        ("**VOTE:Dredd.**", VoteIntent("vote", "Dredd")),
        ("[b]Vote: Dredd[/b]", VoteIntent("vote", "Dredd")),
        ("[vote]Dredd[/vote]", VoteIntent("vote", "Dredd")),
        ("<b>Vote: Dredd</b>", None),  # raw HTML is text, not bold
        ("__Vote: Dredd__", VoteIntent("vote", "Dredd")),
        ("**Unvote: Dredd**", VoteIntent("unvote")),
        ("**Unvote**", VoteIntent("unvote")),
        ("**Un Vote**", VoteIntent("unvote")),
        ("**un vote: Dredd**", VoteIntent("unvote")),
        # Not votes: unbolded, abbreviated, partly bold, quoted, italic.
        ("Vote: Dredd", None),
        ("Unvote: Dredd", None),
        ("**V: Dredd**", None),
        ("**v: Dredd**", None),
        ("**UV**", None),
        ("**uv: Dredd**", None),
        ("*Vote: Dredd*", None),
        ("I **vote** for Dredd", VoteIntent("vote", "")),
        ("[quote=Ann]**Vote: Dredd**[/quote]", None),
        ("> **Vote: Dredd**", None),
        ("**Voted for Dredd yesterday**", None),
        ("**Votes matter**", None),
    ],
)
def test_what_counts_as_a_vote(body, expected):
    assert vote_in(body) == expected


def test_the_last_vote_in_a_post_stands():
    assert vote_in("**Vote: Ann** hmm no **Vote: Bob**") == VoteIntent("vote", "Bob")
    assert vote_in("**Vote: Ann** actually **Unvote**") == VoteIntent("unvote")
    assert vote_in("**Unvote** **Vote: Cat**") == VoteIntent("vote", "Cat")


def test_a_quoted_vote_does_not_override_the_posters_own():
    body = "**Vote: Ann**\n\n[quote=Bob]**Vote: Cat**[/quote]\n\nagreed"
    assert vote_in(body) == VoteIntent("vote", "Ann")


def test_nested_formatting_inside_bold_still_counts():
    assert vote_in("**Vote: *Dredd***") == VoteIntent("vote", "Dredd")


PLAYERS = {"Dredd": 1, "Drake": 2, "Ann": 3, "Annabel": 4, "skipper": 5}


@pytest.mark.parametrize(
    ("written", "key", "skip"),
    [
        ("Dredd", 1, False),
        ("dREDD", 1, False),
        ("Dr", None, False),  # ambiguous: Dredd or Drake
        ("Dred", 1, False),  # unambiguous prefix
        ("ann", 3, False),  # exact beats the prefix of Annabel
        ("Annab", 4, False),
        ("no lynch", None, True),
        ("No Elimination", None, True),
        ("skip", None, True),  # a keyword, though "skipper" starts with it
    ],
)
def test_name_matching(written, key, skip):
    match = match_name(written, PLAYERS)
    assert (match.key, match.skip) == (key, skip)


def test_name_matching_messages():
    assert "could mean Drake, Dredd" in match_name("Dr", PLAYERS).error
    assert match_name("Zed", PLAYERS).error == 'No living player is called "Zed".'
    assert "is dead" in match_name("Ghost", PLAYERS, dead=["Ghost"]).error
    assert 'no "no elimination" vote' in match_name("skip", PLAYERS, skip_allowed=False).error
    assert "names nobody" in match_name("", PLAYERS).error
