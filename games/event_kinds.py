"""The event kinds games/ emits (a placeholder: the live branch replaces it with the registry
of ``EventKind`` declarations; only the names are here, for the browser test's coverage)."""

from __future__ import annotations

KINDS: dict[str, None] = {
    name: None
    for name in [
        "absence",
        "absence_cancelled",
        "day_action",
        "day_ended",
        "day_shot",
        "deadline_changed",
        "game_created",
        "game_finished",
        "game_started",
        "hammer",
        "modkill",
        "night_action",
        "night_action_withdrawn",
        "night_ended",
        "nomination",
        "paused",
        "phase_report",
        "phase_started",
        "post",
        "private_result",
        "prod",
        "replaced",
        "replacement_needed",
        "replacement_queue",
        "resumed",
        "revote_started",
        "role_pm",
        "roles",
        "signup_joined",
        "signup_left",
        "table_vote_closed",
        "turn",
        "turn_notice",
        "unvote",
        "vote",
        "vote_count",
        "vote_refused",
        "wagon_locked",
        "your_turn",
    ]
}
