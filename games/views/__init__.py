"""The web pages. Views read through ``games.reads`` (what each person may see is decided
in ``games.reads.access``), render page parts with ``games.fragments`` (the same HTML the
live layer sends) and change state only through ``games.services``.

This package's ``__init__`` imports nothing: nothing below the views imports them.
"""
