"""Reads: what the pages, the API and the live layer show, decided once (selectors).

Each module answers one question without writing anything: who may see what
(``access``), what a player may do now (``options``: night and day actions and the vote),
the vote count (``vote_count``), a thread's pages (``thread``, ``thread_page``), the table
of a turn-based day (``table``), the role PM (``role_pm``), the phase history
(``phase_history``), the host's chores (``activity``) and the per-process cache of a game's
rows (``snapshot``). Reads import only the base modules (models, naming, display...), never
fragments, live, services, views or the API. This ``__init__`` imports nothing.
"""
