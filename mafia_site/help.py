"""The manual at /help/: the files MkDocs built from docs/ (``mkdocs build -d var/help``:
scripts/run.sh and the Docker image build it), served as they are.

Only files under the built directory are ever served: a path that resolves outside it
(``../``, an absolute path) answers 400, a directory answers its ``index.html``, and
``static.serve`` sends the file (its type, Last-Modified, 304s). Where the manual was never
built, every /help/ address answers a page that says how to build it (never a 500)."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import cast

from django.conf import settings
from django.http import HttpRequest, HttpResponseBadRequest, HttpResponseRedirect
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.utils.csp import CSP
from django.utils.translation import gettext as _
from django.views.decorators.csp import csp_override
from django.views.decorators.http import require_safe
from django.views.static import serve


def help_dir() -> Path:
    """Where the built manual is: ``HELP_DIR`` if the settings name one, else var/help."""
    return Path(getattr(settings, "HELP_DIR", Path(settings.BASE_DIR) / "var" / "help"))


# The manual's pages are the theme's static HTML, built from this repository (no person's
# text is in them), and the theme needs a few inline scripts and styles: the site's strict
# policy, loosened for these pages alone.
SITE_CSP = cast("dict[str, Collection[str] | str]", settings.SECURE_CSP)  # the settings' shape
MANUAL_CSP: dict[str, Collection[str] | str] = {
    **SITE_CSP,
    "script-src": [CSP.SELF, CSP.UNSAFE_INLINE],
    "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
}


@require_safe
@csp_override(MANUAL_CSP)
def manual(request: HttpRequest, path: str = "") -> HttpResponseBase:
    root = help_dir()
    if not (root / "index.html").is_file():
        # Not an error of the asker's: the page they came for, saying how to get the manual.
        return render(request, "help_not_built.html", {"help_dir": root})
    try:
        target = (root / path).resolve()
    except (ValueError, OSError):  # a NUL byte, a name the file system refuses
        target = None
    if target is None or not target.is_relative_to(root.resolve()):  # "../", "/etc", a link out
        return HttpResponseBadRequest(_("No such page in the manual."), content_type="text/plain")
    if target.is_dir():
        if path and not path.endswith("/"):
            # MkDocs links pages relative to a directory's URL: /help/hosts would break them.
            return HttpResponseRedirect(f"{request.path}/")
        path += "index.html"
    return serve(request, path, document_root=str(root))
