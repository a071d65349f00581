"""The leaderboard's filter."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from games.forms import SiteForm

from .models import RatingSide
from .reads import WHO, WHO_LABELS


class LeaderboardFilterForm(SiteForm):
    """The leaderboard's filter (GET): who is ranked, on which side."""

    who = forms.ChoiceField(
        label=_("Players"),
        choices=[(w, WHO_LABELS[w]) for w in WHO],
        required=False,
        initial="both",
    )
    side = forms.ChoiceField(
        label=_("Side"), choices=RatingSide.choices, required=False, initial="overall"
    )

    def choice(self, name: str) -> str:
        """The valid value of a field, or its default (a bad filter shows the default)."""
        if self.is_valid() and self.cleaned_data.get(name):
            return self.cleaned_data[name]
        return self.fields[name].initial
