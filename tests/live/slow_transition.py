"""Test-only worker plug-in (``celery worker -I tests.live.slow_transition``).

Makes every phase transition pause INSIDE its database transaction, after the whole
transition has been written (votes counted, deaths, the next phase opened) and before the
commit, so a test can SIGKILL the worker at the worst moment. It touches the file named by
``SLOW_TRANSITION_MARKER`` when it starts sleeping.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from games.services import phases

_original = phases.after_phase
_seconds = float(os.environ.get("SLOW_TRANSITION_SECONDS", "30"))
_marker = Path(os.environ["SLOW_TRANSITION_MARKER"])


def _slow_after_phase(tx, next_kind):
    _original(tx, next_kind)
    _marker.write_text(f"{tx.game.pk}:{tx.game.phase_number}")
    time.sleep(_seconds)


phases.after_phase = _slow_after_phase
