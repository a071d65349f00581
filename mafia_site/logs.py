"""Logging filters the settings' ``LOGGING`` names."""

from __future__ import annotations

import logging

from django.core.exceptions import PermissionDenied


class RefusalWithoutTraceback(logging.Filter):
    """Django logs a refused request ("Forbidden (Permission denied): /path") with the
    PermissionDenied's traceback. A refusal is an answer, not a fault (a dead player opening
    their old team thread, a wrong password): its one line stays, the traceback goes, as for
    a 404."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], PermissionDenied):
            record.exc_info = None
            record.exc_text = None
        return True
