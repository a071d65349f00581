"""A whole forum game played by people in headless Chromium, against the real stack.

One story, in order (each test is one chapter and needs the ones before it):

1. a host signs up and creates a game from a ready-made setup with short timers, seven
   people sign up and join, the host starts; each sees their own role PM, nobody else's;
2. an XSS payload posted by day renders inert on every page;
3. day 1: a bold ``Vote:`` in a post, a vote button, a vote inside a quote that does not
   count, the spectator's vote count redrawing within a second, the hammer ending the day
   on every open page;
4. night 1: the mafia agree in their chat and send the kill, the doctor protects, the cop
   investigates; the deadline passes (Celery) and every page turns to day 2 with the death;
   only the cop sees the result;
5. a stale night-action form sent after the deadline is refused, nothing changes;
6. the lynched player's post is refused;
7. the day-2 hammer gives the mafia parity: the game is won, and the archive shows every
   role, action, result and explanation.

Roles are dealt at random from the game's seed, so who is who is read off the host's
dashboard, never assumed.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from . import story as story_module
from .conftest import LOGS, SCREENSHOTS, chromium_watchdog
from .story import (
    HOST,
    LIVE_MS,
    LIVE_WITHIN_MS,
    PLAYERS,
    RELOADS_MS,
    Story,
    Window,
    assert_hidden,
    banner,
    click_vote,
    elapsed_ms,
    goto,
    messages,
    post_reply,
    role_words,
    visible_text,
    wagon,
)

pytestmark = pytest.mark.e2e

SEVEN = sorted(
    ["cop", "doctor", "goon", "goon", "vanilla_townie", "vanilla_townie", "vanilla_townie"]
)
TITLES = {
    "cop": "Town Cop",
    "doctor": "Town Doctor",
    "goon": "Mafia Goon",
    "vanilla_townie": "Town Vanilla Townie",
}
# The first night ends on its deadline: one minute is the shortest the host's form allows.
NIGHT_WAIT_MS = 120_000
XSS = (
    'Hello <script>window.__xss = "script"; alert("script")</script>\n\n'
    "<img src=x onerror=\"window.__xss = 'img'; alert('img')\">\n\n"
    "[url=javascript:window.__xss='bbcode']bbcode link[/url]\n\n"
    "[markdown link](javascript:window.__xss='md')\n\n"
    '<a href="javascript:alert(1)">raw link</a> <b onmouseover="alert(2)">bold</b>'
)


@pytest.fixture(scope="module")
def story(e2e_stack: Any, browser: Any, shot: Any) -> Iterator[Story]:
    story_module.BROWSER_LOG = LOGS
    s = Story(base_url=e2e_stack.base_url, browser=browser, shot=shot)
    yield s
    with chromium_watchdog():
        for person in s.people.values():
            with contextlib.suppress(Exception):  # a killed browser has nothing to close
                person.context.close()


def cast(story: Story) -> dict[str, str]:
    """Who plays what part in the story, from the dealt roles."""
    vanilla = story.by_role("vanilla_townie")
    goons = story.by_role("goon")
    return {
        "cop": story.by_role("cop")[0],
        "doctor": story.by_role("doctor")[0],
        "goon1": goons[0],
        "goon2": goons[1],
        "lynched": vanilla[0],  # day 1's wagon
        "victim": vanilla[1],  # night 1's kill
        "townie": vanilla[2],
    }


# -- 1 ------------------------------------------------------------------------------------
def test_1_host_creates_game_seven_join_each_sees_only_their_own_role(story: Story) -> None:
    host = story.person(HOST)
    page = host.page
    goto(page, "/games/new/")
    page.get_by_role("link", name="Cop and doctor nine-player").click()
    expect(page.locator("h1")).to_contain_text("Host a game")
    page.fill("#id_title", "E2E: a forum game in the browser")
    page.select_option("#id_vote_rule", "majority_hammer")
    # Seven players: the nine-player setup with three vanilla townies instead of five.
    changed = False
    for i in range(20):
        select = page.locator(f"select[name='roles-{i}-role']")
        if select.count() and select.input_value() == "vanilla_townie":
            page.fill(f"input[name='roles-{i}-count']", "3")
            changed = True
    assert changed, "the setup's role list has no vanilla_townie row"
    # The form speaks the game's words: display names and one-line help, not slugs.
    form_text = visible_text(page)
    for slug in ("vanilla_townie", "one_shot_bulletproof", "protectionStopsAllKills"):
        assert slug not in form_text, f"the create form shows {slug}"
    for name in ("Vanilla Townie (Town)", "Protection stops all kills", "X-Shot"):
        assert name in form_text, f"the create form lacks {name}"
    page.fill("#id_day_length", "10")
    page.select_option("#id_day_unit", "minutes")
    page.fill("#id_night_length", "1")
    page.select_option("#id_night_unit", "minutes")
    story.shot(page, "host-creates-game")
    page.get_by_role("button", name="Open sign-ups").click()
    expect(messages(page)).to_contain_text("open for sign-ups")
    story.game_url = re.match(r"^/games/\d+/", urlparse(page.url).path).group(0)
    # A spectator and the host watch the sign-ups fill, live.
    spectator = story.person("spectator", sign_up=False)
    goto(spectator.page, story.url())
    expect(banner(spectator.page)).to_contain_text("0 of 7")
    goto(page, story.url())
    story.mark_pages(["spectator", HOST])

    for name in PLAYERS:
        person = story.person(name, next_url=story.url())
        p = person.page
        if urlparse(p.url).path != story.url():
            goto(p, story.url())
        p.get_by_role("button", name="Join the game").click()
        expect(messages(p)).to_contain_text("You have joined")
    with story.soft("sign-ups: the spectator's and the host's open pages count the joins live"):
        expect(banner(spectator.page)).to_contain_text("7 of 7", timeout=LIVE_MS)
        expect(page.locator(".signup-table tbody tr")).to_have_count(7, timeout=LIVE_MS)
        assert story.not_reloaded(spectator.page) and story.not_reloaded(page)
    with story.soft("the host sees the role list during sign-ups"):
        expect(page.locator("#signups .role-list")).to_contain_text("Vanilla Townie")

    goto(page, story.url())
    expect(banner(page)).to_contain_text("7 of 7")
    story.shot(page, "signups-full")
    page.get_by_role("button", name="Start the game").click()
    expect(messages(page)).to_contain_text("The game has started")
    with story.soft("the spectator's open sign-ups page turns into day 1 by itself"):
        s_page = spectator.page
        # Every open sign-ups page reloads at the start: the whole page changes shape.
        expect(banner(s_page)).to_contain_text("Day 1", timeout=RELOADS_MS)
        expect(s_page.locator("#signups")).to_have_count(0, timeout=LIVE_MS)
        expect(s_page.get_by_text("Log in to join")).to_have_count(0)
        expect(s_page.locator(".post.auto-post", has_text="Day 1 begins")).to_have_count(1)
        expect(banner(s_page).locator("a[data-announcement]")).to_have_count(1)

    # The host sees every role; that is how the story learns who is who.
    goto(page, story.url("host/"))
    rows = page.locator("#host-roles tbody tr")
    expect(rows).to_have_count(7)
    for i in range(7):
        cells = rows.nth(i).locator("td")
        name = cells.nth(1).inner_text().split("\n")[0].strip()
        story.roles[name] = cells.nth(2).get_attribute("data-role")  # the slug, for the story
    story.shot(page, "host-dashboard-roles")
    assert sorted(story.roles) == sorted(PLAYERS)
    assert sorted(story.roles.values()) == SEVEN

    all_roles = set(SEVEN)
    for name in PLAYERS:
        own = story.roles[name]
        p = story.player(name).page
        goto(p, story.url("role/"))
        # A forum role PM, by display names: "You are a Town Cop.", never "vanilla_townie".
        expect(p.locator("#role-title")).to_contain_text(f"You are a {TITLES[own]}.")
        expect(p.locator("#win-condition")).to_be_visible()
        assert own not in visible_text(p), f"{name}'s role PM shows the slug {own}"
        for other in all_roles - {own}:
            assert_hidden(p, role_words(other), f"{name}'s role PM names {other}", SCREENSHOTS)
        if own == "goon":
            partner = next(n for n in story.by_role("goon") if n != name)
            expect(p.locator("#role-pm")).to_contain_text(partner)
        else:  # town learns nobody's alignment
            for goon in story.by_role("goon"):
                # As a whole name: "eve" is in "every mafia member" of the win condition.
                whole = re.compile(rf"\b{re.escape(goon)}\b")
                expect(p.locator("#role-pm")).not_to_contain_text(whole)
        if name in (story.by_role("cop")[0], story.by_role("goon")[0]):
            story.shot(p, f"role-pm-{own}")
        # The game thread (the main page from now on) shows no role at all.
        goto(p, story.url())
        expect(banner(p)).to_contain_text("Day 1")
        for role in all_roles - {own}:
            assert_hidden(p, role_words(role), f"{name}'s thread shows {role}", SCREENSHOTS)
    goto(spectator.page, story.url())
    expect(banner(spectator.page)).to_contain_text("Day 1")
    for role in all_roles:
        assert_hidden(spectator.page, role_words(role), f"spectator sees {role}", SCREENSHOTS)
    story.facts["cast"] = cast(story)
    story.finish("started")


# -- 2 ------------------------------------------------------------------------------------
def test_2_xss_payload_renders_inert(story: Story) -> None:
    story.need("started")
    who = story.facts["cast"]["doctor"]
    page = story.player(who).page
    spectator = story.spectator.page
    post_reply(page, XSS)
    mine = page.locator("#posts .post", has_text="bbcode link")
    expect(mine).to_have_count(1)
    with story.soft("the spectator's open thread shows the new post live"):
        expect(spectator.locator("#posts .post", has_text="bbcode link")).to_have_count(
            1, timeout=LIVE_MS
        )
    fresh = story.spectator.new_page()
    goto(fresh, story.url("?page=last"))
    page.wait_for_timeout(500)  # let a broken <img> fire its onerror, were it kept
    for label, p in (("poster", page), ("spectator (live)", spectator), ("reloaded", fresh)):
        post = p.locator("#posts .post", has_text="bbcode link")
        # Every page shows the post (the spectator's live): a missing one is a failure here,
        # never a page skipped.
        expect(post, f"{label}: the post is on the page").to_have_count(1)
        assert p.evaluate("typeof window.__xss") == "undefined", f"{label}: a payload ran"
        assert post.locator("script").count() == 0, f"{label}: a <script> survived"
        assert post.locator("[onerror], [onmouseover], [onclick]").count() == 0, label
        assert post.locator("a[href^='javascript' i]").count() == 0, f"{label}: javascript: URL"
        with story.soft(f"{label}: a refused [url=...] shows its text, not Markdown"):
            expect(post).not_to_contain_text("bbcode link](")
        # <img> is not an allowed tag (games.markup): the raw tag shows as text, never as
        # an element.
        assert post.locator("img").count() == 0, f"{label}: an <img> survived"
    assert story.dialogs == [], f"a dialog opened: {story.dialogs}"
    story.shot(fresh, "xss-inert")
    fresh.close()
    story.finish("xss")


# -- 3 ------------------------------------------------------------------------------------
def test_3_day_votes_live_quote_does_not_count_hammer_ends_day(story: Story) -> None:
    story.need("started")
    c = story.facts["cast"]
    target = c["lynched"]
    spectator = story.spectator.page
    timings = story.facts.setdefault("vote_to_screen_ms", [])

    def spectator_sees(count: int, what: str) -> None:
        start = time.monotonic()
        with story.soft(f"{what}: spectator's count shows ({count}) within {LIVE_WITHIN_MS} ms"):
            expect(wagon(spectator, target).locator(".count")).to_have_text(
                f"({count})", timeout=LIVE_WITHIN_MS
            )
            timings.append(elapsed_ms(start))

    story.mark_pages(["spectator"])
    # The cop votes with a bold "Vote:" in a post (names match case-insensitively).
    cop = story.player(c["cop"]).page
    goto(cop, story.url("?page=last"))
    post_reply(cop, f"Good morning. {target} has been awfully quiet.\n\n**Vote: {target.upper()}**")
    spectator_sees(1, "bold vote in a post")
    expect(wagon(cop, target).locator(".voters")).to_contain_text(c["cop"])

    # A goon clicks the vote button beside the name.
    click_vote(story.player(c["goon1"]).page, target)
    spectator_sees(2, "vote button")
    story.shot(spectator, "spectator-vote-count-live")
    with story.soft("the spectator's page was not reloaded"):
        assert story.not_reloaded(spectator)

    # The doctor quotes the cop's vote: a vote inside a quote counts for nothing.
    doc = story.player(c["doctor"]).page
    goto(doc, story.url("?page=last"))
    vote_post = doc.locator(f"#posts .post[data-author='{c['cop']}']", has_text="Vote")
    vote_post.locator("[data-quote]").click()
    box = doc.locator("#reply-body")
    expect(box).to_have_value(re.compile(r"\[quote=.*Vote: " + target.upper(), re.S))
    post_reply(doc, box.input_value() + "\nI'm not convinced yet.")
    expect(doc.locator("#posts .post", has_text="not convinced")).to_have_count(1)
    with story.soft("the spectator sees the quoting post live"):
        expect(spectator.locator("#posts .post", has_text="not convinced")).to_have_count(
            1, timeout=LIVE_MS
        )
    for label, p in (("the doctor's reloaded page", doc), ("the spectator's open page", spectator)):
        with story.soft(f"{label}: the quoted vote does not count"):
            expect(wagon(p, target).locator(".count")).to_have_text("(2)")
            expect(wagon(p, target).locator(".voters")).not_to_contain_text(c["doctor"])
            expect(p.locator("#vote-count")).to_contain_text(
                re.compile(r"Not voting.*" + c["doctor"], re.S)
            )
    story.shot(doc, "quoted-vote-does-not-count")

    # A vote for nobody counts for nothing, and the post says so, for everyone.
    post_reply(doc, "**Vote: nobodyhere**")
    refused = doc.locator("#posts .post", has_text="nobodyhere")
    expect(refused.locator(".vote-note")).to_contain_text("did not count")
    with story.soft("the spectator sees the refused vote marked on the post, live"):
        live_refused = spectator.locator("#posts .post", has_text="nobodyhere")
        expect(live_refused.locator(".vote-note")).to_contain_text("did not count", timeout=LIVE_MS)
    with story.soft("Quote links: none for the spectator, on the page's posts and live ones"):
        expect(spectator.locator("#posts .quote-link:visible")).to_have_count(0)
        expect(doc.locator("#posts .post").first.locator(".quote-link")).to_be_visible()
    story.shot(spectator, "refused-vote-marked")

    click_vote(story.player(c["goon2"]).page, target)
    spectator_sees(3, "third vote")
    with story.soft("the spectator's count shows L-1"):
        expect(wagon(spectator, target)).to_contain_text("L-1")

    # The hammer: the fourth vote of seven ends the day on every open page.
    hammerer = c["townie"]
    others = [n for n in story.people if n != hammerer]
    for n in others:
        if n in PLAYERS:  # the players' main pages: back on the thread, then left alone
            page = story.player(n).page
            if urlparse(page.url).path != story.url():
                goto(page, story.url("?page=last"))
    goto(story.host.page, story.url("host/"))
    # The wagon's target keeps a tab open without live updates: their reply box goes stale.
    stale = story.player(target).new_page()
    stale.route(re.compile(r"/static/js/live\.js"), lambda route: route.abort())
    goto(stale, story.url("?page=last"))
    expect(stale.locator("#reply-body")).to_be_visible()
    story.facts["dead_stale"] = stale
    story.mark_pages(others)
    click_vote(story.player(hammerer).page, target)
    window = Window(LIVE_MS)
    for n, page in story.main_pages().items():
        with story.soft(f"{n}'s open page turns to night"):
            expect(banner(page)).to_contain_text("Night 1", timeout=window.left())
            # The eliminated player's own page may reload: their access changed.
            if n not in (hammerer, target):
                assert story.not_reloaded(page), f"{n}'s page was reloaded"
        if n == HOST:
            continue
        with story.soft(f"{n}'s open page shows day 1's final count and the announcements"):
            count = page.locator("#vote-count")
            expect(count).to_contain_text("Final vote count, Day 1", timeout=window.left())
            expect(wagon(page, target).locator(".count")).to_have_text("(4)")
            expect(count).to_contain_text("With 7 alive it takes 4")
            said = page.locator("#posts .post.auto-post")
            expect(said.filter(has_text="has been eliminated")).to_contain_text(target)
            expect(said.filter(has_text="Night 1 begins")).to_have_count(1)
            expect(banner(page).locator("a[data-announcement]")).to_have_count(2)
    with story.soft("the lynched player is listed dead on the spectator's page"):
        expect(spectator.locator("#players .player-list.dead")).to_contain_text(target)
    story.shot(spectator, "hammer-night-spectator")
    story.shot(story.host.page, "hammer-night-host")
    # Day 1 may not be lost even if a live check failed: confirm on a fresh page.
    fresh = story.spectator.new_page()
    goto(fresh, story.url())
    expect(banner(fresh)).to_contain_text("Night 1")
    expect(fresh.locator("#players .player-list.dead")).to_contain_text(target)
    fresh.close()
    (LOGS / "vote-to-screen-ms.txt").write_text(" ".join(map(str, timings)) + "\n")
    story.finish("day1")


# -- 4 ------------------------------------------------------------------------------------
def test_4_night_actions_deadline_day_two_death_and_private_result(story: Story) -> None:
    story.need("day1")
    c = story.facts["cast"]
    victim = c["victim"]
    story.mark_pages()

    # A tab of the doctor's left open without live updates: its form goes stale at dawn.
    stale = story.player(c["doctor"]).new_page()
    stale.route(re.compile(r"/static/js/live\.js"), lambda route: route.abort())
    goto(stale, story.url("role/"))
    expect(stale.locator("#action-protect select")).to_be_visible()
    story.facts["stale_form"] = stale

    # The mafia agree in their chat...
    g1, g2 = story.player(c["goon1"]), story.player(c["goon2"])
    chat1, chat2 = g1.new_page(), g2.new_page()
    goto(chat1, story.url("t/mafia/"))
    goto(chat2, story.url("t/mafia/"))
    post_reply(chat1, f"Tonight: {victim}? The doctor will sit on the cop claim anyway.")
    with story.soft("the partner's open mafia chat shows the message live"):
        expect(chat2.locator("#posts .post", has_text="Tonight:")).to_have_count(1, timeout=LIVE_MS)
    goto(chat2, story.url("t/mafia/?page=last"))
    post_reply(chat2, f"Agreed, {victim}. I'll send it.")
    story.shot(chat2, "mafia-chat")
    # ...and one of them sends the shared kill.
    pm2 = g2.new_page()
    goto(pm2, story.url("role/"))
    pm2.select_option("#action-kill select", label=victim)
    pm2.locator("#action-kill button[type=submit]").click()
    expect(messages(pm2)).to_contain_text("Your kill action is in")
    # The doctor protects the cop, the cop investigates a goon.
    doc_pm = story.player(c["doctor"]).new_page()
    goto(doc_pm, story.url("role/"))
    doc_pm.select_option("#action-protect select", label=c["cop"])
    doc_pm.locator("#action-protect button[type=submit]").click()
    expect(messages(doc_pm)).to_contain_text("Your protect action is in")
    cop_pm = story.player(c["cop"]).new_page()
    goto(cop_pm, story.url("role/"))
    with story.soft("the role PM has the phase banner with its countdown"):
        expect(banner(cop_pm)).to_contain_text("Night 1")
        expect(banner(cop_pm).locator("time[data-countdown]")).to_contain_text("in ")
    cop_pm.select_option("#action-investigate select", label=c["goon1"])
    cop_pm.locator("#action-investigate button[type=submit]").click()
    expect(messages(cop_pm)).to_contain_text("Your investigate action is in")
    cop_pm.evaluate(f"{story_module.MARKER} = true")  # from here on it must update live
    story.shot(cop_pm, "cop-investigates")
    host_page = story.host.page
    with story.soft("the host's open dashboard lists the night's actions live, one notice"):
        night = host_page.locator("#phase-records .phase-record", has_text="Night 1")
        for ability in ("kill", "protect", "investigate"):
            expect(night.locator("tr", has_text=ability)).to_have_count(1, timeout=LIVE_MS)
        notices = host_page.locator("#live-notices .live-notice", has_text="Night action")
        expect(notices).to_have_count(1)
        assert story.not_reloaded(host_page), "the host's page was reloaded"
    story.shot(host_page, "host-night-actions-live")
    townie = story.player(c["townie"]).page
    with story.soft("a player's open thread at night: only the host posts"):
        expect(townie.locator("#reply")).to_contain_text("Nobody but the host posts")

    # Nothing of the night reaches the public.
    spectator = story.spectator.page
    for word in ("investigat", "protect", victim + " is"):
        assert word not in visible_text(spectator), f"spectator sees {word!r} at night"
    peek = story.spectator.new_page()
    response = goto(peek, story.url("t/mafia/"))
    assert response is not None and response.status == 404, "the mafia chat is readable"
    peek.close()

    # The deadline passes: every open page turns to day 2 and shows the death.
    story.wait_for_phase("Day 2", NIGHT_WAIT_MS)
    window = Window(LIVE_MS)
    for n, page in story.main_pages().items():
        with story.soft(f"{n}'s open page turns to day 2 with {victim}'s death"):
            expect(banner(page)).to_contain_text("Day 2", timeout=window.left())
            if n != victim:  # the victim's page may reload: their access changed
                assert story.not_reloaded(page), f"{n}'s page was reloaded"
            if n != HOST:
                dead = page.locator("#players .player-list.dead")
                expect(dead).to_contain_text(victim, timeout=window.left())
                expect(dead.locator("li", has_text=victim)).to_contain_text("killed at night")
                expect(page.locator("#players .player-list.alive")).to_contain_text(c["cop"])
                said = page.locator("#posts .post.auto-post")
                expect(said.filter(has_text="Night 1 is over")).to_contain_text(
                    f"{victim} was found dead"
                )
                expect(said.filter(has_text="Day 2 begins")).to_have_count(1)
                expect(page.locator("#vote-count")).to_contain_text("Vote count, Day 2")
    with story.soft("at dawn a player's open reply box opens by itself"):
        expect(townie.locator("#reply-body")).to_be_visible(timeout=LIVE_MS)
    with story.soft("the cop's open role PM turns to day: no night form, the result in"):
        expect(banner(cop_pm)).to_contain_text("Day 2", timeout=LIVE_MS)
        expect(cop_pm.locator("#night-actions form.night-action")).to_have_count(0)
        expect(cop_pm.locator("#night-actions")).not_to_contain_text("Withdraw")
        expect(cop_pm.locator("#results")).not_to_contain_text("No results yet")
        assert story.not_reloaded(cop_pm), "the cop's role PM was reloaded"
    story.shot(spectator, "day2-spectator-death")
    fresh = story.spectator.new_page()
    goto(fresh, story.url())
    expect(banner(fresh)).to_contain_text("Day 2")
    expect(fresh.locator("#players .player-list.dead li", has_text=victim)).to_contain_text(
        "killed at night"
    )
    fresh.close()

    # The cop, and only the cop, sees the result.
    result = f"Your investigation of {c['goon1']}: mafia"
    with story.soft("the cop's open role PM shows the result live"):
        expect(cop_pm.locator("body")).to_contain_text(result, timeout=LIVE_MS)
    goto(cop_pm, story.url("role/"))
    expect(cop_pm.locator("#results")).to_contain_text(result)
    story.shot(cop_pm, "cop-result")
    for name in PLAYERS:
        if name == c["cop"]:
            continue
        p = story.player(name).new_page()
        goto(p, story.url("role/"))
        assert "investigation" not in visible_text(p).lower(), f"{name}'s role PM shows it"
        p.close()
    for n, page in story.main_pages().items():
        if n not in (HOST, c["cop"]):
            assert "investigation" not in visible_text(page).lower(), f"{n}'s thread shows it"
    # Nor did it travel over anybody else's websocket (every frame each page received).
    for n in story.people:
        if n not in (HOST, c["cop"]):
            log = LOGS / f"browser-{n}.log"
            frames = log.read_text() if log.exists() else ""
            assert "Your investigation" not in frames, f"{n}'s websocket carried the result"
    story.finish("night1")


# -- 5 ------------------------------------------------------------------------------------
def test_5_stale_night_action_form_after_deadline_is_refused(story: Story) -> None:
    story.need("night1")
    c = story.facts["cast"]
    stale = story.facts["stale_form"]
    # Day 2 has begun (chapter 4), yet this tab still offers last night's form.
    expect(stale.locator("#action-protect select")).to_be_visible()
    stale.select_option("#action-protect select", label=c["goon2"])
    stale.locator("#action-protect button[type=submit]").click()
    refusal = stale.locator("#messages .message.error, #night-actions .form-errors")
    expect(refusal.first).to_be_visible()
    assert refusal.first.inner_text().strip(), "the refusal says nothing"
    story.shot(stale, "stale-night-form-refused")
    expect(stale.locator("#night-actions form.night-action")).to_have_count(0)
    expect(stale.locator("#night-actions")).to_contain_text("Night actions are sent at night")

    # Nothing else changed: same deaths, the night's record as it was, no new action.
    host = story.host.new_page()
    goto(host, story.url("host/"))
    night = host.locator(".phase-record", has=host.locator("h3", has_text="Night 1"))
    protect = night.locator("tr", has_text="protect")
    expect(protect).to_have_count(1)
    expect(protect).to_contain_text(c["cop"])
    expect(protect).not_to_contain_text(c["goon2"])
    day2 = host.locator(".phase-record", has=host.locator("h3", has_text="Day 2"))
    expect(day2.locator("tbody tr")).to_have_count(0)
    dead = host.locator("#host-roles tbody tr", has_text="killed at night")
    expect(dead).to_have_count(1)
    expect(banner(host)).to_contain_text("Day 2")
    host.close()
    story.finish("stale")


# -- 6 ------------------------------------------------------------------------------------
def test_6_dead_player_post_is_refused(story: Story) -> None:
    story.need("day1")
    page = story.facts["dead_stale"]  # opened while alive on day 1, never updated since
    page.locator("#reply-body").fill("I'm not dead yet! Vote the cop!")
    with page.expect_response(lambda r: r.request.method == "POST" and "/post/" in r.url):
        page.locator("#reply button[type=submit]").click()
    expect(messages(page)).to_contain_text(re.compile("dead", re.I))
    story.shot(page, "dead-post-refused")
    goto(page, story.url("?page=last"))
    expect(page.locator("#posts .post", has_text="not dead yet")).to_have_count(0)
    expect(page.locator("#reply")).to_contain_text("Dead players cannot post")
    story.finish("dead")


# -- 7 ------------------------------------------------------------------------------------
def test_7_game_runs_to_a_win_and_the_archive_reveals_everything(story: Story) -> None:
    story.need("night1")
    c = story.facts["cast"]
    target = c["doctor"]
    for name in (c["goon1"], c["goon2"], c["townie"]):
        # Back to the thread for the new day: its newest page, with the reply box of the day.
        goto(story.player(name).page, story.url("?page=last"))
    click_vote(story.player(c["goon1"]).page, target)
    click_vote(story.player(c["goon2"]).page, target)
    # Majority of five is three: the last vote is a bold one in a post, and hammers.
    townie = story.player(c["townie"]).page
    post_reply(townie, f"Fine. **Vote: {target}**")
    window = Window(RELOADS_MS)
    for n, page in story.main_pages().items():
        with story.soft(f"{n}'s open page announces the win"):
            # At the end everything becomes public: every page reloads to show it.
            expect(banner(page)).to_contain_text("Game over: Mafia wins", timeout=window.left())
    with story.soft("the end of the game is announced in the thread"):
        expect(
            story.spectator.page.locator("#posts .post.auto-post", has_text="The game is over")
        ).to_have_count(1, timeout=LIVE_MS)
    story.shot(story.spectator.page, "game-over-spectator")

    archive = story.spectator.new_page()
    goto(archive, story.url("archive/"))
    expect(archive.locator("#winner")).to_contain_text("Mafia wins")
    rows = archive.locator("#archive-roles tbody tr")
    expect(rows).to_have_count(7)
    for name, role in story.roles.items():
        expect(archive.locator("#archive-roles tbody tr", has_text=name)).to_contain_text(
            TITLES[role].split()[-1]
        )
    night = archive.locator(".phase-record", has=archive.locator("h3", has_text="Night 1"))
    expect(night.locator("tr", has_text="kill")).to_contain_text(c["victim"])
    expect(night.locator("tr", has_text="protect")).to_contain_text(c["cop"])
    expect(night.locator("tr", has_text="investigate")).to_contain_text(c["goon1"])
    expect(night.locator("ol.explanation li").first).to_be_visible()
    expect(night.locator("ol.explanation")).to_contain_text(c["victim"])
    expect(night.locator(".results")).to_contain_text(f"Your investigation of {c['goon1']}")
    for label, who in (("Day 1", c["lynched"]), ("Day 2", target)):
        day = archive.locator(".phase-record", has=archive.locator("h3", has_text=label))
        expect(day.locator("ol.explanation")).to_contain_text(who)
    story.shot(archive, "archive")
    assert story.dialogs == [], f"a dialog opened during the game: {story.dialogs}"
    story.finish("won")


# -- 8 ------------------------------------------------------------------------------------
def test_8_a_game_built_from_parts_plays_to_its_end(story: Story) -> None:
    """A second game, built from parts on the create form: a 1-shot day vigilante, a double
    voter, a loved townie, a serial killer and a goon. The day vigilante shoots the goon
    (announced in the thread, the shot spent), four votes do not eliminate the loved
    townie, the double voter's vote counts twice, and the serial killer's elimination wins
    the game for the town."""
    story.need("won")
    host = story.host.page
    goto(host, "/games/new/?setup=forum-third-party-ten")
    expect(host.locator("input[name='roles-0-mod_shots']")).to_have_value("1")
    host.fill("#id_title", "E2E: roles built from parts")
    # Seven players: drop the cop and the survivor, one goon instead of two.
    rows = {host.locator(f"select[name='roles-{i}-role']").input_value(): i for i in range(8)}
    host.select_option(f"select[name='roles-{rows['cop']}-role']", "")
    host.select_option(f"select[name='roles-{rows['survivor']}-role']", "")
    host.fill(f"input[name='roles-{rows['goon']}-count']", "1")
    host.fill("#id_day_length", "10")
    host.select_option("#id_day_unit", "minutes")
    host.fill("#id_night_length", "1")
    host.select_option("#id_night_unit", "minutes")
    story.shot(host, "parts-create-form")
    host.get_by_role("button", name="Open sign-ups").click()
    expect(messages(host)).to_contain_text("open for sign-ups")
    game = re.match(r"^/games/\d+/", urlparse(host.url).path).group(0)
    for name in PLAYERS:
        p = story.player(name).page
        goto(p, game)
        p.get_by_role("button", name="Join the game").click()
        expect(messages(p)).to_contain_text("You have joined")
    goto(host, game)
    host.get_by_role("button", name="Start the game").click()
    expect(messages(host)).to_contain_text("The game has started")
    goto(host, game + "host/")
    roles: dict[str, tuple[str, str]] = {}
    table = host.locator("#host-roles tbody tr")
    for i in range(7):
        cells = table.nth(i).locator("td")
        name = cells.nth(1).inner_text().split("\n")[0].strip()
        roles[name] = (
            cells.nth(2).get_attribute("data-role"),
            cells.nth(2).get_attribute("data-modifiers"),
        )
    who = {f"{r}:{m}": n for n, (r, m) in roles.items()}
    vig, double, loved = (
        who["day_vigilante:shots:1"],
        who["vanilla_townie:double_voter"],
        who["vanilla_townie:loved"],
    )
    sk, goon = who["serial_killer:"], who["goon:"]
    plain = [n for n, (r, m) in roles.items() if r == "vanilla_townie" and not m]

    # The day vigilante's role PM, by display names, with the shot to use.
    pm = story.player(vig).page
    goto(pm, game + "role/")
    expect(pm.locator("#role-title")).to_contain_text("You are a Town 1-Shot Day Vigilante.")
    expect(pm.locator("#shots-left")).to_contain_text("1")
    assert "shots:1" not in visible_text(pm) and "day_vigilante" not in visible_text(pm)
    pm.select_option("#day-day_kill select[name=target]", label=goon)
    pm.locator("#day-day_kill button[type=submit]").click()
    expect(messages(pm)).to_contain_text("Done")
    expect(pm.locator("#day-day_kill")).to_contain_text("used all 1")  # spent
    story.shot(pm, "parts-day-vig-spent")
    spectator = story.spectator.page
    goto(spectator, game + "?page=last")
    expect(spectator.locator("#posts .post", has_text="has been shot and dies")).to_contain_text(
        f"{goon} has been shot and dies"
    )
    expect(spectator.locator("#posts")).to_contain_text("They were a Goon.")

    # Six alive: majority 4. The double voter's vote counts twice; the loved townie needs 5.
    for name in (double, *plain):
        goto(story.player(name).page, game + "?page=last")
    click_vote(story.player(double).page, loved)
    goto(spectator, game)
    expect(wagon(spectator, loved).locator(".count")).to_have_text("(2)", timeout=LIVE_MS)
    click_vote(story.player(plain[0]).page, loved)
    click_vote(story.player(plain[1]).page, loved)  # 4 votes: a plain majority, not enough
    expect(wagon(spectator, loved).locator(".count")).to_have_text("(4)", timeout=LIVE_MS)
    expect(wagon(spectator, loved).locator(".ln")).to_have_text("L-1")
    expect(banner(spectator)).to_contain_text("Day 1")
    story.shot(spectator, "parts-loved-not-eliminated")
    # Everyone moves to the serial killer: 2 + 1 + 1 = 4 hammers.
    click_vote(story.player(double).page, sk)
    click_vote(story.player(plain[0]).page, sk)
    click_vote(story.player(plain[1]).page, sk)
    expect(banner(spectator)).to_contain_text("Game over: Town wins", timeout=LIVE_MS)
    archive = story.spectator.new_page()
    goto(archive, game + "archive/")
    expect(archive.locator("#winner")).to_contain_text("Town wins")
    expect(archive.locator("#archive-roles")).to_contain_text("Serial Killer")
    expect(archive.locator("#archive-roles")).to_contain_text("Double Voter")
    expect(archive.locator("#archive-roles")).to_contain_text("1-Shot")
    assert "serial_killer" not in visible_text(archive)
    story.shot(archive, "parts-archive")
    assert story.dialogs == [], f"a dialog opened: {story.dialogs}"
    story.finish("parts")
